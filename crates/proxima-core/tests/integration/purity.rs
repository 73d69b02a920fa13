//! The architecture's invariants about the core, checked rather than hoped for:
//! it depends on no web crate and no randomness or time crate, and its code does no IO,
//! reads no clock and uses no platform-dependent float functions. The lab (`proxima-lab`,
//! the experiment and the calibration, built on the core) is held to the same code rules:
//! its reports and fits must be the same bytes on every machine too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Package name → its dependencies' names, from Cargo.lock.
fn lock_graph() -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(repo_root().join("Cargo.lock")).expect("Cargo.lock at the repository root");
    let mut graph = BTreeMap::new();
    for block in text.split("[[package]]").skip(1) {
        let name = block
            .lines()
            .find_map(|l| l.strip_prefix("name = "))
            .map(|n| n.trim_matches('"').to_string())
            .expect("every package has a name");
        let mut deps = Vec::new();
        if let Some(start) = block.find("dependencies = [") {
            for line in block[start..].lines().skip(1) {
                let line = line.trim();
                if line.starts_with(']') {
                    break;
                }
                // Entries look like `"serde"` or `"serde 1.0.229"`.
                let dep = line.trim_matches(|c| c == '"' || c == ',').split(' ').next().unwrap_or("");
                deps.push(dep.to_string());
            }
        }
        graph.insert(name, deps);
    }
    graph
}

/// The core's normal (not dev) dependencies, from its Cargo.toml: Cargo.lock lists dev
/// dependencies too, and a test-only crate may well use randomness.
fn normal_dependencies() -> Vec<String> {
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let mut in_deps = false;
    let mut deps = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && !line.starts_with('#') {
            if let Some((name, _)) = line.split_once('=') {
                deps.push(name.trim().to_string());
            }
        }
    }
    deps
}

#[test]
fn the_core_depends_on_no_web_clock_or_random_crate() {
    let graph = lock_graph();
    let mut seen = BTreeSet::new();
    let mut stack = normal_dependencies();
    while let Some(p) = stack.pop() {
        if seen.insert(p.clone()) {
            stack.extend(graph.get(&p).cloned().unwrap_or_default());
        }
    }
    let forbidden =
        ["yew", "web-sys", "js-sys", "wasm-bindgen", "gloo", "getrandom", "rand", "chrono", "time", "instant"];
    for f in forbidden {
        assert!(!seen.contains(f), "proxima-core depends (perhaps indirectly) on {f}: {seen:?}");
    }
    // A change here is deliberate: the core's dependencies are few and reviewed. saphyr (YAML
    // with line numbers) and regex-lite (Volcano's member patterns) read the Kubernetes
    // schedulers' topology files; both are pure Rust and build for wasm32 (Cargo.toml says why).
    let direct: BTreeSet<String> = normal_dependencies().into_iter().collect();
    assert_eq!(direct, BTreeSet::from(["libm", "regex-lite", "saphyr", "serde", "serde_json"].map(String::from)));
    assert!(graph.contains_key("proxima-core"));
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_core_and_the_lab_do_no_io_read_no_clock_and_use_portable_floats() {
    let mut files = Vec::new();
    rust_files(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let core_files = files.len();
    rust_files(&repo_root().join("crates/proxima-lab/src"), &mut files);
    assert!(core_files > 10 && files.len() > core_files + 10);
    // Spelled in pieces so that this file does not match itself.
    let forbidden: Vec<String> = [
        ("std::", "fs"),
        ("std::", "net"),
        ("std::", "env"),
        ("std::", "time"),
        ("System", "Time"),
        ("Instant", "::now"),
        ("std::", "thread"),
        ("print", "ln!"),
        (".ln", "()"),
        (".exp", "()"),
        (".pow", "f("),
        (".sin", "("),
        (".cos", "("),
        ("HashMap", ""),
        ("HashSet", ""),
    ]
    .iter()
    .map(|(a, b)| format!("{a}{b}"))
    .collect();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for f in &forbidden {
                assert!(
                    !code.contains(f.as_str()),
                    "{}:{}: `{f}` has no place in the pure core or lab (IO, clocks, threads, platform floats and unordered maps break reproducibility)",
                    file.display(),
                    i + 1
                );
            }
        }
    }
}
