// Starts the app. The page's Content-Security-Policy allows only the site's own files,
// so this is a file, not an inline script; its tag in index.html carries the hashed names
// of the wasm-bindgen module and the .wasm file (Trunk writes the tag: pattern_script in
// Trunk.toml). Both are resolved against the page, so the site works under any sub-path.
//
// It also shows a crash of the app. After a Rust panic the wasm module is in an unknown
// state, so the message is drawn here, in plain DOM, with a button to reload; the
// scenario survives the reload (the app saves it in local storage on every change).
// Text goes in with textContent only, never as HTML.

function showCrash(message) {
  if (document.getElementById('proxima-crash')) return;
  const box = document.createElement('div');
  box.id = 'proxima-crash';
  box.className = 'banner error crash';
  box.setAttribute('role', 'alert');
  box.dataset.testid = 'panic-banner';
  const title = document.createElement('strong');
  title.textContent = 'Proxima stopped because of a bug. ';
  const text = document.createElement('span');
  text.textContent = `${message} Your scenario is saved: reload to carry on.`;
  const reload = document.createElement('button');
  reload.type = 'button';
  reload.textContent = 'Reload';
  reload.addEventListener('click', () => location.reload());
  box.append(title, text, ' ', reload);
  document.body.prepend(box);
  reload.focus();
}

addEventListener('proxima-panic', (e) => showCrash(String(e.detail)));

// The skip link (the page's first element, in the static page and then in the app, which
// replaces the body's content when it mounts) puts the focus on Run itself, not only on
// its panel, once the app is there.
document.addEventListener('click', (e) => {
  if (!(e.target instanceof Element) || !e.target.closest('.skip-link')) return;
  const run = document.querySelector('[data-testid=run-button]');
  if (!run) return;
  e.preventDefault();
  run.scrollIntoView({ block: 'center' });
  run.focus();
});

// The .wasm is fetched here, with the integrity hash and the CORS mode of the preload Trunk
// wrote for it: a fetch that matched neither would download the module a second time
// (Chromium warns that the preload went unused), and this way the module is checked
// against its hash as the style sheets and the glue are. `integrity` is the hash to use
// where no preload names `url`.
function fetchWasm(url, integrity = '') {
  const preload = [...document.querySelectorAll('link[rel=preload][as=fetch]')].find(
    (link) => link.href === url.href,
  );
  return fetch(url, { integrity: preload?.integrity ?? integrity, mode: 'cors', credentials: 'same-origin' });
}

// The module as a response wasm-bindgen's glue can compile while it unpacks: the gzip
// copy's bytes unpacked (DecompressionStream), or, from a server that sent the copy with
// `Content-Encoding: gzip` and so had the browser unpack it already, the bytes as they are
// (a .wasm starts with "\0asm", a gzip stream with 1f 8b). The copy's integrity hash lists
// both the .gz's hash and the raw module's for that reason.
async function unpacked(response) {
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const body =
    bytes[0] === 0x1f && bytes[1] === 0x8b
      ? new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))
      : bytes;
  return new Response(body, { headers: { 'Content-Type': 'application/wasm' } });
}

// The page's module. A release build names a gzip copy of it on this script's tag
// (data-proxima-wasm-gz, written by scripts/precompress.mjs, which also points the preload
// at it), so that a static server that compresses nothing still sends the module
// compressed; without the copy (`trunk serve`'s debug builds) or without
// DecompressionStream, the .wasm itself, checked against its own hash.
function pageWasm(tag) {
  const { proximaWasm, proximaWasmGz, proximaWasmIntegrity } = tag.dataset;
  if (proximaWasmGz && typeof DecompressionStream === 'function') {
    return fetchWasm(new URL(proximaWasmGz, base)).then(unpacked);
  }
  return fetchWasm(new URL(proximaWasm, base), proximaWasmIntegrity);
}

const tag = document.querySelector('script[data-proxima-js]');
const base = document.baseURI;
try {
  // `glue.default`, not `{ default: init }`: Trunk's minifier cannot parse `default` as a
  // property name in a pattern.
  const glue = await import(new URL(tag.dataset.proximaJs, base).href);
  await glue.default({ module_or_path: pageWasm(tag) });
  // The app has mounted: the static introduction and its loading line give way to it.
  document.getElementById('boot')?.remove();
} catch (err) {
  // A panic while starting arrives here as a wasm trap, after the panic event.
  const loading = document.querySelector('#boot .loading');
  if (loading) loading.textContent = 'The simulator could not start.';
  showCrash(`The app could not start: ${err}.`);
  throw err;
}
