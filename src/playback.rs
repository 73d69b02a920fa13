//! Playback of a run: the state of the cluster at any simulated time, derived from the
//! run's event log, and the player's reducer. Pure (no web API), so tests drive it natively.
//!
//! [`Playback::state_at`] is the function "state at time t": which job holds each GPU,
//! which jobs run and wait (with their delay timers), how many rings cross each link, the
//! current delay timers. It starts from the nearest checkpoint (a full [`Frame`] kept every
//! few thousand events) and replays the events after it, so scrubbing anywhere costs at
//! most one checkpoint's worth of events; playing forward replays only the new events
//! ([`Playback::advance`]).

use crate::eventlog::PlaybackLog;
use proxima_core::event::{PolicyNote, Reason, SimEvent};
use proxima_core::topology::{GpuId, LinkId, NodeId, Tier, Topology};
use std::collections::BTreeMap;
use std::rc::Rc;

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
    pub topo: Rc<Topology>,
    /// `checkpoints[k]` is the frame after the first `k * every` events.
    checkpoints: Vec<Frame>,
    every: usize,
    /// Events about each job: `job_events[job_start[j]..job_start[j + 1]]`.
    job_start: Vec<u32>,
    job_events: Vec<u32>,
    pub marks: Vec<Mark>,
    /// Tiers with a delay timer, for the chart.
    pub timer_tiers: usize,
}

impl PartialEq for Playback {
    /// Playbacks are built once per run and shared; identity is what matters.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Playback {
    /// Indexes a log for playback on the topology it was recorded on. Fails if the log
    /// does not fit the topology (a GPU or link it does not have).
    pub fn new(log: PlaybackLog, topo: Rc<Topology>) -> Result<Playback, String> {
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
            log,
        };
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

    /// The time of the first event after the frame's time (for "step").
    pub fn next_event_after(&self, time_us: u64) -> Option<u64> {
        let i = self.log.times.partition_point(|&t| t <= time_us);
        self.log.times.get(i).copied()
    }

    /// The time of the last event before the frame's time (for "step back").
    pub fn previous_event_before(&self, time_us: u64) -> Option<u64> {
        let i = self.log.times.partition_point(|&t| t < time_us);
        i.checked_sub(1).map(|i| self.log.times[i])
    }

    /// The delay timers running at this frame, in submission order.
    pub fn countdowns(&self, frame: &Frame) -> Vec<Countdown> {
        frame
            .queue
            .iter()
            .filter_map(|(&job, q)| {
                let w = q.wait?;
                match &self.log.events[w as usize] {
                    SimEvent::Waiting { reason: Reason::WaitingForTier { wanted, left_s, .. }, .. } => {
                        let elapsed = frame.time_us.saturating_sub(self.log.times[w as usize]) as f64 / 1e6;
                        let left = left_s - elapsed;
                        (left > 0.0).then_some(Countdown { job, wanted: *wanted, left_s: left, total_s: *left_s })
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// What `job` is doing at the frame, with the scheduler's reason (a waiting job's
    /// timer counted down to the frame's time).
    pub fn job_now(&self, frame: &Frame, job: u32) -> JobNow {
        if let Some(r) = frame.running.get(&job) {
            if let SimEvent::Placed { gpus, tier, reason, .. } = &self.log.events[r.placed as usize] {
                return JobNow::Running {
                    since_us: r.since_us,
                    tier: *tier,
                    gpus: gpus.clone(),
                    reason: reason.clone(),
                };
            }
        }
        if let Some(q) = frame.queue.get(&job) {
            let reason = q.wait.and_then(|w| match &self.log.events[w as usize] {
                SimEvent::Waiting { reason, .. } => Some(match reason.clone() {
                    Reason::WaitingForTier { wanted, left_s, best_now, slowdown } => {
                        let elapsed = frame.time_us.saturating_sub(self.log.times[w as usize]) as f64 / 1e6;
                        Reason::WaitingForTier { wanted, left_s: (left_s - elapsed).max(0.0), best_now, slowdown }
                    }
                    other => other,
                }),
                _ => None,
            });
            return JobNow::Queued { since_us: q.since_us, reason };
        }
        for &i in self.job_history(job).iter().rev() {
            let i = i as usize;
            if self.log.times[i] > frame.time_us {
                continue;
            }
            match &self.log.events[i] {
                SimEvent::Completed { .. } => return JobNow::Completed { at_us: self.log.times[i] },
                SimEvent::Rejected { .. } => return JobNow::Rejected,
                _ => break,
            }
        }
        JobNow::NotSubmitted
    }

    /// The indices of the events about `job`, in order.
    pub fn job_history(&self, job: u32) -> &[u32] {
        let j = job as usize;
        if j + 1 >= self.job_start.len() {
            return &[];
        }
        &self.job_events[self.job_start[j] as usize..self.job_start[j + 1] as usize]
    }

    /// The marks at or before the frame's time, newest first, at most `n`.
    pub fn recent_marks(&self, frame: &Frame, n: usize) -> Vec<Mark> {
        let end = self.marks.partition_point(|m| m.time_us <= frame.time_us);
        self.marks[..end].iter().rev().take(n).copied().collect()
    }

    /// Each tier's delay timer as steps over time: (seconds, timer) from the start to the
    /// end of playback.
    pub fn timer_steps(&self) -> Vec<Vec<(f64, f64)>> {
        let end_s = self.end_us() as f64 / 1e6;
        let initial =
            |t: usize| self.log.initial_timers.get(t).or(self.log.initial_timers.last()).copied().unwrap_or(0.0);
        let mut series: Vec<Vec<(f64, f64)>> = (0..self.timer_tiers).map(|t| vec![(0.0, initial(t))]).collect();
        for m in self.marks.iter().filter(|m| m.kind == MarkKind::TimerChanged) {
            if let SimEvent::Policy { note: PolicyNote::TimerChanged { tier, new_s, .. } } =
                &self.log.events[m.event as usize]
            {
                series[tier.0 as usize].push((m.time_us as f64 / 1e6, *new_s));
            }
        }
        for s in &mut series {
            let last = s.last().map(|p| p.1).unwrap_or(0.0);
            s.push((end_s, last));
        }
        series
    }

    /// A sentence about a marked (or any) event, for the ticker.
    pub fn describe_event(&self, event: u32) -> String {
        let topo = &self.topo;
        match &self.log.events[event as usize] {
            SimEvent::Arrived { job } => format!("job {} submitted", job.0),
            SimEvent::Rejected { job, gpus, cluster_gpus } => {
                format!("job {} rejected: it asks for {gpus} GPUs, the cluster has {cluster_gpus}", job.0)
            }
            SimEvent::Placed { job, gpus, tier, reason, .. } => {
                format!(
                    "job {} placed on {} GPU(s), {}: {}",
                    job.0,
                    gpus.len(),
                    topo.tier_name(*tier),
                    reason.describe(topo)
                )
            }
            SimEvent::Waiting { job, reason } => format!("job {} {}", job.0, reason.describe(topo)),
            SimEvent::Preempted { job, reason, .. } => format!("job {} {}", job.0, reason.describe(topo)),
            SimEvent::Completed { job } => format!("job {} completed", job.0),
            SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, why } } => {
                format!("{} timer {} s → {} s: {why}", topo.tier_name(*tier), round(*old_s), round(*new_s))
            }
            SimEvent::RateChanged { job, .. } => format!("job {} changed speed", job.0),
        }
    }

    /// The model name of a job.
    pub fn model_of(&self, job: u32) -> &str {
        self.log
            .jobs
            .get(job as usize)
            .and_then(|j| self.log.models.get(j.model as usize))
            .map(String::as_str)
            .unwrap_or("?")
    }
}

fn round(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
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

// -- the player -------------------------------------------------------------------------

/// Playback speeds offered, in simulated seconds per second, with their labels.
pub const SPEEDS: &[(f64, &str)] = &[
    (1.0, "1 s per second"),
    (10.0, "10 s per second"),
    (60.0, "1 min per second"),
    (600.0, "10 min per second"),
    (3600.0, "1 h per second"),
    (36_000.0, "10 h per second"),
    (360_000.0, "100 h per second"),
    (3_600_000.0, "1,000 h per second"),
];

/// The longest wall-clock step a tick takes: after the tab was hidden, playback resumes
/// where it was rather than jumping.
const MAX_TICK_MS: f64 = 250.0;

/// The player: a playback, where it is, and how it moves. A reducer over
/// [`PlayerAction`]s.
#[derive(Clone, Debug)]
pub struct Player {
    pub playback: Rc<Playback>,
    pub frame: Rc<Frame>,
    pub playing: bool,
    /// Simulated seconds per second of wall time.
    pub speed: f64,
    pub selected: Option<u32>,
}

impl PartialEq for Player {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.playback, &other.playback)
            && Rc::ptr_eq(&self.frame, &other.frame)
            && self.playing == other.playing
            && self.speed == other.speed
            && self.selected == other.selected
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum PlayerAction {
    TogglePlay,
    Pause,
    /// A frame: this many milliseconds of wall time passed.
    Tick(f64),
    /// Go to this simulated second.
    Seek(f64),
    StepNext,
    StepBack,
    SetSpeed(f64),
    Select(Option<u32>),
    /// A click on a GPU: select the job holding it (or nothing).
    SelectGpu(u32),
}

impl Player {
    /// A player at `start_s`, at a speed that plays the whole run in about two minutes.
    pub fn new(playback: Rc<Playback>, start_s: f64, selected: Option<u32>) -> Player {
        let span_s = playback.end_us() as f64 / 1e6;
        let speed = SPEEDS.iter().map(|s| s.0).find(|&s| s * 120.0 >= span_s).unwrap_or(SPEEDS[SPEEDS.len() - 1].0);
        let frame = Rc::new(playback.state_at(secs_to_us(start_s).min(playback.end_us())));
        Player { playback, frame, playing: false, speed, selected }
    }

    pub fn time_s(&self) -> f64 {
        self.frame.time_us as f64 / 1e6
    }

    pub fn end_s(&self) -> f64 {
        self.playback.end_us() as f64 / 1e6
    }

    pub fn apply(mut self, action: PlayerAction) -> Player {
        let end = self.playback.end_us();
        match action {
            PlayerAction::TogglePlay => {
                if !self.playing && self.frame.time_us >= end {
                    // Play from the start again.
                    self.frame = Rc::new(self.playback.state_at(0));
                }
                self.playing = !self.playing;
            }
            PlayerAction::Pause => self.playing = false,
            PlayerAction::Tick(ms) => {
                if self.playing {
                    let dt = ms.clamp(0.0, MAX_TICK_MS) / 1000.0 * self.speed;
                    let t = (self.frame.time_us + secs_to_us(dt)).min(end);
                    self.goto(t);
                    if t >= end {
                        self.playing = false;
                    }
                }
            }
            PlayerAction::Seek(s) => self.goto(secs_to_us(s).min(end)),
            PlayerAction::StepNext => {
                self.playing = false;
                if let Some(t) = self.playback.next_event_after(self.frame.time_us) {
                    self.goto(t.min(end));
                }
            }
            PlayerAction::StepBack => {
                self.playing = false;
                let t = self.playback.previous_event_before(self.frame.time_us).unwrap_or(0);
                self.goto(t);
            }
            PlayerAction::SetSpeed(s) if s.is_finite() && s > 0.0 => self.speed = s,
            PlayerAction::SetSpeed(_) => {}
            PlayerAction::Select(job) => self.selected = job,
            PlayerAction::SelectGpu(g) => {
                let owner = self.frame.gpu_owner.get(g as usize).copied().unwrap_or(NO_JOB);
                self.selected = (owner != NO_JOB).then_some(owner);
            }
        }
        self
    }

    fn goto(&mut self, t: u64) {
        if t != self.frame.time_us {
            self.frame = Rc::new(self.playback.advance(&self.frame, t));
        }
    }
}

fn secs_to_us(s: f64) -> u64 {
    if s.is_finite() && s > 0.0 {
        (s * 1e6).round() as u64
    } else {
        0
    }
}

// -- the cluster as a grid of GPUs -------------------------------------------------------

/// A rectangle in canvas pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x < self.x + self.w && y >= self.y && y < self.y + self.h
    }

    pub fn centre(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }
}

/// A server's row of GPUs and the link to its switch.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerCell {
    pub node: NodeId,
    pub rect: Rect,
    pub first_gpu: u32,
    pub gpus: u32,
    pub uplink: Option<LinkId>,
    /// Where its uplink is drawn: a bar at the left of its row.
    pub link_bar: Rect,
}

/// A group of servers under one switch (a rack), with the switch's uplink.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupCell {
    pub node: NodeId,
    pub rect: Rect,
    pub label: String,
    pub uplink: Option<LinkId>,
    /// Where the uplink is drawn: a bar above the block.
    pub link_bar: Rect,
}

/// The playback's drawing of the cluster: racks as blocks, servers as rows, GPUs as cells.
/// GPU cells are indexed by GPU id.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub width: f64,
    pub height: f64,
    /// The side of a GPU cell.
    pub cell: f64,
    pub gpus: Vec<Rect>,
    pub servers: Vec<ServerCell>,
    pub groups: Vec<GroupCell>,
    /// The line the groups' uplinks rise to (the switches above the racks).
    pub spine_y: f64,
}

/// GPUs per row of a server.
const GPUS_PER_ROW: u32 = 8;

impl Grid {
    /// Lays the cluster out to fit about `max_width` pixels: big cells with room for a
    /// label on small clusters, 7-pixel cells on the 2,048-GPU presets.
    pub fn new(topo: &Topology, max_width: f64) -> Grid {
        let n = topo.gpu_count();
        let cell: f64 = if n <= 32 {
            34.0
        } else if n <= 64 {
            26.0
        } else if n <= 512 {
            14.0
        } else {
            7.0
        };
        let gap = (cell / 7.0).max(1.0).floor();
        let bar = (cell / 2.0).max(3.0);
        let margin = 8.0;
        // Groups: the parents of servers, in GPU order.
        let mut group_nodes: Vec<NodeId> = Vec::new();
        for &s in topo.servers() {
            let g = topo.node(s).parent.unwrap_or(s);
            if group_nodes.last() != Some(&g) {
                group_nodes.push(g);
            }
        }
        let mut grid = Grid {
            width: 0.0,
            height: 0.0,
            cell,
            gpus: vec![Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 }; n as usize],
            servers: Vec::new(),
            groups: Vec::new(),
            spine_y: margin,
        };
        let spine_gap = bar * 3.0;
        let top = margin + spine_gap;
        let (mut x, mut y) = (margin, top);
        let mut row_height: f64 = 0.0;
        for &g in &group_nodes {
            let servers: Vec<NodeId> =
                topo.servers().iter().copied().filter(|&s| topo.node(s).parent.unwrap_or(s) == g).collect();
            let widest = servers.iter().map(|&s| topo.node(s).gpu_count.min(GPUS_PER_ROW)).max().unwrap_or(1);
            let w = bar + gap * 2.0 + widest as f64 * (cell + gap);
            let h: f64 = servers
                .iter()
                .map(|&s| topo.node(s).gpu_count.div_ceil(GPUS_PER_ROW) as f64 * (cell + gap) + gap)
                .sum::<f64>()
                + gap
                + 14.0;
            if x + w > max_width && x > margin {
                x = margin;
                y += row_height + spine_gap + margin;
                row_height = 0.0;
            }
            let block = Rect { x, y, w, h };
            let mut sy = y + 14.0;
            for &s in &servers {
                let node = topo.node(s);
                let rows = node.gpu_count.div_ceil(GPUS_PER_ROW);
                let rh = rows as f64 * (cell + gap);
                for i in 0..node.gpu_count {
                    let gx = x + bar + gap * 2.0 + (i % GPUS_PER_ROW) as f64 * (cell + gap);
                    let gy = sy + (i / GPUS_PER_ROW) as f64 * (cell + gap);
                    grid.gpus[(node.first_gpu + i) as usize] = Rect { x: gx, y: gy, w: cell, h: cell };
                }
                grid.servers.push(ServerCell {
                    node: s,
                    rect: Rect { x: x + bar + gap, y: sy - gap / 2.0, w: w - bar - gap, h: rh },
                    first_gpu: node.first_gpu,
                    gpus: node.gpu_count,
                    uplink: node.uplink,
                    link_bar: Rect { x: x + gap / 2.0, y: sy, w: bar - gap / 2.0, h: (rh - gap).max(1.0) },
                });
                sy += rh + gap;
            }
            let node = topo.node(g);
            let label = node.name.clone();
            grid.groups.push(GroupCell {
                node: g,
                rect: block,
                label,
                uplink: if node.kind == proxima_core::topology::NodeKind::Switch { node.uplink } else { None },
                link_bar: Rect { x: x + w / 2.0 - bar / 2.0, y: y - spine_gap + bar, w: bar, h: spine_gap - bar },
            });
            x += w + margin;
            row_height = row_height.max(h);
            grid.width = grid.width.max(x);
        }
        grid.height = y + row_height + margin;
        grid
    }

    /// The GPU under a point, if any.
    pub fn gpu_at(&self, x: f64, y: f64) -> Option<u32> {
        let server = self.servers.iter().find(|s| s.rect.contains(x, y))?;
        (server.first_gpu..server.first_gpu + server.gpus).find(|&g| {
            let r = self.gpus[g as usize];
            // Cells and the gaps after them, so that a click never falls between.
            Rect { x: r.x - 1.0, y: r.y - 1.0, w: r.w + 2.0, h: r.h + 2.0 }.contains(x, y)
        })
    }

    /// The centres of the groups of a job's GPUs that sit in one server: a scattered job
    /// has several, to be linked by lines.
    pub fn server_centres(&self, gpus: &[GpuId]) -> Vec<(f64, f64)> {
        let mut out: Vec<(f64, f64, u32)> = Vec::new();
        let mut current: Option<usize> = None;
        for g in gpus {
            let s = self.servers.partition_point(|s| s.first_gpu + s.gpus <= g.0);
            let (cx, cy) = self.gpus[g.0 as usize].centre();
            if current == Some(s) {
                let last = out.last_mut().expect("a group");
                last.0 += cx;
                last.1 += cy;
                last.2 += 1;
            } else {
                out.push((cx, cy, 1));
                current = Some(s);
            }
        }
        out.into_iter().map(|(x, y, n)| (x / n as f64, y / n as f64)).collect()
    }
}

/// A stable colour for a job, as HSL (hue 0..360, saturation and lightness in %): hues
/// spread by the golden angle so that neighbouring job numbers look different.
pub fn job_hsl(job: u32) -> (f64, f64, f64) {
    let hue = (job as f64 * 137.508) % 360.0;
    let light = [46.0, 60.0, 38.0][(job / 3 % 3) as usize];
    (hue, 62.0, light)
}

/// The pattern drawn over a job's GPUs, so that colour is not the only cue: none, a
/// diagonal stroke, a dot, or a bar, by job number.
pub fn job_pattern(job: u32) -> u8 {
    (job % 4) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eventlog::{base64_encode, PlaybackLog, Recorder, Shared};
    use proxima_core::engine::Simulation;
    use proxima_core::policy::resolve_policy;
    use proxima_core::topology::resolve_topology_arg;
    use proxima_core::trace::synthetic;
    use proxima_core::workload::{build_scenario, ModelMix, WorkloadOptions};
    use std::cell::RefCell;

    /// A run's playback and, for checking, the engine's own state at some instants.
    fn playback(
        topology: &str,
        jobs: u32,
        load: f64,
        policy: &str,
        probes: &[u64],
    ) -> (Playback, Vec<(u64, Vec<u32>, usize)>) {
        let topo = resolve_topology_arg(topology).unwrap();
        let trace = synthetic::generate(
            &synthetic::parse(&format!("synthetic:jobs={jobs},load={load},seed=5")).unwrap(),
            topo.gpu_count(),
        );
        let catalog = proxima_core::model::Catalog::built_in();
        let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
        let scenario = build_scenario(topo.clone(), &trace, &options, "t").unwrap();
        playback_of(scenario, policy, probes)
    }

    /// The introduction's trace, where a sensitive job waits for a server every episode.
    fn intro_playback(policy: &str) -> Playback {
        let scenario = crate::runner::build_request_scenario(&crate::intro::request(1)).unwrap();
        playback_of(scenario, policy, &[]).0
    }

    fn playback_of(
        scenario: proxima_core::engine::Scenario,
        policy: &str,
        probes: &[u64],
    ) -> (Playback, Vec<(u64, Vec<u32>, usize)>) {
        let topo = scenario.topology.clone();
        let mut sim = Simulation::new(scenario, resolve_policy(policy).unwrap());
        let rec = Rc::new(RefCell::new(Recorder::default()));
        sim.add_observer(Box::new(Shared(rec.clone())));
        // The engine's view at each probe: owner per GPU and queue length.
        let mut truth = Vec::new();
        for &p in probes {
            sim.step_until(proxima_core::SimTime(p));
            let mut owner = vec![NO_JOB; topo.gpu_count() as usize];
            let mut queued = 0;
            for (j, r) in sim.runs().iter().enumerate() {
                for g in &r.gpus {
                    owner[g.0 as usize] = j as u32;
                }
                if r.status == proxima_core::engine::JobStatus::Queued {
                    queued += 1;
                }
            }
            truth.push((p, owner, queued));
        }
        sim.run();
        let bytes = rec.borrow().finish(&sim, sim.now());
        let log = PlaybackLog::from_base64(&base64_encode(&bytes)).unwrap();
        (Playback::new(log, Rc::new(topo)).unwrap(), truth)
    }

    #[test]
    fn state_at_matches_the_engine_at_every_probe() {
        let probes: Vec<u64> = (1..40).map(|k| k * 3_000_000_000).collect();
        let (pb, truth) = playback("teaching", 400, 1.3, "dally", &probes);
        assert!(pb.log.events.len() > 1024, "enough events for several checkpoints: {}", pb.log.events.len());
        for (t, owner, queued) in &truth {
            let f = pb.state_at(*t);
            assert_eq!(&f.gpu_owner, owner, "GPUs at {t}");
            assert_eq!(f.queue.len(), *queued, "queue at {t}");
            // Every running job holds exactly its GPUs.
            for (&job, r) in &f.running {
                for g in pb.placed_gpus(r.placed) {
                    assert_eq!(f.gpu_owner[g.0 as usize], job);
                }
            }
        }
    }

    #[test]
    fn advancing_and_scrubbing_give_the_same_frames() {
        let (pb, _) = playback("teaching", 300, 1.2, "dally", &[]);
        let end = pb.end_us();
        let mut f = pb.state_at(0);
        let step = end / 97;
        let mut t = 0;
        while t < end {
            t = (t + step).min(end);
            f = pb.advance(&f, t);
            assert_eq!(f, pb.state_at(t), "at {t}");
        }
        // Backwards too.
        let back = pb.advance(&f, end / 3);
        assert_eq!(back, pb.state_at(end / 3));
        // At the end nothing runs or waits and everything arrived completed.
        let last = pb.state_at(end);
        assert!(last.running.is_empty() && last.queue.is_empty());
        assert_eq!(last.completed + last.rejected, 300);
        assert!(last.link_load.iter().all(|&l| l == 0), "every ring released its links");
    }

    #[test]
    fn countdowns_run_down_and_reasons_count_down_with_them() {
        let pb = intro_playback("dally");
        // Find a job that waits with a timer.
        let (i, job, left) = pb
            .log
            .events
            .iter()
            .enumerate()
            .find_map(|(i, e)| match e {
                SimEvent::Waiting { job, reason: Reason::WaitingForTier { left_s, .. } } if *left_s > 10.0 => {
                    Some((i, job.0, *left_s))
                }
                _ => None,
            })
            .expect("a job waits for a tighter tier");
        let t0 = pb.log.times[i];
        let f = pb.state_at(t0);
        let c = pb.countdowns(&f).into_iter().find(|c| c.job == job).expect("its timer runs");
        assert!((c.left_s - left).abs() < 1e-3 && (c.total_s - left).abs() < 1e-3);
        let later = pb.state_at(t0 + 5_000_000);
        let c5 = pb.countdowns(&later).into_iter().find(|c| c.job == job).expect("still waiting 5 s later");
        assert!((c5.left_s - (left - 5.0)).abs() < 1e-3, "{c5:?}");
        assert_eq!(c5.total_s, c.total_s);
        match pb.job_now(&later, job) {
            JobNow::Queued { reason: Some(r @ Reason::WaitingForTier { left_s, .. }), .. } => {
                assert!((left_s - (left - 5.0)).abs() < 1e-3);
                assert!(
                    r.describe(&pb.topo)
                        .starts_with("waiting for a server-local placement, timer 295 s left; best now: cluster"),
                    "{}",
                    r.describe(&pb.topo)
                );
            }
            other => panic!("{other:?}"),
        }
        // When the server frees at 120 s the job is placed and its timer is gone.
        let placed = pb.state_at(crate::intro::SHORT_JOB_S as u64 * 1_000_000);
        assert!(pb.countdowns(&placed).is_empty());
        assert!(matches!(pb.job_now(&placed, job), JobNow::Running { tier: Tier(0), .. }));
        let text = pb.topo.tier_name(c.wanted).to_string();
        assert_eq!(text, "server");
    }

    #[test]
    fn jobs_are_followed_from_submission_to_completion() {
        let (pb, _) = playback("teaching", 100, 0.8, "consolidate", &[]);
        let history = pb.job_history(7);
        assert!(history.len() >= 3);
        let submit = pb.log.times[history[0] as usize];
        assert_eq!(pb.job_now(&pb.state_at(submit.saturating_sub(1)), 7), JobNow::NotSubmitted);
        let done = pb.log.times[*history.last().unwrap() as usize];
        assert_eq!(pb.job_now(&pb.state_at(done), 7), JobNow::Completed { at_us: done });
        let placed = history.iter().find(|&&i| matches!(pb.log.events[i as usize], SimEvent::Placed { .. })).unwrap();
        match pb.job_now(&pb.state_at(pb.log.times[*placed as usize]), 7) {
            JobNow::Running { gpus, .. } => assert_eq!(gpus.len() as u32, pb.log.jobs[7].gpus),
            other => panic!("{other:?}"),
        }
        assert!(pb.job_history(100_000).is_empty());
    }

    #[test]
    fn preemptions_and_timer_changes_are_marked() {
        let (pb, _) = playback("teaching", 600, 1.5, "dally", &[]);
        let end = pb.state_at(pb.end_us());
        let marked = pb.marks.iter().filter(|m| m.kind == MarkKind::Preempted).count() as u32;
        assert_eq!(marked, end.preemptions);
        let steps = pb.timer_steps();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0][0], (0.0, 300.0));
        let changes = pb.marks.iter().filter(|m| m.kind == MarkKind::TimerChanged).count();
        assert_eq!(steps.iter().map(|s| s.len() - 2).sum::<usize>(), changes);
        assert_eq!(end.timers, steps.iter().map(|s| s.last().unwrap().1).collect::<Vec<_>>());
        let recent = pb.recent_marks(&end, 3);
        assert!(recent.len() <= 3 && recent.windows(2).all(|w| w[0].time_us >= w[1].time_us));
    }

    #[test]
    fn the_player_plays_steps_seeks_and_stops_at_the_end() {
        let (pb, _) = playback("teaching", 60, 0.8, "dally", &[]);
        let pb = Rc::new(pb);
        let p = Player::new(pb.clone(), 0.0, None);
        assert!(!p.playing && p.time_s() == 0.0);
        assert!(p.speed * 120.0 >= p.end_s(), "the default speed plays the run in two minutes");
        let p = p.apply(PlayerAction::Tick(16.0));
        assert_eq!(p.time_s(), 0.0, "paused: ticks do nothing");
        let p =
            p.apply(PlayerAction::TogglePlay).apply(PlayerAction::SetSpeed(1000.0)).apply(PlayerAction::Tick(100.0));
        assert_eq!(p.frame.time_us, 100_000_000);
        // A long pause in ticks (a hidden tab) moves at most 250 ms worth.
        let p = p.apply(PlayerAction::Tick(10_000.0));
        assert_eq!(p.frame.time_us, 350_000_000);
        let p = p.apply(PlayerAction::StepNext);
        assert!(!p.playing);
        assert_eq!(Some(p.frame.time_us), pb.next_event_after(350_000_000));
        let before = p.frame.time_us;
        let p = p.apply(PlayerAction::StepBack);
        assert!(p.frame.time_us < before);
        let p = p.apply(PlayerAction::Seek(1e12));
        assert_eq!(p.frame.time_us, pb.end_us());
        let p = p.apply(PlayerAction::TogglePlay);
        assert!(p.playing && p.frame.time_us == 0, "play at the end starts over");
        let near_end = p.end_s() - 0.01;
        let p = p.apply(PlayerAction::Seek(near_end)).apply(PlayerAction::Tick(200.0));
        assert!(!p.playing, "stops at the end");
        // Selecting by GPU.
        let busy = (0..pb.log.events.len()).find_map(|i| match &pb.log.events[i] {
            SimEvent::Placed { job, gpus, .. } => Some((pb.log.times[i], job.0, gpus[0].0)),
            _ => None,
        });
        let (t, job, gpu) = busy.unwrap();
        let p = p.apply(PlayerAction::Seek(t as f64 / 1e6)).apply(PlayerAction::SelectGpu(gpu));
        assert_eq!(p.selected, Some(job));
        let free = p.frame.gpu_owner.iter().position(|&o| o == NO_JOB);
        if let Some(g) = free {
            assert_eq!(p.apply(PlayerAction::SelectGpu(g as u32)).selected, None);
        }
    }

    #[test]
    fn the_grid_holds_every_gpu_and_finds_it_again() {
        for (name, cell) in [("teaching", 34.0), ("n32g4", 14.0), ("oversub-2048", 7.0)] {
            let topo = resolve_topology_arg(name).unwrap();
            let grid = Grid::new(&topo, 900.0);
            assert_eq!(grid.cell, cell);
            assert_eq!(grid.gpus.len() as u32, topo.gpu_count());
            assert!(grid.width <= 900.0 + 1.0, "{name}: {} wide", grid.width);
            for (g, r) in grid.gpus.iter().enumerate() {
                assert!(r.w > 0.0, "{name}: GPU {g} placed");
                let (x, y) = r.centre();
                assert_eq!(grid.gpu_at(x, y), Some(g as u32), "{name}: GPU {g}");
            }
            // Cells do not overlap.
            let mut cells: Vec<&Rect> = grid.gpus.iter().collect();
            cells.sort_by(|a, b| (a.y, a.x).partial_cmp(&(b.y, b.x)).unwrap());
            for w in cells.windows(2) {
                assert!(w[0].y != w[1].y || w[0].x + w[0].w <= w[1].x, "{name}: overlap");
            }
        }
        let topo = resolve_topology_arg("teaching").unwrap();
        let grid = Grid::new(&topo, 900.0);
        assert_eq!(grid.groups.len(), 2);
        assert_eq!(grid.server_centres(&[GpuId(0), GpuId(1)]).len(), 1);
        assert_eq!(
            grid.server_centres(&[GpuId(0), GpuId(4), GpuId(8), GpuId(12)]).len(),
            4,
            "a scattered job has a centre per server"
        );
    }
}
