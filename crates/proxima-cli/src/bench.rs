//! `proxima bench`: wall time, jobs/s and events/s of fixed scenarios, the median of several
//! runs. A benchmark reports figures; it asserts nothing.

use crate::inputs::{load_scenario, UsageError};
use proxima_core::event::EventHasher;
use proxima_core::run::RunOptions;
use proxima_core::session::Session;
use proxima_host::inputs::{ScenarioArgs, WorkloadArgs};
use std::time::Instant;

/// One benchmark: a scenario and a policy.
struct Case {
    name: String,
    topology: String,
    trace: String,
    policy: String,
}

fn philly_path() -> String {
    match std::env::var("PROXIMA_DATA") {
        Ok(d) => format!("{d}/philly/philly.csv"),
        Err(_) => "../shared/data/philly/philly.csv".to_string(),
    }
}

fn cases(suite: &str) -> Result<Vec<Case>, UsageError> {
    let case = |name: &str, topology: &str, trace: &str, policy: &str| Case {
        name: name.to_string(),
        topology: topology.to_string(),
        trace: trace.to_string(),
        policy: policy.to_string(),
    };
    let philly = philly_path();
    let have_philly = std::path::Path::new(&philly).is_file();
    let mut out = Vec::new();
    match suite {
        "targets" => {
            if !have_philly {
                eprintln!("skipping the Philly scenarios: {philly} not found (set PROXIMA_DATA)");
            } else {
                // Every policy family, with its default options; `tiresias-pollux` is the
                // Pollux artifact's setting (60 s rounds), `consolidate-migrate` the
                // migrating baseline.
                let policies = [
                    ("fifo", "fifo"),
                    ("consolidate", "consolidate"),
                    ("consolidate-migrate", "consolidate:migrate=on"),
                    ("strict", "strict"),
                    ("slurm", "slurm"),
                    ("tiresias", "tiresias"),
                    ("tiresias-pollux", proxima_core::policy::tiresias::POLLUX_SPEC),
                    ("srtf", "srtf"),
                    ("random", "random"),
                    ("dally", "dally"),
                ];
                for (name, spec) in policies {
                    out.push(case(&format!("philly-2048-{name}"), "oversub-2048", &philly, spec));
                }
                out.push(case("philly-512-dally", "racks=8,servers=8,gpus=8,oversub=4", &philly, "dally"));
            }
        }
        "jobs" => {
            // Same offered load, more and more jobs: time per job should stay flat.
            for n in [10_000, 100_000, 1_000_000] {
                for p in ["consolidate", "dally"] {
                    out.push(case(
                        &format!("jobs-{n}-{p}"),
                        "racks=8,servers=8,gpus=8,oversub=4",
                        &format!("synthetic:jobs={n},load=0.9"),
                        p,
                    ));
                }
            }
        }
        "gpus" => {
            // Same load and job count, larger and larger clusters.
            for racks in [8, 32, 128, 256] {
                for p in ["consolidate", "dally"] {
                    out.push(case(
                        &format!("gpus-{}-{p}", racks * 64),
                        &format!("racks={racks},servers=8,gpus=8,oversub=4"),
                        "synthetic:jobs=100000,load=0.9",
                        p,
                    ));
                }
            }
        }
        other => {
            return Err(UsageError(format!("bench: unknown suite '{other}' (known: targets, jobs, gpus, all)")));
        }
    }
    Ok(out)
}

/// Runs the suites, `repeats` times each case, and prints a table (and CSV rows to `csv`).
/// With `hash`, every run also hashes its events (the work `proxima run` adds).
pub fn run(
    suites: &[String],
    repeats: u32,
    hash: bool,
    mut csv: Option<&mut dyn std::io::Write>,
) -> Result<(), UsageError> {
    let suites: Vec<String> = if suites.iter().any(|s| s == "all") {
        vec!["targets".into(), "jobs".into(), "gpus".into()]
    } else {
        suites.to_vec()
    };
    println!(
        "{:<31} {:>9} {:>6} {:>10} {:>9} {:>9} {:>11} {:>11} {:>8}",
        "case", "jobs", "GPUs", "events", "median s", "min s", "jobs/s", "events/s", "µs/event"
    );
    if let Some(w) = csv.as_deref_mut() {
        let _ = writeln!(w, "case,jobs,gpus,events,median_s,min_s,max_s,jobs_per_s,events_per_s,setup_s");
    }
    for suite in &suites {
        for c in cases(suite)? {
            let args = ScenarioArgs {
                topology: c.topology.clone(),
                trace: c.trace.clone(),
                workload: WorkloadArgs { seed: 1, ..WorkloadArgs::default() },
            };
            let setup_start = Instant::now();
            let scenario = load_scenario(&args)?;
            let setup_s = setup_start.elapsed().as_secs_f64();
            let (jobs, gpus) = (scenario.jobs.len(), scenario.topology.gpu_count());
            let session = Session::of_one(scenario, &c.policy)?;
            let mut times = Vec::new();
            let mut events = 0;
            for _ in 0..repeats.max(1) {
                // The clock covers the simulation only (the core's run path reads it
                // around the run); reading and resolving the trace is reported separately
                // (setup_s in the CSV).
                let started = Instant::now();
                let clock = || started.elapsed().as_secs_f64() * 1000.0;
                let mut hasher = EventHasher::default();
                let options = RunOptions {
                    observers: if hash { vec![&mut hasher] } else { Vec::new() },
                    clock: Some(&clock),
                    ..RunOptions::default()
                };
                let finished = session.run(0, options).expect("without ρ nothing fails once checked");
                times.push(finished.simulation_ms.expect("timed") / 1000.0);
                events = finished.simulation.events();
                std::hint::black_box((finished.summary(), hasher.hash()));
            }
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            let min = times[0];
            let jobs_per_s = jobs as f64 / median;
            let events_per_s = events as f64 / median;
            println!(
                "{:<31} {:>9} {:>6} {:>10} {:>9.3} {:>9.3} {:>11.0} {:>11.0} {:>8.2}",
                c.name,
                jobs,
                gpus,
                events,
                median,
                min,
                jobs_per_s,
                events_per_s,
                median * 1e6 / events.max(1) as f64
            );
            if let Some(w) = csv.as_deref_mut() {
                let _ = writeln!(
                    w,
                    "{},{},{},{},{:.6},{:.6},{:.6},{:.0},{:.0},{:.6}",
                    c.name,
                    jobs,
                    gpus,
                    events,
                    median,
                    min,
                    times[times.len() - 1],
                    jobs_per_s,
                    events_per_s,
                    setup_s
                );
            }
        }
    }
    Ok(())
}
