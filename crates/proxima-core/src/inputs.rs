//! The inputs of a scenario as every front end receives them — a topology argument or file,
//! a trace file or synthetic spec, a seed, a window, a model mix — and the one path from
//! them to a [`Scenario`]. The CLI, the web app's worker and the Python package all go
//! through [`build_scenario`], so that the same inputs give the same jobs everywhere and an
//! error reads the same: `FILE:LINE: field: what is wrong` ([`SourcedError`]).
//!
//! Front ends keep only what is theirs: reading files (and deciding whether an argument is
//! a file), and how they name an input that is not a file ([`ArgumentNames`]).

use crate::error::{InputError, SourcedError};
use crate::model::Catalog;
use crate::scenario::{apply_tenant_spec, Scenario};
use crate::share::TopologyChoice;
use crate::tenants::TenantSpec;
use crate::topology::formats::{
    read_kueue_topology, read_lingjun_topology, read_slurm_topology, read_volcano_topology, KueueOptions,
    LingjunOptions, SlurmOptions, VolcanoOptions,
};
use crate::topology::{resolve_topology_arg, Topology, TopologySpec};
use crate::trace::synthetic::{self, SyntheticSpec};
use crate::trace::synthetic_shape;
use crate::trace::tenant_mix;
use crate::trace::{parse_trace, Trace};
use crate::workload::{ModelMix, WorkloadOptions};
use serde::{Deserialize, Serialize};

/// The text of a file's bytes, or an error naming the line and byte where they stop being
/// UTF-8. Byte-order marks are left to the readers, which skip them.
pub fn utf8_text<'a>(source: &str, bytes: &'a [u8]) -> Result<&'a str, SourcedError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        SourcedError {
            source: source.to_string(),
            line: Some(line),
            field: "encoding".to_string(),
            message: format!("not valid UTF-8 (byte {at}); save the file as UTF-8"),
        }
    })
}

/// How errors name an input that is not a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArgumentNames {
    /// As command-line flags: `--topology`, `--trace`, `--mix` (the CLI).
    Flags,
    /// As plain words: `topology`, `trace`, `mix` (the app, the Python package).
    #[default]
    Words,
}

impl ArgumentNames {
    /// The name of the argument `word` (`topology`, `trace`, `mix`, `policy`, `tenants`).
    pub fn name(self, word: &str) -> String {
        match self {
            ArgumentNames::Flags => format!("--{word}"),
            ArgumentNames::Words => word.to_string(),
        }
    }
}

/// Where a scenario's cluster comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TopologyInput {
    /// A preset name or a parametric spec (`racks=R,servers=S,gpus=G[,...]`) as text, read
    /// when the cluster is built: for tests and fixed names. Front ends read what a person
    /// typed at their edge ([`TopologyChoice::from_argument`]) and send a [`Choice`](Self::Choice).
    Argument(String),
    /// The text of a topology file (the JSON format) and the file's name.
    File { name: String, text: String },
    /// The text of a Slurm `topology.conf` (the topology/tree form), the file's name, and
    /// what the file does not say: GPUs per node, NIC and NVLink bandwidth.
    Slurm { name: String, text: String, options: SlurmOptions },
    /// The text of a Lingjun `topo.csv` (`ip,DSW,PSW,ASW`, one row per host), the file's
    /// name, and its options: GPUs per host and the links.
    Lingjun { name: String, text: String, options: LingjunOptions },
    /// The text of a Kueue file (a `Topology` and the `Node` objects, YAML), the file's
    /// name, and the options for its links (NIC and NVLink bandwidth, NICs, fabric, GPU;
    /// the file gives each node's GPUs).
    Kueue { name: String, text: String, options: KueueOptions },
    /// The text of a Volcano file (`HyperNode` objects, and `Node` objects for members
    /// selected by pattern or label; YAML), the file's name, and its options: GPUs per node
    /// and the links.
    Volcano { name: String, text: String, options: VolcanoOptions },
    /// A typed description in hand: a preset, the parametric form's numbers, or a cluster
    /// drawn in the app's editor or carried by a share link.
    Choice(TopologyChoice),
}

impl TopologyInput {
    /// How reports name the cluster: the file's name, or the choice's label.
    pub fn label(&self) -> String {
        match self {
            TopologyInput::Argument(text) => text.clone(),
            TopologyInput::File { name, .. }
            | TopologyInput::Slurm { name, .. }
            | TopologyInput::Lingjun { name, .. }
            | TopologyInput::Kueue { name, .. }
            | TopologyInput::Volcano { name, .. } => name.clone(),
            TopologyInput::Choice(choice) => choice.label(),
        }
    }
}

impl From<&TopologyChoice> for TopologyInput {
    fn from(choice: &TopologyChoice) -> TopologyInput {
        TopologyInput::Choice(choice.clone())
    }
}

/// Where a scenario's jobs come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TraceInput {
    /// `synthetic:jobs=N[,load=L][,seed=S]`. Without its own seed, the trace takes the
    /// run's, so one seed varies everything.
    Synthetic(String),
    /// The text of a trace file (any format [`parse_trace`] reads) and the file's name.
    File { name: String, text: String },
}

impl TraceInput {
    /// Whether a trace argument is a synthetic spec rather than a file name.
    pub fn is_synthetic(argument: &str) -> bool {
        argument.starts_with("synthetic:") || argument == "synthetic"
    }

    /// How results name the trace: the synthetic spec as written, or the file's name.
    pub fn label(&self) -> &str {
        match self {
            TraceInput::Synthetic(text) => text,
            TraceInput::File { name, .. } => name,
        }
    }
}

/// Everything a scenario is made of, as `proxima run` takes it on its command line (with
/// file contents instead of paths).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioInput {
    pub topology: TopologyInput,
    pub trace: TraceInput,
    /// The run's seed: model assignment, and synthetic traces without their own.
    pub seed: u64,
    /// Drop the first `skip` jobs by submission time.
    pub skip: u32,
    /// Then keep the first `limit`.
    pub limit: Option<u32>,
    /// The models of jobs whose trace names none, `name[:weight],...`; `None` for the
    /// default mix.
    pub mix: Option<String>,
    /// How errors name the inputs that are not files.
    pub names: ArgumentNames,
    /// The tenants' quotas ([`TenantSpec`]: `equal`, `demand`, `weights:NAME=W,...` or
    /// `NAME=GPUS,...`); `None` for equal shares.
    #[serde(default)]
    pub tenants: Option<String>,
}

impl ScenarioInput {
    /// A scenario of a whole trace with the default mix, its errors naming arguments as
    /// words.
    pub fn new(topology: TopologyInput, trace: TraceInput, seed: u64) -> ScenarioInput {
        ScenarioInput {
            topology,
            trace,
            seed,
            skip: 0,
            limit: None,
            mix: None,
            names: ArgumentNames::Words,
            tenants: None,
        }
    }
}

/// A topology file's description; a description without a name takes the file's, so that
/// results say which file they came from.
pub fn read_topology_file(name: &str, text: &str) -> Result<TopologySpec, SourcedError> {
    let mut spec = TopologySpec::from_json(text).map_err(|e| SourcedError::new(name, e))?;
    if spec.name.is_empty() {
        spec.name = name.to_string();
    }
    Ok(spec)
}

/// The prefix of a topology argument that names a Slurm `topology.conf`:
/// `slurm:PATH[,gpus=N][,nic_gbps=B][,nvlink_gbps=B]`.
pub const SLURM_PREFIX: &str = "slurm:";

/// The prefix of a topology argument that names a Lingjun `topo.csv`:
/// `lingjun:PATH[,gpus=N][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=ib|roce|tcp]`.
pub const LINGJUN_PREFIX: &str = "lingjun:";

/// The prefix of a topology argument that names a Kueue file (a `Topology` and the nodes):
/// `kueue:PATH[,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=ib|roce|tcp]`.
pub const KUEUE_PREFIX: &str = "kueue:";

/// The prefix of a topology argument that names a Volcano file (HyperNodes):
/// `volcano:PATH[,gpus=N][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=ib|roce|tcp]`.
pub const VOLCANO_PREFIX: &str = "volcano:";

/// The path and options of a `slurm:PATH[,gpus=N][,nic_gbps=B][,nvlink_gbps=B]` argument,
/// or `None` for an argument without the prefix. The path ends at the first comma followed
/// by `key=`, so a path may hold commas but not `,key=`. Front ends that take paths (the
/// CLI, the Python package) read the file and make a [`TopologyInput::Slurm`].
pub fn slurm_argument(argument: &str) -> Option<Result<(&str, SlurmOptions), InputError>> {
    file_argument(SLURM_PREFIX, argument, SlurmOptions::parse)
}

/// The path and [`LingjunOptions`] of a `lingjun:PATH[,options]` argument, split as
/// [`slurm_argument`] does; `None` without the prefix.
pub fn lingjun_argument(argument: &str) -> Option<Result<(&str, LingjunOptions), InputError>> {
    file_argument(LINGJUN_PREFIX, argument, LingjunOptions::parse)
}

/// The path and [`KueueOptions`] of a `kueue:PATH[,options]` argument, split as
/// [`slurm_argument`] does; `None` without the prefix. The options are those of the links:
/// a Kueue file gives each node's GPUs, so `gpus` is refused rather than silently not used.
pub fn kueue_argument(argument: &str) -> Option<Result<(&str, KueueOptions), InputError>> {
    file_argument(KUEUE_PREFIX, argument, KueueOptions::parse)
}

/// The path and [`VolcanoOptions`] of a `volcano:PATH[,options]` argument, split as
/// [`slurm_argument`] does; `None` without the prefix.
pub fn volcano_argument(argument: &str) -> Option<Result<(&str, VolcanoOptions), InputError>> {
    file_argument(VOLCANO_PREFIX, argument, VolcanoOptions::parse)
}

/// A `PREFIX:PATH[,key=value...]` argument's path and options, read by the format's `parse`;
/// errors name the prefix's word.
fn file_argument<'a, O>(
    prefix: &str,
    argument: &'a str,
    parse: fn(&str) -> Result<O, InputError>,
) -> Option<Result<(&'a str, O), InputError>> {
    let (path, options) = split_file_argument(prefix, argument)?;
    if path.trim().is_empty() {
        let word = prefix.trim_end_matches(':');
        let gpus = if prefix == KUEUE_PREFIX { "" } else { "[,gpus=N]" };
        return Some(Err(InputError::new(
            word,
            format!("expected a file after {prefix} (the form is {prefix}PATH{gpus}[,nic_gbps=B][,nvlink_gbps=B])"),
        )));
    }
    Some(parse(options).map(|o| (path, o)))
}

/// A `PREFIX:PATH[,key=value...]` argument split into the path and the options' text.
fn split_file_argument<'a>(prefix: &str, argument: &'a str) -> Option<(&'a str, &'a str)> {
    let rest = argument.strip_prefix(prefix)?;
    let split = rest
        .match_indices(',')
        .map(|(i, _)| i)
        .find(|&i| rest[i + 1..].split(',').next().is_some_and(|s| s.contains('=')));
    Some(match split {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    })
}

/// A Lingjun `topo.csv`'s description, named after the file; errors name the file, the
/// line and the column (`topo.csv:7: ASW: empty: ...`).
pub fn read_lingjun_file(name: &str, text: &str, options: &LingjunOptions) -> Result<TopologySpec, SourcedError> {
    let mut spec = read_lingjun_topology(text, options).map_err(|e| SourcedError::new(name, e))?;
    spec.name = name.to_string();
    Ok(spec)
}

/// A topology input's cluster and what its reader accepted but did not use, named after
/// the file (`topology.conf:2: LinkSpeed: ...`): a Slurm file's unused keys, a Kueue file's
/// nodes left out and objects skipped, a Volcano file's selectors that select nothing and
/// HyperNodes left out. Front ends show the warnings before they go on; other inputs have
/// none.
#[derive(Clone, Debug)]
pub struct ReadTopology {
    pub topology: Topology,
    pub warnings: Vec<SourcedError>,
}

/// Reads a topology input once: its description, its warnings, and the cluster built from
/// it. Errors name the file and line, or the argument (`names`) for an input that is not a
/// file.
pub fn read_topology(input: &TopologyInput, names: ArgumentNames) -> Result<ReadTopology, SourcedError> {
    let (name, spec, warnings) = match input {
        TopologyInput::Argument(text) => {
            let topology = resolve_topology_arg(text).map_err(|e| SourcedError::new(names.name("topology"), e))?;
            return Ok(ReadTopology { topology, warnings: Vec::new() });
        }
        TopologyInput::Choice(choice) => {
            let topology = choice.build().map_err(|e| SourcedError::new(names.name("topology"), e))?;
            return Ok(ReadTopology { topology, warnings: Vec::new() });
        }
        TopologyInput::File { name, text } => (name, read_topology_file(name, text)?, Vec::new()),
        TopologyInput::Slurm { name, text, options } => {
            let read = read_slurm_topology(text, options).map_err(in_file(name))?;
            (name, read.spec, read.warnings)
        }
        TopologyInput::Lingjun { name, text, options } => {
            (name, read_lingjun_topology(text, options).map_err(in_file(name))?, Vec::new())
        }
        TopologyInput::Kueue { name, text, options } => {
            let read = read_kueue_topology(text, options).map_err(in_file(name))?;
            (name, read.spec, read.warnings)
        }
        TopologyInput::Volcano { name, text, options } => {
            let read = read_volcano_topology(text, options).map_err(in_file(name))?;
            (name, read.spec, read.warnings)
        }
    };
    // A file's cluster is named after the file (a JSON file's only when it names none, done
    // by `read_topology_file`), so that results say which file they came from.
    let spec = match input {
        TopologyInput::File { .. } => spec,
        _ => TopologySpec { name: name.clone(), ..spec },
    };
    let topology = Topology::from_spec(&spec).map_err(in_file(name))?;
    Ok(ReadTopology { topology, warnings: warnings.into_iter().map(in_file(name)).collect() })
}

/// An error or warning of the file `name`, for `map_err`.
fn in_file(name: &str) -> impl Fn(InputError) -> SourcedError + '_ {
    move |e| SourcedError::new(name, e)
}

/// The cluster of a topology input ([`read_topology`] without its warnings).
pub fn build_topology(input: &TopologyInput, names: ArgumentNames) -> Result<Topology, SourcedError> {
    read_topology(input, names).map(|read| read.topology)
}

/// The synthetic spec a trace input stands for, with the run's seed when it names none.
pub fn synthetic_spec(text: &str, run_seed: u64, names: ArgumentNames) -> Result<SyntheticSpec, SourcedError> {
    SyntheticSpec::parse_with_seed(text, run_seed).map_err(|e| SourcedError::new(names.name("trace"), e))
}

/// The jobs of a trace input; a synthetic trace is sized to the cluster, and its jobs get
/// tenants when the spec asks for them (`tenants=N`, [`tenant_mix`]).
pub fn build_trace(
    input: &TraceInput,
    topology: &Topology,
    run_seed: u64,
    names: ArgumentNames,
) -> Result<Trace, SourcedError> {
    match input {
        TraceInput::Synthetic(text) => {
            synthetic_trace(text, topology.gpu_count(), run_seed).map_err(|e| SourcedError::new(names.name("trace"), e))
        }
        TraceInput::File { name, text } => parse_trace(text).map_err(|e| SourcedError::new(name.as_str(), e)),
    }
}

/// The jobs of a synthetic spec (`synthetic:jobs=N,...[,tenants=T][,shape=S]`) for a
/// cluster of `gpus` GPUs, with the run's seed when the spec names none; the tenants key is
/// read first, then the shape ([`synthetic_shape`]), so their errors come first.
pub fn synthetic_trace(text: &str, gpus: u32, run_seed: u64) -> Result<Trace, InputError> {
    let (text, tenants) = tenant_mix::split_spec(text)?;
    let (text, shape) = synthetic_shape::split_spec(&text)?;
    let spec = SyntheticSpec::parse_with_seed(&text, run_seed)?;
    let mut trace = synthetic::generate_shaped(&spec, &shape, gpus);
    if let Some(n) = tenants {
        tenant_mix::assign(&mut trace, n, spec.seed);
    }
    Ok(trace)
}

/// The model mix of a scenario input.
pub fn build_mix(mix: Option<&str>, catalog: &Catalog, names: ArgumentNames) -> Result<ModelMix, SourcedError> {
    match mix {
        Some(m) => ModelMix::parse(m, catalog).map_err(|e| SourcedError::new(names.name("mix"), e)),
        None => Ok(ModelMix::default_for(catalog)),
    }
}

/// The scenario: topology, then trace, then mix, then the jobs, checked in that order so
/// the first error is the same from every front end.
pub fn build_scenario(input: &ScenarioInput) -> Result<Scenario, SourcedError> {
    let topology = build_topology(&input.topology, input.names)?;
    let trace = build_trace(&input.trace, &topology, input.seed, input.names)?;
    let mix = build_mix(input.mix.as_deref(), &Catalog::built_in(), input.names)?;
    let options = WorkloadOptions { seed: input.seed, skip: input.skip, limit: input.limit, mix };
    let label = input.trace.label();
    let mut scenario =
        Scenario::from_trace(topology, &trace, &options, label).map_err(|e| SourcedError::new(label, e))?;
    apply_tenants(&mut scenario, input.tenants.as_deref(), &trace, input.names)?;
    Ok(scenario)
}

/// Sets the tenants' quotas from a `tenants` argument ([`TenantSpec`]), the last step of
/// [`build_scenario`]; a front end that builds the scenario from a trace parsed once
/// takes the same step here.
pub fn apply_tenants(
    scenario: &mut Scenario,
    tenants: Option<&str>,
    trace: &Trace,
    names: ArgumentNames,
) -> Result<(), SourcedError> {
    if let Some(text) = tenants {
        let source = || names.name("tenants");
        let spec = TenantSpec::parse(text).map_err(|e| SourcedError::new(source(), e))?;
        apply_tenant_spec(scenario, &spec, trace).map_err(|e| SourcedError::new(source(), e))?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "inputs_tests.rs"]
mod tests;
