//! One run of the robustness plan, through the paper experiment's run path
//! ([`crate::experiment::execute::run_window`]), on a cluster built once per cell.

use super::grid::Cluster;
use super::lingjun_slice::slice_topology;
use super::plan::{RobustPlan, RobustTask};
use crate::experiment::execute::{run_window, TaskResult, WindowRun};
use proxima_core::error::{InputError, SourcedError};
use proxima_core::topology::{resolve_topology_arg, Topology};
use proxima_core::trace::Trace;

/// What the runs read from files, read once by the caller: the Philly trace and the
/// Lingjun `topo.csv` (with the name errors give it), when some cell needs them.
#[derive(Clone, Copy, Default)]
pub struct RobustInputs<'a> {
    pub philly: Option<&'a Trace>,
    pub lingjun: Option<(&'a str, &'a str)>,
}

/// Each cell's cluster, built once: runs clone it.
pub fn cell_topologies(plan: &RobustPlan, inputs: RobustInputs<'_>) -> Result<Vec<Topology>, SourcedError> {
    plan.cells
        .iter()
        .map(|cell| match &cell.cluster {
            Cluster::Parametric { spec } => {
                resolve_topology_arg(spec).map_err(|e| SourcedError::new(format!("cell {}", cell.name), e))
            }
            Cluster::Lingjun { hosts, options } => {
                let (name, text) = inputs.lingjun.ok_or_else(|| {
                    SourcedError::new(
                        format!("cell {}", cell.name),
                        InputError::new("lingjun", "needs the Lingjun topo.csv, and none was given"),
                    )
                })?;
                slice_topology(name, text, *hosts, options)
            }
        })
        .collect()
}

/// Runs one task on its cell's cluster (`topologies[task.cell]`, from
/// [`cell_topologies`]). No finish-time fairness ρ: the experiment judges regret, and
/// `proxima compare --no-rho` makes the same runs.
pub fn run_robust_task(
    plan: &RobustPlan,
    task: &RobustTask,
    topologies: &[Topology],
    philly: Option<&Trace>,
) -> Result<TaskResult, InputError> {
    let cell = &plan.cells[task.cell];
    let k = task.seed_index as usize;
    let run = WindowRun {
        scenario: &cell.name,
        topology: topologies[task.cell].clone(),
        window: cell.window(k),
        mix: cell.mix.as_deref(),
        seed: cell.seeds[k],
        policy: &task.policy,
        rho: false,
        keep_jcts: false,
    };
    run_window(run, philly)
}
