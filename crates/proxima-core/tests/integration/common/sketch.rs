//! Random workloads for the property tests (`invariants.rs`, `tenant_invariants.rs`): jobs
//! sketched before the cluster is known, then made into a trace and a scenario on it. Each
//! test keeps its own strategies (they draw different mixes); what they share is how a
//! sketch becomes a job.

use proxima_core::model::Catalog;
use proxima_core::scenario::Scenario;
use proxima_core::topology::resolve_topology_arg;
use proxima_core::trace::{Trace, TraceFormat, TraceJob, TraceWork};
use proxima_core::workload::{ModelMix, WorkloadOptions};

/// A job before the cluster size is known: GPUs as a share of the cluster.
#[derive(Clone, Debug)]
pub struct JobSketch {
    /// Seconds after the previous job's submission.
    pub gap_s: f64,
    /// 0 → 1 GPU, 1.0 → the whole cluster, above 1 → too large.
    pub size: f64,
    pub duration_s: f64,
    /// A model of the cluster's catalogue, by index (modulo its size); `None` leaves the
    /// choice to the workload's mix.
    pub model: Option<u8>,
    /// The tenant `t<n>`, or none.
    pub tenant: Option<u8>,
}

/// The sketches as a trace on a cluster of `total` GPUs whose catalogue has these model
/// `names`.
pub fn trace(sketches: &[JobSketch], total: u32, names: &[&str]) -> Trace {
    let mut t = 0.0;
    let jobs = sketches
        .iter()
        .enumerate()
        .map(|(i, s)| {
            t += s.gap_s;
            TraceJob {
                name: format!("j{i}"),
                submit_s: t,
                gpus: ((s.size * total as f64).ceil() as u32).max(1),
                model: s.model.map(|m| names[m as usize % names.len()].to_string()),
                work: TraceWork::DurationS(s.duration_s),
                batch: None,
                tenant: s.tenant.map(|n| format!("t{n}")),
                line: i as u32 + 2,
            }
        })
        .collect();
    Trace::new(TraceFormat::ProximaCsv, jobs)
}

/// The scenario of the sketches on `topology` (a `--topology` argument), with the trace it
/// was built from.
pub fn scenario(topology: &str, sketches: &[JobSketch], seed: u64) -> (Scenario, Trace) {
    let topo = resolve_topology_arg(topology).unwrap();
    // Models named by the trace come from the cluster's own catalogue (that of its GPU); the
    // mix, like every caller's, is given in built-in ids.
    let catalog = Catalog::for_gpu_or_built_in(topo.gpu()).unwrap();
    let trace = trace(sketches, topo.gpu_count(), &catalog.names());
    let options = WorkloadOptions { seed, skip: 0, limit: None, mix: ModelMix::default_for(&Catalog::built_in()) };
    (Scenario::from_trace(topo, &trace, &options, "random").unwrap(), trace)
}

/// The number of cases a property test runs: `PROXIMA_PROPTEST_CASES`, or `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROXIMA_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
