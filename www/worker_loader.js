// What the app starts as its web worker (src/browser/worker.rs names ./worker_loader.js):
// loads wasm-bindgen's glue for the worker (src/bin/worker.rs, built by Trunk under fixed
// names), then the module next to it. Written here rather than by Trunk's loader shim,
// which calls the glue with the argument form wasm-bindgen deprecates and warns about.
importScripts('./worker.js');
wasm_bindgen({ module_or_path: './worker_bg.wasm' });
