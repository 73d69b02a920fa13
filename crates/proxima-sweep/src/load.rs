//! From a run's inputs (as the CLI takes them) to a scenario and a policy, with every
//! problem as a [`SourcedError`] rendered exactly as the CLI renders it.
//!
//! Reading files happens here, at the edge; parsing and checking are the core's. Text can
//! also be handed in directly (the Python package accepts trace text), and a parsed trace
//! can be reused across runs (a sweep parses the Philly trace once, not once a run).

use crate::error::SourcedError;
use proxima_core::engine::Scenario;
use proxima_core::model::Catalog;
use proxima_core::policy::{resolve_policy, Policy};
use proxima_core::topology::{resolve_topology_arg, Topology, TopologySpec};
use proxima_core::trace::synthetic::{self, SyntheticSpec};
use proxima_core::trace::{parse_trace, Trace};
use proxima_core::workload::{build_scenario, ModelMix, WorkloadOptions};
use std::path::Path;

/// Reads a whole text file; errors name the file (`cannot read`, or `encoding` with the
/// line of the first byte that is not UTF-8).
pub fn read_text(path: &str) -> Result<String, SourcedError> {
    let bytes = std::fs::read(path).map_err(|e| SourcedError::new(path, None, "cannot read", e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        SourcedError::new(path, Some(line), "encoding", format!("not valid UTF-8 (byte {at}); save the file as UTF-8"))
    })
}

/// A topology argument: a preset or parametric spec, or the text of a topology JSON file
/// and the name it goes by.
#[derive(Clone, Debug, PartialEq)]
pub enum TopologyInput {
    Spec(String),
    Json { text: String, source: String },
}

impl TopologyInput {
    /// Whether a command-line topology argument names a file rather than a spec.
    pub fn names_a_file(arg: &str) -> bool {
        arg.ends_with(".json") || (!arg.contains('=') && Path::new(arg).is_file())
    }

    /// As the CLI takes `--topology`: a JSON file is read now.
    pub fn from_arg(arg: &str) -> Result<TopologyInput, SourcedError> {
        if TopologyInput::names_a_file(arg) {
            Ok(TopologyInput::Json { text: read_text(arg)?, source: arg.to_string() })
        } else {
            Ok(TopologyInput::Spec(arg.to_string()))
        }
    }

    pub fn build(&self) -> Result<Topology, SourcedError> {
        match self {
            TopologyInput::Spec(arg) => {
                resolve_topology_arg(arg).map_err(|e| SourcedError::from_input("--topology", e))
            }
            TopologyInput::Json { text, source } => {
                let mut spec = TopologySpec::from_json(text).map_err(|e| SourcedError::from_input(source, e))?;
                if spec.name.is_empty() {
                    spec.name = source.clone();
                }
                Topology::from_spec(&spec).map_err(|e| SourcedError::from_input(source, e))
            }
        }
    }
}

/// Whether a trace argument is a `synthetic:...` spec rather than a file.
pub fn is_synthetic(arg: &str) -> bool {
    arg.starts_with("synthetic:") || arg == "synthetic"
}

/// Parses trace text; errors name `source`.
pub fn parse_trace_text(text: &str, source: &str) -> Result<Trace, SourcedError> {
    parse_trace(text).map_err(|e| SourcedError::from_input(source, e))
}

/// Where a run's jobs come from.
#[derive(Clone, Copy, Debug)]
pub enum TraceInput<'a> {
    /// `synthetic:jobs=N[,load=L][,seed=S]`; without its own seed it takes the run's.
    Synthetic(&'a str),
    /// A parsed trace and the label it goes by (its file name as given).
    Parsed { trace: &'a Trace, label: &'a str },
}

/// The options that shape a scenario besides topology and trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkloadArgs {
    pub seed: u64,
    pub skip: u32,
    pub limit: Option<u32>,
    pub mix: Option<String>,
}

/// The one path from inputs to a scenario.
pub fn scenario(topology: &TopologyInput, trace: TraceInput, args: &WorkloadArgs) -> Result<Scenario, SourcedError> {
    let topology = topology.build()?;
    let generated;
    let (trace, label) = match trace {
        TraceInput::Synthetic(arg) => {
            let mut spec: SyntheticSpec = synthetic::parse(arg).map_err(|e| SourcedError::from_input("--trace", e))?;
            if !arg.contains("seed=") {
                spec.seed = args.seed;
            }
            generated = synthetic::generate(&spec, topology.gpu_count());
            (&generated, arg)
        }
        TraceInput::Parsed { trace, label } => (trace, label),
    };
    let catalog = Catalog::built_in();
    let mix = match &args.mix {
        Some(m) => ModelMix::parse(m, &catalog).map_err(|e| SourcedError::from_input("--mix", e))?,
        None => ModelMix::default_for(&catalog),
    };
    let options = WorkloadOptions { seed: args.seed, skip: args.skip, limit: args.limit, mix };
    build_scenario(topology, trace, &options, label).map_err(|e| SourcedError::from_input(label, e))
}

pub fn policy(spec: &str) -> Result<Box<dyn Policy>, SourcedError> {
    resolve_policy(spec).map_err(|e| SourcedError::from_input("--policy", e))
}
