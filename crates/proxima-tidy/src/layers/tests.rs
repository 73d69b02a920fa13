use super::written::proxima_dependencies;
use super::*;

#[test]
fn the_reader_sees_circles_re_exports_and_tests() {
    // A crate in a temporary folder: `a` imports `b` through the root's re-export, `b`
    // imports `a` only in a test, `c` and `d` import each other.
    let dir = std::env::temp_dir().join(format!("proxima-layers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub use b::Thing;\n"),
        ("a.rs", "/// Not an import: crate::d::X\nuse crate::Thing;\nconst S: &str = \"crate::c::Y\";\n"),
        ("b.rs", "pub struct Thing;\n#[cfg(test)]\nmod tests {\n    use crate::a::*;\n}\n"),
        ("c.rs", "pub fn f() { crate::d::g() }\n"),
        ("d.rs", "use super::c;\npub fn g() {}\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let krate = parse::read_crate(&dir.join("lib.rs"));
    let g = graphs(&krate, &dir);
    let edges: Vec<(String, String)> = g[&ModPath::new()].keys().cloned().collect();
    let pairs = [("a", "b"), ("c", "d"), ("d", "c")].map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(edges, pairs.to_vec());
    let edge = &g[&ModPath::new()][&pairs[1]];
    assert_eq!((edge.file.as_str(), edge.line), ("c.rs", 1));
    let problems: Vec<String> = check_circles("x", &g).iter().map(|p| format!("{p} [{}]", p.item)).collect();
    assert_eq!(
        problems,
        ["c.rs:1: circle: import circle among c, d in x's crate: c → d (c.rs:1), d → c (d.rs:1) [x crate: c d]"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_manifest_reader_sees_every_dependency_table() {
    let manifest = "[package]\nname = \"proxima-x\"\n\n[dependencies]\nproxima-core = { path = \"../proxima-core\" }\nserde = \"1\"\n\n[dev-dependencies]\nproxima-lab = { path = \"../proxima-lab\" }\n\n[target.'cfg(unix)'.dependencies]\nproxima-host = { path = \"../proxima-host\" }\n\n[features]\nproxima-cli = []\n";
    let deps: Vec<String> = proxima_dependencies(manifest).into_iter().collect();
    assert_eq!(deps, ["proxima-core", "proxima-host", "proxima-lab"]);
}

#[test]
fn tarjan_finds_each_circle_once_and_no_circle_in_a_chain() {
    let edges = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e"), ("e", "d"), ("f", "a")];
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
        next.entry(b).or_default();
    }
    assert_eq!(strongly_connected(&next), [vec!["a", "b", "c"], vec!["d", "e"]]);
    assert_eq!(ring(&next, &["a".to_string(), "b".to_string(), "c".to_string()]), ["a", "b", "c", "a"]);
    next.get_mut("c").unwrap().retain(|m| *m != "a");
    next.get_mut("e").unwrap().clear();
    assert!(strongly_connected(&next).is_empty());
}

#[test]
fn a_model_that_imports_a_view_is_found_and_a_view_may_import_a_model() {
    // `m` is a model that names the view `v` through the root's re-export; `v` uses yew and
    // names `m`, as views do; `n` names `v` only in a test; `f/` is a feature whose model
    // (`f/mod.rs`) re-exports its own view.
    let dir = std::env::temp_dir().join(format!("proxima-page-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("f")).unwrap();
    let files = [
        ("lib.rs", "pub mod f;\npub mod m;\npub mod n;\npub mod v;\npub use v::Panel;\n"),
        ("m.rs", "pub struct Model;\npub fn show() { crate::Panel::new(); }\n"),
        ("n.rs", "#[cfg(test)]\nmod tests {\n    use crate::v::Panel;\n}\n"),
        ("v.rs", "use crate::m::Model;\nuse yew::prelude::*;\npub struct Panel;\n"),
        ("f/mod.rs", "pub mod view;\npub use view::FView;\n"),
        ("f/view.rs", "use yew::html;\npub struct FView;\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let problems: Vec<String> = check_models_import_no_view(&dir.join("lib.rs"), "x", &dir)
        .iter()
        .map(|p| format!("{p} [{}]", p.item))
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        problems,
        [
            "f/mod.rs:2: layer: x's model crate::f imports the view crate::f::view: a model uses no yew and names no view [x crate::f → crate::f::view]",
            "m.rs:2: layer: x's model crate::m imports the view crate::v: a model uses no yew and names no view [x crate::m → crate::v]",
        ]
    );
}
