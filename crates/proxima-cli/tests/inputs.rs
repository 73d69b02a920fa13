//! The catalogue of bad (and odd but fine) inputs, run through the real `proxima` binary:
//! each case asserts the exit code and the message users get. The same table generates the
//! CLI section of `docs/INPUTS.md`; if the document and the table disagree the test fails
//! and `UPDATE_DOCS=1 cargo test -p proxima-cli --test inputs` rewrites it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One input and what must happen to it.
struct Case {
    name: &'static str,
    /// The file the case writes (in a fresh directory), if any.
    file: Option<(&'static str, &'static [u8])>,
    /// Arguments after `proxima`.
    args: &'static [&'static str],
    /// Expected exit code: 2 for bad input, 0 for inputs that are odd but fine.
    code: i32,
    /// A part of stderr (code 2) or stdout (code 0) that must appear.
    expect: &'static str,
}

const T: &str = "teaching";

fn cases() -> Vec<Case> {
    let run = |trace: &'static str| -> &'static [&'static str] {
        Box::leak(vec!["run", "--topology", T, "--trace", trace, "--policy", "fifo"].into_boxed_slice())
    };
    let topo = |topology: &'static str| -> &'static [&'static str] {
        Box::leak(vec!["run", "--topology", topology, "--trace", "synthetic:jobs=5", "--policy", "fifo"].into_boxed_slice())
    };
    let policy = |p: &'static str| -> &'static [&'static str] {
        Box::leak(vec!["run", "--topology", T, "--trace", "synthetic:jobs=5", "--policy", p].into_boxed_slice())
    };
    const P: &str = "id,submit_s,gpus,model,duration_s\n";
    vec![
        Case { name: "empty file", file: Some(("empty.csv", b"")), args: run("empty.csv"), code: 2, expect: "empty.csv:1: header: the file is empty" },
        Case { name: "header only", file: Some(("header.csv", b"timestamp,duration,num_gpus,gpu_time,cluster\n")), args: run("header.csv"), code: 2, expect: "header.csv:1: header: no jobs" },
        Case { name: "whitespace only", file: Some(("blank.csv", b"\n \n\n")), args: run("blank.csv"), code: 2, expect: "blank.csv:1: header:" },
        Case { name: "wrong delimiter (semicolons)", file: Some(("semi.csv", b"id;submit_s;gpus;model;duration_s\na;0;1;resnet50;5\n")), args: run("semi.csv"), code: 2, expect: "semi.csv:1: header: unrecognised trace format (the separator must be a comma)" },
        Case { name: "wrong delimiter (tabs)", file: Some(("tabs.csv", b"id\tsubmit_s\tgpus\n")), args: run("tabs.csv"), code: 2, expect: "tabs.csv:1: header: unrecognised trace format (the separator must be a comma)" },
        Case { name: "unknown columns", file: Some(("other.csv", b"a,b,c\n1,2,3\n")), args: run("other.csv"), code: 2, expect: "other.csv:1: header: unrecognised trace format" },
        Case { name: "UTF-8 byte-order mark and CRLF line ends (accepted)", file: Some(("bom.csv", b"\xef\xbb\xbfid,submit_s,gpus,model,duration_s\r\na,0,1,resnet50,5\r\n")), args: run("bom.csv"), code: 0, expect: "1 total: 1 completed" },
        Case { name: "not UTF-8", file: Some(("latin1.csv", b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,5\xff\n")), args: run("latin1.csv"), code: 2, expect: "latin1.csv:2: encoding: not valid UTF-8" },
        Case { name: "NaN", file: Some(("nan.csv", b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,NaN\n")), args: run("nan.csv"), code: 2, expect: "nan.csv:2: duration_s: expected a number, got 'NaN'" },
        Case { name: "infinity", file: Some(("inf.csv", b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,inf\n")), args: run("inf.csv"), code: 2, expect: "inf.csv:2: duration_s:" },
        Case { name: "negative duration", file: Some(("neg.csv", b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,-5\n")), args: run("neg.csv"), code: 2, expect: "neg.csv:2: duration_s:" },
        Case { name: "overflowing number", file: Some(("big.csv", b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,1e400\n")), args: run("big.csv"), code: 2, expect: "big.csv:2: duration_s: the number '1e400' is too large" },
        Case { name: "negative submit time", file: Some(("past.csv", b"id,submit_s,gpus,model,duration_s\na,-1,1,resnet50,5\n")), args: run("past.csv"), code: 2, expect: "past.csv:2: submit_s:" },
        Case { name: "zero GPUs", file: Some(("zero.csv", b"id,submit_s,gpus,model,duration_s\na,0,0,resnet50,5\n")), args: run("zero.csv"), code: 2, expect: "zero.csv:2: gpus: expected a positive whole number, got '0'" },
        Case { name: "fractional GPUs", file: Some(("frac.csv", b"id,submit_s,gpus,model,duration_s\na,0,1.5,resnet50,5\n")), args: run("frac.csv"), code: 2, expect: "frac.csv:2: gpus:" },
        Case { name: "too many GPUs to be real", file: Some(("huge.csv", b"id,submit_s,gpus,model,duration_s\na,0,99999999999,resnet50,5\n")), args: run("huge.csv"), code: 2, expect: "huge.csv:2: gpus:" },
        Case { name: "more GPUs than the cluster (accepted, job rejected and counted)", file: Some(("wide.csv", b"id,submit_s,gpus,model,duration_s\na,0,64,resnet50,5\nb,0,1,resnet50,5\n")), args: run("wide.csv"), code: 0, expect: "2 total: 1 completed, 1 rejected" },
        Case { name: "duplicate job ids", file: Some(("dup.csv", b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,5\na,1,1,resnet50,5\n")), args: run("dup.csv"), code: 2, expect: "dup.csv:3: id: duplicate job id 'a': line 2 already uses it" },
        Case { name: "unsorted submit times (accepted, sorted)", file: Some(("unsorted.csv", b"id,submit_s,gpus,model,duration_s\nlate,100,1,resnet50,5\nearly,0,1,resnet50,5\n")), args: run("unsorted.csv"), code: 0, expect: "2 total: 2 completed" },
        Case { name: "unknown model", file: Some(("model.csv", b"id,submit_s,gpus,model,duration_s\na,0,1,lenet,5\n")), args: run("model.csv"), code: 2, expect: "model.csv:2: model: unknown model 'lenet' (known: " },
        Case { name: "missing field", file: Some(("short.csv", b"id,submit_s,gpus,model,duration_s\na,0,1\n")), args: run("short.csv"), code: 2, expect: "short.csv:2: model: missing value: the row has 3 fields but the header has 5 columns" },
        Case { name: "extra field", file: Some(("long.csv", b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,5,9\n")), args: run("long.csv"), code: 2, expect: "long.csv:2:" },
        Case { name: "unclosed quote", file: Some(("quote.csv", b"id,submit_s,gpus,model,duration_s\n\"a,0,1,resnet50,5\n")), args: run("quote.csv"), code: 2, expect: "quote.csv:2: row: the quote opened in field 1 is not closed on this line" },
        Case { name: "impossible date (Philly)", file: Some(("date.csv", b"timestamp,duration,num_gpus,gpu_time,cluster\n2017-13-09 07:01:55,66.0,1,66.0,a\n")), args: run("date.csv"), code: 2, expect: "date.csv:2: timestamp: month 13 does not exist" },
        Case { name: "non-numeric GPUs (Tiresias)", file: Some(("tir.csv", b"job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,x,0,606,vgg19,164,30\n")), args: run("tir.csv"), code: 2, expect: "tir.csv:2: num_gpu:" },
        Case { name: "unknown key in a JSON trace", file: Some(("key.json", b"{\"jobs\":[{\"id\":\"a\",\"submit_s\":0,\"gpus\":1,\"duration_s\":5,\"colour\":1}]}")), args: run("key.json"), code: 2, expect: "key.json:1: jobs[0].colour: unknown key" },
        Case { name: "malformed JSON trace", file: Some(("comma.json", b"{\"jobs\":[{\"id\":\"a\",\"submit_s\":0,\"gpus\":1,\"duration_s\":5},]}")), args: run("comma.json"), code: 2, expect: "comma.json:1: json: trailing comma" },
        Case { name: "missing file", file: None, args: run("nowhere.csv"), code: 2, expect: "nowhere.csv: cannot read" },
        Case { name: "topology without GPUs", file: Some(("nogpu.json", b"{\"servers\": []}")), args: topo("nogpu.json"), code: 2, expect: "nogpu.json: servers: a topology needs at least one server with GPUs" },
        Case { name: "server with zero GPUs", file: Some(("zerogpu.json", b"{\"servers\": [{\"id\":\"s\",\"gpus\":0,\"nvlink_gbps\":100}]}")), args: topo("zerogpu.json"), code: 2, expect: "zerogpu.json: servers[0].gpus: server 's' has no GPUs" },
        Case { name: "disconnected GPUs", file: Some(("island.json", b"{\"switches\":[{\"id\":\"t\"}],\"servers\":[{\"id\":\"a\",\"gpus\":2,\"nvlink_gbps\":100},{\"id\":\"b\",\"gpus\":2,\"nvlink_gbps\":100}],\"links\":[{\"a\":\"a\",\"b\":\"t\",\"bandwidth_gbps\":100}]}")), args: topo("island.json"), code: 2, expect: "island.json: links: server 'b' has no path to the rest of the cluster" },
        Case { name: "zero bandwidth", file: Some(("zerobw.json", b"{\"switches\":[{\"id\":\"t\"}],\"servers\":[{\"id\":\"a\",\"gpus\":2,\"nvlink_gbps\":100}],\"links\":[{\"a\":\"a\",\"b\":\"t\",\"bandwidth_gbps\":0}]}")), args: topo("zerobw.json"), code: 2, expect: "zerobw.json: links[0].bandwidth_gbps: must be a positive number of Gbit/s, got 0" },
        Case { name: "negative bandwidth", file: Some(("negbw.json", b"{\"servers\":[{\"id\":\"a\",\"gpus\":2,\"nvlink_gbps\":-1}]}")), args: topo("negbw.json"), code: 2, expect: "negbw.json: servers[0].nvlink_gbps: must be a positive number of Gbit/s, got -1" },
        Case { name: "unknown key in a topology", file: Some(("keys.json", b"{\"servers\":[{\"id\":\"a\",\"gpus\":2,\"nvlink_gbps\":100,\"colour\":\"red\"}]}")), args: topo("keys.json"), code: 2, expect: "keys.json:1: colour: unknown field `colour`" },
        Case { name: "topology cycle", file: Some(("cycle.json", b"{\"switches\":[{\"id\":\"t\"},{\"id\":\"u\"}],\"servers\":[{\"id\":\"a\",\"gpus\":1,\"nvlink_gbps\":1}],\"links\":[{\"a\":\"a\",\"b\":\"t\",\"bandwidth_gbps\":1},{\"a\":\"t\",\"b\":\"u\",\"bandwidth_gbps\":1},{\"a\":\"u\",\"b\":\"t\",\"bandwidth_gbps\":1}]}")), args: topo("cycle.json"), code: 2, expect: "cycle.json: links[2]: the link u - t closes a cycle" },
        Case { name: "duplicate node id", file: Some(("dupid.json", b"{\"servers\":[{\"id\":\"a\",\"gpus\":1,\"nvlink_gbps\":1},{\"id\":\"a\",\"gpus\":1,\"nvlink_gbps\":1}]}")), args: topo("dupid.json"), code: 2, expect: "dupid.json: servers[1].id: duplicate id 'a'" },
        Case { name: "link to an unknown node", file: Some(("ghost.json", b"{\"servers\":[{\"id\":\"a\",\"gpus\":1,\"nvlink_gbps\":1}],\"links\":[{\"a\":\"a\",\"b\":\"ghost\",\"bandwidth_gbps\":1}]}")), args: topo("ghost.json"), code: 2, expect: "ghost.json: links[0].b: unknown node 'ghost'" },
        Case { name: "parametric spec: unknown key", file: None, args: topo("racks=2,servers=2,gpus=4,rack=3"), code: 2, expect: "--topology: rack: unknown key" },
        Case { name: "parametric spec: missing key", file: None, args: topo("racks=2,servers=2"), code: 2, expect: "--topology: gpus: missing" },
        Case { name: "parametric spec: oversubscription below 1", file: None, args: topo("racks=2,servers=2,gpus=4,oversub=0.5"), code: 2, expect: "--topology: oversub: must be at least 1" },
        Case { name: "unknown preset", file: None, args: topo("cluster9"), code: 2, expect: "--topology: topology: 'cluster9' is neither a preset" },
        Case { name: "unknown policy", file: None, args: policy("lottery"), code: 2, expect: "--policy: policy: unknown policy 'lottery'" },
        Case { name: "unknown policy option", file: None, args: policy("dally:colour=red"), code: 2, expect: "--policy: colour: unknown option of policy 'dally'" },
        Case { name: "bad policy option value", file: None, args: policy("dally:preempt=maybe"), code: 2, expect: "--policy: preempt: expected on or off, got 'maybe'" },
        Case { name: "bad synthetic spec", file: None, args: run("synthetic:jobs=ten"), code: 2, expect: "--trace: jobs:" },
    ]
}

fn run_case(case: &Case, dir: &Path) -> (i32, String, String) {
    if let Some((name, bytes)) = case.file {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_proxima")).args(case.args).current_dir(dir).output().unwrap();
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
        assert!(shown.contains(case.expect), "{}: expected `{}` in:\n{shown}", case.name, case.expect);
        let line = if case.code == 0 {
            shown.lines().find(|l| l.contains(case.expect)).unwrap_or("").trim().to_string()
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

const BEGIN: &str = "<!-- BEGIN CLI CATALOGUE (generated by crates/proxima-cli/tests/inputs.rs) -->";
const END: &str = "<!-- END CLI CATALOGUE -->";

/// Keeps the CLI table in docs/INPUTS.md identical to what the binary does.
fn check_doc(table: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/INPUTS.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("{} lacks the generated CLI catalogue markers", path.display());
    };
    let current = &doc[b + BEGIN.len()..e];
    let wanted = format!("\n{table}");
    if current != wanted {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            let updated = format!("{}{BEGIN}{wanted}{}", &doc[..b], &doc[e..]);
            std::fs::write(&path, updated).unwrap();
        } else {
            panic!("docs/INPUTS.md is out of date with the CLI; run UPDATE_DOCS=1 cargo test -p proxima-cli --test inputs");
        }
    }
}
