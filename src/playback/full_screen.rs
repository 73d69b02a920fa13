//! Full screen for a player: its root covers the whole screen, the controls fold into one
//! compact bar and the canvas and the subtitle are sized to the screen (the CSS of
//! `.player.full-screen` in www/playback.css; the canvas measures the room its box is
//! given, [`super::cluster`]).
//!
//! The browser's Fullscreen API is asked first, so that the browser's own frame and the
//! operating system's bars go too; where it refuses (a page in a frame that does not allow
//! it, a phone browser that offers full screen to videos only), the same class still makes
//! the player cover the window, which is what a projector shows. Escape leaves either: the
//! browser's own full screen ends on Escape by itself (and says so with `fullscreenchange`),
//! the window-covering one on the player's key handler, or on a key pressed anywhere else
//! in the page while it is on.

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, KeyboardEvent};
use yew::prelude::*;

/// A player's full-screen state and the callbacks that change it.
#[derive(Clone, PartialEq)]
pub struct FullScreen {
    /// Whether the player covers the screen now.
    pub on: bool,
    /// Enters full screen, or leaves it.
    pub toggle: Callback<()>,
    /// Leaves full screen (nothing when it is off).
    pub leave: Callback<()>,
}

/// Whether a key leaves full screen: Escape, while it is on.
pub fn leaves_full_screen(key: &str, on: bool) -> bool {
    on && matches!(key, "Escape" | "Esc")
}

/// The full-screen state of the player whose root is `root`.
#[hook]
pub fn use_full_screen(root: NodeRef) -> FullScreen {
    let on = use_state_eq(|| false);
    let leave = {
        let on = on.clone();
        Callback::from(move |_: ()| {
            let document = gloo::utils::document();
            if document.fullscreen_element().is_some() {
                document.exit_fullscreen();
            }
            on.set(false);
        })
    };
    let toggle = {
        let (on, leave, root) = (on.clone(), leave.clone(), root.clone());
        Callback::from(move |_: ()| {
            if *on {
                leave.emit(());
                return;
            }
            on.set(true);
            if let Some(el) = root.cast::<HtmlElement>() {
                // Refused or unsupported, the class alone covers the window. The promise (which
                // the binding drops, hence Reflect) is awaited so that a refusal, expected there,
                // is not reported as an unhandled rejection.
                if gloo::utils::document().fullscreen_enabled() {
                    if let Some(promise) = request_fullscreen(&el) {
                        wasm_bindgen_futures::spawn_local(async move {
                            let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
                        });
                    }
                }
                // The keys (Space, arrows, Escape) go to the player from the start.
                let _ = el.focus();
            }
        })
    };
    // While on: the browser's own full screen ended (its Escape, or another element taking
    // it) ends ours; Escape pressed outside the player (whose handler stops it) ends it too.
    {
        let (on_now, leave) = (*on, leave.clone());
        let on = on.clone();
        use_effect_with(on_now, move |&active| {
            let listeners = active.then(|| {
                let document = gloo::utils::document();
                let changed = EventListener::new(&document, "fullscreenchange", move |_| {
                    if gloo::utils::document().fullscreen_element().is_none() {
                        on.set(false);
                    }
                });
                let keys = EventListener::new(&document, "keydown", move |e| {
                    if let Some(e) = e.dyn_ref::<KeyboardEvent>() {
                        if leaves_full_screen(&e.key(), true) {
                            leave.emit(());
                        }
                    }
                });
                (changed, keys)
            });
            move || drop(listeners)
        });
    }
    FullScreen { on: *on, toggle, leave }
}

/// `element.requestFullscreen()`'s promise, where the browser has the method.
fn request_fullscreen(element: &HtmlElement) -> Option<js_sys::Promise> {
    let method =
        js_sys::Reflect::get(element, &"requestFullscreen".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    method.call0(element).ok()?.dyn_into::<js_sys::Promise>().ok()
}
