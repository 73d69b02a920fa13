// Starts the app. Trunk would inject an inline <script> for this, but the page's
// Content-Security-Policy allows only the site's own files, so Trunk.toml's
// `pattern_script` puts a tag for this file in its place, carrying the hashed names of
// the wasm-bindgen module and the .wasm file. Both are resolved against the page, so
// the site works under any sub-path.
const tag = document.querySelector('script[data-proxima-js]');
const base = document.baseURI;
const { default: init } = await import(new URL(tag.dataset.proximaJs, base).href);
const wasm = await init({ module_or_path: new URL(tag.dataset.proximaWasm, base) });
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
