//! The robustness grid as data: workload families, networks and loads, each a development
//! or a held-out one, and issue 31's three scenarios as development cells of their own.
//! Adding a family or a network is one entry here; the cells follow ([`super::plan`]).
//!
//! The held-out families and networks below were fixed before any run of the robustness
//! experiment, and must not be used to tune the recommended policy: a change to them is a
//! change of the experiment, to be said in the report.

use super::sizing::{GPUS_PER_SERVER, SERVERS_PER_RACK};
use crate::experiment::plan::{ScenarioSet, TraceRef};
use serde::{Deserialize, Serialize};

/// Where a family's jobs come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Jobs {
    /// Consecutive windows of `window_jobs` jobs of the Philly trace from `first_job`; the
    /// cell's `k`-th seed runs the `k`-th window, so that seeds vary the jobs, not only the
    /// models the seed draws for them.
    Philly { first_job: u32, window_jobs: u32, windows: u32 },
    /// A synthetic trace of `jobs` jobs at the cell's load, shaped like Philly's jobs or,
    /// with `shape`, like those of an Acme cluster (`kalos`, `seren`); each seed draws a
    /// whole trace.
    Synthetic {
        jobs: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shape: Option<String>,
    },
}

/// A kind of workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Family {
    pub name: String,
    pub set: ScenarioSet,
    pub description: String,
    pub jobs: Jobs,
    /// The model mix (`--mix`); `None`: the catalogue's default mix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<String>,
    /// Servers of 8 GPUs per load: a synthetic family runs on one size at every load (the
    /// generator sets the load); a Philly family's size sets its load ([`super::sizing`]).
    pub servers: Vec<(f64, u32)>,
}

impl Family {
    /// The servers of the family's cluster at `load`.
    pub fn servers_at(&self, load: f64) -> Option<u32> {
        self.servers.iter().find(|(l, _)| *l == load).map(|&(_, s)| s)
    }

    /// The windows a cell of the family runs at `load`, one per seed for a Philly family.
    pub fn windows(&self, load: f64) -> Vec<TraceRef> {
        match &self.jobs {
            Jobs::Philly { first_job, window_jobs, windows } => (0..*windows)
                .map(|k| TraceRef::Philly { skip: first_job + k * window_jobs, limit: *window_jobs })
                .collect(),
            Jobs::Synthetic { jobs, shape } => {
                vec![TraceRef::Synthetic { jobs: *jobs, load, shape: shape.clone() }]
            }
        }
    }
}

/// How a network wires a cell's servers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Wiring {
    /// `racks=R,servers=4,gpus=8,OPTIONS`: racks of [`SERVERS_PER_RACK`] servers.
    Parametric { options: String },
    /// A slice of the Lingjun production topology as many hosts as the cell has servers
    /// ([`super::lingjun_slice`]), read with these `lingjun:` options.
    Lingjun { options: String },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobustNetwork {
    pub name: String,
    pub set: ScenarioSet,
    pub description: String,
    pub wiring: Wiring,
}

/// What a cell's cluster is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cluster {
    /// A parametric topology spec, as `--topology` takes it.
    Parametric { spec: String },
    /// The first `hosts` hosts of the Lingjun slice, with these `lingjun:` options.
    Lingjun { hosts: u32, options: String },
}

impl Cluster {
    /// The cluster in words for tables: the spec, or the slice.
    pub fn label(&self) -> String {
        match self {
            Cluster::Parametric { spec } => spec.clone(),
            Cluster::Lingjun { hosts, options } => format!("lingjun slice of {hosts} hosts ({options})"),
        }
    }

    /// The cluster of `servers` servers of 8 GPUs wired by `wiring`.
    pub fn wired(wiring: &Wiring, servers: u32) -> Cluster {
        match wiring {
            Wiring::Parametric { options } => Cluster::Parametric {
                spec: format!(
                    "racks={},servers={SERVERS_PER_RACK},gpus={GPUS_PER_SERVER},{options}",
                    servers.div_ceil(SERVERS_PER_RACK)
                ),
            },
            Wiring::Lingjun { options } => Cluster::Lingjun { hosts: servers, options: options.clone() },
        }
    }
}

/// The loads of the grid: below, near and above what the cluster can run.
pub const LOADS: &[f64] = &[0.7, 0.9, 1.2];

/// Servers of a synthetic family's cluster (256 GPUs), and its jobs: about eight jobs a
/// GPU, as issue 31's 1,000 jobs on 128 GPUs, so that the cluster turns over its jobs many
/// times while they arrive.
const SYNTHETIC_SERVERS: u32 = 32;
const SYNTHETIC_JOBS: u32 = 2_000;

/// The LLM-era family's models: the catalogue's 1.5-13B models (GPT-2 XL data parallel,
/// LLaMA 7B and 13B sharded), as issue 31's third scenario weighs them.
const LLM_MIX: &str = "llama-7b:2,llama-13b,gpt2-xl";

/// LLMs and 2016-19 networks together, as issue 31's second scenario.
const MIXED_MIX: &str = "llama-7b,gpt2-xl,bert-large,resnet50-amp";

/// Servers of the development Philly family's cluster per load. Its jobs are the paper
/// experiment's development windows, jobs 30,000-60,000 as ten windows of 3,000: they
/// offer 579.0 GPUs of work over their summed submission spans ([`super::sizing`]), so 104
/// servers (832 GPUs) are loaded 0.70, 80 (640) 0.91 and 60 (480) 1.21.
const PHILLY_DEVELOPMENT_SERVERS: [(f64, u32); 3] = [(0.7, 104), (0.9, 80), (1.2, 60)];

/// The held-out Philly family: the paper experiment's held-out windows, jobs 0-30,000,
/// offer 387.3 GPUs: 68 servers (544 GPUs) are loaded 0.71, 52 (416) 0.93 and 40 (320)
/// 1.21.
const PHILLY_HELD_OUT_SERVERS: [(f64, u32); 3] = [(0.7, 68), (0.9, 52), (1.2, 40)];

/// The first job and size of the Philly windows: development and held-out, as the paper
/// experiment's (`paper.rs`: `DEVELOPMENT_FIRST_JOB`, `HELD_OUT_FIRST_JOB`).
pub const PHILLY_DEVELOPMENT_FIRST_JOB: u32 = 30_000;
pub const PHILLY_HELD_OUT_FIRST_JOB: u32 = 0;
pub const PHILLY_WINDOW_JOBS: u32 = 3_000;
pub const PHILLY_WINDOWS: u32 = 10;

fn synthetic(name: &str, set: ScenarioSet, description: &str, shape: Option<&str>, mix: Option<&str>) -> Family {
    Family {
        name: name.into(),
        set,
        description: description.into(),
        jobs: Jobs::Synthetic { jobs: SYNTHETIC_JOBS, shape: shape.map(String::from) },
        mix: mix.map(String::from),
        servers: LOADS.iter().map(|&l| (l, SYNTHETIC_SERVERS)).collect(),
    }
}

fn philly(name: &str, set: ScenarioSet, description: &str, first_job: u32, servers: [(f64, u32); 3]) -> Family {
    Family {
        name: name.into(),
        set,
        description: description.into(),
        jobs: Jobs::Philly { first_job, window_jobs: PHILLY_WINDOW_JOBS, windows: PHILLY_WINDOWS },
        mix: None,
        servers: servers.to_vec(),
    }
}

/// Every family, development first.
pub fn families() -> Vec<Family> {
    use ScenarioSet::{Development as Dev, HeldOut as Held};
    vec![
        philly(
            "philly",
            Dev,
            "the Philly trace, the paper experiment's development windows (jobs 30,000-60,000, ten windows of 3,000; seed k runs window k), the catalogue's default mix; the cluster sized to the load",
            PHILLY_DEVELOPMENT_FIRST_JOB,
            PHILLY_DEVELOPMENT_SERVERS,
        ),
        synthetic("cnn", Dev, "synthetic Philly-shaped jobs, the catalogue's default mix of 2016-19 models", None, None),
        synthetic("llm", Dev, "synthetic Kalos-shaped jobs (Acme), GPT-2 XL and LLaMA 7B and 13B", Some("kalos"), Some(LLM_MIX)),
        synthetic(
            "mixed",
            Dev,
            "synthetic Seren-shaped jobs (Acme), LLaMA 7B and GPT-2 XL with BERT-large and ResNet-50",
            Some("seren"),
            Some(MIXED_MIX),
        ),
        philly(
            "philly-early",
            Held,
            "the Philly trace, the paper experiment's held-out windows (jobs 0-30,000, ten windows of 3,000, never in a development set), default mix; the cluster sized to the load",
            PHILLY_HELD_OUT_FIRST_JOB,
            PHILLY_HELD_OUT_SERVERS,
        ),
        synthetic(
            "cnn-kalos",
            Held,
            "synthetic Kalos-shaped jobs (Acme) with the default mix of 2016-19 models: large data-parallel jobs of the older models, a combination no experiment has run",
            Some("kalos"),
            None,
        ),
    ]
}

fn network(name: &str, set: ScenarioSet, description: &str, options: &str) -> RobustNetwork {
    RobustNetwork {
        name: name.into(),
        set,
        description: description.into(),
        wiring: Wiring::Parametric { options: options.into() },
    }
}

/// Every network, development first. A100 servers of 8 GPUs on NVSwitch unless said.
pub fn networks() -> Vec<RobustNetwork> {
    use ScenarioSet::{Development as Dev, HeldOut as Held};
    vec![
        network(
            "thin-tcp",
            Dev,
            "one 100 Gbit/s Ethernet NIC per server, NCCL over TCP sockets, 16:1 rack uplinks",
            "oversub=16,nics=1,nic_gbps=100,fabric=tcp,gpu=a100",
        ),
        network(
            "thin-roce",
            Dev,
            "one 100 Gbit/s RoCE NIC per server, 16:1 rack uplinks",
            "oversub=16,nics=1,nic_gbps=100,fabric=roce",
        ),
        network(
            "rail-4to1",
            Dev,
            "rail-optimised, eight 200 Gbit/s InfiniBand NICs per server (one a GPU), each rack's switch a rail group, 4:1 uplinks",
            "oversub=4,nics=8,nic_gbps=200,rails=on",
        ),
        network(
            "fat",
            Dev,
            "eight 400 Gbit/s InfiniBand NICs per server, non-blocking (1:1)",
            "oversub=1,nics=8,nic_gbps=400",
        ),
        RobustNetwork {
            name: "lingjun".into(),
            set: Dev,
            description: "Alibaba's Lingjun production topology (three-layer Clos, ToRs of 2-8 hosts, full bisection), a slice as large as the cell's cluster; one 200 Gbit/s RoCE NIC per host (the file gives no NICs; Alibaba's clusters are Ethernet)".into(),
            wiring: Wiring::Lingjun { options: "fabric=roce".into() },
        },
        network(
            "h100-pod",
            Held,
            "DGX H100-style: H100 servers on NVLink4 with eight 400 Gbit/s InfiniBand NICs, 2:1 rack uplinks",
            "oversub=2,nics=8,nic_gbps=400,gpu=h100",
        ),
        network(
            "ib-2nic-8to1",
            Held,
            "two 200 Gbit/s InfiniBand NICs per server, 8:1 rack uplinks",
            "oversub=8,nics=2,nic_gbps=200",
        ),
    ]
}

/// One of issue 31's scenarios, a development cell as the issue states it: a synthetic
/// trace on a parametric cluster, run as `proxima compare --no-rho` runs it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IssueScenario {
    /// `issue31-1` ...
    pub name: String,
    pub description: String,
    /// The network's name in the tables.
    pub network: String,
    pub topology: String,
    pub jobs: u32,
    pub load: f64,
    pub mix: String,
}

/// Issue 31's three scenarios, verbatim.
pub fn issue_scenarios() -> Vec<IssueScenario> {
    let thin = "racks=4,servers=4,gpus=8,oversub=16,nics=1,nic_gbps=100";
    let scenario =
        |k: u32, description: &str, network: &str, topology: &str, jobs: u32, load: f64, mix: &str| IssueScenario {
            name: format!("issue31-{k}"),
            description: description.into(),
            network: network.into(),
            topology: topology.into(),
            jobs,
            load,
            mix: mix.into(),
        };
    vec![
        scenario(
            1,
            "issue 31, scenario 1: LLaMA 13B alone on 128 GPUs",
            "issue-thin-ib",
            thin,
            1_000,
            0.9,
            "llama-13b",
        ),
        scenario(
            2,
            "issue 31, scenario 2: LLMs and older models on 128 GPUs",
            "issue-thin-ib",
            thin,
            1_000,
            0.9,
            "llama-7b,gpt2-xl,bert-large,resnet50-amp",
        ),
        scenario(
            3,
            "issue 31, scenario 3: LLMs on 512 GPUs, one 200 Gbit/s RoCE NIC per server, 8:1",
            "issue-roce-8to1",
            "racks=4,servers=16,gpus=8,oversub=8,nics=1,nic_gbps=200,fabric=roce",
            2_000,
            1.0,
            "llama-7b:2,llama-13b,gpt2-xl",
        ),
    ]
}
