// What the app starts as its web worker (src/browser/worker.rs names ./worker_loader.js):
// loads wasm-bindgen's glue for the worker (src/bin/worker.rs, built by Trunk under fixed
// names), then the module next to it. Written here rather than by Trunk's loader shim,
// which calls the glue with the argument form wasm-bindgen deprecates and warns about.
importScripts('./worker.js');

// In a release build, scripts/precompress.mjs rewrites the next line to name the gzip
// copy of the module and its integrity hashes (the .gz's and the raw module's), so that a
// static server that compresses nothing still sends the module compressed; as it is here
// (`trunk serve`'s debug builds), the raw module is loaded.
const PACKED = null;

// As boot.js's: the copy unpacked, or as it came from a server that sent it with
// `Content-Encoding: gzip` (the browser has unpacked it then). A copy on purpose: boot.js
// is a module and this a classic worker script, so one shared definition would be a third
// file fetched before either module, a request more on the first visit's critical path
// for eight lines.
async function unpacked(response) {
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const body =
    bytes[0] === 0x1f && bytes[1] === 0x8b
      ? new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))
      : bytes;
  return new Response(body, { headers: { 'Content-Type': 'application/wasm' } });
}

wasm_bindgen({
  module_or_path:
    PACKED && typeof DecompressionStream === 'function'
      ? fetch(PACKED.url, { integrity: PACKED.integrity }).then(unpacked)
      : './worker_bg.wasm',
});
