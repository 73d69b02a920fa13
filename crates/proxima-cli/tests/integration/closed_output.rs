//! Every command ends quietly when its output is closed, as Unix tools do: killed by
//! SIGPIPE at its next write (a shell reports status 141), with nothing on stderr — never
//! the panic "failed printing to stdout: Broken pipe".
#![cfg(unix)]

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

const SIGPIPE: i32 = 13;

/// Runs `proxima ARGS` with its stdout a pipe whose reading end is already closed, so its
/// first write fails; returns how it ended and its stderr.
fn run_into_closed_pipe(args: &[&str]) -> (std::process::ExitStatus, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).stdout(writer).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (child.wait().unwrap(), stderr)
}

#[test]
fn every_command_that_prints_ends_quietly_on_a_closed_pipe() {
    let scenario = ["--topology", "teaching", "--trace", "synthetic:jobs=20"];
    let run: Vec<&str> = ["run"].iter().chain(&scenario).chain(&["--policy", "fifo"]).copied().collect();
    let compare: Vec<&str> =
        ["compare"].iter().chain(&scenario).chain(&["--policy", "fifo", "--policy", "dally"]).copied().collect();
    let commands: Vec<Vec<&str>> = vec![
        vec!["topologies"],
        vec!["topologies", "--json", "teaching"],
        vec!["policies"],
        vec!["models"],
        vec!["--help"],
        run,
        compare,
    ];
    for args in commands {
        let (status, stderr) = run_into_closed_pipe(&args);
        assert_eq!(status.signal(), Some(SIGPIPE), "proxima {}: {status}; stderr: {stderr}", args.join(" "));
        assert_eq!(stderr, "", "proxima {}", args.join(" "));
    }
}

#[test]
fn head_takes_the_first_line_and_the_shell_sees_status_141() {
    // About 400 KB of JSON: more than a pipe holds, so the writer is still writing when
    // `head` exits, and must meet the closed pipe.
    let script = format!(
        "set -o pipefail; '{}' topologies --json racks=64,servers=32,gpus=8 | head -1",
        env!("CARGO_BIN_EXE_proxima")
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "nothing on stderr, no panic");
    assert_eq!(out.status.code(), Some(141), "pipefail reports the writer's SIGPIPE as 141");
}

#[test]
fn output_read_to_the_end_still_exits_0() {
    let out = Command::new(env!("CARGO_BIN_EXE_proxima")).args(["topologies", "--json", "teaching"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"tor1\""));
}
