//! Browser tests of the topology editor, playback and the guided tour: every editor action
//! and its undo, through the editor's own buttons, keys and pointer; the playback player;
//! the guided introduction's runs.

use proxima_web::editor::view::TopologyEditor;
use proxima_web::playback::view::{playback_of, PlayerView};
use proxima_web::protocol::FromWorker;
use proxima_web::state::{Action, State};
use proxima_web::tour::{self as intro, TourAction};
use proxima_web::Shared;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{
    Element, HtmlElement, HtmlInputElement, KeyboardEvent, KeyboardEventInit, MouseEvent, MouseEventInit, PointerEvent,
    PointerEventInit,
};
use yew::prelude::*;

/// The editor on the page's real state and reducer, as the app wires it.
#[component]
fn EditorHarness() -> Html {
    // The teaching preset (2 racks x 2 servers x 4 GPUs): the counts below are its.
    let state = use_reducer(|| State::default().apply(Action::SelectPreset("teaching".into())));
    let edit = {
        let state = state.clone();
        Callback::from(move |a| state.dispatch(Action::Edit(a)))
    };
    html! {
        <div data-testid="topology-view">
            <TopologyEditor editor={state.cluster.editor.clone()} {edit} />
            // What a run would be refused with, for the tests to read.
            <p data-testid="refusal">{ state.run_request(1).err().map(|p| p.join("; ")).unwrap_or_default() }</p>
        </div>
    }
}

async fn mount<C: BaseComponent<Properties = ()>>() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<C>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    root
}

fn q(root: &Element, selector: &str) -> Element {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector}"))
}

fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector).unwrap().length()
}

fn gpus(root: &Element) -> u32 {
    count(root, "[data-gpu]")
}

fn gpu_total(root: &Element) -> String {
    q(root, "[data-testid=gpu-count]").text_content().unwrap()
}

async fn click(root: &Element, selector: &str) {
    q(root, selector).unchecked_into::<HtmlElement>().click();
    yew::scheduler::flush().await;
}

async fn key(root: &Element, key: &str, ctrl: bool) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_ctrl_key(ctrl);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let e = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    q(root, "#topology-editor").dispatch_event(&e).unwrap();
    yew::scheduler::flush().await;
}

fn pointer(kind: &str, x: i32, y: i32) -> PointerEvent {
    let init = PointerEventInit::new();
    init.set_bubbles(true);
    init.set_button(0);
    init.set_pointer_id(1);
    init.set_client_x(x);
    init.set_client_y(y);
    PointerEvent::new_with_event_init_dict(kind, &init).unwrap()
}

/// A press and release on an element of the drawing, without moving: a click.
async fn pointer_click(root: &Element, selector: &str) {
    let el = q(root, selector);
    let r = el.get_bounding_client_rect();
    let (x, y) = ((r.left() + r.width() / 2.0) as i32, (r.top() + r.height() / 2.0) as i32);
    el.dispatch_event(&pointer("pointerdown", x, y)).unwrap();
    el.dispatch_event(&pointer("pointerup", x, y)).unwrap();
    yew::scheduler::flush().await;
}

fn has_class(root: &Element, selector: &str, class: &str) -> bool {
    q(root, selector).get_attribute("class").unwrap_or_default().split_whitespace().any(|c| c == class)
}

#[wasm_bindgen_test]
async fn add_rack_and_its_undo_redo() {
    let root = mount::<EditorHarness>().await;
    assert_eq!((gpus(&root), gpu_total(&root).as_str()), (16, "16"));
    // Choosing the preset is itself an edit (undo goes back to the default cluster), so the
    // undo button is live from the start; what is checked is that undo and redo step over
    // the added rack exactly.
    click(&root, "[data-testid=add-rack-button]").await;
    assert_eq!(gpus(&root), 24);
    assert_eq!(gpu_total(&root), "24");
    assert_eq!(count(&root, "[data-node=tor2]"), 1);
    assert!(has_class(&root, "[data-node=tor2]", "selected"), "the new rack is selected");
    click(&root, "[data-testid=undo-button]").await;
    assert_eq!(gpus(&root), 16);
    assert_eq!(count(&root, "[data-node=tor2]"), 0);
    click(&root, "[data-testid=redo-button]").await;
    assert_eq!(gpus(&root), 24);
    // The keyboard does the same: a, Ctrl+Z, Ctrl+Y.
    key(&root, "a", false).await;
    assert_eq!(gpus(&root), 32);
    key(&root, "z", true).await;
    key(&root, "z", true).await;
    assert_eq!(gpus(&root), 16);
    key(&root, "y", true).await;
    assert_eq!(gpus(&root), 24);
    assert_eq!(q(&root, "[data-testid=refusal]").text_content().unwrap(), "", "an added rack is a valid cluster");
}

#[wasm_bindgen_test]
async fn add_server_and_gpu_by_keyboard_and_undo() {
    let root = mount::<EditorHarness>().await;
    // Arrow keys walk the tree: spine, tor0, r0s0, then its sibling r0s1.
    for k in ["ArrowDown", "ArrowDown", "ArrowDown", "ArrowRight"] {
        key(&root, k, false).await;
    }
    assert!(has_class(&root, "[data-node=r0s1]", "selected"));
    key(&root, "s", false).await;
    assert_eq!(gpus(&root), 20);
    assert_eq!(count(&root, "[data-node=r0s2]"), 1);
    key(&root, "g", false).await;
    assert_eq!(count(&root, "[data-server=r0s2]"), 5, "one more GPU in the new server");
    assert_eq!(count(&root, "[data-server=r0s2].selected"), 1, "the new GPU is selected");
    key(&root, "z", true).await;
    assert_eq!(count(&root, "[data-server=r0s2]"), 4);
    click(&root, "[data-testid=undo-button]").await;
    assert_eq!(gpus(&root), 16);
    assert_eq!(count(&root, "[data-node=r0s2]"), 0);
}

#[wasm_bindgen_test]
async fn add_switch_link_it_and_undo() {
    let root = mount::<EditorHarness>().await;
    click(&root, "[data-testid=add-switch-button]").await;
    assert_eq!(count(&root, "[data-node=switch1]"), 1);
    // A switch with no links is flagged on itself, with the core's message, and runs are refused.
    assert!(has_class(&root, "[data-node=switch1]", "invalid"));
    let problems = q(&root, "[data-testid=topology-problems]").text_content().unwrap();
    assert!(problems.contains("switch 'switch1' has no path to the rest of the cluster"), "{problems}");
    assert!(q(&root, "[data-testid=refusal]").text_content().unwrap().contains("1 problem"));
    // Link it: L, then click the spine.
    let links = count(&root, "[data-link]");
    key(&root, "l", false).await;
    pointer_click(&root, "[data-node=spine] rect").await;
    assert_eq!(count(&root, "[data-link]"), links + 1);
    let problems = q(&root, "[data-testid=topology-problems]").text_content().unwrap();
    assert!(problems.contains("switch 'switch1' has no servers below it"), "{problems}");
    key(&root, "z", true).await;
    key(&root, "z", true).await;
    assert_eq!(count(&root, "[data-node=switch1]"), 0);
    assert_eq!(count(&root, "[data-testid=topology-problems]"), 0);
    assert_eq!(q(&root, "[data-testid=refusal]").text_content().unwrap(), "");
}

#[wasm_bindgen_test]
async fn delete_a_rack_a_gpu_and_undo() {
    let root = mount::<EditorHarness>().await;
    pointer_click(&root, "[data-node=tor1] rect").await;
    assert!(has_class(&root, "[data-node=tor1]", "selected"));
    click(&root, "[data-testid=delete-button]").await;
    assert_eq!(gpus(&root), 8, "a rack goes with its servers");
    click(&root, "[data-testid=undo-button]").await;
    assert_eq!(gpus(&root), 16);
    pointer_click(&root, "[data-gpu='3']").await;
    assert!(has_class(&root, "[data-gpu='3']", "selected"));
    key(&root, "Delete", false).await;
    assert_eq!(gpus(&root), 15);
    key(&root, "z", true).await;
    assert_eq!(gpus(&root), 16);
}

#[wasm_bindgen_test]
async fn zero_bandwidth_is_flagged_on_the_link_and_undo_fixes_it() {
    let root = mount::<EditorHarness>().await;
    pointer_click(&root, "[data-link='1'] .hit").await;
    let input: HtmlInputElement = q(&root, "[data-testid=editor-properties] input[type=number]").unchecked_into();
    input.set_value("0");
    input.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    yew::scheduler::flush().await;
    assert!(has_class(&root, "[data-link='1']", "invalid"));
    assert_eq!(q(&root, "[data-link='1']").get_attribute("aria-invalid").as_deref(), Some("true"));
    let refusal = q(&root, "[data-testid=refusal]").text_content().unwrap();
    assert!(refusal.contains("link r0s0 → tor0: bandwidth must be a positive number of Gbit/s, got 0"), "{refusal}");
    // The element carries the reason where users look: its tooltip.
    assert!(q(&root, "[data-link='1'] title").text_content().unwrap().contains("must be a positive number"));
    click(&root, "[data-testid=undo-button]").await;
    assert!(!has_class(&root, "[data-link='1']", "invalid"));
    assert_eq!(q(&root, "[data-testid=refusal]").text_content().unwrap(), "");
}

#[wasm_bindgen_test]
async fn drag_a_node_and_undo_collapse_and_expand() {
    let root = mount::<EditorHarness>().await;
    let rect = q(&root, "[data-node=r0s0] rect");
    let x0: f64 = rect.get_attribute("x").unwrap().parse().unwrap();
    let r = rect.get_bounding_client_rect();
    let (x, y) = ((r.left() + 5.0) as i32, (r.top() + 5.0) as i32);
    rect.dispatch_event(&pointer("pointerdown", x, y)).unwrap();
    rect.dispatch_event(&pointer("pointermove", x + 40, y)).unwrap();
    yew::scheduler::flush().await;
    rect.dispatch_event(&pointer("pointerup", x + 40, y)).unwrap();
    yew::scheduler::flush().await;
    let moved: f64 = q(&root, "[data-node=r0s0] rect").get_attribute("x").unwrap().parse().unwrap();
    assert!(moved > x0 + 5.0, "dragged from {x0} to {moved}");
    key(&root, "z", true).await;
    let back: f64 = q(&root, "[data-node=r0s0] rect").get_attribute("x").unwrap().parse().unwrap();
    assert_eq!(back, x0);
    // Fold a rack (select it, then c) and unfold it again with a double click.
    pointer_click(&root, "[data-node=tor0] rect").await;
    key(&root, "c", false).await;
    assert_eq!(gpus(&root), 8);
    assert!(has_class(&root, "[data-node=tor0]", "collapsed"));
    let init = MouseEventInit::new();
    init.set_bubbles(true);
    pointer_click(&root, "[data-node=tor0] rect").await;
    q(&root, "[data-node=tor0] rect")
        .dispatch_event(&MouseEvent::new_with_mouse_event_init_dict("dblclick", &init).unwrap())
        .unwrap();
    yew::scheduler::flush().await;
    assert_eq!(gpus(&root), 16);
}

#[wasm_bindgen_test]
fn the_introductions_runs_reach_the_tour() {
    let s = State::default().apply(Action::Tour(TourAction::Started { run_id: 5 }));
    let mut messages = Vec::new();
    proxima_web::worker::run_request(&intro::request(5), &|| 0.0, &mut |m| messages.push(m));
    let s = messages.into_iter().fold(s, |s, m| s.apply(Action::Worker(m)));
    let tour = s.tour.clone().unwrap();
    assert!(tour.error.is_none(), "{:?}", tour.error);
    let facts = tour.facts.clone().expect("the runs finished");
    assert_eq!(facts.len(), intro::POLICIES.len());
    assert!(s.results.outcomes.is_empty(), "the tour's runs do not replace the user's results");
    assert!(!s.is_running());
    let steps = intro::steps(&facts);
    assert!(steps[2].paragraphs.join(" ").contains("waited 110 s"));
    assert_eq!(s.next_id, 6);
    let s = s.apply(Action::Tour(TourAction::Step(9)));
    assert_eq!(s.tour.as_ref().unwrap().step, intro::STEPS - 1);
    assert!(s.apply(Action::Tour(TourAction::Closed)).tour.is_none());
}

/// The player on the introduction's run with delay timers.
#[component]
fn PlayerHarness() -> Html {
    let playback = use_memo((), |_| {
        let mut outcome = None;
        let mut request = intro::request(1);
        request.policies = vec!["dally:preempt=off,autotune=off".into()];
        proxima_web::worker::run_request(&request, &|| 0.0, &mut |m| {
            if let FromWorker::PolicyDone { result, .. } = m {
                outcome = Some(*result);
            }
        });
        let topology = proxima_core::topology::resolve_topology_arg(intro::TOPOLOGY).unwrap();
        playback_of(&outcome.unwrap(), Shared::new(topology)).unwrap()
    });
    html! { <PlayerView playback={(*playback).clone()} start_s={0.0} selected={None::<u32>} speed={Some(60.0)} /> }
}

async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    yew::scheduler::flush().await;
}

fn slider(root: &Element) -> f64 {
    q(root, "[data-testid=time-slider]").unchecked_into::<HtmlInputElement>().value_as_number()
}

#[wasm_bindgen_test]
async fn the_player_steps_shows_delay_timers_and_plays() {
    let root = mount::<PlayerHarness>().await;
    for id in ["play-button", "step-button", "time-slider", "timer-chart", "job-details"] {
        assert_eq!(count(&root, &format!("[data-testid={id}]")), 1, "{id}");
    }
    assert_eq!(slider(&root), 0.0);
    assert_eq!(count(&root, "[data-testid=delay-timer]"), 0);
    // Step to the next event: at 10 s the VGG-16 job starts waiting for a server.
    click(&root, "[data-testid=step-button]").await;
    assert_eq!(slider(&root), 10.0);
    let timer = q(&root, "[data-testid=delay-timer]");
    assert_eq!(timer.get_attribute("data-job").as_deref(), Some("4"));
    assert_eq!(timer.get_attribute("data-left-s").as_deref(), Some("300.0"));
    // Select it (by its number, as a keyboard user would, and by its chip in the queue):
    // its details give the scheduler's reason.
    let find: HtmlInputElement = q(&root, "[data-testid=find-job]").unchecked_into();
    find.set_value("4");
    find.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(q(&root, "[data-testid=job-details]").get_attribute("data-job").as_deref(), Some("4"));
    click(&root, ".queue .job-chip").await;
    let details = q(&root, "[data-testid=job-details]").text_content().unwrap();
    assert!(details.contains("waiting for a server-local placement, timer 5 min left; best now: cluster"), "{details}");
    // Play at one minute per second: the slider moves and the countdown runs down.
    click(&root, "[data-testid=play-button]").await;
    assert_eq!(q(&root, "[data-testid=play-button]").text_content().as_deref(), Some("Pause"));
    sleep(400).await;
    click(&root, "[data-testid=play-button]").await;
    let t = slider(&root);
    assert!(t > 11.0, "the slider advanced: {t}");
    if t < 120.0 {
        let left: f64 = q(&root, "[data-testid=delay-timer]").get_attribute("data-left-s").unwrap().parse().unwrap();
        assert!(left < 300.0 && (left - (300.0 - (t - 10.0))).abs() < 0.2, "{left} at {t}");
    }
    // Scrub past 120 s: the job got its server, no timer runs.
    let input: HtmlInputElement = q(&root, "[data-testid=time-slider]").unchecked_into();
    input.set_value("130");
    input.dispatch_event(&web_sys::InputEvent::new("input").unwrap()).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(count(&root, "[data-testid=delay-timer]"), 0);
    let details = q(&root, "[data-testid=job-details]").text_content().unwrap();
    assert!(details.contains("got the server-local placement it waited 1.83 min for"), "{details}");
}

/// The cluster's canvas fits a narrowed box on the next frames (a second pane opened
/// beside it narrows its box without any window event), not at the once-a-second
/// re-measure that catches a change of screen: its first tick comes 1 s after the mount.
#[wasm_bindgen_test]
async fn the_cluster_canvas_refits_when_its_box_narrows() {
    let window = web_sys::window().unwrap();
    let performance = window.performance().unwrap();
    let document = window.document().unwrap();
    let root: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    root.style().set_property("width", "900px").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let mounted = performance.now();
    yew::Renderer::<PlayerHarness>::with_root(root.clone().into()).render();
    yew::scheduler::flush().await;
    let scale =
        || -> f64 { q(&root, "[data-testid=cluster-canvas]").get_attribute("data-scale").unwrap().parse().unwrap() };
    let wide = scale();
    root.style().set_property("width", "200px").unwrap();
    while scale() >= wide && performance.now() < mounted + 950.0 {
        sleep(10).await;
    }
    let narrow = scale();
    assert!(
        narrow < wide,
        "scale {wide} at 900 px, still {narrow} at 200 px {:.0} ms after the mount",
        performance.now() - mounted
    );
}

/// `ResizeWatch` calls back after its element's box changes size, and not after it is dropped.
#[wasm_bindgen_test]
async fn a_resize_watch_reports_a_changed_box_until_dropped() {
    use std::cell::Cell;
    use std::rc::Rc;
    let document = web_sys::window().unwrap().document().unwrap();
    let el: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    el.style().set_property("width", "300px").unwrap();
    document.body().unwrap().append_child(&el).unwrap();
    let calls = Rc::new(Cell::new(0));
    let counted = calls.clone();
    let watch = proxima_web::browser::ResizeWatch::start(&el, move || counted.set(counted.get() + 1))
        .expect("a ResizeObserver");
    // The observer reports the box once when it starts observing it.
    for _ in 0..100 {
        if calls.get() > 0 {
            break;
        }
        sleep(10).await;
    }
    let first = calls.get();
    assert!(first >= 1, "no call for the first observation");
    el.style().set_property("width", "120px").unwrap();
    for _ in 0..100 {
        if calls.get() > first {
            break;
        }
        sleep(10).await;
    }
    assert!(calls.get() > first, "no call after the box narrowed");
    drop(watch);
    let after = calls.get();
    el.style().set_property("width", "60px").unwrap();
    sleep(100).await;
    assert_eq!(calls.get(), after, "called after it was dropped");
}
