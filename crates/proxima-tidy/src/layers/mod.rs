//! Layers and import circles: the core is layered as `ARCHITECTURE.md` lists ("Layers of
//! the core"), no crate of the workspace (the page and the Python package included) has an
//! import circle, and the crates depend on each other one way, as `ARCHITECTURE.md`'s
//! "Crates" says. Read from the source by [`parse`], a small lexer that follows `mod`
//! declarations as the compiler does.
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
//! may import each other in a circle (found as strongly connected sets, by Tarjan's
//! algorithm). The other crates have no layers written down, but may not have circles
//! either; the known ones are in `tidy-allow.toml`.
//!
//! The crates themselves are layered too: `ARCHITECTURE.md` lists them bottom first with
//! the Proxima crates each depends on ("Crates"), and the manifests must say the same, each
//! crate depending only on crates listed before it, so that the dependencies go one way.

mod page;
pub mod parse;
mod written;

use crate::sources::shown;
use crate::Problem;
use parse::{read_crate, Crate, ModPath};
use std::collections::BTreeMap;
use std::path::Path;

pub use page::{check_models_import_no_view, check_page_models};
pub use written::{check_core_layers, check_crate_graph};

/// One import between siblings, with the first place that makes it.
#[derive(Clone, Debug)]
pub struct Edge {
    /// The file, relative to the repository's root.
    pub file: String,
    pub line: usize,
}

/// Per parent module, its children's imports of each other: parent → (from, to) → where.
pub type Graphs = BTreeMap<ModPath, BTreeMap<(String, String), Edge>>;

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

/// Every import between siblings in the crate's code (test code left out); files are
/// shown relative to `root`.
pub fn graphs(krate: &Crate, root: &Path) -> Graphs {
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
        let edge = Edge { file: shown(root, &named.file), line: named.line };
        let key = (named.from[common].clone(), to[common].clone());
        graphs.entry(named.from[..common].to_vec()).or_default().entry(key).or_insert(edge);
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

/// The strongly connected sets of a graph with two members or more (Tarjan's algorithm),
/// each sorted, in the order of their smallest member.
fn strongly_connected(next: &BTreeMap<&str, Vec<&str>>) -> Vec<Vec<String>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: std::collections::BTreeSet<&'a str>,
        sets: Vec<Vec<String>>,
    }
    fn visit<'a>(v: &'a str, next: &BTreeMap<&'a str, Vec<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in next.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, next, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.sets.push(set);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: Default::default(),
        sets: Vec::new(),
    };
    for &v in next.keys() {
        if !state.index.contains_key(v) {
            visit(v, next, &mut state);
        }
    }
    state.sets.sort();
    state.sets
}

/// One shortest circle through `set`'s first member, inside the set (breadth first).
fn ring<'a>(next: &BTreeMap<&'a str, Vec<&'a str>>, set: &[String]) -> Vec<&'a str> {
    let a = next.keys().copied().find(|k| *k == set[0]).expect("a member of the graph");
    let mut back: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([a]);
    'search: while let Some(n) = queue.pop_front() {
        for &m in next.get(n).into_iter().flatten().filter(|m| set.iter().any(|s| s == *m)) {
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
    ring
}

/// One problem per circle of each graph; its item is `crate-name parent: a b c`.
pub fn check_circles(crate_name: &str, graphs: &Graphs) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (parent, edges) in graphs {
        let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (a, b) in edges.keys() {
            next.entry(a.as_str()).or_default().push(b.as_str());
            next.entry(b.as_str()).or_default();
        }
        for set in strongly_connected(&next) {
            let ring = ring(&next, &set);
            let step = |w: &[&str]| &edges[&(w[0].to_string(), w[1].to_string())];
            let steps: Vec<String> =
                ring.windows(2).map(|w| format!("{} → {} ({}:{})", w[0], w[1], step(w).file, step(w).line)).collect();
            let first = step(&ring[..2]);
            problems.push(Problem {
                path: first.file.clone(),
                line: first.line,
                rule: "circle",
                item: format!("{crate_name} {}: {}", name(parent), set.join(" ")),
                message: format!(
                    "import circle among {} in {crate_name}'s {}: {}",
                    set.join(", "),
                    name(parent),
                    steps.join(", ")
                ),
            });
        }
    }
    problems
}

/// The circles of every crate: each source directory's `lib.rs` and `main.rs` are the
/// roots of its crates (the web app's `src/bin/` is not read: its binaries are one file).
pub fn check_all_circles(root: &Path) -> Vec<Problem> {
    let mut problems = Vec::new();
    for src in crate::sources::source_dirs(root) {
        let crate_dir = src.parent().unwrap_or(root);
        let crate_name = if crate_dir == root {
            "proxima-web".to_string()
        } else {
            crate_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
        };
        for file in ["lib.rs", "main.rs"].map(|f| src.join(f)).into_iter().filter(|f| f.exists()) {
            problems.extend(check_circles(&crate_name, &graphs(&read_crate(&file), root)));
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

#[cfg(test)]
mod tests;
