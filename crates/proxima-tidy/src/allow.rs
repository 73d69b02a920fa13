//! The allowlist, `tidy-allow.toml`: the known problems, each excused with a reason and the
//! issue that will remove it. Its format is a small part of TOML, read here without a TOML
//! crate:
//!
//! ```toml
//! [[allow]]
//! rule = "function-length"
//! item = "src/panels/editor.rs: editor_view"
//! issue = 33
//! reason = "one view with its handlers; split with the editor's feature folder"
//! ```
//!
//! An allowance matches the problems of its rule whose item it names exactly. One that
//! matches nothing is a problem itself, so the list cannot outlive what it excuses.

use crate::Problem;
use std::collections::BTreeSet;

/// One known problem, excused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowance {
    pub rule: String,
    pub item: String,
    pub issue: u32,
    pub reason: String,
    /// Where it is in the allowlist, 1-based.
    pub line: usize,
}

/// Reads the allowlist; an error names the line and what is wrong with it.
pub fn parse(text: &str) -> Result<Vec<Allowance>, String> {
    let mut list: Vec<Allowance> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let (n, line) = (n + 1, raw.trim());
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "[[allow]]" {
            list.push(Allowance { line: n, ..Allowance::default() });
            continue;
        }
        let Some(current) = list.last_mut() else {
            return Err(format!("line {n}: expected `[[allow]]` before `{line}`"));
        };
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!("line {n}: expected `key = value`, found `{line}`"));
        };
        let value = value.trim();
        let text = || -> Result<String, String> {
            let inner = value.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
            inner
                .filter(|v| !v.contains('"'))
                .map(String::from)
                .ok_or(format!("line {n}: `{value}` is not a \"string\""))
        };
        match key.trim() {
            "rule" => current.rule = text()?,
            "item" => current.item = text()?,
            "reason" => current.reason = text()?,
            "issue" => {
                current.issue = value.parse().map_err(|_| format!("line {n}: issue `{value}` is not a number"))?
            }
            other => return Err(format!("line {n}: unknown key `{other}` (rule, item, issue, reason)")),
        }
    }
    for a in &list {
        if a.rule.is_empty() || a.item.is_empty() || a.reason.is_empty() || a.issue == 0 {
            return Err(format!("line {}: an allowance needs a rule, an item, an issue and a reason", a.line));
        }
    }
    Ok(list)
}

/// The problems no allowance excuses, and a problem for each allowance that excuses
/// nothing (at `path`, the allowlist's own).
pub fn apply(problems: Vec<Problem>, allowances: &[Allowance], path: &str) -> Vec<Problem> {
    let mut used = BTreeSet::new();
    let mut left: Vec<Problem> = problems
        .into_iter()
        .filter(|p| match allowances.iter().position(|a| a.rule == p.rule && a.item == p.item) {
            Some(k) => {
                used.insert(k);
                false
            }
            None => true,
        })
        .collect();
    for (_, a) in allowances.iter().enumerate().filter(|(k, _)| !used.contains(k)) {
        left.push(Problem {
            path: path.to_string(),
            line: a.line,
            rule: "allowlist",
            item: a.item.clone(),
            message: format!("`{}` ({}) matches no problem any more: remove it", a.item, a.rule),
        });
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(rule: &'static str, item: &str) -> Problem {
        Problem { path: "a.rs".into(), line: 1, rule, item: item.into(), message: String::new() }
    }

    #[test]
    fn allowances_excuse_their_problems_and_stale_ones_are_reported() {
        let text = "# known\n[[allow]]\nrule = \"circle\"\nitem = \"x: a b\"\nissue = 33\nreason = \"why\"\n\n[[allow]]\nrule = \"file-length\"\nitem = \"gone.rs\"\nissue = 33\nreason = \"why\"\n";
        let list = parse(text).unwrap();
        assert_eq!(list.len(), 2);
        let left = apply(vec![problem("circle", "x: a b"), problem("circle", "x: c d")], &list, "tidy-allow.toml");
        assert_eq!(left.len(), 2);
        assert_eq!(left[0].item, "x: c d");
        assert_eq!(
            left[1].to_string(),
            "tidy-allow.toml:8: allowlist: `gone.rs` (file-length) matches no problem any more: remove it"
        );
    }

    #[test]
    fn a_bad_allowlist_names_its_line() {
        assert_eq!(parse("rule = \"x\"\n").unwrap_err(), "line 1: expected `[[allow]]` before `rule = \"x\"`");
        assert!(parse("[[allow]]\nrule = \"x\"\nitem = \"y\"\nissue = 3\n").unwrap_err().contains("a reason"));
        assert!(parse("[[allow]]\nwhy = \"x\"\n").unwrap_err().starts_with("line 2: unknown key"));
    }
}
