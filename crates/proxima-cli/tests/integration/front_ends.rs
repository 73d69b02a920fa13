//! One scenario (`tests/inputs/front_ends.json`) through the CLI (`proxima compare --out`)
//! and the page's worker (`proxima_web::worker::run_request`, natively): both take the
//! session (`proxima_core::session`), so each policy's `summary.json`, `jobs.csv` and
//! `timeseries.csv`, and `compare.json`, are the same bytes. `tests/python/test_front_ends.py`
//! holds Python to the CLI on the same scenario.

use proxima_core::inputs::TopologyInput;
use proxima_core::metrics::result_dir_name;
use proxima_core::run_files::{compare_json, COMPARE_FILE};
use proxima_web::protocol::{FromWorker, PolicyResult, RunRequest, TraceSource};
use std::process::Command;

/// The scenario every front end runs, as the fixture gives it.
struct Case {
    topology: String,
    trace: String,
    seed: u64,
    policies: Vec<String>,
}

fn case() -> Case {
    let text = include_str!("../../../../tests/inputs/front_ends.json");
    let json: serde_json::Value = serde_json::from_str(text).unwrap();
    let string = |key: &str| json[key].as_str().unwrap().to_string();
    Case {
        topology: string("topology"),
        trace: string("trace"),
        seed: json["seed"].as_u64().unwrap(),
        policies: json["policies"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect(),
    }
}

/// The worker's results for the case, in policy order, as the page receives them.
fn worker_results(case: &Case) -> Vec<PolicyResult> {
    let request = RunRequest {
        run_id: 1,
        topology: TopologyInput::Argument(case.topology.clone()),
        trace: TraceSource::Synthetic(case.trace.clone()),
        seed: case.seed,
        mix: None,
        policies: case.policies.clone(),
    };
    let mut results = Vec::new();
    proxima_web::worker::run_request(&request, &|| 0.0, &mut |message| match message {
        FromWorker::PolicyDone { result, .. } => results.push(*result),
        FromWorker::Failed { problem, .. } => panic!("the worker refused the case: {problem}"),
        _ => {}
    });
    results
}

#[test]
fn the_cli_and_the_workers_code_write_the_same_bytes_for_every_policy() {
    let case = case();
    let dir = std::env::temp_dir().join(format!("proxima-front-ends-{}", std::process::id()));
    let mut cli = Command::new(env!("CARGO_BIN_EXE_proxima"));
    cli.args(["compare", "--topology", &case.topology, "--trace", &case.trace]);
    cli.args(["--seed", &case.seed.to_string(), "--out", dir.to_str().unwrap()]);
    for p in &case.policies {
        cli.args(["--policy", p]);
    }
    let out = cli.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let results = worker_results(&case);
    assert_eq!(results.len(), case.policies.len());
    for (policy, result) in case.policies.iter().zip(&results) {
        assert_eq!(&result.policy, policy);
        let files = result.files().unwrap();
        for (name, text) in files.named() {
            let written = std::fs::read_to_string(dir.join(result_dir_name(policy)).join(name)).unwrap();
            assert!(written == text, "{policy}: {name} differs between the CLI and the worker");
        }
    }
    // The tenants' isolated runs were made (ρ in every summary), on threads in the CLI and
    // one after another in the worker.
    assert!(results.iter().all(|r| r.summary.rho_max.is_some()), "ρ made by both");
    let summaries: Vec<_> = results.iter().map(|r| r.summary.clone()).collect();
    assert_eq!(std::fs::read_to_string(dir.join(COMPARE_FILE)).unwrap(), compare_json(&summaries));
    std::fs::remove_dir_all(&dir).unwrap();
}
