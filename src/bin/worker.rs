//! The simulation worker: a second binary of this package that Trunk builds into
//! `worker.js` + `worker_bg.wasm` (with `worker_loader.js` to start it; see `www/index.html`).
//!
//! It listens for [`ToWorker`] messages (JSON text), runs each request to the end in one
//! go (the page cancels by terminating the worker, so there is nothing to poll), and posts
//! [`FromWorker`] messages back. A panic becomes a `Panicked` message before the module
//! traps, so the page can say what happened and start a fresh worker.

#[cfg(target_arch = "wasm32")]
fn main() {
    use proxima_web::protocol::{FromWorker, ToWorker};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    fn scope() -> DedicatedWorkerGlobalScope {
        js_sys::global().unchecked_into()
    }

    fn post(message: &FromWorker) {
        let text = serde_json::to_string(message).expect("worker messages serialise");
        // If posting fails the page is gone; there is nobody left to tell.
        let _ = scope().post_message(&JsValue::from_str(&text));
    }

    std::panic::set_hook(Box::new(|info| {
        let message = proxima_web::panic_message(info);
        web_sys::console::error_1(&JsValue::from_str(&format!("proxima worker: {message}")));
        post(&FromWorker::Panicked { message });
    }));

    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        let Some(text) = event.data().as_string() else { return };
        match serde_json::from_str::<ToWorker>(&text) {
            Ok(ToWorker::Run(request)) => {
                let now = || js_sys::Date::now();
                proxima_web::runner::run_request(&request, &now, &mut |m| post(&m));
            }
            Ok(ToWorker::Crash) => panic!("crash requested by the page (a self-test)"),
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
