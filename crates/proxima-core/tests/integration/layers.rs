//! The core is layered and has no import circle: checked from the source, against the
//! layers `ARCHITECTURE.md` lists ("Layers of the core").
//!
//! The graph's nodes are modules, a file or a directory module (`policy/`, `policy/dally/`),
//! at every level: the crate's top-level modules form one graph, and the children of each
//! module form another. An edge `a → b` between two siblings means some code in `a` (or
//! below it) names something in `b` (or below it): a `use`, or a path in code that starts
//! with `crate::`, `super::` or `self::`. A path is followed through re-exports to the
//! module that defines what it names, so `crate::Scenario` counts as `scenario`, and a
//! re-export is itself an import of what it re-exports. Between a module and its own
//! children there is no edge: a `mod.rs` declares its children and they use what it
//! defines, which is how Rust modules are built, not a circle.
//!
//! Three things are deliberately not edges. Test code (`#[cfg(test)]`, `#[test]`): nothing
//! imports a test, so it sits above every layer and may use anything. Paths in comments and
//! doc links: they do not compile into the crate. A glob `use super::*` counts as a use of
//! the parent only: it names no sibling, so the files of `calibrate/`, which all glob their
//! parent, are one piece to this test.
//!
//! Every module must import only from its own layer or one below, and no set of siblings
//! may import each other in a circle. The crates above the core (`proxima-lab`,
//! `proxima-host`, `proxima-cli`) have no layers written down, but may not have circles
//! either.
//!
//! The crates themselves are layered too: `ARCHITECTURE.md` lists them bottom first with
//! the Proxima crates each depends on ("Crates"), and the manifests must say the same, each
//! crate depending only on crates listed before it, so that the dependencies go one way.

mod parse;

use parse::{read_crate, Crate, ModPath};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Circles known when this test was written, as `parent: a b c` (the members sorted). A
/// circle listed here is allowed; one not listed fails, and so does a listed one that is
/// gone, so the list can only shrink.
const KNOWN_CIRCLES: &[&str] = &[];

/// One import between siblings, with the first place that makes it.
struct Edge {
    at: String,
}

/// Per parent module, its children's imports of each other: parent → (from, to) → where.
type Graphs = BTreeMap<ModPath, BTreeMap<(String, String), Edge>>;

/// Where a path written in module `from` starts, as a module path; `None` for a path into
/// another crate (`std::`, `serde::`).
fn absolute(krate: &Crate, from: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut at = from.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            at.clear();
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                at.pop();
                rest = &rest[1..];
            }
        }
        // A `use` from a child module (`use rows::Row;` in `calibrate/mod.rs`).
        Some(first) if krate.modules[from].children.contains(first) => {}
        _ => return None,
    }
    at.extend(rest.iter().cloned());
    Some(at)
}

/// The module that defines what `path` names, following re-exports and glob re-exports.
fn resolve(krate: &Crate, path: &[String]) -> ModPath {
    let mut path = path.to_vec();
    let (mut at, mut i, mut hops) = (ModPath::new(), 0, 0);
    while i < path.len() {
        let module = &krate.modules[&at];
        let seg = &path[i];
        if module.children.contains(seg) {
            at.push(seg.clone());
            i += 1;
            continue;
        }
        if hops > 16 || module.defines.contains(seg) {
            break;
        }
        let through = module.bindings.get(seg).cloned().map(|b| (b, i + 1)).or_else(|| {
            // A glob re-export (`pub use cluster::*`): the module whose items hold the name.
            module.globs.iter().find_map(|g| {
                let target = resolve(krate, &absolute(krate, &at, g)?);
                krate.modules[&target].defines.contains(seg).then(|| (g.clone(), i))
            })
        });
        let Some((binding, next)) = through else { break };
        let Some(mut target) = absolute(krate, &at, &binding) else { break };
        target.extend(path[next..].iter().cloned());
        (path, at, i, hops) = (target, ModPath::new(), 0, hops + 1);
    }
    at
}

/// Every import between siblings in the crate's code (test code left out).
fn graphs(krate: &Crate, src: &Path) -> Graphs {
    let mut graphs = Graphs::new();
    for named in &krate.named {
        let test = named.test || (1..=named.from.len()).any(|n| krate.modules[&named.from[..n]].test);
        let Some(path) = absolute(krate, &named.from, &named.path) else { continue };
        if test {
            continue;
        }
        let to = resolve(krate, &path);
        let common = named.from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        if common == named.from.len() || common == to.len() {
            continue; // a module and its own ancestor or descendant
        }
        let at = format!("{}:{}", named.file.strip_prefix(src).unwrap_or(&named.file).display(), named.line);
        let key = (named.from[common].clone(), to[common].clone());
        graphs.entry(named.from[..common].to_vec()).or_default().entry(key).or_insert(Edge { at });
    }
    graphs
}

fn name(parent: &[String]) -> String {
    if parent.is_empty() {
        "crate".to_string()
    } else {
        format!("crate::{}", parent.join("::"))
    }
}

/// The modules `from` reaches, itself included.
fn reach<'a>(next: &BTreeMap<&'a str, Vec<&'a str>>, from: &'a str) -> BTreeSet<&'a str> {
    let (mut seen, mut todo) = (BTreeSet::from([from]), vec![from]);
    while let Some(n) = todo.pop() {
        for &m in next.get(n).into_iter().flatten() {
            if seen.insert(m) {
                todo.push(m);
            }
        }
    }
    seen
}

/// The circles of one graph: its strongly connected sets of two or more, each with one
/// shortest circle through its first member, spelt out with where each import is.
fn circles(edges: &BTreeMap<(String, String), Edge>) -> Vec<(BTreeSet<String>, String)> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        next.entry(a.as_str()).or_default().push(b.as_str());
    }
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for &a in next.keys() {
        if done.contains(a) {
            continue;
        }
        let set: BTreeSet<String> =
            reach(&next, a).into_iter().filter(|&b| reach(&next, b).contains(a)).map(String::from).collect();
        done.extend(set.iter().cloned());
        if set.len() < 2 {
            continue;
        }
        // Breadth first from `a` back to `a`, inside the set.
        let mut back: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([a]);
        'search: while let Some(n) = queue.pop_front() {
            for &m in next.get(n).into_iter().flatten().filter(|m| set.contains(**m)) {
                if m == a {
                    back.insert(a, n);
                    break 'search;
                }
                if !back.contains_key(m) {
                    back.insert(m, n);
                    queue.push_back(m);
                }
            }
        }
        let mut ring = vec![a];
        while let Some(&p) = back.get(ring.last().unwrap()).filter(|&&p| p != a) {
            ring.push(p);
        }
        ring.reverse();
        ring.insert(0, a);
        let steps: Vec<String> = ring
            .windows(2)
            .map(|w| format!("{} → {} ({})", w[0], w[1], edges[&(w[0].to_string(), w[1].to_string())].at))
            .collect();
        out.push((set, steps.join(", ")));
    }
    out
}

/// Fails on any circle not in `known`.
fn check_circles(graphs: &Graphs, known: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut found = BTreeSet::new();
    for (parent, edges) in graphs {
        for (set, ring) in circles(edges) {
            let key = format!("{}: {}", name(parent), set.into_iter().collect::<Vec<_>>().join(" "));
            if !known.contains(&key.as_str()) {
                problems.push(format!("import circle in {}: {ring}", name(parent)));
            }
            found.insert(key);
        }
    }
    for k in known.iter().filter(|k| !found.contains(**k)) {
        problems.push(format!("the known circle `{k}` is gone: remove it from KNOWN_CIRCLES"));
    }
    problems
}

/// The core's layers, bottom first, from ARCHITECTURE.md: the numbered lines between the
/// `core-layers` markers, `N. module, module — what they are`.
fn layers() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let start = text.find("<!-- core-layers: begin").expect("ARCHITECTURE.md marks the core's layers");
    let end = text.find("<!-- core-layers: end").expect("the list of layers ends with a marker");
    let mut layers = Vec::new();
    for line in text[start..end].lines().skip(1) {
        let Some((number, rest)) = line.split_once(". ") else { continue };
        if number.trim().parse::<usize>() != Ok(layers.len() + 1) {
            continue;
        }
        let modules = rest.split(" — ").next().unwrap();
        layers.push(modules.split(',').map(|m| m.trim().trim_matches('`').to_string()).collect());
    }
    assert!(layers.len() > 2, "ARCHITECTURE.md lists the core's layers as `1. module, module — ...`");
    layers
}

fn src_of(krate: &str) -> PathBuf {
    repo().join("crates").join(krate).join("src")
}

#[test]
fn the_core_imports_only_down_its_layers_and_has_no_circle() {
    let src = src_of("proxima-core");
    let krate = read_crate(&src.join("lib.rs"));
    let layers = layers();
    let mut layer_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for (n, layer) in layers.iter().enumerate() {
        for m in layer {
            if layer_of.insert(m.as_str(), n + 1).is_some() {
                problems.push(format!("ARCHITECTURE.md lists `{m}` in two layers"));
            }
        }
    }
    let root = &krate.modules[&ModPath::new()];
    for child in root.children.iter().filter(|c| !krate.modules[&[c.to_string()][..]].test) {
        if !layer_of.contains_key(child.as_str()) {
            problems.push(format!("`{child}` is in no layer of ARCHITECTURE.md's \"Layers of the core\": add it"));
        }
    }
    for m in layer_of.keys() {
        if !root.children.contains(*m) {
            problems.push(format!("ARCHITECTURE.md's layers list `{m}`, which the core does not have"));
        }
    }
    let graphs = graphs(&krate, &src);
    for ((a, b), edge) in graphs.get(&ModPath::new()).into_iter().flatten() {
        let (la, lb) = (layer_of.get(a.as_str()), layer_of.get(b.as_str()));
        if let (Some(la), Some(lb)) = (la, lb) {
            if la < lb {
                problems.push(format!(
                    "`{a}` (layer {la}) imports `{b}` (layer {lb}) at {}: a module imports from its own layer or below",
                    edge.at
                ));
            }
        }
    }
    problems.extend(check_circles(&graphs, KNOWN_CIRCLES));
    assert!(problems.is_empty(), "the core's layers (ARCHITECTURE.md):\n  {}", problems.join("\n  "));
}

#[test]
fn the_front_ends_have_no_import_circle() {
    for (krate, root) in [("proxima-lab", "lib.rs"), ("proxima-host", "lib.rs"), ("proxima-cli", "main.rs")] {
        let src = src_of(krate);
        let problems = check_circles(&graphs(&read_crate(&src.join(root)), &src), &[]);
        assert!(problems.is_empty(), "{krate}:\n  {}", problems.join("\n  "));
    }
}

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
    let krate = read_crate(&dir.join("lib.rs"));
    let g = graphs(&krate, &dir);
    let edges: Vec<(String, String)> = g[&ModPath::new()].keys().cloned().collect();
    let pairs = [("a", "b"), ("c", "d"), ("d", "c")].map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(edges, pairs.to_vec());
    assert_eq!(g[&ModPath::new()][&pairs[1]].at, "c.rs:1");
    let problems = check_circles(&g, &[]);
    assert_eq!(problems, ["import circle in crate: c → d (c.rs:1), d → c (d.rs:1)"]);
    assert!(check_circles(&g, &["crate: c d"]).is_empty());
    assert_eq!(check_circles(&g, &["crate: c d", "crate: a b"]).len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The crate graph `ARCHITECTURE.md` writes down: the lines between the `crate-graph`
/// markers, `` - `crate` → `dep`, `dep` — what it is for `` (`none` for no dependency), in
/// order, bottom first.
fn written_crate_graph() -> Vec<(String, BTreeSet<String>)> {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let start = text.find("<!-- crate-graph: begin").expect("ARCHITECTURE.md marks the crate graph");
    let end = text.find("<!-- crate-graph: end").expect("the crate graph ends with a marker");
    let ticked = |part: &str| -> Vec<String> { part.split('`').skip(1).step_by(2).map(String::from).collect() };
    let mut graph = Vec::new();
    for line in text[start..end].lines().skip(1) {
        let Some(entry) = line.strip_prefix("- ") else { continue };
        let (head, _) = entry.split_once(" — ").unwrap_or((entry, ""));
        let (name, deps) = head.split_once(" → ").unwrap_or_else(|| panic!("`{line}`: write `crate` → deps"));
        graph.push((ticked(name).concat(), ticked(deps).into_iter().collect()));
    }
    assert!(graph.len() > 3, "ARCHITECTURE.md lists the crates as `- `crate` → `dep`, ... — what`");
    graph
}

/// The Proxima crates (`proxima-*`) a manifest depends on, in any dependency table: normal,
/// dev, build, and those for one target only.
fn proxima_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line.trim_end_matches(']').ends_with("dependencies");
            continue;
        }
        let Some((key, _)) = line.split_once('=') else { continue };
        let key = key.trim();
        if in_deps && key.starts_with("proxima-") {
            deps.insert(key.to_string());
        }
    }
    deps
}

/// Where a crate's manifest is: the web app is the root package, the fuzz targets a
/// workspace of their own under `fuzz/`.
fn manifest_of(krate: &str) -> PathBuf {
    match krate {
        "proxima-web" => repo().join("Cargo.toml"),
        "proxima-fuzz" => repo().join("fuzz/Cargo.toml"),
        _ => repo().join("crates").join(krate).join("Cargo.toml"),
    }
}

#[test]
fn the_crates_depend_one_way_as_architecture_md_says() {
    let written = written_crate_graph();
    let mut problems = Vec::new();
    let mut below = BTreeSet::new();
    for (krate, deps) in &written {
        let manifest = std::fs::read_to_string(manifest_of(krate)).unwrap_or_else(|e| panic!("{krate}: {e}"));
        let actual = proxima_dependencies(&manifest);
        if &actual != deps {
            problems.push(format!("{krate} depends on {actual:?}, ARCHITECTURE.md says {deps:?}"));
        }
        for d in actual.iter().filter(|d| !below.contains(*d)) {
            problems.push(format!(
                "{krate} depends on {d}, which is not listed before it: the dependencies must go one way"
            ));
        }
        below.insert(krate.clone());
    }
    // Every crate of the workspace is listed: the members' directories, by their names.
    let root = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let members = root.split("members = [").nth(1).and_then(|r| r.split(']').next()).expect("workspace members");
    for member in members.split(',').map(|m| m.trim().trim_matches('"')).filter(|m| m.starts_with("crates/")) {
        let name = member.trim_start_matches("crates/");
        if !below.contains(name) {
            problems.push(format!("the workspace member {member} is not in ARCHITECTURE.md's crate graph"));
        }
    }
    assert!(problems.is_empty(), "the crate graph (ARCHITECTURE.md, \"Crates\"):\n  {}", problems.join("\n  "));
}

#[test]
fn the_manifest_reader_sees_every_dependency_table() {
    let manifest = "[package]\nname = \"proxima-x\"\n\n[dependencies]\nproxima-core = { path = \"../proxima-core\" }\nserde = \"1\"\n\n[dev-dependencies]\nproxima-lab = { path = \"../proxima-lab\" }\n\n[target.'cfg(unix)'.dependencies]\nproxima-host = { path = \"../proxima-host\" }\n\n[features]\nproxima-cli = []\n";
    let deps: Vec<String> = proxima_dependencies(manifest).into_iter().collect();
    assert_eq!(deps, ["proxima-core", "proxima-host", "proxima-lab"]);
}
