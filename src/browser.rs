//! The page's edges: local storage, the URL fragment, reading files, downloads, the
//! simulation worker, event listeners and the panic hook. Everything here touches a web
//! API; nothing here decides anything.

use crate::protocol::{FromWorker, ToWorker};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, ErrorEvent, Event, EventTarget, HtmlAnchorElement, MessageEvent, Url, Worker};

/// The local-storage key of the last scenario (a share code, so it is versioned and
/// checked like a link).
pub const STORAGE_KEY: &str = "proxima.scenario";

/// The fragment prefix of a share link: `#s=1.eyJ...`.
pub const HASH_PREFIX: &str = "#s=";

/// The worker's loader, relative to the page so that the site works under any sub-path.
/// Trunk writes it (`data-loader-shim`) beside `worker.js` and `worker_bg.wasm`.
pub const WORKER_URL: &str = "./worker_loader.js";

fn window() -> web_sys::Window {
    web_sys::window().expect("a window")
}

pub fn storage_get(key: &str) -> Option<String> {
    window().local_storage().ok().flatten()?.get_item(key).ok().flatten()
}

/// Saves a value; a full or disabled storage only means the scenario is not remembered.
pub fn storage_set(key: &str, value: &str) {
    if let Some(s) = window().local_storage().ok().flatten() {
        let _ = s.set_item(key, value);
    }
}

pub fn storage_remove(key: &str) {
    if let Some(s) = window().local_storage().ok().flatten() {
        let _ = s.remove_item(key);
    }
}

/// The share code in the URL's fragment, if there is one.
pub fn share_code_in_url() -> Option<String> {
    let hash = window().location().hash().ok()?;
    hash.strip_prefix(HASH_PREFIX).map(|c| c.to_string())
}

/// The page's URL with this share code as its fragment; also puts it in the address bar
/// (without adding a history entry or firing `hashchange`).
pub fn set_share_code_in_url(code: &str) -> String {
    let location = window().location();
    let href = location.href().unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default().to_string();
    let url = format!("{base}{HASH_PREFIX}{code}");
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
    url
}

/// Offers `text` as a file download, from a Blob URL: nothing leaves the browser.
pub fn download(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = Blob::new_with_str_sequence_and_options(&parts, &options) else { return };
    let Ok(url) = Url::create_object_url_with_blob(&blob) else { return };
    let document = window().document().expect("a document");
    if let Ok(a) = document.create_element("a").map(|e| e.unchecked_into::<HtmlAnchorElement>()) {
        a.set_href(&url);
        a.set_download(name);
        a.set_hidden(true);
        if let Some(body) = document.body() {
            let _ = body.append_child(&a);
            a.click();
            let _ = body.remove_child(&a);
        }
    }
    // Revoke later: some browsers start the download only after the click handler returns.
    let revoke = Closure::once_into_js(move || {
        let _ = Url::revoke_object_url(&url);
    });
    let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 10_000);
}

/// The bytes of a file the user picked or dropped.
pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await.map_err(|e| {
        format!(
            "{}: cannot read the file: {}",
            file.name(),
            e.as_string().unwrap_or_else(|| "the browser refused".into())
        )
    })?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// An event listener that is removed when dropped.
pub struct Listener {
    target: EventTarget,
    kind: &'static str,
    callback: Closure<dyn FnMut(Event)>,
}

impl Listener {
    pub fn new(target: &EventTarget, kind: &'static str, f: impl FnMut(Event) + 'static) -> Listener {
        let callback = Closure::<dyn FnMut(Event)>::new(f);
        let _ = target.add_event_listener_with_callback(kind, callback.as_ref().unchecked_ref());
        Listener { target: target.clone(), kind, callback }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback(self.kind, self.callback.as_ref().unchecked_ref());
    }
}

/// The page's end of the simulation worker.
///
/// Hand-written on `web_sys::Worker` rather than gloo-worker: the page must hear when the
/// worker dies (`onerror`, which gloo-worker does not surface), cancel a run by
/// terminating the worker (gloo-worker's bridge only asks it to stop, which a worker busy
/// running cannot hear), and start it from Trunk's loader file by URL (gloo-worker's
/// default loads it from a `blob:` URL, which the page's CSP `worker-src 'self'` forbids).
pub struct WorkerClient {
    worker: Worker,
    /// Cleared on terminate, so that events still queued from this worker are ignored.
    alive: Rc<Cell<bool>>,
    /// Requests posted before the worker said `Ready`. A message that reaches a worker
    /// before its wasm module has set `onmessage` would be lost, so they wait here.
    pending: Rc<RefCell<Option<Vec<String>>>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

impl WorkerClient {
    pub fn spawn(on_message: Rc<dyn Fn(FromWorker)>, on_error: Rc<dyn Fn(String)>) -> Result<WorkerClient, String> {
        let worker = Worker::new(WORKER_URL).map_err(|e| format!("cannot start the simulation worker: {e:?}"))?;
        let alive = Rc::new(Cell::new(true));
        let pending: Rc<RefCell<Option<Vec<String>>>> = Rc::new(RefCell::new(Some(Vec::new())));
        let on_message = {
            let alive = alive.clone();
            let on_error = on_error.clone();
            let pending = pending.clone();
            let worker = worker.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                if !alive.get() {
                    return;
                }
                let parsed = event.data().as_string().map(|t| serde_json::from_str::<FromWorker>(&t));
                match parsed {
                    Some(Ok(FromWorker::Ready)) => {
                        for text in pending.borrow_mut().take().unwrap_or_default() {
                            let _ = worker.post_message(&JsValue::from_str(&text));
                        }
                    }
                    Some(Ok(message)) => on_message(message),
                    _ => on_error("the worker sent a message the page cannot read".into()),
                }
            })
        };
        let on_error_closure = {
            let alive = alive.clone();
            Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
                event.prevent_default();
                if alive.replace(false) {
                    let what = event.message();
                    on_error(if what.is_empty() { "it failed to load or crashed".into() } else { what });
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error_closure.as_ref().unchecked_ref()));
        Ok(WorkerClient { worker, alive, pending, _on_message: on_message, _on_error: on_error_closure })
    }

    pub fn post(&self, message: &ToWorker) {
        let text = serde_json::to_string(message).expect("requests serialise");
        match self.pending.borrow_mut().as_mut() {
            Some(queue) => queue.push(text),
            None => {
                let _ = self.worker.post_message(&JsValue::from_str(&text));
            }
        }
    }

    /// Stops the worker at once, whatever it is doing.
    pub fn terminate(&self) {
        self.alive.set(false);
        self.worker.terminate();
    }
}

impl Drop for WorkerClient {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// Makes a panic on the page visible and recoverable: the message goes to the console and
/// to `www/boot.js` (a `proxima-panic` event), which shows it with a button to reload.
/// After a panic the wasm module is in an unknown state, so the page does not try to go
/// on; the scenario survives the reload because it is saved in local storage on every
/// change.
pub fn install_panic_hook() {
    yew::set_custom_panic_hook(Box::new(|info| {
        let message = crate::panic_message(info);
        web_sys::console::error_1(&JsValue::from_str(&format!("proxima: {message}")));
        let init = web_sys::CustomEventInit::new();
        init.set_detail(&JsValue::from_str(&message));
        if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict("proxima-panic", &init) {
            let _ = window().dispatch_event(&event);
        }
    }));
}

/// The animation loop's callback, shared with itself so that it can re-arm.
type FrameCallback = Rc<RefCell<Option<Closure<dyn FnMut(f64)>>>>;

/// Calls `frame` with the time in milliseconds on every animation frame until dropped.
pub struct AnimationLoop {
    handle: Rc<Cell<Option<i32>>>,
    // Kept alive while the loop runs; the closure re-arms itself through it.
    _callback: FrameCallback,
}

impl AnimationLoop {
    pub fn start(mut frame: impl FnMut(f64) + 'static) -> AnimationLoop {
        let handle = Rc::new(Cell::new(None));
        let callback: FrameCallback = Rc::new(RefCell::new(None));
        let again = callback.clone();
        let h = handle.clone();
        *callback.borrow_mut() = Some(Closure::new(move |t: f64| {
            frame(t);
            // Dropped meanwhile: the handle was cleared, do not re-arm.
            if h.get().is_some() {
                if let Some(cb) = again.borrow().as_ref() {
                    h.set(window().request_animation_frame(cb.as_ref().unchecked_ref()).ok());
                }
            }
        }));
        if let Some(cb) = callback.borrow().as_ref() {
            handle.set(window().request_animation_frame(cb.as_ref().unchecked_ref()).ok());
        }
        AnimationLoop { handle, _callback: callback }
    }
}

impl Drop for AnimationLoop {
    fn drop(&mut self) {
        if let Some(id) = self.handle.take() {
            let _ = window().cancel_animation_frame(id);
        }
        // Break the closure's reference to itself.
        self._callback.borrow_mut().take();
    }
}

/// Milliseconds from the page's clock (for frame timing).
pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

/// The screen's device pixels per CSS pixel.
pub fn device_pixel_ratio() -> f64 {
    window().device_pixel_ratio().max(1.0)
}
