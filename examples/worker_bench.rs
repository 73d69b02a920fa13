//! The web worker's run, natively: the native side of `scripts/bench-wasm.mjs`.
//!
//! The page's worker does more per event than `proxima bench` times: it hashes every event
//! (the number `proxima run` prints, which the determinism tests compare) and records the
//! playback log. So that the browser is held against the same work, this runs the worker's
//! own function, `proxima_web::worker::run_request`, on the request the page sends for the
//! full Philly-derived trace on the `oversub-2048` preset, and prints the time the worker
//! itself reports for each policy (the same clock points: after `Simulation::new`, until the
//! last event). A benchmark prints figures; it asserts nothing.
//!
//!   cargo run --release --example worker_bench -- [--repeats N] [--trace FILE]
//!       [--topology T] [--policy P ...]
//!
//! Prints one line per policy: `policy <name> median_ms <m> min_ms <m> runs <n>
//! events <e> hash <h>` (the hash is the one the page shows, so a reader can check that
//! both sides ran the same events).

use proxima_core::inputs::TopologyInput;
use proxima_web::protocol::{Bytes, FileData, FromWorker, RunRequest, TraceSource};
use proxima_web::worker::run_request;
use std::collections::BTreeMap;
use std::time::Instant;

fn main() {
    if let Err(message) = run() {
        eprintln!("worker_bench: {message}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let repeats: usize = match value("--repeats") {
        Some(text) => text.parse().map_err(|_| format!("--repeats: '{text}' is not a count"))?,
        None => 5,
    };
    let data = std::env::var("PROXIMA_DATA").unwrap_or_else(|_| "../shared/data".to_string());
    let trace = value("--trace").unwrap_or_else(|| format!("{data}/philly/philly.csv"));
    let topology = value("--topology").unwrap_or_else(|| "oversub-2048".to_string());
    let mut policies: Vec<String> = args
        .iter()
        .enumerate()
        .filter(|(_, a)| *a == "--policy")
        .filter_map(|(i, _)| args.get(i + 1).cloned())
        .collect();
    if policies.is_empty() {
        policies = ["fifo", "consolidate", "dally"].map(String::from).to_vec();
    }
    let bytes = std::fs::read(&trace).map_err(|e| format!("{trace}: {e}"))?;
    let name = std::path::Path::new(&trace).file_name().map_or(trace.clone(), |n| n.to_string_lossy().into_owned());
    let request = RunRequest {
        run_id: 1,
        topology: TopologyInput::Argument(topology),
        trace: TraceSource::File { name, data: FileData::Bytes(Bytes(bytes.into())) },
        seed: 1,
        mix: None,
        policies: policies.clone(),
    };
    let started = Instant::now();
    let clock = move || started.elapsed().as_secs_f64() * 1000.0;
    // One run first, not counted, as the browser side does (there it lets the engine
    // optimise the code; here it warms the caches and the allocator).
    let mut samples: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut facts: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for round in 0..=repeats {
        let mut failure = None;
        run_request(&request, &clock, &mut |message| match message {
            FromWorker::PolicyDone { result, .. } => {
                if round > 0 {
                    samples.entry(result.policy.clone()).or_default().push(result.elapsed_ms);
                }
                facts.insert(result.policy.clone(), (result.event_count, result.event_hash.clone()));
            }
            FromWorker::Failed { problem, .. } => failure = Some(problem.to_string()),
            _ => {}
        });
        if let Some(message) = failure {
            return Err(message);
        }
    }
    for policy in &policies {
        let mut times = samples.remove(policy).unwrap_or_default();
        times.sort_by(f64::total_cmp);
        let (events, hash) = facts.get(policy).cloned().unwrap_or_default();
        println!(
            "policy {policy} median_ms {:.1} min_ms {:.1} runs {} events {events} hash {hash}",
            times.get(times.len() / 2).copied().unwrap_or(f64::NAN),
            times.first().copied().unwrap_or(f64::NAN),
            times.len()
        );
    }
    Ok(())
}
