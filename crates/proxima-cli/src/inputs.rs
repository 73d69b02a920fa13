//! The CLI's side of its inputs: the host reads every one of them once
//! (`proxima_host::inputs::scenario_input`, the path sweeps and the Python package take
//! too); here the notices reading found go to stderr, apart from the results, and problems
//! become exit code 2.

use proxima_core::error::SourcedError;
use proxima_core::inputs::{build_scenario, ArgumentNames, ScenarioInput};
use proxima_core::scenario::Scenario;
use proxima_core::session::{PolicyNames, Problem};
use proxima_core::InputError;
use proxima_host::inputs::{self as host, ScenarioArgs};

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

/// A session's problem, its policy named as the flag it was given in (`--policy`).
impl From<Problem> for UsageError {
    fn from(p: Problem) -> UsageError {
        p.sourced(PolicyNames::Argument(ArgumentNames::Flags)).into()
    }
}

impl UsageError {
    /// An input error in the argument `word` (`policy`, `trace`), named as a flag.
    pub fn in_argument(word: &str, e: InputError) -> UsageError {
        SourcedError::new(ArgumentNames::Flags.name(word), e).into()
    }
}

/// Shows the host's notices (`warning: ...`, `note: ...`) on stderr, before the command
/// goes on.
pub fn show(notices: Vec<String>) {
    for notice in notices {
        eprintln!("{notice}");
    }
}

/// The scenario of an input, with a note on stderr for trace rows left out.
pub fn scenario_of(input: &ScenarioInput) -> Result<Scenario, UsageError> {
    let scenario = build_scenario(input)?;
    show(host::trace_notices(&scenario));
    Ok(scenario)
}

/// The scenario the command line's arguments name.
pub fn load_scenario(args: &ScenarioArgs) -> Result<Scenario, UsageError> {
    let (input, notices) = host::scenario_input(args)?;
    show(notices);
    scenario_of(&input)
}
