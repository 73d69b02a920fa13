//! The manifests: every package says `publish = false` (nothing here goes to a registry),
//! every registry dependency names a full version, `MAJOR.MINOR.PATCH` as `cargo add`
//! writes it, the oldest that is known to work (no `*`, no range, no bare major), and every
//! path dependency stays inside the repository. Read line by line, without a TOML crate:
//! the manifests keep one dependency to a line's start (`name = "1.2.3"` or
//! `name = { version = …, … }`), which this relies on.

use crate::Problem;
use std::path::Path;

/// The manifests checked: the workspace's members and the fuzz workspace, as paths
/// relative to the root.
pub fn manifests(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    let members = text.split("members = [").nth(1).and_then(|r| r.split(']').next()).unwrap_or("");
    let mut out: Vec<String> = members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| if m == "." { "Cargo.toml".to_string() } else { format!("{m}/Cargo.toml") })
        .collect();
    out.push("fuzz/Cargo.toml".to_string());
    out
}

/// Whether a version requirement is a full version: `1.2.3` or `=1.2.3`.
fn full_version(v: &str) -> bool {
    let parts: Vec<&str> = v.trim_start_matches('=').split('.').collect();
    parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// The string value of `key = "…"` inside an inline table's text.
fn inline_value<'a>(table: &'a str, key: &str) -> Option<&'a str> {
    let at = table.find(&format!("{key} = \""))? + key.len() + 4;
    table[at..].split('"').next()
}

/// The problems of one manifest; `dir` is its directory, `shown` its path for messages.
pub fn check(text: &str, shown: &str, dir: &Path, root: &Path) -> Vec<Problem> {
    let mut problems = Vec::new();
    let problem = |line: usize, item: String, message: String| Problem {
        path: shown.to_string(),
        line,
        rule: "manifest",
        item,
        message,
    };
    let (mut table, mut publish_seen) = (String::new(), false);
    for (n, raw) in text.lines().enumerate() {
        let (n, line) = (n + 1, raw.trim());
        if line.starts_with('[') {
            table = line.trim_matches(|c| c == '[' || c == ']').to_string();
            continue;
        }
        let Some((key, value)) = line.split_once(" = ") else { continue };
        let (key, value) = (key.trim(), value.trim());
        if table == "package" && key == "publish" {
            publish_seen = true;
            if value != "false" {
                problems.push(problem(
                    n,
                    format!("{shown}: publish"),
                    format!("`publish = {value}`: write `publish = false`"),
                ));
            }
        }
        let is_dependency_table = table.ends_with("dependencies");
        if !is_dependency_table || raw.starts_with([' ', '\t']) || key.starts_with(['"', '#']) {
            continue;
        }
        let item = format!("{shown}: {key}");
        if let Some(path) = inline_value(value, "path") {
            let inside =
                dir.join(path).canonicalize().is_ok_and(|p| root.canonicalize().is_ok_and(|r| p.starts_with(r)));
            if !inside {
                problems.push(problem(
                    n,
                    item,
                    format!("`{key}` is a path dependency outside the repository ({path})"),
                ));
            }
            continue;
        }
        if value.contains("workspace = true") {
            continue;
        }
        let version =
            if value.starts_with('"') { Some(value.trim_matches('"')) } else { inline_value(value, "version") };
        match version {
            Some(v) if full_version(v) => {}
            Some(v) => {
                problems.push(problem(n, item, format!("`{key} = \"{v}\"`: name a full version, MAJOR.MINOR.PATCH")))
            }
            None => problems.push(problem(n, item, format!("`{key}` names no version"))),
        }
    }
    if !publish_seen {
        problems.push(problem(1, format!("{shown}: publish"), "no `publish = false` in [package]".to_string()));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_publish_and_paths_are_checked() {
        let root = std::env::temp_dir();
        let text = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1.0.229\"\nrand = \"0.8\"\nclap = { version = \"*\", features = [\"derive\"] }\nweb-sys = { version = \"0.3.107\", features = [\n    \"Blob\",\n] }\nfar = { path = \"/nonexistent-proxima-tidy\" }\nlocal = { workspace = true }\n";
        let found: Vec<String> = check(text, "x/Cargo.toml", &root, &root).iter().map(|p| p.to_string()).collect();
        assert_eq!(
            found,
            [
                "x/Cargo.toml:6: manifest: `rand = \"0.8\"`: name a full version, MAJOR.MINOR.PATCH",
                "x/Cargo.toml:7: manifest: `clap = \"*\"`: name a full version, MAJOR.MINOR.PATCH",
                "x/Cargo.toml:11: manifest: `far` is a path dependency outside the repository (/nonexistent-proxima-tidy)",
                "x/Cargo.toml:1: manifest: no `publish = false` in [package]",
            ]
        );
    }
}
