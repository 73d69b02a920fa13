//! What an experiment runs on, as data: the traces, scenario sets, networks and workloads a
//! plan is built from, and the scenarios (a workload on a network at an oversubscription) they make.

use serde::{Deserialize, Serialize};

/// Where a scenario's jobs come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TraceRef {
    /// A window of the Philly-derived trace: jobs `skip .. skip + limit` by submission time.
    Philly { skip: u32, limit: u32 },
    /// `synthetic:jobs=N,load=L[,shape=S]` (the seed is the run's): Philly-shaped jobs, or
    /// with `shape` those of an Acme cluster ([`proxima_core::trace::synthetic_shape`]).
    Synthetic {
        jobs: u32,
        load: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shape: Option<String>,
    },
}

impl TraceRef {
    pub fn label(&self) -> String {
        match self {
            TraceRef::Philly { skip, limit } => format!("Philly jobs {}-{}", skip, skip + limit),
            TraceRef::Synthetic { .. } => self.synthetic_spec().unwrap_or_default(),
        }
    }

    /// The trace argument of a synthetic trace, as `--trace` and sweep specs take it;
    /// `None` for a Philly window.
    pub fn synthetic_spec(&self) -> Option<String> {
        match self {
            TraceRef::Philly { .. } => None,
            TraceRef::Synthetic { jobs, load, shape } => Some(match shape {
                Some(shape) => format!("synthetic:jobs={jobs},load={load},shape={shape}"),
                None => format!("synthetic:jobs={jobs},load={load}"),
            }),
        }
    }
}

/// Which part of the evaluation a workload belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioSet {
    /// The workloads the policy was developed and tuned on.
    Development,
    /// Workloads fixed before any further change to the policy and never used to tune it.
    HeldOut,
    /// Held-out workloads fixed later, for a candidate changed after its first held-out run
    /// (which had then been read): no version of the candidate ran on them before it was
    /// frozen again.
    FreshHeldOut,
}

impl ScenarioSet {
    /// Every set, in report order.
    pub const ALL: [ScenarioSet; 3] = [ScenarioSet::Development, ScenarioSet::HeldOut, ScenarioSet::FreshHeldOut];

    pub fn label(self) -> &'static str {
        match self {
            ScenarioSet::Development => "development",
            ScenarioSet::HeldOut => "held-out",
            ScenarioSet::FreshHeldOut => "fresh held-out",
        }
    }

    /// The label as a file or sweep-part name.
    pub fn slug(self) -> &'static str {
        match self {
            ScenarioSet::FreshHeldOut => "fresh-held-out",
            other => other.label(),
        }
    }

    /// Whether the set's results judge a frozen policy (any held-out set).
    pub fn is_held_out(self) -> bool {
        self != ScenarioSet::Development
    }
}

/// A kind of cluster network: what is appended to the parametric topology spec
/// `racks=R,servers=S,gpus=G,oversub=O` to build it; `{gpus}` in it stands for the
/// workload's GPUs per server (so that a fabric can give each GPU its own NIC).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Network {
    pub name: String,
    pub description: String,
    /// E.g. `fabric=tcp` or `fabric=rdma,nics={gpus}`.
    pub topology_options: String,
}

/// A cluster shape and a trace, with the seeds it runs under.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub name: String,
    pub set: ScenarioSet,
    pub racks: u32,
    pub servers_per_rack: u32,
    pub gpus_per_server: u32,
    /// The span of the trace the workload draws on (for a Philly workload cut into
    /// windows, the union of its windows).
    pub trace: TraceRef,
    /// Disjoint parts of `trace` each run on its own, every one under every seed; empty:
    /// `trace` is the one window. On a Philly window a seed only redraws each job's model
    /// (arrivals, sizes and durations are the trace's), so only windows vary the jobs, and
    /// the report's primary intervals resample windows ([`super::claims`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<TraceRef>,
    /// In words, e.g. "offered load about 1.2".
    pub load: String,
    /// Seeds set the model of every Philly job and the whole of a synthetic trace.
    pub seeds: Vec<u64>,
    /// The model mix its jobs draw from (`--mix`, e.g. `llm`); `None`: the network's GPU
    /// catalogue's default mix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<String>,
    /// The networks it runs on, by name; empty: every network of the plan. A workload of
    /// models one network's GPU has no catalogue for (LLaMA on T4) names the others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub networks: Vec<String>,
}

impl Workload {
    /// Whether the workload runs on the network named `network`.
    pub fn runs_on(&self, network: &str) -> bool {
        self.networks.is_empty() || self.networks.iter().any(|n| n == network)
    }

    pub fn gpus(&self) -> u32 {
        self.racks * self.servers_per_rack * self.gpus_per_server
    }
}

/// The windows a scenario runs: `windows`, or `trace` alone when there are none.
fn windows_or_trace(windows: &[TraceRef], trace: &TraceRef) -> Vec<TraceRef> {
    if windows.is_empty() {
        vec![trace.clone()]
    } else {
        windows.to_vec()
    }
}

/// One cluster (a workload's shape on a network at an uplink oversubscription) and its jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioDef {
    /// `WORKLOAD/NETWORK/oversub=O`.
    pub name: String,
    pub set: ScenarioSet,
    pub workload: String,
    pub network: String,
    pub oversub: f64,
    /// The parametric topology spec.
    pub topology: String,
    pub trace: TraceRef,
    /// The workload's windows ([`Workload::windows`]); empty: `trace` is the one window.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<TraceRef>,
    pub load: String,
    pub seeds: Vec<u64>,
    /// The workload's model mix ([`Workload::mix`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<String>,
}

impl ScenarioDef {
    /// The windows the scenario runs, in trace order (at least one).
    pub fn windows(&self) -> Vec<TraceRef> {
        windows_or_trace(&self.windows, &self.trace)
    }

    /// How many windows the scenario runs.
    pub fn window_count(&self) -> usize {
        self.windows.len().max(1)
    }

    /// The name of one window's runs where a scenario must be named per window (a sweep
    /// spec's scenario axis): `NAME/window=K` from 1, or `NAME` for a scenario of one.
    pub fn window_name(&self, window: usize) -> String {
        if self.window_count() > 1 {
            format!("{}/window={}", self.name, window + 1)
        } else {
            self.name.clone()
        }
    }

    /// "congested (16:1)" or "uncongested (1:1)".
    pub fn congestion_label(&self) -> String {
        if self.oversub > 1.0 {
            format!("congested ({}:1)", self.oversub)
        } else {
            "uncongested (1:1)".to_string()
        }
    }
}
