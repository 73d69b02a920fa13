//! No function of the project's Rust code is longer than [`MAX_LINES`] lines outside tests
//! (CONTRIBUTING.md): a function that long does several things, and reading it takes more
//! than one screen. The check reads the source as text; it needs no parser because
//! `cargo fmt` puts every function's closing brace alone on a line at the indentation of its
//! `fn`.

use std::path::{Path, PathBuf};

/// The longest a function may be, from its `fn` line to its closing brace.
const MAX_LINES: usize = 120;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, tests excluded (files named `tests.rs` or `*_tests.rs`, and
/// `tests` directories).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "tests" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            out.push(path);
        }
    }
}

/// Whether a trimmed line starts a function definition (not a declaration in a trait, which
/// ends in `;`).
fn starts_fn(trimmed: &str) -> bool {
    let mut rest = trimmed;
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    rest.starts_with("fn ")
}

/// `(first line, length, name)` of each function in `text` longer than `max`, up to the
/// first `#[cfg(test)]`.
fn long_functions(text: &str, max: usize) -> Vec<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().take_while(|l| l.trim() != "#[cfg(test)]").collect();
    let mut long = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        if !starts_fn(trimmed) {
            i += 1;
            continue;
        }
        let indent = lines[i].len() - trimmed.len();
        // The signature may run over several lines; a line ending in `;` first is a
        // declaration without a body.
        let mut open = i;
        while open < lines.len() && !lines[open].trim_end().ends_with('{') && !lines[open].trim_end().ends_with(';') {
            open += 1;
        }
        if open >= lines.len() || lines[open].trim_end().ends_with(';') {
            i = open + 1;
            continue;
        }
        // A body on the `fn` line itself (`fn f() -> u32 { 1 }`) ends on that line.
        let close = if lines[open].trim_end().ends_with('}') {
            open
        } else {
            let closing = format!("{}}}", " ".repeat(indent));
            (open + 1..lines.len()).find(|&k| lines[k].trim_end() == closing).unwrap_or(lines.len() - 1)
        };
        let length = close - i + 1;
        if length > max {
            let name = trimmed.split("fn ").nth(1).unwrap_or("").split(['(', '<']).next().unwrap_or("").to_string();
            long.push((i + 1, length, name));
        }
        i = close + 1;
    }
    long
}

#[test]
fn the_checker_measures_a_function_from_its_fn_line_to_its_closing_brace() {
    let body: String = (0..5).map(|k| format!("    let x{k} = {k};\n")).collect();
    let text = format!("/// Doc.\npub fn five(\n    a: u32,\n) -> u32 {{\n{body}    a\n}}\n\nfn short() {{}}\ntrait T {{\n    fn f(&self);\n}}\n");
    // `pub fn five(` on line 2 to `}` on line 11: 10 lines.
    assert_eq!(long_functions(&text, 9), vec![(2, 10, "five".to_string())]);
    assert!(long_functions(&text, 10).is_empty());
    // Code after `#[cfg(test)]` is not checked.
    assert!(long_functions(&format!("#[cfg(test)]\n{text}"), 9).is_empty());
}

#[test]
fn no_function_outside_tests_is_longer_than_the_limit() {
    let root = repository();
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let crates = std::fs::read_dir(root.join("crates")).expect("the crates directory");
    let mut crates: Vec<PathBuf> = crates.filter_map(|e| e.ok().map(|e| e.path().join("src"))).collect();
    crates.sort();
    for dir in crates {
        sources(&dir, &mut files);
    }
    assert!(files.len() > 100, "found only {} source files under {}", files.len(), root.display());
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, length, name) in long_functions(&text, MAX_LINES) {
            let shown = file.strip_prefix(&root).unwrap_or(file).display().to_string();
            long.push(format!("{shown}:{line}: {name} is {length} lines"));
        }
    }
    assert!(long.is_empty(), "functions over {MAX_LINES} lines outside tests:\n{}", long.join("\n"));
}
