//! Turning command-line arguments into the core's inputs: reading files, and telling preset
//! names and specs from paths. Building the scenario, and the wording of every input error
//! (`FILE:LINE: field: what is wrong`), is the core's (`proxima_core::inputs`), shared with
//! the web app.

use proxima_core::error::SourcedError;
use proxima_core::inputs::{
    build_scenario, build_topology, topology_warnings, ArgumentNames, ScenarioInput, TopologyInput, TraceInput,
};
use proxima_core::scenario::Scenario;
use proxima_core::topology::Topology;
use proxima_core::InputError;
use proxima_host::inputs as host;

/// A failure the user can fix: exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<SourcedError> for UsageError {
    fn from(e: SourcedError) -> UsageError {
        UsageError(e.to_string())
    }
}

impl UsageError {
    /// An input error in the argument `word` (`policy`, `trace`), named as a flag.
    pub fn in_argument(word: &str, e: InputError) -> UsageError {
        SourcedError::new(ArgumentNames::Flags.name(word), e).into()
    }
}

/// Reads a whole text file, with errors that name it (and, for bytes that are not UTF-8,
/// the line and byte, in the core's words).
pub fn read_text(path: &str) -> Result<String, UsageError> {
    Ok(host::read_text(path)?)
}

/// A `--topology` argument: a Slurm `topology.conf` (`slurm:PATH[,gpus=N,...]`), a JSON
/// file, else a preset name or parametric spec (the rule is `proxima_host::inputs`'s,
/// shared with sweeps and the Python package).
/// What the file's reader accepted but did not use goes to stderr as warnings
/// (`warning: topology.conf:2: LinkSpeed: ...`), before the command goes on.
pub fn topology_input(arg: &str) -> Result<TopologyInput, UsageError> {
    let input = host::topology_input(arg)?;
    for warning in topology_warnings(&input) {
        eprintln!("warning: {warning}");
    }
    Ok(input)
}

/// A `--trace` argument: a synthetic spec, else a file.
pub fn trace_input(arg: &str) -> Result<TraceInput, UsageError> {
    Ok(host::trace_input(arg)?)
}

/// A topology from a preset name, a parametric spec, a JSON file or a Slurm file.
pub fn load_topology(arg: &str) -> Result<Topology, UsageError> {
    Ok(build_topology(&topology_input(arg)?, ArgumentNames::Flags)?)
}

/// The options that shape a scenario, as the command line gives them.
pub struct ScenarioArgs<'a> {
    pub topology: &'a str,
    pub trace: &'a str,
    pub seed: u64,
    pub skip: u32,
    pub limit: Option<u32>,
    pub mix: Option<&'a str>,
    pub tenants: Option<&'a str>,
}

pub fn load_scenario(args: &ScenarioArgs) -> Result<Scenario, UsageError> {
    scenario_of(&scenario_input(args)?)
}

/// The files a scenario names, read once (their warnings printed once), for runs that
/// build it under several seeds.
pub fn scenario_input(args: &ScenarioArgs) -> Result<ScenarioInput, UsageError> {
    Ok(ScenarioInput {
        topology: topology_input(args.topology)?,
        trace: trace_input(args.trace)?,
        seed: args.seed,
        skip: args.skip,
        limit: args.limit,
        mix: args.mix.map(str::to_string),
        names: ArgumentNames::Flags,
        tenants: args.tenants.map(str::to_string),
    })
}

/// The scenario of an input, with a note on stderr for trace rows left out.
pub fn scenario_of(input: &ScenarioInput) -> Result<Scenario, UsageError> {
    let scenario = build_scenario(input)?;
    // Rows the trace reader left out are no error, but the user should know the trace
    // shrank; stderr keeps them apart from the results.
    for s in &scenario.trace_skipped {
        eprintln!(
            "note: {}: {} {} left out (the first on line {})",
            scenario.trace_label,
            s.rows,
            s.reason.label(),
            s.first_line
        );
    }
    Ok(scenario)
}
