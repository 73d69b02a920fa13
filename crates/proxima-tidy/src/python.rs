//! The Python package (`crates/proxima-py/python/proxima/`): no import circle between its
//! modules and no file over [`crate::length::MAX_FILE_LINES`] lines, as for the Rust code.
//! An import is a line `from .m import …`, `from . import m`, `from proxima.m import …`,
//! `from proxima import m` or `import proxima.m`, at any indentation (an import inside a
//! function is still a dependency), outside triple-quoted strings. As with Rust modules,
//! the package's `__init__` and its modules are no circle: the package declares them and
//! they may use what it defines.

use crate::layers::{check_circles, Edge, Graphs};
use crate::sources::shown;
use crate::Problem;
use std::collections::BTreeSet;
use std::path::Path;

/// The package's directory, relative to the repository's root.
pub const PACKAGE: &str = "crates/proxima-py/python/proxima";

/// The modules of the package a line imports, given the package's module names.
fn imported(line: &str, modules: &BTreeSet<String>) -> Vec<String> {
    let line = line.trim();
    let module_of = |name: &str| -> Option<String> {
        let first = name.trim().split(['.', ' ']).next().unwrap_or("");
        modules.contains(first).then(|| first.to_string())
    };
    if let Some(rest) = line.strip_prefix("import proxima.") {
        return module_of(rest).into_iter().collect();
    }
    let Some(rest) = line.strip_prefix("from ") else { return Vec::new() };
    let Some((from, names)) = rest.split_once(" import ") else { return Vec::new() };
    let within = match from.trim() {
        "." | "proxima" => "",
        f => match f.strip_prefix("proxima.").or(f.strip_prefix('.')) {
            Some(m) => return module_of(m).into_iter().collect(),
            None => return Vec::new(),
        },
    };
    // `from . import a, b as c`: each name that is a module of the package.
    let names = names.trim_matches(|c| c == '(' || c == ')' || c == ' ');
    names.split(',').filter_map(|n| module_of(&format!("{within}{}", n.split(" as ").next().unwrap_or("")))).collect()
}

/// The package's import graph and the lengths of its files.
pub fn check(root: &Path) -> Vec<Problem> {
    let dir = root.join(PACKAGE);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<_> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "py")).collect();
    files.sort();
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut modules: BTreeSet<String> = files.iter().map(|p| stem(p)).collect();
    modules.remove("__init__");
    // The compiled extension, `proxima._native`, is a module of the package too, but has no
    // source here and imports none of the others.
    modules.insert("_native".to_string());
    let (mut graphs, mut problems) = (Graphs::new(), Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let (from, path) = (stem(file), shown(root, file));
        let mut in_string = false;
        for (n, line) in text.lines().enumerate() {
            if line.matches("\"\"\"").count() % 2 == 1 {
                in_string = !in_string;
            }
            if in_string || from == "__init__" {
                continue;
            }
            for to in imported(line, &modules).into_iter().filter(|to| *to != from) {
                let edge = Edge { file: path.clone(), line: n + 1 };
                graphs.entry(Vec::new()).or_default().entry((from.clone(), to)).or_insert(edge);
            }
        }
        let lines = text.lines().count();
        if lines > crate::length::MAX_FILE_LINES {
            let message = format!("{lines} lines, over {}", crate::length::MAX_FILE_LINES);
            problems.push(Problem { path: path.clone(), line: 0, rule: "file-length", item: path, message });
        }
    }
    problems.extend(check_circles("proxima (Python)", &graphs));
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_of_the_package_s_modules_are_read_in_every_form() {
        let modules: BTreeSet<String> = ["_ray", "_sweep", "_errors"].map(String::from).into();
        let cases = [
            ("from . import _ray", vec!["_ray"]),
            ("    from ._sweep import plan, sweep", vec!["_sweep"]),
            ("from proxima._errors import InputError", vec!["_errors"]),
            ("from proxima import _ray, _sweep as s", vec!["_ray", "_sweep"]),
            ("import proxima._ray", vec!["_ray"]),
            ("from . import InputError", vec![]),
            ("from typing import Any", vec![]),
            ("import json", vec![]),
        ];
        for (line, expected) in cases {
            assert_eq!(imported(line, &modules), expected, "{line}");
        }
    }
}
