//! What `ARCHITECTURE.md` writes down and the code must match: the core's layers (the
//! numbered lines between the `core-layers` markers) and the crate graph (between the
//! `crate-graph` markers, bottom first, each crate depending only on crates before it).

use super::graphs;
use super::parse::{read_crate, ModPath};
use crate::Problem;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ARCHITECTURE: &str = "ARCHITECTURE.md";

fn problem(rule: &'static str, path: &str, line: usize, message: String) -> Problem {
    Problem { path: path.to_string(), line, rule, item: message.clone(), message }
}

/// The text between `<!-- NAME: begin` and `<!-- NAME: end`, with the line it starts on.
fn marked<'a>(text: &'a str, marker: &str) -> Result<(&'a str, usize), Problem> {
    let start = text.find(&format!("<!-- {marker}: begin"));
    let end = text.find(&format!("<!-- {marker}: end"));
    match (start, end) {
        (Some(s), Some(e)) if s < e => Ok((&text[s..e], text[..s].lines().count() + 1)),
        _ => {
            Err(problem("layer", ARCHITECTURE, 0, format!("no `<!-- {marker}: begin` … `<!-- {marker}: end` markers")))
        }
    }
}

/// The core's layers, bottom first: `N. module, module — what they are`.
fn layers(text: &str) -> Result<Vec<Vec<String>>, Problem> {
    let (block, _) = marked(text, "core-layers")?;
    let mut layers = Vec::new();
    for line in block.lines().skip(1) {
        let Some((number, rest)) = line.split_once(". ") else { continue };
        if number.trim().parse::<usize>() != Ok(layers.len() + 1) {
            continue;
        }
        let modules = rest.split(" — ").next().unwrap_or("");
        layers.push(modules.split(',').map(|m| m.trim().trim_matches('`').to_string()).collect());
    }
    if layers.len() < 3 {
        return Err(problem(
            "layer",
            ARCHITECTURE,
            0,
            "lists fewer than 3 core layers as `1. module, module — …`".into(),
        ));
    }
    Ok(layers)
}

/// Every module of the core imports only from its own layer or one below.
pub fn check_core_layers(root: &Path) -> Vec<Problem> {
    let text = std::fs::read_to_string(root.join(ARCHITECTURE)).unwrap_or_default();
    let layers = match layers(&text) {
        Ok(l) => l,
        Err(p) => return vec![p],
    };
    let src = root.join("crates/proxima-core/src");
    let krate = read_crate(&src.join("lib.rs"));
    let mut layer_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for (n, layer) in layers.iter().enumerate() {
        for m in layer {
            if layer_of.insert(m.as_str(), n + 1).is_some() {
                problems.push(problem("layer", ARCHITECTURE, 0, format!("`{m}` is in two layers")));
            }
        }
    }
    let top = &krate.modules[&ModPath::new()];
    for child in top.children.iter().filter(|c| !krate.modules[&[c.to_string()][..]].test) {
        if !layer_of.contains_key(child.as_str()) {
            let message = format!("the core's `{child}` is in no layer of \"Layers of the core\": add it");
            problems.push(problem("layer", ARCHITECTURE, 0, message));
        }
    }
    for m in layer_of.keys().filter(|m| !top.children.contains(**m)) {
        problems.push(problem(
            "layer",
            ARCHITECTURE,
            0,
            format!("the layers list `{m}`, which the core does not have"),
        ));
    }
    let graphs = graphs(&krate, root);
    for ((a, b), edge) in graphs.get(&ModPath::new()).into_iter().flatten() {
        if let (Some(la), Some(lb)) = (layer_of.get(a.as_str()), layer_of.get(b.as_str())) {
            if la < lb {
                let message = format!(
                    "`{a}` (layer {la}) imports `{b}` (layer {lb}): a module imports from its own layer or below"
                );
                problems.push(Problem {
                    path: edge.file.clone(),
                    line: edge.line,
                    rule: "layer",
                    item: format!("{a} → {b}"),
                    message,
                });
            }
        }
    }
    problems
}

/// The crate graph as written: crate → its Proxima dependencies, in order, bottom first.
type CrateGraph = Vec<(String, BTreeSet<String>)>;

/// Reads the crate graph between the `crate-graph` markers.
fn written_crate_graph(text: &str) -> Result<CrateGraph, Problem> {
    let (block, first_line) = marked(text, "crate-graph")?;
    let ticked = |part: &str| -> Vec<String> { part.split('`').skip(1).step_by(2).map(String::from).collect() };
    let mut graph = Vec::new();
    for (n, line) in block.lines().enumerate().skip(1) {
        let Some(entry) = line.strip_prefix("- ") else { continue };
        let (head, _) = entry.split_once(" — ").unwrap_or((entry, ""));
        let Some((name, deps)) = head.split_once(" → ") else {
            return Err(problem(
                "crate-graph",
                ARCHITECTURE,
                first_line + n,
                format!("`{line}`: write `crate` → deps"),
            ));
        };
        graph.push((ticked(name).concat(), ticked(deps).into_iter().collect()));
    }
    Ok(graph)
}

/// The Proxima crates (`proxima-*`) a manifest depends on, in any dependency table: normal,
/// dev, build, and those for one target only.
pub fn proxima_dependencies(manifest: &str) -> BTreeSet<String> {
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
fn manifest_of(krate: &str) -> String {
    match krate {
        "proxima-web" => "Cargo.toml".to_string(),
        "proxima-fuzz" => "fuzz/Cargo.toml".to_string(),
        _ => format!("crates/{krate}/Cargo.toml"),
    }
}

/// The manifests say what `ARCHITECTURE.md`'s crate graph says, the dependencies go one
/// way, and every workspace member is in it.
pub fn check_crate_graph(root: &Path) -> Vec<Problem> {
    let text = std::fs::read_to_string(root.join(ARCHITECTURE)).unwrap_or_default();
    let written = match written_crate_graph(&text) {
        Ok(g) => g,
        Err(p) => return vec![p],
    };
    let mut problems = Vec::new();
    let mut below = BTreeSet::new();
    for (krate, deps) in &written {
        let path = manifest_of(krate);
        let Ok(manifest) = std::fs::read_to_string(root.join(&path)) else {
            problems.push(problem("crate-graph", ARCHITECTURE, 0, format!("{krate}: no manifest at {path}")));
            continue;
        };
        let actual = proxima_dependencies(&manifest);
        if &actual != deps {
            problems.push(problem(
                "crate-graph",
                &path,
                0,
                format!("{krate} depends on {actual:?}, ARCHITECTURE.md says {deps:?}"),
            ));
        }
        for d in actual.iter().filter(|d| !below.contains(*d)) {
            let message =
                format!("{krate} depends on {d}, which is not listed before it: the dependencies must go one way");
            problems.push(problem("crate-graph", &path, 0, message));
        }
        below.insert(krate.clone());
    }
    for manifest in crate::manifests::manifests(root) {
        let Some(name) = manifest.strip_prefix("crates/").and_then(|m| m.strip_suffix("/Cargo.toml")) else { continue };
        if !below.contains(name) {
            let message = format!("the workspace member crates/{name} is not in ARCHITECTURE.md's crate graph");
            problems.push(problem("crate-graph", ARCHITECTURE, 0, message));
        }
    }
    problems
}
