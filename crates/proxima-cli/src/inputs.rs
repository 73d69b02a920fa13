//! Turning command-line arguments into a scenario: reading files, telling presets from
//! specs from paths, and rendering input errors as `FILE:LINE: field: what is wrong`.

use proxima_core::engine::Scenario;
use proxima_core::model::Catalog;
use proxima_core::topology::{resolve_topology_arg, Topology, TopologySpec};
use proxima_core::trace::synthetic::{self, SyntheticSpec};
use proxima_core::trace::{parse_trace, Trace};
use proxima_core::workload::{build_scenario, ModelMix, WorkloadOptions};
use std::path::Path;

/// A failure the user can fix: exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads a whole text file, with errors that name it.
pub fn read_text(path: &str) -> Result<String, UsageError> {
    let bytes = std::fs::read(path).map_err(|e| UsageError(format!("{path}: cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        UsageError(format!("{path}:{line}: encoding: not valid UTF-8 (byte {at}); save the file as UTF-8"))
    })
}

/// A topology from a preset name, a parametric spec, or a JSON file.
pub fn load_topology(arg: &str) -> Result<Topology, UsageError> {
    let looks_like_file = arg.ends_with(".json") || (!arg.contains('=') && Path::new(arg).is_file());
    if looks_like_file {
        let text = read_text(arg)?;
        let spec = TopologySpec::from_json(&text).map_err(|e| UsageError(e.with_source(arg)))?;
        let mut topo_spec = spec;
        if topo_spec.name.is_empty() {
            topo_spec.name = arg.to_string();
        }
        return Topology::from_spec(&topo_spec).map_err(|e| UsageError(e.with_source(arg)));
    }
    resolve_topology_arg(arg).map_err(|e| UsageError(e.with_source("--topology")))
}

/// A trace from a file or a `synthetic:...` spec (which needs the cluster's size).
/// A synthetic spec without its own `seed=` takes the run's seed.
pub fn load_trace(arg: &str, topology: &Topology, seed: u64) -> Result<Trace, UsageError> {
    if arg.starts_with("synthetic:") || arg == "synthetic" {
        let mut spec: SyntheticSpec = synthetic::parse(arg).map_err(|e| UsageError(e.with_source("--trace")))?;
        if !arg.contains("seed=") {
            spec.seed = seed;
        }
        return Ok(synthetic::generate(&spec, topology.gpu_count()));
    }
    let text = read_text(arg)?;
    parse_trace(&text).map_err(|e| UsageError(e.with_source(arg)))
}

/// The options that shape a scenario besides topology and trace.
pub struct ScenarioArgs<'a> {
    pub topology: &'a str,
    pub trace: &'a str,
    pub seed: u64,
    pub skip: u32,
    pub limit: Option<u32>,
    pub mix: Option<&'a str>,
}

pub fn load_scenario(args: &ScenarioArgs) -> Result<Scenario, UsageError> {
    let topology = load_topology(args.topology)?;
    let trace = load_trace(args.trace, &topology, args.seed)?;
    let catalog = Catalog::built_in();
    let mix = match args.mix {
        Some(m) => ModelMix::parse(m, &catalog).map_err(|e| UsageError(e.with_source("--mix")))?,
        None => ModelMix::default_for(&catalog),
    };
    let options = WorkloadOptions { seed: args.seed, skip: args.skip, limit: args.limit, mix };
    build_scenario(topology, &trace, &options, args.trace).map_err(|e| UsageError(e.with_source(args.trace)))
}
