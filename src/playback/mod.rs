//! Playback of a run: the state of the cluster at any simulated time, derived from the
//! run's event log. Pure (no web API), so tests drive it natively.
//!
//! [`Playback::state_at`] is the function "state at time t": which job holds each GPU,
//! which jobs run and wait (with their delay timers), how many rings cross each link, the
//! current delay timers. It starts from the nearest checkpoint (a full [`Frame`] kept every
//! few thousand events) and replays the events after it, so scrubbing anywhere costs at
//! most one checkpoint's worth of events; playing forward replays only the new events
//! ([`Playback::advance`]).
//!
//! - this file: the indexed log, frames and how events change them;
//! - [`queries`]: what the views ask of a frame (timers, a job's story, marks);
//! - [`narrate`]: the waiting jobs' ghosts and the decisions in words (the subtitle);
//! - [`player`]: the player's reducer (play, step, seek, select);
//! - [`scene`]: what the canvas draws (the editor's graph of the cluster, or racks as
//!   blocks from [`grid`] for large clusters), and [`colours`]: each job's look;
//! - [`view`], [`controls`], [`full_screen`], [`cluster`], [`canvas`] and [`sizing`], [`timer_chart`], [`widgets`]: the
//!   components that show it; [`record`]: the playback exported as a WebM clip;
//!   [`what_if`]: "had it not been preempted" on a preemption of the run; [`moment_link`]:
//!   "Link to this moment".

pub mod canvas;
pub mod cluster;
pub mod colours;
pub mod controls;
pub mod full_screen;
pub mod grid;
pub mod moment_link;
pub mod narrate;
pub mod panes;
pub mod player;
mod queries;
pub mod record;
pub use queries::Moment;
pub mod scene;
pub mod sizing;
#[cfg(test)]
mod tests;
pub mod timeline;
pub mod timer_chart;
pub mod view;
pub mod watch;
pub mod what_if;
pub mod widgets;

pub use grid::Grid;
pub use player::{Player, PlayerAction, SPEEDS};

use crate::eventlog::PlaybackLog;
use crate::Shared;
use proxima_core::event::{PolicyNote, Reason, SimEvent};
use proxima_core::topology::{GpuId, NodeId, Tier, Topology};
use std::collections::BTreeMap;

/// `Frame::gpu_owner` of a free GPU.
pub const NO_JOB: u32 = u32::MAX;

/// A running job: the index of the event that placed it (its GPUs, tier and reason).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningJob {
    pub placed: u32,
    pub since_us: u64,
}

/// A queued job: since when, and the index of the last `Waiting` event about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueuedJob {
    pub since_us: u64,
    pub wait: Option<u32>,
}

/// The cluster at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub time_us: u64,
    /// Events applied: every event at or before `time_us`.
    pub applied: usize,
    /// The job holding each GPU, or [`NO_JOB`].
    pub gpu_owner: Vec<u32>,
    pub running: BTreeMap<u32, RunningJob>,
    pub queue: BTreeMap<u32, QueuedJob>,
    /// Rings (running multi-server jobs) crossing each link of the topology.
    pub link_load: Vec<u32>,
    /// The delay timers in force, per tier below the top (empty for policies without).
    pub timers: Vec<f64>,
    pub arrived: u32,
    pub completed: u32,
    pub rejected: u32,
    /// Jobs preempted for another job (re-consolidations not counted).
    pub preemptions: u32,
    pub reconsolidations: u32,
}

/// A delay timer running for a waiting job.
#[derive(Clone, Debug, PartialEq)]
pub struct Countdown {
    pub job: u32,
    /// The tier the job waits for.
    pub wanted: Tier,
    pub left_s: f64,
    /// The timer's length when the job entered this phase of its wait.
    pub total_s: f64,
}

/// Something worth marking on the time line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    Preempted,
    Reconsolidated,
    TimerChanged,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    pub time_us: u64,
    pub kind: MarkKind,
    /// The event's index in the log.
    pub event: u32,
}

/// What a job is doing at some instant.
#[derive(Clone, Debug, PartialEq)]
pub enum JobNow {
    NotSubmitted,
    Rejected,
    Queued { since_us: u64, reason: Option<Reason> },
    Running { since_us: u64, tier: Tier, gpus: Vec<GpuId>, reason: Reason },
    Completed { at_us: u64 },
}

/// A decoded run, indexed for playback.
#[derive(Debug)]
pub struct Playback {
    pub log: PlaybackLog,
    pub topo: Shared<Topology>,
    /// `checkpoints[k]` is the frame after the first `k * every` events.
    checkpoints: Vec<Frame>,
    every: usize,
    /// Events about each job: `job_events[job_start[j]..job_start[j + 1]]`.
    job_start: Vec<u32>,
    job_events: Vec<u32>,
    pub marks: Vec<Mark>,
    /// Tiers with a delay timer, for the chart.
    pub timer_tiers: usize,
    /// Jobs in the log per tenant, by the tenant's index in [`PlaybackLog::tenants`].
    pub tenant_jobs: Vec<u32>,
    /// The instants a waiting job starts to decline free GPUs ([`Playback::declines`]),
    /// found on first use: the player's "Next wait" and the first screen's first moment.
    declines: std::cell::OnceCell<Vec<narrate::Decline>>,
}

impl Playback {
    /// Indexes a log for playback on the topology it was recorded on. Fails if the log
    /// does not fit the topology (a GPU or link it does not have).
    pub fn new(log: PlaybackLog, topo: Shared<Topology>) -> Result<Playback, String> {
        let gpus = topo.gpu_count();
        for (i, e) in log.events.iter().enumerate() {
            if let SimEvent::Placed { gpus: g, .. } = e {
                if g.iter().any(|g| g.0 >= gpus) {
                    return Err(format!("event {i} places a job on a GPU the cluster does not have"));
                }
            }
        }
        let n = log.events.len();
        // About 256 checkpoints whatever the length, and never fewer than 1,024 events
        // apart: a scrub then replays at most a few thousand events.
        let every = (n / 256).max(1024);
        let mut playback = Playback {
            topo,
            checkpoints: Vec::new(),
            every,
            job_start: Vec::new(),
            job_events: Vec::new(),
            marks: Vec::new(),
            timer_tiers: log.initial_timers.len(),
            tenant_jobs: vec![0; log.tenants.len()],
            declines: std::cell::OnceCell::new(),
            log,
        };
        for j in &playback.log.jobs {
            playback.tenant_jobs[j.tenant as usize] += 1;
        }
        let mut frame = playback.empty_frame();
        for i in 0..n {
            if i % every == 0 {
                playback.checkpoints.push(frame.clone());
            }
            playback.apply(&mut frame, i);
        }
        if n.is_multiple_of(every) {
            playback.checkpoints.push(frame);
        }
        // Per job, its events (a counting sort by job).
        let jobs = playback.log.jobs.len();
        let mut counts = vec![0u32; jobs + 1];
        for e in &playback.log.events {
            if let Some(j) = job_of(e) {
                counts[j as usize + 1] += 1;
            }
        }
        for j in 0..jobs {
            counts[j + 1] += counts[j];
        }
        let mut next = counts.clone();
        playback.job_events = vec![0; n];
        for (i, e) in playback.log.events.iter().enumerate() {
            if let Some(j) = job_of(e) {
                playback.job_events[next[j as usize] as usize] = i as u32;
                next[j as usize] += 1;
            }
        }
        playback.job_events.truncate(counts[jobs] as usize);
        playback.job_start = counts;
        for (i, e) in playback.log.events.iter().enumerate() {
            let kind = match e {
                SimEvent::Preempted { reason: Reason::PreemptedFor { .. }, .. } => Some(MarkKind::Preempted),
                SimEvent::Placed { reason: Reason::Reconsolidated { .. }, .. } => Some(MarkKind::Reconsolidated),
                SimEvent::Policy { note: PolicyNote::TimerChanged { tier, .. } } => {
                    playback.timer_tiers = playback.timer_tiers.max(tier.0 as usize + 1);
                    Some(MarkKind::TimerChanged)
                }
                _ => None,
            };
            if let Some(kind) = kind {
                playback.marks.push(Mark { time_us: playback.log.times[i], kind, event: i as u32 });
            }
        }
        Ok(playback)
    }

    fn empty_frame(&self) -> Frame {
        Frame {
            time_us: 0,
            applied: 0,
            gpu_owner: vec![NO_JOB; self.topo.gpu_count() as usize],
            running: BTreeMap::new(),
            queue: BTreeMap::new(),
            link_load: vec![0; self.topo.links().len()],
            timers: self.log.initial_timers.clone(),
            arrived: 0,
            completed: 0,
            rejected: 0,
            preemptions: 0,
            reconsolidations: 0,
        }
    }

    /// The end of playback: the run's end, or where the log was cut.
    pub fn end_us(&self) -> u64 {
        self.log.cut_at_us.unwrap_or(self.log.end_us)
    }

    /// The state of the cluster at `time_us`: every event at or before it applied.
    pub fn state_at(&self, time_us: u64) -> Frame {
        let count = self.log.times.partition_point(|&t| t <= time_us);
        let k = (count / self.every).min(self.checkpoints.len() - 1);
        let mut frame = self.checkpoints[k].clone();
        for i in frame.applied..count {
            self.apply(&mut frame, i);
        }
        frame.time_us = time_us;
        frame
    }

    /// The state at `time_us`, from a frame already computed: forward by replaying the
    /// events in between, backward (or far forward) through a checkpoint.
    pub fn advance(&self, frame: &Frame, time_us: u64) -> Frame {
        let count = self.log.times.partition_point(|&t| t <= time_us);
        if count < frame.applied || count - frame.applied > self.every {
            return self.state_at(time_us);
        }
        let mut next = frame.clone();
        for i in frame.applied..count {
            self.apply(&mut next, i);
        }
        next.time_us = time_us;
        next
    }

    fn apply(&self, f: &mut Frame, i: usize) {
        let t = self.log.times[i];
        match &self.log.events[i] {
            SimEvent::Arrived { job } => {
                f.queue.insert(job.0, QueuedJob { since_us: t, wait: None });
                f.arrived += 1;
            }
            SimEvent::Rejected { .. } => f.rejected += 1,
            SimEvent::Placed { job, gpus, reason, .. } => {
                f.queue.remove(&job.0);
                for g in gpus {
                    f.gpu_owner[g.0 as usize] = job.0;
                }
                self.add_load(f, gpus, true);
                f.running.insert(job.0, RunningJob { placed: i as u32, since_us: t });
                if matches!(reason, Reason::Reconsolidated { .. }) {
                    f.reconsolidations += 1;
                }
            }
            SimEvent::Waiting { job, .. } => {
                if let Some(q) = f.queue.get_mut(&job.0) {
                    q.wait = Some(i as u32);
                }
            }
            SimEvent::Preempted { job, reason, .. } => {
                self.release(f, job.0);
                f.queue.insert(job.0, QueuedJob { since_us: t, wait: None });
                if matches!(reason, Reason::PreemptedFor { .. }) {
                    f.preemptions += 1;
                }
            }
            SimEvent::Completed { job } => {
                self.release(f, job.0);
                f.completed += 1;
            }
            SimEvent::Policy { note: PolicyNote::TimerChanged { tier, new_s, .. } } => {
                let t = tier.0 as usize;
                if f.timers.len() <= t {
                    let last = f.timers.last().copied().unwrap_or(0.0);
                    f.timers.resize(t + 1, last);
                }
                f.timers[t] = *new_s;
            }
            SimEvent::RateChanged { .. } => {}
        }
        f.applied = i + 1;
        f.time_us = t;
    }

    fn release(&self, f: &mut Frame, job: u32) {
        if let Some(r) = f.running.remove(&job) {
            let gpus = self.placed_gpus(r.placed);
            for g in gpus {
                if f.gpu_owner[g.0 as usize] == job {
                    f.gpu_owner[g.0 as usize] = NO_JOB;
                }
            }
            self.add_load(f, gpus, false);
        }
    }

    /// Counts (or uncounts) the ring of a placement on the links it crosses.
    fn add_load(&self, f: &mut Frame, gpus: &[GpuId], add: bool) {
        let mut servers: Vec<NodeId> = gpus.iter().map(|&g| self.topo.server_of(g)).collect();
        servers.sort_unstable();
        servers.dedup();
        let mut links = Vec::new();
        self.topo.inter_server_links(&servers, &mut links);
        for l in links {
            let load = &mut f.link_load[l.0 as usize];
            *load = if add { *load + 1 } else { load.saturating_sub(1) };
        }
    }

    /// The GPUs of a `Placed` event.
    pub fn placed_gpus(&self, event: u32) -> &[GpuId] {
        match &self.log.events[event as usize] {
            SimEvent::Placed { gpus, .. } => gpus,
            _ => &[],
        }
    }
}

fn job_of(e: &SimEvent) -> Option<u32> {
    match e {
        SimEvent::Arrived { job }
        | SimEvent::Rejected { job, .. }
        | SimEvent::Placed { job, .. }
        | SimEvent::Waiting { job, .. }
        | SimEvent::Preempted { job, .. }
        | SimEvent::Completed { job }
        | SimEvent::RateChanged { job, .. } => Some(job.0),
        SimEvent::Policy { .. } => None,
    }
}
