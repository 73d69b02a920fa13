//! "Export animation (WebM)": the playback recorded as a short clip for slides (issue 24,
//! item 9). The browser's own encoder does it: the cluster's canvas as a video stream
//! (`HTMLCanvasElement.captureStream`) into a `MediaRecorder`, while the player plays the
//! run from its start to its end at a speed that makes a clip of at most [`CLIP_S`]
//! seconds; the clip is then downloaded from an object URL. No crate encodes video in the
//! page's module, which must stay small (the first visit's 1 MB).
//!
//! A browser without `MediaRecorder` or without a WebM type is told so, in words, beside
//! the button; nothing here panics on a missing API (each is looked for before it is used).

use super::{Player, PlayerAction};
use crate::browser;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobEvent, BlobPropertyBag, HtmlCanvasElement, MediaRecorder, MediaRecorderOptions};
use yew::prelude::*;

/// The longest clip, in seconds of video: short enough for a slide, long enough to follow.
pub const CLIP_S: f64 = 18.0;
/// Frames per second asked of the canvas's stream (the player draws once per animation
/// frame; the stream takes at most this many of them).
const FPS: f64 = 30.0;
/// The WebM types tried, best first: VP9 is smaller for the same picture; VP8 and the bare
/// type are what older browsers record.
pub const WEBM_TYPES: [&str; 3] = ["video/webm;codecs=vp9", "video/webm;codecs=vp8", "video/webm"];

/// The player's speed (simulated seconds per second) that plays a run ending at `end_s`
/// in at most [`CLIP_S`] seconds; never slower than real time, so that a short run makes a
/// short clip rather than a slow one.
pub fn clip_speed(end_s: f64) -> f64 {
    if end_s.is_finite() && end_s > 0.0 {
        (end_s / CLIP_S).max(1.0)
    } else {
        1.0
    }
}

/// The first of [`WEBM_TYPES`] that `supported` accepts (the browser's
/// `MediaRecorder.isTypeSupported`), if any.
pub fn webm_type(supported: impl Fn(&str) -> bool) -> Option<&'static str> {
    WEBM_TYPES.into_iter().find(|t| supported(t))
}

/// The clip's file name: the watched policy's spec with anything but letters, digits, `-`
/// and `_` made `-` (a spec like `dally:preempt=off` has characters file systems refuse).
pub fn clip_name(policy: Option<&str>) -> String {
    let name: String =
        policy.unwrap_or("run").chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' }).collect();
    format!("proxima-playback-{name}.webm")
}

/// Why this browser cannot record the canvas, if it cannot; else the WebM type to record.
fn recorder_type(canvas: &HtmlCanvasElement) -> Result<&'static str, String> {
    let has = |target: &JsValue, name: &str| js_sys::Reflect::has(target, &JsValue::from_str(name)).unwrap_or(false);
    if !has(&gloo::utils::window(), "MediaRecorder") {
        return Err(
            "This browser cannot record video (it has no MediaRecorder): use a recent Chrome, Edge or Firefox.".into(),
        );
    }
    if !has(canvas, "captureStream") {
        return Err(
            "This browser cannot record a canvas (no captureStream): use a recent Chrome, Edge or Firefox.".into()
        );
    }
    webm_type(MediaRecorder::is_type_supported).ok_or_else(|| {
        "This browser records video, but not as WebM (MediaRecorder.isTypeSupported refuses every WebM type): try Chrome, Edge or Firefox.".into()
    })
}

/// A recording under way: the recorder and the handlers it calls, kept alive until it
/// has stopped and handed over its clip.
struct Recording {
    recorder: MediaRecorder,
    _on_data: Closure<dyn FnMut(BlobEvent)>,
    _on_stop: Closure<dyn FnMut(web_sys::Event)>,
    /// The player's speed before the recording, given back after it.
    old_speed: f64,
    /// Whether the player has been seen playing: it stops at the run's end (or when
    /// paused), which ends the clip.
    seen_playing: bool,
    stopped: bool,
}

impl Recording {
    /// Starts recording `canvas` as `mime`; `done` gets the clip, or why there is none.
    fn start(
        canvas: &HtmlCanvasElement,
        mime: &str,
        old_speed: f64,
        done: Callback<Result<Blob, String>>,
    ) -> Result<Recording, String> {
        let stream = canvas.capture_stream_with_frame_request_rate(FPS).map_err(|e| describe(&e))?;
        let options = MediaRecorderOptions::new();
        options.set_mime_type(mime);
        let recorder = MediaRecorder::new_with_media_stream_and_media_recorder_options(&stream, &options)
            .map_err(|e| describe(&e))?;
        let chunks = Rc::new(RefCell::new(js_sys::Array::new()));
        let on_data = {
            let chunks = chunks.clone();
            Closure::<dyn FnMut(BlobEvent)>::new(move |e: BlobEvent| {
                if let Some(b) = e.data().filter(|b| b.size() > 0.0) {
                    chunks.borrow().push(&b);
                }
            })
        };
        let on_stop = {
            let mime = mime.split(';').next().unwrap_or("video/webm").to_string();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
                let bag = BlobPropertyBag::new();
                bag.set_type(&mime);
                let parts = chunks.replace(js_sys::Array::new());
                done.emit(Blob::new_with_blob_sequence_and_options(&parts, &bag).map_err(|e| describe(&e)));
            })
        };
        recorder.set_ondataavailable(Some(on_data.as_ref().unchecked_ref()));
        recorder.set_onstop(Some(on_stop.as_ref().unchecked_ref()));
        // A chunk a second, so that a long clip is not held in one buffer to the end.
        recorder.start_with_time_slice(1000).map_err(|e| describe(&e))?;
        Ok(Recording { recorder, _on_data: on_data, _on_stop: on_stop, old_speed, seen_playing: false, stopped: false })
    }

    fn stop(&mut self) {
        if !self.stopped {
            self.stopped = true;
            let _ = self.recorder.stop();
        }
    }
}

impl Drop for Recording {
    /// A recording dropped before its end (the player closed) is abandoned: its handlers
    /// go with it, so the recorder must not call them afterwards.
    fn drop(&mut self) {
        self.recorder.set_ondataavailable(None);
        self.recorder.set_onstop(None);
        self.stop();
    }
}

/// A JavaScript error in words.
fn describe(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_else(|| format!("{e:?}"))
}

/// What the export says beside its button.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Recording,
    Saved { name: String, bytes: u64 },
    Failed(String),
}

#[derive(Properties, PartialEq)]
pub struct ExportAnimationProps {
    pub dispatch: UseReducerDispatcher<Player>,
    pub playing: bool,
    pub speed: f64,
    pub end_s: f64,
    /// The player's element: the watched run's canvas is the first inside it.
    pub root: NodeRef,
    /// The watched run's policy, for the file's name.
    pub title: Option<String>,
}

/// The button, and the recording it starts: from the run's start to its end, then the
/// download.
#[component]
pub fn ExportAnimation(props: &ExportAnimationProps) -> Html {
    let recording = use_mut_ref(|| None::<Recording>);
    let status = use_state(|| None::<Status>);
    let on_click = {
        let (recording, status, d) = (recording.clone(), status.clone(), props.dispatch.clone());
        let (root, playing, speed, end_s) = (props.root.clone(), props.playing, props.speed, props.end_s);
        let name = clip_name(props.title.as_deref());
        Callback::from(move |_: MouseEvent| {
            if recording.borrow().as_ref().is_some_and(|r| !r.stopped) {
                return;
            }
            let canvas = root
                .cast::<web_sys::Element>()
                .and_then(|r| r.query_selector("canvas.cluster-canvas").ok().flatten())
                .and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok());
            let Some(canvas) = canvas else {
                return status.set(Some(Status::Failed("There is no cluster to record.".into())));
            };
            let done = {
                let (status, name) = (status.clone(), name.clone());
                Callback::from(move |clip: Result<Blob, String>| match clip {
                    Ok(blob) if blob.size() > 0.0 => {
                        let bytes = blob.size() as u64;
                        browser::download_blob(&name, gloo::file::Blob::from(blob));
                        status.set(Some(Status::Saved { name: name.clone(), bytes }));
                    }
                    Ok(_) => status.set(Some(Status::Failed("The browser recorded nothing.".into()))),
                    Err(e) => status.set(Some(Status::Failed(format!("The recording failed: {e}")))),
                })
            };
            let started = recorder_type(&canvas).and_then(|mime| Recording::start(&canvas, mime, speed, done));
            match started {
                Ok(r) => {
                    *recording.borrow_mut() = Some(r);
                    status.set(Some(Status::Recording));
                    d.dispatch(PlayerAction::Seek(0.0));
                    d.dispatch(PlayerAction::SetSpeed(clip_speed(end_s)));
                    if !playing {
                        d.dispatch(PlayerAction::TogglePlay);
                    }
                }
                Err(e) => status.set(Some(Status::Failed(e))),
            }
        })
    };
    // The player stops at the run's end (or when paused): the clip ends there, and the
    // player's own speed comes back.
    {
        let (recording, d) = (recording.clone(), props.dispatch.clone());
        use_effect_with(props.playing, move |&playing| {
            if let Some(r) = recording.borrow_mut().as_mut().filter(|r| !r.stopped) {
                if playing {
                    r.seen_playing = true;
                } else if r.seen_playing {
                    r.stop();
                    d.dispatch(PlayerAction::SetSpeed(r.old_speed));
                }
            }
        });
    }
    let busy = matches!(*status, Some(Status::Recording));
    let said = match &*status {
        None => html! {},
        Some(Status::Recording) => html! {
            <span class="status" role="status" data-testid="animation-status" data-state="recording">
                { format!("Recording the run from start to end (about {CLIP_S:.0} s of video)…") }
            </span>
        },
        Some(Status::Saved { name, bytes }) => html! {
            <span class="status" role="status" data-testid="animation-status" data-state="saved" data-bytes={bytes.to_string()}>
                { format!("Saved {name} ({:.0} KB).", *bytes as f64 / 1000.0) }
            </span>
        },
        Some(Status::Failed(e)) => html! {
            <span class="field-error" role="alert" data-testid="animation-status" data-state="failed">{ e.clone() }</span>
        },
    };
    html! {
        <div class="form-row export-animation">
            <button type="button" data-testid="export-animation" onclick={on_click} disabled={busy}
                    title={format!("Play the run from start to end in at most {CLIP_S:.0} s and download it as a WebM video, for slides")}>
                { "Export animation (WebM)" }
            </button>
            { said }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clip_plays_the_whole_run_in_at_most_its_length_never_slower_than_real_time() {
        assert_eq!(clip_speed(36_000.0), 2000.0);
        assert!(36_000.0 / clip_speed(36_000.0) <= CLIP_S);
        // A run shorter than the clip plays in real time; a run with no length at all too.
        assert_eq!(clip_speed(5.0), 1.0);
        assert_eq!(clip_speed(0.0), 1.0);
        assert_eq!(clip_speed(f64::NAN), 1.0);
    }

    #[test]
    fn the_best_webm_type_the_browser_takes_or_none() {
        assert_eq!(webm_type(|_| true), Some("video/webm;codecs=vp9"));
        assert_eq!(webm_type(|t| t != "video/webm;codecs=vp9"), Some("video/webm;codecs=vp8"));
        assert_eq!(webm_type(|t| t == "video/webm"), Some("video/webm"));
        // A browser that records only MP4 (Safari's MediaRecorder) has no WebM type.
        assert_eq!(webm_type(|t| t.starts_with("video/mp4")), None);
    }

    #[test]
    fn the_clip_is_named_after_its_policy_in_characters_any_file_system_takes() {
        assert_eq!(clip_name(Some("dally:preempt=off")), "proxima-playback-dally-preempt-off.webm");
        assert_eq!(clip_name(None), "proxima-playback-run.webm");
    }
}
