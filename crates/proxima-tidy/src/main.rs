//! `cargo run -p proxima-tidy`: the repository's checks (see the library's documentation),
//! printed as `path:line: rule: message`; exits non-zero when any problem is left after
//! the allowlist, `tidy-allow.toml`. With `--items`, each problem's line is followed by the
//! item an allowance would name.

use proxima_tidy::sources::{production_files, shown, source_dirs};
use proxima_tidy::{allow, documents, layers, length, manifests, python, Problem};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const ALLOWLIST: &str = "tidy-allow.toml";

/// Function and file lengths of every production file.
fn lengths(root: &Path) -> Vec<Problem> {
    let mut files = Vec::new();
    for dir in source_dirs(root) {
        production_files(&dir, &mut files);
    }
    let mut problems = Vec::new();
    for file in files {
        let path = shown(root, &file);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let measured = match length::measure(&text) {
            Ok(m) => m,
            Err(e) => {
                let (line, message) = e.split_once(": ").unwrap_or(("0", &e));
                let line = line.parse().unwrap_or(0);
                problems.push(Problem { path, line, rule: "parse", item: String::new(), message: message.to_string() });
                continue;
            }
        };
        for f in measured.functions.iter().filter(|f| f.lines > length::MAX_FUNCTION_LINES) {
            problems.push(Problem {
                path: path.clone(),
                line: f.line,
                rule: "function-length",
                item: format!("{path}: {}", f.name),
                message: format!("`{}` is {} lines, over {}", f.name, f.lines, length::MAX_FUNCTION_LINES),
            });
        }
        if measured.production_lines > length::MAX_FILE_LINES {
            problems.push(Problem {
                path: path.clone(),
                line: 0,
                rule: "file-length",
                item: path.clone(),
                message: format!("{} lines outside tests, over {}", measured.production_lines, length::MAX_FILE_LINES),
            });
        }
    }
    problems
}

fn manifest_problems(root: &Path) -> Vec<Problem> {
    let mut problems = Vec::new();
    for manifest in manifests::manifests(root) {
        let file = root.join(&manifest);
        let Ok(text) = std::fs::read_to_string(&file) else {
            problems.push(Problem {
                path: manifest,
                line: 0,
                rule: "manifest",
                item: String::new(),
                message: "cannot be read".into(),
            });
            continue;
        };
        problems.extend(manifests::check(&text, &manifest, file.parent().unwrap_or(root), root));
    }
    problems
}

fn main() -> ExitCode {
    // The repository's root: two levels above this crate's manifest.
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    let mut problems = Vec::new();
    problems.extend(layers::check_core_layers(&root));
    problems.extend(layers::check_crate_graph(&root));
    problems.extend(layers::check_all_circles(&root));
    problems.extend(layers::check_page_models(&root));
    problems.extend(lengths(&root));
    problems.extend(python::check(&root));
    problems.extend(manifest_problems(&root));
    problems.extend(documents::check(&root));
    let allowances =
        match std::fs::read_to_string(root.join(ALLOWLIST)).map_err(|e| e.to_string()).and_then(|t| allow::parse(&t)) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("{ALLOWLIST}: {e}");
                return ExitCode::FAILURE;
            }
        };
    let found = problems.len();
    let left = allow::apply(problems, &allowances, ALLOWLIST);
    let items = std::env::args().any(|a| a == "--items");
    for p in &left {
        println!("{p}");
        if items {
            println!("    item = \"{}\"", p.item);
        }
    }
    if left.is_empty() {
        eprintln!("tidy: no problem ({found} known, excused in {ALLOWLIST})");
        ExitCode::SUCCESS
    } else {
        let excused = found + left.iter().filter(|p| p.rule == "allowlist").count() - left.len();
        eprintln!("tidy: {} problem(s) left, {excused} excused in {ALLOWLIST}", left.len());
        ExitCode::FAILURE
    }
}
