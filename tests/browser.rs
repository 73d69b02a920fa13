//! Browser tests of the web app, run in headless Chromium by wasm-bindgen-test:
//! `cargo test --target wasm32-unknown-unknown -p proxima-web` (scripts/test.sh does).
//! On the native target this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

use proxima_web::App;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts the app into a fresh `<div>` of the test page and lets yew render it.
async fn mount_app() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    root
}

fn by_test_id(root: &Element, id: &str) -> Option<Element> {
    root.query_selector(&format!("[data-testid='{id}']")).unwrap()
}

#[wasm_bindgen_test]
async fn renders_title_topology_view_and_disabled_run_button() {
    let root = mount_app().await;

    let title = root.query_selector("h1").unwrap().expect("a heading");
    assert_eq!(title.text_content().as_deref(), Some("Proxima"));

    assert!(by_test_id(&root, "topology-view").is_some(), "no topology view");

    let run = by_test_id(&root, "run-button").expect("no run button");
    assert_eq!(run.tag_name(), "BUTTON");
    assert_eq!(run.text_content().as_deref(), Some("Run"));
    assert!(run.has_attribute("disabled"), "the run button should be disabled for now");
}
