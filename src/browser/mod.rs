//! The page's edges: local storage, the URL fragment, reading files, downloads, timers,
//! animation frames, the panic hook, and the workers ([`worker`]). Everything here touches
//! a web API (through gloo where it has one); nothing here decides anything.

pub mod worker;

use gloo::storage::{LocalStorage, Storage};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The local-storage key of the last scenario (a share code, so it is versioned and
/// checked like a link).
pub const STORAGE_KEY: &str = "proxima.scenario";

fn window() -> web_sys::Window {
    gloo::utils::window()
}

/// Local storage can be switched off (or refused to a page); gloo's storage then throws,
/// so every use asks first. Without it the scenario is simply not remembered.
fn storage_available() -> bool {
    window().local_storage().ok().flatten().is_some()
}

/// The saved scenario's share code: `None` if nothing is saved, `Err` if what is saved
/// cannot be read. The code is kept as a JSON string (gloo's storage); earlier versions
/// kept it bare, which is still read, as a share code.
pub fn saved_scenario() -> Option<Result<String, String>> {
    if !storage_available() {
        return None;
    }
    match LocalStorage::get::<String>(STORAGE_KEY) {
        Ok(code) => Some(Ok(code)),
        Err(gloo::storage::errors::StorageError::KeyNotFound(_)) => None,
        Err(gloo::storage::errors::StorageError::SerdeError(_)) => {
            LocalStorage::raw().get_item(STORAGE_KEY).ok().flatten().map(Ok)
        }
        Err(e) => Some(Err(format!("local storage could not be read: {e}"))),
    }
}

/// Saves the scenario's share code; a full or disabled storage only means the scenario is
/// not remembered.
pub fn save_scenario(code: &str) {
    if storage_available() {
        let _ = LocalStorage::set(STORAGE_KEY, code);
    }
}

/// The local-storage key of the playback's projector mode ("on" or "off").
pub const PROJECTOR_KEY: &str = "proxima.projector";

/// Whether the playback starts in projector mode: `?projector` in the URL (or
/// `?projector=off`), else the last choice saved, else off.
pub fn projector_setting() -> bool {
    let search = window().location().search().unwrap_or_default();
    let asked = search.trim_start_matches('?').split('&').find_map(|p| {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        (k == "projector").then_some(!matches!(v, "0" | "off" | "false"))
    });
    if let Some(on) = asked {
        return on;
    }
    storage_available() && LocalStorage::raw().get_item(PROJECTOR_KEY).ok().flatten().as_deref() == Some("on")
}

/// Remembers the projector mode (nothing happens without local storage).
pub fn save_projector(on: bool) {
    if storage_available() {
        let _ = LocalStorage::raw().set_item(PROJECTOR_KEY, if on { "on" } else { "off" });
    }
}

/// The URL's fragment, with its `#` (empty if it has none); `state::link` reads it.
pub fn fragment() -> String {
    window().location().hash().unwrap_or_default()
}

/// The page's URL with this fragment (`#...`, or empty for none); also puts it in the
/// address bar (without adding a history entry or firing `hashchange`).
pub fn set_fragment(fragment: &str) -> String {
    let href = window().location().href().unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default().to_string();
    let url = format!("{base}{fragment}");
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
    url
}

/// How long a download's object URL lives: some browsers start the download only after
/// the click handler has returned.
const DOWNLOAD_URL_LIFETIME_MS: u32 = 10_000;

/// Offers `bytes` as a file download, from an object URL: nothing leaves the browser.
pub fn download(name: &str, mime: &str, bytes: &[u8]) {
    download_blob(name, gloo::file::Blob::new_with_options(bytes, Some(mime)));
}

/// Offers a blob the browser made (a recorded clip) as a file download, as [`download`].
pub fn download_blob(name: &str, blob: gloo::file::Blob) {
    let url = gloo::file::ObjectUrl::from(blob);
    let document = gloo::utils::document();
    if let Ok(a) = document.create_element("a").map(|e| e.unchecked_into::<web_sys::HtmlAnchorElement>()) {
        a.set_href(&url);
        a.set_download(name);
        a.set_hidden(true);
        if let Some(body) = document.body() {
            let _ = body.append_child(&a);
            a.click();
            let _ = body.remove_child(&a);
        }
    }
    // The URL is revoked when it is dropped, after a while.
    gloo::timers::callback::Timeout::new(DOWNLOAD_URL_LIFETIME_MS, move || drop(url)).forget();
}

/// The bytes of a file the user picked or dropped.
pub async fn read_file(file: web_sys::File) -> Result<Vec<u8>, String> {
    let file = gloo::file::File::from(file);
    gloo::file::futures::read_as_bytes(&file).await.map_err(|e| format!("{}: cannot read the file: {e}", file.name()))
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

/// Calls `frame` with the time in milliseconds on every animation frame until dropped.
pub struct AnimationLoop {
    // The frame requested next: dropping it cancels it, which ends the loop.
    next: Rc<RefCell<Option<gloo::render::AnimationFrame>>>,
}

impl AnimationLoop {
    pub fn start(frame: impl FnMut(f64) + 'static) -> AnimationLoop {
        let next = Rc::new(RefCell::new(None));
        let frame: Rc<RefCell<dyn FnMut(f64)>> = Rc::new(RefCell::new(frame));
        request(Rc::downgrade(&next), frame);
        AnimationLoop { next }
    }
}

/// Asks for the next frame. The slot is held weakly, so that a frame that arrives after
/// the loop was dropped does not re-arm it.
fn request(slot: std::rc::Weak<RefCell<Option<gloo::render::AnimationFrame>>>, frame: Rc<RefCell<dyn FnMut(f64)>>) {
    let Some(strong) = slot.upgrade() else { return };
    let handle = gloo::render::request_animation_frame(move |t| {
        (frame.borrow_mut())(t);
        request(slot, frame);
    });
    *strong.borrow_mut() = Some(handle);
}

impl Drop for AnimationLoop {
    fn drop(&mut self) {
        self.next.borrow_mut().take();
    }
}

/// Milliseconds from the page's clock (for frame timing).
pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

/// Device pixels per CSS pixel (2 on most HiDPI screens; browser zoom changes it).
pub fn device_pixel_ratio() -> f64 {
    let r = window().device_pixel_ratio();
    if r.is_finite() && r > 0.0 {
        r
    } else {
        1.0
    }
}

/// Calls `changed` on the next animation frame whenever `element`'s box has changed size,
/// until dropped: a panel can narrow without any window event (a second pane opened
/// beside it), and what is drawn to fit it can follow before the next paint but one.
///
/// The box is watched in device pixels (`device-pixel-content-box`), so one observer sees
/// every change the canvas must follow: the window or a pane resized, full screen entered
/// or left, the browser zoomed, and the window moved to a screen of another pixel ratio
/// (the CSS size stays, the device size does not). A browser without that box option
/// (Safari) watches the CSS box instead, and a change of screen there is noticed at the
/// next draw.
pub struct ResizeWatch {
    observer: web_sys::ResizeObserver,
    // Held for as long as the observer may call it; it holds the frame asked for.
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl ResizeWatch {
    /// `None` where the browser has no ResizeObserver (every current one has).
    pub fn start(element: &web_sys::Element, changed: impl Fn() + 'static) -> Option<ResizeWatch> {
        let changed = Rc::new(changed);
        let next_frame = RefCell::new(None::<gloo::render::AnimationFrame>);
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| {
            // On the next frame, not here: drawing to the new size can change the box's
            // height, which the observer would then have to report within this same
            // round, and the browser reports that as an error ("ResizeObserver loop
            // completed with undelivered notifications").
            let changed = changed.clone();
            *next_frame.borrow_mut() = Some(gloo::render::request_animation_frame(move |_| changed()));
        });
        let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        // Called through Reflect so that a browser refusing the option throws into a
        // `Result` here rather than through the bindings, which would abort the page.
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&options, &"box".into(), &"device-pixel-content-box".into());
        let observe = js_sys::Reflect::get(&observer, &"observe".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
        if observe.call2(&observer, element, &options).is_err() {
            observer.observe(element);
        }
        Some(ResizeWatch { observer, _callback: callback })
    }
}

impl Drop for ResizeWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
