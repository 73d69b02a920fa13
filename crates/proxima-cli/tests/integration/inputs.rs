//! The catalogue of bad (and odd but fine) inputs (`tests/inputs/catalogue.json`, shared
//! with the browser app's end-to-end test), run through the real `proxima` binary: each
//! case asserts the exit code and the message users get. The results generate the CLI
//! section of `docs/INPUTS.md`; if the document and the table disagree the test fails
//! and `UPDATE_DOCS=1 cargo test -p proxima-cli --test integration -- inputs::` rewrites it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One input and what must happen to it (a row of `tests/inputs/catalogue.json`).
struct Case {
    name: String,
    /// The file the case writes (in a fresh directory), if any: name and bytes.
    file: Option<(String, Vec<u8>)>,
    /// Arguments after `proxima`.
    args: Vec<String>,
    /// Expected exit code: 2 for bad input, 0 for inputs that are odd but fine.
    code: i32,
    /// A part of stderr (code 2) or stdout (code 0) that must appear.
    expect: String,
    /// A warning that must appear on stderr of an input that is accepted (code 0).
    warning: Option<String>,
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    out
}

fn cases() -> Vec<Case> {
    let path = repo_root().join("tests/inputs/catalogue.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    doc["cases"]
        .as_array()
        .expect("a cases array")
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().expect("name").to_string(),
            file: c.get("file").map(|f| {
                let name = f["name"].as_str().expect("file name").to_string();
                let bytes = match (f.get("text"), f.get("base64")) {
                    (Some(t), _) => t.as_str().expect("text").as_bytes().to_vec(),
                    (None, Some(b)) => decode_base64(b.as_str().expect("base64")),
                    _ => panic!("file needs text or base64"),
                };
                (name, bytes)
            }),
            args: c["args"].as_array().expect("args").iter().map(|a| a.as_str().expect("arg").to_string()).collect(),
            code: c["exit"].as_i64().expect("exit") as i32,
            expect: c["expect"].as_str().expect("expect").to_string(),
            warning: c.get("warning").map(|w| w.as_str().expect("warning").to_string()),
        })
        .collect()
}

fn run_case(case: &Case, dir: &Path) -> (i32, String, String) {
    if let Some((name, bytes)) = &case.file {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_proxima")).args(&case.args).current_dir(dir).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Markdown code span, with a longer fence when the text itself holds backticks.
fn code_span(s: &str) -> String {
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn markdown_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[test]
fn every_bad_input_gets_a_clear_error_and_exit_code_2() {
    let dir = std::env::temp_dir().join(format!("proxima-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut table = String::from("| # | input | command | exit | what the user sees |\n|---:|---|---|---:|---|\n");
    let cases = cases();
    assert!(cases.len() >= 30);
    for (i, case) in cases.iter().enumerate() {
        let (code, stdout, stderr) = run_case(case, &dir);
        let shown = if case.code == 0 { &stdout } else { &stderr };
        assert_eq!(code, case.code, "{}: exit code; stderr: {stderr}", case.name);
        assert!(shown.contains(&case.expect), "{}: expected `{}` in:\n{shown}", case.name, case.expect);
        if let Some(warning) = &case.warning {
            assert!(stderr.contains(warning), "{}: expected the warning `{warning}` in:\n{stderr}", case.name);
        }
        let line = if case.code == 0 {
            shown.lines().find(|l| l.contains(&case.expect)).unwrap_or("").trim().to_string()
        } else {
            shown.lines().next().unwrap_or("").to_string()
        };
        let _ = std::fmt::Write::write_fmt(
            &mut table,
            format_args!(
                "| {} | {} | `proxima {}` | {} | {} |\n",
                i + 1,
                case.name,
                markdown_escape(&case.args.join(" ")),
                code,
                code_span(&markdown_escape(&line))
            ),
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    check_doc(&table);
}

/// Keeps the CLI table in docs/INPUTS.md identical to what the binary does.
fn check_doc(table: &str) {
    let begin = "<!-- BEGIN CLI CATALOGUE (generated by crates/proxima-cli/tests/integration/inputs.rs) -->";
    crate::generated::check("docs/INPUTS.md", begin, "<!-- END CLI CATALOGUE -->", table, "inputs::");
}
