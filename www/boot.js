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
// against its hash as the style sheets and the glue are.
function fetchWasm(url) {
  const preload = [...document.querySelectorAll('link[rel=preload][as=fetch]')].find(
    (link) => link.href === url.href,
  );
  const integrity = preload?.integrity ?? '';
  return fetch(url, { integrity, mode: 'cors', credentials: 'same-origin' });
}

const tag = document.querySelector('script[data-proxima-js]');
const base = document.baseURI;
try {
  // `glue.default`, not `{ default: init }`: Trunk's minifier cannot parse `default` as a
  // property name in a pattern.
  const glue = await import(new URL(tag.dataset.proximaJs, base).href);
  await glue.default({ module_or_path: fetchWasm(new URL(tag.dataset.proximaWasm, base)) });
  // The app has mounted: the static introduction and its loading line give way to it.
  document.getElementById('boot')?.remove();
} catch (err) {
  // A panic while starting arrives here as a wasm trap, after the panic event.
  const loading = document.querySelector('#boot .loading');
  if (loading) loading.textContent = 'The simulator could not start.';
  showCrash(`The app could not start: ${err}.`);
  throw err;
}
