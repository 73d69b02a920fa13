//! `proxima what-if`: an operator's question on one screen, and with `--out DIR` in a
//! report they can hand on (`DIR/what-if.md`, and `DIR/what-if.html`, self-contained).
//! The runs and the report are the lab's (`proxima_lab::what_if`), which the web page's
//! worker runs too; here the files are read, the screen printed and the report written
//! (`docs/OPERATORS.md` walks through it).

use crate::inputs::{scenario_of, show, UsageError};
use proxima_core::inputs::build_scenario;
use proxima_host::inputs::{scenario_input, ScenarioArgs};
use proxima_lab::what_if::{html, markdown, run_what_if, screen, WhatIfPlan, WhatIfReport};
use std::path::Path;

/// What to compare, besides the scenario.
pub struct WhatIf<'a> {
    /// The scheduler as the operator runs it, e.g. `kueue-tas:required=rack`.
    pub scheduler: &'a str,
    /// The time limit given to its `required` level, in seconds.
    pub timer_s: f64,
    /// Seeds 1..=seeds.
    pub seeds: u64,
    /// Where to write the report, if anywhere.
    pub out: Option<&'a Path>,
}

/// Runs every policy on every seed, writes the report if asked, and returns the screen.
pub fn what_if(args: &ScenarioArgs, w: &WhatIf) -> Result<String, UsageError> {
    let plan = WhatIfPlan {
        scheduler: w.scheduler.to_string(),
        timer_s: w.timer_s,
        seeds: w.seeds,
        topology_label: args.topology.clone(),
        trace_label: args.trace.clone(),
    };
    // Plan errors name the flag (`seeds`, `timer`) or the policy before any file is read.
    plan.check().map_err(|e| match e.field.as_str() {
        "seeds" | "timer" => UsageError(format!("--{}: {}", e.field, e.message)),
        _ => UsageError::in_argument("policy", e),
    })?;
    let (mut input, notices) = scenario_input(args)?;
    show(notices);
    // The trace's rows are the same under every seed: its notes are shown for the first only.
    let mut scenario_for_seed = |seed: u64| {
        input.seed = seed;
        if seed == 1 {
            scenario_of(&input)
        } else {
            build_scenario(&input).map_err(UsageError::from)
        }
    };
    let report = run_what_if(&plan, &mut scenario_for_seed, &|e| UsageError::in_argument("policy", e))?;
    if let Some(dir) = w.out {
        write_report(dir, &report)?;
    }
    Ok(screen(&report))
}

/// Writes `dir/what-if.md` and `dir/what-if.html`, creating `dir`.
fn write_report(dir: &Path, report: &WhatIfReport) -> Result<(), UsageError> {
    let io = |path: &Path, e: std::io::Error| UsageError(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for (name, text) in [("what-if.md", markdown(report)), ("what-if.html", html(report))] {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    }
    Ok(())
}
