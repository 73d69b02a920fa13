//! What the CLI prints and writes.

use proxima_core::engine::Simulation;
use proxima_core::event::{Observer, SimEvent};
use proxima_core::metrics::per_tenant::TenantSummary;
pub use proxima_core::metrics::result_dir_name;
use proxima_core::metrics::Summary;
use proxima_core::run_files::{compare_json, RunRecord, COMPARE_FILE};
use proxima_core::time::SimTime;
use proxima_core::topology::Topology;
use std::fs;
use std::io::{BufWriter, Write};

/// Writes a run's files (the core's [`RunFiles`]) into `dir`, creating it.
pub fn write_run(dir: &str, record: &RunRecord) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("{dir}: cannot create directory: {e}"))?;
    for (name, text) in record.files().named() {
        let path = format!("{dir}/{name}");
        fs::write(&path, text).map_err(|e| format!("{path}: cannot write: {e}"))?;
    }
    Ok(())
}

/// Writes `compare.json` into `dir`, creating it.
pub fn write_compare(dir: &str, summaries: &[Summary]) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("{dir}: cannot create directory: {e}"))?;
    let path = format!("{dir}/{COMPARE_FILE}");
    fs::write(&path, compare_json(summaries)).map_err(|e| format!("{path}: cannot write: {e}"))
}

fn hours(s: f64) -> String {
    if s >= 3600.0 {
        format!("{s:.0} s ({:.1} h)", s / 3600.0)
    } else {
        format!("{s:.1} s")
    }
}

/// An amount of job-time or GPU-time (`unit` "job" or "GPU"), with hours beside it.
fn time_in(s: f64, unit: &str) -> String {
    if s >= 3600.0 {
        format!("{s:.0} {unit}-s ({:.1} {unit}-h)", s / 3600.0)
    } else {
        format!("{s:.1} {unit}-s")
    }
}

pub fn print_summary(s: &Summary, sim: &Simulation) {
    let topo = &sim.scenario().topology;
    println!("policy      {}", s.policy);
    println!("cluster     {} ({} GPUs; tiers {})", s.topology, s.gpus, topo.tier_names().join(" < "));
    println!("network     {}", topo.describe_network());
    println!("trace       {} (seed {})", s.trace, s.seed);
    println!(
        "jobs        {} total: {} completed, {} rejected (asked for more GPUs than the cluster has){}",
        s.jobs_total,
        s.jobs_completed,
        s.jobs_rejected,
        if s.jobs_unfinished > 0 { format!(", {} never placed", s.jobs_unfinished) } else { String::new() }
    );
    println!(
        "JCT         mean {}, p50 {}, p95 {}, p99 {}",
        hours(s.avg_jct_s),
        hours(s.p50_jct_s),
        hours(s.p95_jct_s),
        hours(s.p99_jct_s)
    );
    println!("makespan    {}", hours(s.makespan_s));
    println!("queueing    mean {} per job", hours(s.avg_queue_s));
    println!(
        "comm. overhead {} in all ({:.1} s per completed job) beyond each job's tightest placement without contention",
        time_in(s.comm_overhead_s, "job"),
        if s.jobs_completed > 0 { s.comm_overhead_s / s.jobs_completed as f64 } else { 0.0 }
    );
    println!("               {} in all (each job's overhead times its GPUs)", time_in(s.comm_overhead_gpu_s, "GPU"));
    println!("GPU util.   {:.1}% of GPU-time over the makespan", s.avg_gpu_util * 100.0);
    println!("placements  {} (per tier: {})", s.tier_counts.total(), s.tier_counts.describe());
    println!(
        "preemptions {} (suffered by one job: at most {}, p99 {})",
        s.preemptions, s.job_preemptions_max, s.job_preemptions_p99
    );
    print_fairness(s);
}

/// A duration in the unit that reads best.
fn short(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else if s < 172_800.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} d", s / 86_400.0)
    }
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map(|v| format!("{v:.digits$}")).unwrap_or_else(|| "-".into())
}

/// The fairness lines and the per-tenant table (`docs/METRICS.md` defines every column).
fn print_fairness(s: &Summary) {
    println!(
        "fairness    Jain's index over tenants' slowdowns {:.3} (1: every tenant's work slowed alike)",
        s.jain_slowdown
    );
    match (s.rho_max, s.rho_p50, s.rho_over_1) {
        (Some(max), Some(p50), Some(over)) => println!(
            "rho         finish-time fairness (JCT here / JCT alone on the tenant's share): max {max:.2}, median {p50:.2}, {:.1}% of jobs above 1",
            over * 100.0
        ),
        _ => println!("rho         not computed (--no-rho, or no job completed in both runs)"),
    }
    if s.tenants.len() < 2 {
        return;
    }
    let demand: f64 = s.tenants.iter().map(|t| t.demand_gpu_s).sum();
    let quotas = serde_json::to_value(s.quotas).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
    println!("tenants     {} (quotas: {quotas}), most GPU-time asked first:", s.tenants.len());
    println!(
        "  {:<10} {:>6} {:>6} {:>7} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8} {:>6} {:>7}",
        "tenant",
        "quota",
        "share",
        "jobs",
        "GPU-t",
        "mean JCT",
        "p95 JCT",
        "mean wait",
        "ovh job-s",
        "ovh GPU-s",
        "preempt",
        "slowdn",
        "rho",
        "rho max"
    );
    let mut order: Vec<&TenantSummary> = s.tenants.iter().collect();
    order.sort_by(|a, b| b.demand_gpu_s.total_cmp(&a.demand_gpu_s).then(a.name.cmp(&b.name)));
    for t in order {
        let name: String = t.name.chars().take(10).collect();
        println!(
            "  {:<10} {:>6} {:>6} {:>7} {:>5.1}% {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8.2} {:>6} {:>7}",
            name,
            t.quota_gpus,
            t.share_gpus.map(|g| g.to_string()).unwrap_or_else(|| "-".into()),
            t.jobs,
            if demand > 0.0 { t.demand_gpu_s / demand * 100.0 } else { 0.0 },
            short(t.avg_jct_s),
            short(t.p95_jct_s),
            short(t.avg_queue_s),
            short(t.comm_overhead_s),
            short(t.comm_overhead_gpu_s),
            format!("{}/{}", t.preemptions, t.job_preemptions_max),
            t.slowdown,
            opt(t.rho, 2),
            opt(t.rho_max, 1)
        );
    }
    println!(
        "  (share: GPUs of the isolated run; ovh: communication overhead summed, in job-time and in GPU-time (each job's times its GPUs); preempt: in all / most on one job)"
    );
}

/// The width of the comparison table's row labels: the longest, "comm. overhead (GPU-s)",
/// and two spaces.
const LABEL_WIDTH: usize = 24;

/// Rows of the comparison table: label, value, whether lower is better.
fn rows(s: &Summary) -> Vec<(&'static str, f64)> {
    vec![
        ("mean JCT (s)", s.avg_jct_s),
        ("p50 JCT (s)", s.p50_jct_s),
        ("p95 JCT (s)", s.p95_jct_s),
        ("p99 JCT (s)", s.p99_jct_s),
        ("makespan (s)", s.makespan_s),
        ("mean queueing (s)", s.avg_queue_s),
        ("comm. overhead (job-s)", s.comm_overhead_s),
        ("comm. overhead (GPU-s)", s.comm_overhead_gpu_s),
        ("GPU utilisation", s.avg_gpu_util),
        ("preemptions", s.preemptions as f64),
        ("max preempt./job", s.job_preemptions_max as f64),
        ("Jain (slowdowns)", s.jain_slowdown),
        ("rho max", s.rho_max.unwrap_or(f64::NAN)),
        ("jobs with rho > 1", s.rho_over_1.map_or(f64::NAN, |x| x * 100.0)),
        ("completed jobs", s.jobs_completed as f64),
        ("rejected jobs", s.jobs_rejected as f64),
    ]
}

/// The comparison table; columns are headed by the policies as the user wrote them, and
/// their full specs (every option spelled out) follow the table.
pub fn print_comparison(summaries: &[Summary], labels: &[String], topo: &Topology) {
    let Some(first) = summaries.first() else { return };
    println!(
        "cluster {} ({} GPUs), trace {}, seed {}, {} jobs",
        first.topology, first.gpus, first.trace, first.seed, first.jobs_total
    );
    println!("network {}", topo.describe_network());
    let width = labels.iter().map(|l| l.chars().count() + 2).max().unwrap_or(0).max(22);
    print!("{:<LABEL_WIDTH$}", "");
    for label in labels {
        print!("{label:>width$}");
    }
    println!();
    let base = rows(first);
    for (i, (label, _)) in base.iter().enumerate() {
        print!("{label:<LABEL_WIDTH$}");
        for s in summaries {
            let v = rows(s)[i].1;
            let text = if v.is_nan() {
                "-".to_string()
            } else if *label == "GPU utilisation" {
                format!("{:.1}%", v * 100.0)
            } else if *label == "jobs with rho > 1" {
                format!("{v:.1}%")
            } else if label.starts_with("Jain") || label.starts_with("rho") {
                format!("{v:.3}")
            } else if v.fract() == 0.0 && v.abs() < 1e15 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            };
            let ratio = base[i].1;
            let no_ratio = label.ends_with("jobs")
                || label.contains("preempt")
                || label.contains("rho")
                || label.starts_with("Jain");
            // A ratio beyond a thousand either way says only that the first policy's value
            // is next to nothing (an overhead of a few milliseconds): "n/a" instead.
            let cell = if std::ptr::eq(s, first) || ratio == 0.0 || v.is_nan() || no_ratio {
                text
            } else if !(1e-3..=1e3).contains(&(v / ratio).abs()) && v != 0.0 {
                format!("{text} (n/a)")
            } else {
                format!("{text} ({:.2}x)", v / ratio)
            };
            // One space at least between columns, however wide a cell grows.
            print!(" {cell:>w$}", w = width - 1);
        }
        println!();
    }
    print!("{:<LABEL_WIDTH$}", "placements by tier");
    for s in summaries {
        let t: Vec<String> = s.tier_counts.iter().map(|(_, n)| n.to_string()).collect();
        print!("{:>width$}", t.join("/"));
    }
    println!("  ({})", topo.tier_names().join("/"));
    println!("\n(x) is the ratio to the first policy. JCT = completion - submission. Communication overhead =");
    println!("time in gradient exchange beyond each job's tightest placement without contention, summed over");
    println!("jobs (job-s), and each job's times its GPUs, summed (GPU-s).");
    println!("rho = a job's JCT here over its JCT with its tenant alone on its share; Jain's index is over");
    println!("the tenants' slowdowns (docs/METRICS.md).");
    println!("Policies in full:");
    for (label, s) in labels.iter().zip(summaries) {
        println!("  {label}: {}", s.policy);
    }
}

/// Writes every event as a JSON line: `{"t_us": ..., "event": ...}`.
pub struct EventLog<W: Write> {
    out: BufWriter<W>,
}

impl<W: Write> EventLog<W> {
    pub fn new(out: W) -> Self {
        EventLog { out: BufWriter::new(out) }
    }
}

impl<W: Write> Observer for EventLog<W> {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        let line = serde_json::to_string(event).expect("events serialise");
        // A full disk shows up when the file is flushed on drop; a run is not worth failing
        // for its log.
        let _ = writeln!(self.out, "{{\"t_us\":{},{}", now.0, &line[1..]);
    }
}
