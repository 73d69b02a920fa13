//! The worker: a second binary of this package that Trunk builds into `worker.js` +
//! `worker_bg.wasm` (`www/worker_loader.js` starts it; see `www/index.html`). The page
//! starts two: one for simulation runs, one for describing and checking traces.
//!
//! It listens for [`ToWorker`] messages, handles each to the end in one go (the page
//! cancels a run by terminating the worker, so there is nothing to poll), and posts
//! [`FromWorker`] messages back, their byte buffers transferred. A panic becomes a
//! `Panicked` message before the module traps, so the page can say what happened and
//! start a fresh worker.

#[cfg(target_arch = "wasm32")]
fn main() {
    use proxima_web::protocol::{decode, encode, FromWorker, ToWorker};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    fn scope() -> DedicatedWorkerGlobalScope {
        js_sys::global().unchecked_into()
    }

    fn post(message: &FromWorker) {
        let (value, transfer) = encode(message);
        // If posting fails the page is gone; there is nobody left to tell.
        let _ = scope().post_message_with_transfer(&value, &transfer);
    }

    std::panic::set_hook(Box::new(|info| {
        let message = proxima_web::panic_message(info);
        web_sys::console::error_1(&JsValue::from_str(&format!("proxima worker: {message}")));
        post(&FromWorker::Panicked { message });
    }));

    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        match decode::<ToWorker>(event.data()) {
            Ok(request) => proxima_web::worker::handle(request, &js_sys::Date::now, &mut |m| post(&m)),
            // Both sides are this crate, so this means a stale page talking to a new worker.
            Err(e) => panic!("unreadable request from the page: {e}"),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&FromWorker::Ready);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the Proxima worker runs in a browser; build the site with `trunk build`");
}
