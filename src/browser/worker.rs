//! The page's end of a worker: [`WorkerClient`] on `web_sys::Worker`, and
//! [`use_sim_worker`], the hook that keeps one running for a component.
//!
//! Hand-written rather than gloo-worker: the page must hear when the worker dies
//! (`onerror`, which gloo-worker's bridge does not surface), and cancel a run by
//! terminating the worker (gloo-worker's bridge can only send it a message, which a
//! worker busy running a simulation cannot read until the run is over).

use crate::protocol::{decode, encode, FromWorker, ToWorker};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker};
use yew::prelude::*;

/// The worker's loader, relative to the page so that the site works under any sub-path.
/// It is `www/worker_loader.js`, which Trunk copies beside `worker.js` and `worker_bg.wasm`.
pub const WORKER_URL: &str = "./worker_loader.js";

/// A message ready to post: the value and the buffers it moves.
type Encoded = (JsValue, js_sys::Array);

pub struct WorkerClient {
    worker: Worker,
    /// Cleared on terminate, so that events still queued from this worker are ignored.
    alive: Rc<Cell<bool>>,
    /// Requests posted before the worker said `Ready`. A message that reaches a worker
    /// before its wasm module has set `onmessage` would be lost, so they wait here.
    pending: Rc<RefCell<Option<Vec<Encoded>>>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

impl WorkerClient {
    pub fn spawn(on_message: Rc<dyn Fn(FromWorker)>, on_error: Rc<dyn Fn(String)>) -> Result<WorkerClient, String> {
        let worker = Worker::new(WORKER_URL).map_err(|e| format!("cannot start the simulation worker: {e:?}"))?;
        let alive = Rc::new(Cell::new(true));
        let pending: Rc<RefCell<Option<Vec<Encoded>>>> = Rc::new(RefCell::new(Some(Vec::new())));
        let on_message = {
            let (alive, on_error, pending, worker) = (alive.clone(), on_error.clone(), pending.clone(), worker.clone());
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                if !alive.get() {
                    return;
                }
                match decode::<FromWorker>(event.data()) {
                    Ok(FromWorker::Ready) => {
                        for (value, transfer) in pending.borrow_mut().take().unwrap_or_default() {
                            let _ = worker.post_message_with_transfer(&value, &transfer);
                        }
                    }
                    Ok(message) => on_message(message),
                    Err(e) => on_error(format!("the worker sent a message the page cannot read ({e})")),
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

    /// Posts a request; its byte buffers move to the worker.
    pub fn post(&self, message: &ToWorker) {
        let (value, transfer) = encode(message);
        match self.pending.borrow_mut().as_mut() {
            Some(queue) => queue.push((value, transfer)),
            None => {
                let _ = self.worker.post_message_with_transfer(&value, &transfer);
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

/// A worker kept running for a component: see [`use_sim_worker`].
#[derive(Clone)]
pub struct SimWorker {
    slot: Rc<RefCell<Option<WorkerClient>>>,
    on_message: Callback<FromWorker>,
    on_crash: Callback<String>,
}

impl SimWorker {
    /// Posts a request, starting a worker first if none runs.
    pub fn post(&self, message: &ToWorker) {
        if self.slot.borrow().is_none() {
            self.spawn();
        }
        if let Some(worker) = self.slot.borrow().as_ref() {
            worker.post(message);
        }
    }

    /// Stops the worker mid-request and starts a fresh one (cancelling a run).
    pub fn restart(&self) {
        if let Some(old) = self.slot.borrow_mut().take() {
            old.terminate();
        }
        self.spawn();
    }

    fn stop(&self) {
        if let Some(old) = self.slot.borrow_mut().take() {
            old.terminate();
        }
    }

    /// Starts a worker whose messages go to `on_message`. A crash (a `Panicked` message
    /// or an error event) replaces it with a fresh one once the current event handler has
    /// returned (the handler belongs to the worker being replaced).
    fn spawn(&self) {
        let respawn = {
            let this = self.clone();
            Rc::new(move || {
                let this = this.clone();
                wasm_bindgen_futures::spawn_local(async move { this.restart() });
            })
        };
        let on_message: Rc<dyn Fn(FromWorker)> = {
            let (callback, respawn) = (self.on_message.clone(), respawn.clone());
            Rc::new(move |message: FromWorker| {
                let crashed = matches!(message, FromWorker::Panicked { .. });
                callback.emit(message);
                if crashed {
                    respawn();
                }
            })
        };
        let on_error: Rc<dyn Fn(String)> = {
            let callback = self.on_crash.clone();
            Rc::new(move |message: String| {
                callback.emit(message);
                respawn();
            })
        };
        match WorkerClient::spawn(on_message, on_error) {
            Ok(client) => *self.slot.borrow_mut() = Some(client),
            Err(e) => self.on_crash.emit(e),
        }
    }
}

/// A worker for the component's lifetime: started by the first request (so a page that
/// never runs a simulation never loads the worker's module, and the page's own module has
/// the network to itself while it loads); restarted after a crash; stopped when the
/// component goes. Its messages (`Panicked` included) go to `on_message`, the death of a
/// worker that could not say why to `on_crash`; both callbacks are those of the first
/// render.
#[hook]
pub fn use_sim_worker(on_message: Callback<FromWorker>, on_crash: Callback<String>) -> SimWorker {
    let slot = use_mut_ref(|| None::<WorkerClient>);
    let worker = use_memo((), |_| SimWorker { slot, on_message, on_crash });
    {
        let worker = (*worker).clone();
        use_effect_with((), move |_| move || worker.stop());
    }
    (*worker).clone()
}
