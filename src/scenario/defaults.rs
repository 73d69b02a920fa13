//! What the page starts with and what its lessons build on: the first run's scenario and
//! the clusters named by more than one part of the state (the scenario, the lessons). Here,
//! below both, so that the lessons need not reach into the scenario, which reaches them
//! through the links.

use super::trace::DEFAULT_LOAD;
use proxima_core::share::{SharedScenario, TopologyChoice, TraceChoice};

/// The lessons' congested cluster: 32 T4 GPUs in two racks of four PCIe servers, 50 Gbit/s
/// TCP NICs and 32:1 rack uplinks, so that a scattered job is slowed by the uplinks it
/// shares. (Ring efficiency applies at the hosts, so an uplink slows a ring only once it is
/// narrower than the ring's host-limited rate: hence uplinks this thin.)
pub const DEFAULT_TOPOLOGY: &str = "racks=2,servers=4,gpus=4,oversub=32,fabric=tcp";

/// The cluster of the first run: 32 T4 GPUs in two racks of two 8-GPU PCIe servers, the
/// same 50 Gbit/s TCP NICs and 32:1 rack uplinks as [`DEFAULT_TOPOLOGY`]. With servers of
/// eight, jobs of 2 to 8 GPUs all want one server, and a queue of such jobs leaves GPUs free
/// but scattered: what a delay decision declines (issue 32; the search is in docs/APP.md).
pub const FIRST_RUN_TOPOLOGY: &str = "racks=2,servers=2,gpus=8,oversub=32,fabric=tcp";

/// The first run's models: the four fitted to step times measured on T4 GPUs (the Pollux
/// testbed, docs/CALIBRATION.md), each of which loses much to a scattered placement, so
/// that the jobs waiting are sensitive ones and none insensitive takes the GPUs they leave.
pub const FIRST_RUN_MIX: &str = "bert,deepspeech2,yolov3,resnet50";

/// The first run's jobs: fewer than the generator's default, so its results come fast.
pub const FIRST_RUN_JOBS: u32 = 800;

/// What the page starts with: a first run that shows the point. On a congested cluster
/// (uplinks oversubscribed 32:1) with enough jobs to keep it busy (offered load 0.9),
/// `dally` declines free scattered GPUs to wait for one server, preempts to make room,
/// its auto-tuner moves a timer, and it finishes jobs sooner on average than
/// `consolidate` (measured with `scripts/first-run-search.py`, seed 1: mean JCT 17,578 s
/// against 31,594 s, 4 waits declining free GPUs, 34 preemptions, 2 timer moves; the
/// lessons' tests check the claims, `first_run`).
pub fn default_scenario() -> SharedScenario {
    SharedScenario {
        topology: TopologyChoice::from_argument(FIRST_RUN_TOPOLOGY).expect("the first run's cluster is valid"),
        trace: TraceChoice::Synthetic { jobs: FIRST_RUN_JOBS, load: DEFAULT_LOAD, seed: 1, tenants: None },
        mix: Some(FIRST_RUN_MIX.into()),
        policies: vec!["fifo".into(), "consolidate".into(), "dally".into()],
        seed: 1,
    }
}
