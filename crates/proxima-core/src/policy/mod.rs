//! Scheduling policies: one file each, behind one narrow trait, resolved from a name with
//! options (`NAME[:key=value,...]`).
//!
//! A policy sees the simulation through a read-only [`View`] and answers with decisions as
//! data; only the engine changes state. A policy may keep its own bookkeeping (an index of
//! its queue, the history its auto-tuner learns from), fed by the events the engine passes
//! to [`Policy::on_event`].

mod catalogue;
pub mod consolidate;
pub mod dally;
pub mod fifo;
mod info;
pub mod kueue_tas;
pub mod mechanisms;
pub mod random;
pub mod replay;
pub mod slurm;
pub mod srtf;
pub mod strict;
pub mod tiresias;
pub mod volcano;

pub use catalogue::{markdown_table, policy_info, POLICIES, RECOMMENDED};
pub use info::{OptionKind, PolicyInfo, PolicyOption, Recommended};

use crate::cluster::{ClusterState, JobId};
use crate::comm::shape_of;
use crate::comm_params::CommParams;
use crate::error::InputError;
use crate::event::{PolicyNote, Reason, SimEvent};
use crate::model::Catalog;
use crate::scenario::JobRun;
use crate::tenants::Tenants;
use crate::time::SimTime;
use crate::topology::{GpuId, NodeId, Topology};
use crate::workload::Job;
use std::collections::BTreeMap;
use std::collections::BTreeSet;

/// What a policy asks the engine to do. Decisions are applied in order, so a policy can
/// preempt jobs and then place another on the GPUs they free.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Start a queued job on exactly these GPUs (as many as it asked for, all free).
    Place { job: JobId, gpus: Vec<GpuId>, reason: Reason },
    /// Checkpoint a running job and return it to the queue with its progress. It pays
    /// `restore_s` seconds without progress when it next starts.
    Preempt { job: JobId, restore_s: f64, reason: Reason },
    /// Tell observers why a queued job is waiting (send it when the reason changes, not on
    /// every pass).
    Wait { job: JobId, reason: Reason },
    /// Call the policy again at this time even if nothing else happens then.
    WakeAt(SimTime),
    /// A note for observers, e.g. a timer the auto-tuner moved.
    Note(PolicyNote),
}

/// The read-only state a policy decides on.
pub struct View<'a> {
    pub now: SimTime,
    pub topo: &'a Topology,
    pub catalog: &'a Catalog,
    pub comm: &'a CommParams,
    pub jobs: &'a [Job],
    pub runs: &'a [JobRun],
    pub cluster: &'a ClusterState,
    /// Jobs waiting to be placed, in submission order.
    pub queued: &'a BTreeSet<JobId>,
    /// The run's seed, for policies that draw at random (`random`): the same seed that
    /// assigned the models, so one number reproduces the whole run.
    pub seed: u64,
    /// The tenants and their quotas (policies with `quota=on` use them, [`mechanisms::quota`]).
    pub tenants: &'a Tenants,
}

impl<'a> View<'a> {
    pub fn job(&self, id: JobId) -> &'a Job {
        &self.jobs[id.0 as usize]
    }

    pub fn run(&self, id: JobId) -> &'a JobRun {
        &self.runs[id.0 as usize]
    }

    /// Seconds per iteration the job would run at if it started on `gpus` now, sharing the
    /// network with the rings already on the links it would cross: on each, the rate a
    /// newcomer gets when the rings there keep theirs unless they are above its fair level
    /// ([`ClusterState::estimate_new_ring`]).
    pub fn estimate_iter_s(&self, job: JobId, gpus: &[GpuId]) -> f64 {
        let mut servers: Vec<NodeId> = gpus.iter().map(|&g| self.topo.server_of(g)).collect();
        servers.dedup();
        let mut links = Vec::new();
        self.topo.inter_server_links(&servers, &mut links);
        let shape = shape_of(self.topo, gpus, &links);
        let shape = shape.with_share(self.cluster.estimate_new_ring(&links, self.comm.ring_cap(&shape)));
        self.comm.iteration_time(self.catalog.get(self.job(job).model), &shape)
    }

    /// How many times slower than ideal the job would run on `gpus` now.
    pub fn estimate_slowdown(&self, job: JobId, gpus: &[GpuId]) -> f64 {
        let j = self.job(job);
        match j.ideal_iter_s {
            Some(ideal) if ideal > 0.0 => self.estimate_iter_s(job, gpus) / ideal,
            _ => 1.0,
        }
    }
}

/// A scheduling policy.
pub trait Policy {
    /// The canonical spec, with every option spelled out, e.g. `fifo:backfill=on`.
    fn spec(&self) -> String;

    /// The delay timers the policy starts with, in seconds per tier, tightest first
    /// (what a playback shows before the first `TimerChanged`); empty for a policy
    /// without timers.
    fn delay_timers(&self) -> Vec<f64> {
        Vec::new()
    }

    /// Checks the options that name parts of a cluster (a topology level) against the one the
    /// run is on, so that a caller can refuse the run before it starts; the policy checks
    /// again at its first decision for callers that do not ask.
    fn check_cluster(&self, _topo: &Topology) -> Result<(), InputError> {
        Ok(())
    }

    /// Called for every event except rate changes, after the engine applied it.
    fn on_event(&mut self, _event: &SimEvent, _view: &View) {}

    /// Called once per instant at which something happened, after all that instant's
    /// events. Pushes decisions to `out`.
    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>);
}

/// A parsed `NAME[:key=value,...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    pub name: String,
    pub options: BTreeMap<String, String>,
}

impl PolicySpec {
    pub fn parse(text: &str) -> Result<PolicySpec, InputError> {
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), r),
            None => (text, ""),
        };
        if name.is_empty() {
            return Err(InputError::new("policy", "empty policy name"));
        }
        let mut options = BTreeMap::new();
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| InputError::new(part, format!("expected key=value in policy '{text}'")))?;
            let (k, v) = (k.trim().to_string(), v.trim().to_string());
            if k.is_empty() {
                return Err(InputError::new("policy", format!("empty option name in '{text}'")));
            }
            if options.insert(k.clone(), v).is_some() {
                return Err(InputError::new(k, "given twice"));
            }
        }
        Ok(PolicySpec { name: name.to_ascii_lowercase(), options })
    }

    /// Takes an option out, so that whatever is left at the end is unknown.
    pub fn take(&mut self, key: &str) -> Option<String> {
        self.options.remove(key)
    }

    pub fn take_bool(&mut self, key: &str, default: bool) -> Result<bool, InputError> {
        match self.take(key).as_deref() {
            None => Ok(default),
            Some("on" | "true" | "yes" | "1") => Ok(true),
            Some("off" | "false" | "no" | "0") => Ok(false),
            Some(other) => Err(InputError::new(key, format!("expected on or off, got '{other}'"))),
        }
    }

    pub fn take_f64(&mut self, key: &str, default: f64, min: f64) -> Result<f64, InputError> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= min => Ok(x),
                _ => Err(InputError::new(key, format!("expected a number of at least {min}, got '{v}'"))),
            },
        }
    }

    pub fn take_u32(&mut self, key: &str, default: u32) -> Result<u32, InputError> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => {
                v.parse::<u32>().map_err(|_| InputError::new(key, format!("expected a whole number, got '{v}'")))
            }
        }
    }

    /// Fails on the first option nobody took.
    pub fn finish(self) -> Result<(), InputError> {
        match self.options.into_iter().next() {
            None => Ok(()),
            Some((k, _)) => Err(InputError::new(k, format!("unknown option of policy '{}'", self.name))),
        }
    }
}

/// Builds a policy from its spec, e.g. `fifo`, `consolidate:backfill=off`.
pub fn resolve_policy(text: &str) -> Result<Box<dyn Policy>, InputError> {
    build_policy(PolicySpec::parse(text)?)
}

/// Builds a policy from a spec already parsed (`proxima_core::session` parses each spec
/// once, at the edge, and builds from it as often as it runs).
pub fn build_policy(mut spec: PolicySpec) -> Result<Box<dyn Policy>, InputError> {
    // One table names the policies and builds them: a policy is known by its `INFO` in
    // `POLICIES`, never by a second list here.
    let Some(info) = policy_info(&spec.name) else {
        let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
        let message = format!("unknown policy '{}' (known: {})", spec.name, names.join(", "));
        return Err(InputError::new("policy", message));
    };
    let policy = (info.build)(&mut spec)?;
    spec.finish()?;
    Ok(policy)
}

/// The queue as first-come-first-served policies see it: queued jobs grouped by GPU count,
/// each group in submission order. The next job that fits `free` GPUs is the earliest head
/// among groups no larger than `free`: a handful of comparisons however long the queue is.
#[derive(Clone, Debug, Default)]
pub struct SizeClassQueue {
    by_size: BTreeMap<u32, BTreeSet<JobId>>,
}

impl SizeClassQueue {
    pub fn insert(&mut self, job: JobId, gpus: u32) {
        self.by_size.entry(gpus).or_default().insert(job);
    }

    pub fn remove(&mut self, job: JobId, gpus: u32) {
        if let Some(set) = self.by_size.get_mut(&gpus) {
            set.remove(&job);
            if set.is_empty() {
                self.by_size.remove(&gpus);
            }
        }
    }

    /// The earliest-submitted job asking for at most `free` GPUs.
    pub fn first_fitting(&self, free: u32) -> Option<(JobId, u32)> {
        self.by_size.range(..=free).filter_map(|(&size, set)| set.first().map(|&j| (j, size))).min()
    }

    /// The earliest-submitted job whose GPU count passes `fits`: one test per size class.
    pub fn first_where(&self, fits: impl Fn(u32) -> bool) -> Option<(JobId, u32)> {
        self.by_size
            .iter()
            .filter(|(&size, _)| fits(size))
            .filter_map(|(&size, set)| set.first().map(|&j| (j, size)))
            .min()
    }

    /// The earliest-submitted job of all.
    pub fn head(&self) -> Option<(JobId, u32)> {
        self.by_size.iter().filter_map(|(&size, set)| set.first().map(|&j| (j, size))).min()
    }

    /// Keeps the index in step with the engine's events.
    pub fn track(&mut self, event: &SimEvent, view: &View) {
        match event {
            SimEvent::Arrived { job } | SimEvent::Preempted { job, .. } => self.insert(*job, view.job(*job).gpus),
            SimEvent::Placed { job, .. } => self.remove(*job, view.job(*job).gpus),
            _ => {}
        }
    }
}

/// One step of the first-come-first-served loop both baselines share: the earliest queued
/// job that fits the free GPUs (or, without backfill, only the head of the queue, if it
/// fits), placed by `place`. The engine calls the policy again after applying it, until a
/// pass decides nothing, so each pass sees the occupancy the previous one left.
pub(crate) fn fcfs_step(
    queue: &SizeClassQueue,
    view: &View,
    backfill: bool,
    out: &mut Vec<Decision>,
    place: impl FnOnce(u32) -> Option<(Vec<GpuId>, Reason)>,
) {
    if let Some((job, size)) = fcfs_next(queue, view, backfill) {
        if let Some((gpus, reason)) = place(size) {
            out.push(Decision::Place { job, gpus, reason });
        }
    }
}

/// The job the first-come-first-served loop places next: the earliest that fits the free
/// GPUs, or, without backfill, the head of the queue if it fits.
pub(crate) fn fcfs_next(queue: &SizeClassQueue, view: &View, backfill: bool) -> Option<(JobId, u32)> {
    let free = view.cluster.free_count();
    if backfill {
        queue.first_fitting(free)
    } else {
        queue.head().filter(|&(_, size)| size <= free)
    }
}

/// `on`/`off` for canonical specs.
pub(crate) fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// The remaining ideal run time of a job at `now`, in whole microseconds (rounded up): the
/// work left times the iteration time at its tightest placement. What `srtf` orders by. It
/// reads the job's true iterations from the trace: clairvoyant, for `srtf` only (other
/// policies ask [`mechanisms::runtime::RemainingTime`]).
pub(crate) fn remaining_ideal(view: &View, job: JobId) -> SimTime {
    let j = view.job(job);
    let left = (j.iterations - view.run(job).progress_at(view.now)).max(0.0);
    SimTime::from_secs_f64_ceil(left * j.ideal_iter_s.unwrap_or(0.0))
}

/// Takes an option that is a number of seconds or `off`.
pub(crate) fn take_optional_secs(
    spec: &mut PolicySpec,
    key: &str,
    min_exclusive: f64,
) -> Result<Option<f64>, InputError> {
    match spec.take(key).as_deref() {
        None | Some("off") => Ok(None),
        Some(v) => match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x > min_exclusive => Ok(Some(x)),
            _ => Err(InputError::new(key, format!("expected a number above {min_exclusive} or off, got '{v}'"))),
        },
    }
}
