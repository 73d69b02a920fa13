//! What the canvas says about waiting, as data and words (pure, tested natively):
//!
//! - [`Playback::ghosts`]: each job waiting under a delay timer, drawn as a ghost over the
//!   free GPUs it declines (the tightest placement free at the frame, computed the way
//!   the core computes a waiting job's "best now": [`ClusterState::place_tightest`]),
//!   with the seconds its timer has left;
//! - [`Playback::subtitle`]: the latest decisions in words ("job 12 declines 4 GPUs
//!   across racks (1.58× slower) and waits up to 300 s for one rack");
//! - [`Playback::queue_row`]: the queue as the projector mode draws it on the canvas.
//!
//! The canvas draws from these and exposes them as data attributes, so that what the
//! end-to-end tests read is what was drawn.

use super::queries::reason_text;
use super::{Frame, Playback};
use crate::numbers::duration;
use proxima_core::cluster::{ClusterState, JobId};
use proxima_core::event::{PolicyNote, Reason, SimEvent};
use proxima_core::topology::{GpuId, Tier, Topology};

/// A waiting job's ghost: the placement it declines now and its timer.
#[derive(Clone, Debug, PartialEq)]
pub struct Ghost {
    pub job: u32,
    /// The free GPUs it would get now (the tightest placement free).
    pub gpus: Vec<GpuId>,
    /// Their tier.
    pub tier: Tier,
    /// The tier it waits for.
    pub wanted: Tier,
    /// Seconds its timer has left at the frame (infinite: no limit).
    pub left_s: f64,
    /// The estimated slowdown of the best placement when the wait was decided.
    pub slowdown: f64,
    /// When the current phase of its wait began (the `Waiting` event's time).
    pub since_us: u64,
}

/// A job in the queue row of the projector mode: its timer's seconds left, if it runs one.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueEntry {
    pub job: u32,
    pub left_s: Option<f64>,
}

/// The latest decisions in words: those of one instant (a scheduling round), in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Subtitle {
    pub text: String,
    /// When the decisions were taken.
    pub time_us: u64,
    /// The jobs they are about, in order.
    pub jobs: Vec<u32>,
}

/// At most this many decisions are told in a subtitle; the rest are counted.
const SUBTITLE_DECISIONS: usize = 2;
/// How far back (in events) a subtitle looks for a decision.
const SUBTITLE_LOOKBACK: usize = 20_000;
/// Why "Next wait" has nowhere to go from the frame's time (the button's reason).
pub const NO_WAIT_IN_RUN: &str = "no job declines free GPUs to wait in this run";
pub const NO_LATER_WAIT: &str = "no later wait in this run";

/// An instant a job waiting under a delay timer starts to decline free GPUs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decline {
    pub time_us: u64,
    /// The first job that starts to decline GPUs at that instant.
    pub job: u32,
}

/// What the subtitle says: what a waiting job declines now, and the latest decisions.
#[derive(Clone, Debug, PartialEq)]
pub struct Narration {
    /// The first ghost's job declining its GPUs, in words (and how many more do).
    pub now: Option<String>,
    /// The jobs with a ghost.
    pub ghost_jobs: Vec<u32>,
    pub last: Option<Subtitle>,
}

impl Playback {
    /// Every instant at which a job waiting under a delay timer starts to decline free
    /// GPUs: a ghost appears for it. A job often starts waiting when nothing fits, and
    /// declines GPUs only once some free up, which no event says: so this replays the log
    /// once and asks each instant with a timer running. Found on first use and kept (one
    /// pass over the log, as indexing it takes).
    pub fn declines(&self) -> &[Decline] {
        self.declines.get_or_init(|| {
            let mut frame = self.empty_frame();
            // The jobs whose latest event is a wait under a delay timer: only they can have
            // a ghost, and on most runs they are few or none.
            let mut timed = std::collections::BTreeSet::new();
            let mut before: Vec<u32> = Vec::new();
            let mut out = Vec::new();
            let n = self.log.events.len();
            let mut i = 0;
            while i < n {
                let t = self.log.times[i];
                while i < n && self.log.times[i] == t {
                    self.apply(&mut frame, i);
                    let event = &self.log.events[i];
                    if let Some(job) = super::job_of(event) {
                        match event {
                            SimEvent::Waiting { reason: Reason::WaitingForTier { .. }, .. } => timed.insert(job),
                            _ => timed.remove(&job),
                        };
                    }
                    i += 1;
                }
                let now: Vec<u32> = if self.may_have_ghost(&frame, &timed) {
                    self.ghosts(&frame).iter().map(|g| g.job).collect()
                } else {
                    Vec::new()
                };
                if let Some(&job) = now.iter().find(|j| !before.contains(j)) {
                    out.push(Decline { time_us: t, job });
                }
                before = now;
            }
            out
        })
    }

    /// Whether a ghost can be drawn at the frame: a job of `timed` (waiting under a delay
    /// timer) asks for no more GPUs than are free (a ghost is a placement free now). A
    /// cheap test, so that [`Playback::declines`] places ghosts only at the few instants
    /// where one may appear: on a loaded cluster of 2,048 GPUs, placing them at every
    /// instant with a timer running took ten times as long as indexing the log.
    fn may_have_ghost(&self, frame: &Frame, timed: &std::collections::BTreeSet<u32>) -> bool {
        if timed.is_empty() {
            return false;
        }
        let size = |job: u32| self.log.jobs.get(job as usize).map_or(u32::MAX, |j| j.gpus);
        let smallest = timed.iter().map(|&j| size(j)).min().unwrap_or(u32::MAX);
        let free = frame.gpu_owner.iter().filter(|&&o| o == super::NO_JOB).count();
        free >= smallest as usize
    }

    /// The next instant after `time_us` at which a job starts to decline free GPUs (the
    /// player's "Next wait"), or why there is none: [`NO_WAIT_IN_RUN`], [`NO_LATER_WAIT`].
    pub fn next_wait(&self, time_us: u64) -> Result<u64, &'static str> {
        let all = self.declines();
        if all.is_empty() {
            return Err(NO_WAIT_IN_RUN);
        }
        let i = all.partition_point(|d| d.time_us <= time_us);
        all.get(i).map(|d| d.time_us).ok_or(NO_LATER_WAIT)
    }

    /// [`Playback::next_wait`] without its reason.
    pub fn next_wait_after(&self, time_us: u64) -> Option<u64> {
        self.next_wait(time_us).ok()
    }

    /// The ghosts of the jobs waiting under a delay timer at the frame, in queue order.
    /// A job whose placement would overlap a ghost already listed is left out (the queue
    /// row still shows its timer), so that ghosts never overprint one another; so is a job
    /// for which no placement is free.
    pub fn ghosts(&self, frame: &Frame) -> Vec<Ghost> {
        let countdowns = self.countdowns(frame);
        if countdowns.is_empty() {
            return Vec::new();
        }
        let topo = &self.topo;
        let mut cluster = ClusterState::new(topo);
        for (&job, r) in &frame.running {
            cluster.allocate(topo, JobId(job), self.placed_gpus(r.placed));
        }
        let mut taken = vec![false; frame.gpu_owner.len()];
        let mut out = Vec::new();
        for c in countdowns {
            let Some(w) = frame.queue.get(&c.job).and_then(|q| q.wait) else { continue };
            let slowdown = match &self.log.events[w as usize] {
                SimEvent::Waiting { reason: Reason::WaitingForTier { slowdown, .. }, .. } => *slowdown,
                _ => continue,
            };
            let Some(n) = self.log.jobs.get(c.job as usize).map(|j| j.gpus) else { continue };
            let Some((tier, gpus)) = cluster.place_tightest(topo, n) else { continue };
            if gpus.iter().any(|g| taken[g.0 as usize]) {
                continue;
            }
            for g in &gpus {
                taken[g.0 as usize] = true;
            }
            out.push(Ghost {
                job: c.job,
                gpus,
                tier,
                wanted: c.wanted,
                left_s: c.left_s,
                slowdown,
                since_us: self.log.times[w as usize],
            });
        }
        out
    }

    /// The queue at the frame, in submission order, each job with its timer if it runs one.
    pub fn queue_row(&self, frame: &Frame) -> Vec<QueueEntry> {
        let countdowns = self.countdowns(frame);
        frame
            .queue
            .keys()
            .map(|&job| QueueEntry { job, left_s: countdowns.iter().find(|c| c.job == job).map(|c| c.left_s) })
            .collect()
    }

    /// What the subtitle says at the frame.
    pub fn narration(&self, frame: &Frame) -> Narration {
        let ghosts = self.ghosts(frame);
        let now = ghosts.first().map(|g| {
            let more = match ghosts.len() - 1 {
                0 => String::new(),
                1 => " (another waiting job declines GPUs too)".into(),
                k => format!(" ({k} more waiting jobs decline GPUs too)"),
            };
            format!("{}{more}", self.ghost_sentence(g))
        });
        Narration { now, ghost_jobs: ghosts.iter().map(|g| g.job).collect(), last: self.subtitle(frame) }
    }

    /// A ghost in words: "job 12 declines 4 GPUs across racks (1.58× slower) and waits up
    /// to 110 s more for one rack" (the slowdown where the wait's event estimated it for
    /// the placement the ghost shows).
    pub fn ghost_sentence(&self, g: &Ghost) -> String {
        let topo = &self.topo;
        let n = g.gpus.len() as u32;
        let estimated = self.job_history(g.job).iter().rev().find_map(|&i| match &self.log.events[i as usize] {
            SimEvent::Waiting { reason: Reason::WaitingForTier { best_now, .. }, .. }
                if self.log.times[i as usize] == g.since_us =>
            {
                Some(*best_now)
            }
            _ => None,
        });
        let slower = if estimated == Some(Some(g.tier)) && g.slowdown > 0.0 {
            format!(" ({:.2}× slower)", g.slowdown)
        } else {
            String::new()
        };
        let wait = if g.left_s.is_finite() {
            format!("waits up to {} more", seconds(g.left_s))
        } else {
            "waits, with no time limit,".into()
        };
        format!(
            "job {} declines {n} free GPU{} {}{slower} and {wait} for one {}",
            g.job,
            plural(n),
            spread(topo, g.tier),
            topo.tier_name(g.wanted)
        )
    }

    /// The latest decisions at or before the frame's time: every decision of the last
    /// instant that had one, the first [`SUBTITLE_DECISIONS`] told and the rest counted.
    pub fn subtitle(&self, frame: &Frame) -> Option<Subtitle> {
        let applied = frame.applied.min(self.log.events.len());
        let floor = applied.saturating_sub(SUBTITLE_LOOKBACK);
        let last = (floor..applied).rev().find(|&i| self.decision_sentence(i as u32).is_some())?;
        let time_us = self.log.times[last];
        let mut first = last;
        while first > 0 && self.log.times[first - 1] == time_us {
            first -= 1;
        }
        let mut sentences = Vec::new();
        let mut jobs = Vec::new();
        for i in first..=last {
            if let Some(s) = self.decision_sentence(i as u32) {
                sentences.push(s);
                if let Some(j) = super::job_of(&self.log.events[i]) {
                    jobs.push(j);
                }
            }
        }
        let more = sentences.len().saturating_sub(SUBTITLE_DECISIONS);
        sentences.truncate(SUBTITLE_DECISIONS);
        let mut text = sentences.join("; ");
        if more > 0 {
            text.push_str(&format!("; and {more} more decision{}", if more == 1 { "" } else { "s" }));
        }
        Some(Subtitle { text, time_us, jobs })
    }

    /// A scheduler's decision in words, `None` for an event that is no decision (an
    /// arrival, a completion, a change of speed).
    pub fn decision_sentence(&self, event: u32) -> Option<String> {
        let topo = &self.topo;
        let gpus_of = |job: u32| self.log.jobs.get(job as usize).map_or(0, |j| j.gpus);
        Some(match &self.log.events[event as usize] {
            SimEvent::Arrived { .. } | SimEvent::Completed { .. } | SimEvent::RateChanged { .. } => return None,
            SimEvent::Waiting { job, reason } => {
                let (j, n) = (job.0, gpus_of(job.0));
                match reason {
                    Reason::WaitingForTier { wanted, left_s, best_now: Some(best), slowdown } => format!(
                        "job {j} declines {n} GPU{} {} ({slowdown:.2}× slower) and waits {} for one {}",
                        plural(n),
                        spread(topo, *best),
                        up_to(*left_s),
                        topo.tier_name(*wanted)
                    ),
                    Reason::WaitingForTier { wanted, left_s, best_now: None, .. } => format!(
                        "job {j} waits for {n} GPU{} in one {}, {}: fewer are free",
                        plural(n),
                        topo.tier_name(*wanted),
                        up_to(*left_s)
                    ),
                    Reason::NoRoom { free } => {
                        format!("job {j} waits: it needs {n} GPU{}, {free} free", plural(n))
                    }
                    other => format!("job {j} waits: {}", reason_text(other, topo)),
                }
            }
            SimEvent::Placed { job, gpus, tier, reason, .. } => {
                let (j, n) = (job.0, gpus.len() as u32);
                match reason {
                    Reason::TimerExpired { tier, waited_s, slowdown } => format!(
                        "job {j}'s timer ran out after {}: placed {} ({slowdown:.2}× slower)",
                        seconds(*waited_s),
                        spread(topo, *tier)
                    ),
                    Reason::GotWantedTier { tier, waited_s } => format!(
                        "job {j} got its {n} GPU{} {} after waiting {}",
                        plural(n),
                        spread(topo, *tier),
                        seconds(*waited_s)
                    ),
                    Reason::Insensitive { tier, slowdown } => format!(
                        "job {j} placed at once on {n} GPU{} {}: insensitive to placement (at most {slowdown:.2}× slower spread out)",
                        plural(n),
                        spread(topo, *tier)
                    ),
                    Reason::TightestNow { tier } => {
                        format!("job {j} placed at once on {n} GPU{} {}", plural(n), spread(topo, *tier))
                    }
                    other => format!(
                        "job {j} placed on {n} GPU{} {}: {}",
                        plural(n),
                        spread(topo, *tier),
                        reason_text(other, topo)
                    ),
                }
            }
            SimEvent::Preempted { job, reason, .. } => match reason {
                Reason::PreemptedFor { for_job, gain_s, cost_s, .. } if *gain_s > 0.0 => format!(
                    "job {} preempted for job {} (gain {} > cost {})",
                    job.0,
                    for_job.0,
                    seconds(*gain_s),
                    seconds(*cost_s)
                ),
                Reason::PreemptedFor { for_job, .. } => format!("job {} preempted for job {}", job.0, for_job.0),
                other => format!("job {} {}", job.0, reason_text(other, topo)),
            },
            SimEvent::Rejected { job, gpus, cluster_gpus } => {
                format!("job {} rejected: it asks for {gpus} GPUs, the cluster has {cluster_gpus}", job.0)
            }
            SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, .. } } => {
                format!("the {} timer moves from {} to {}", topo.tier_name(*tier), seconds(*old_s), seconds(*new_s))
            }
        })
    }
}

/// Where a placement at `tier` lies: "in one server", "across servers in one rack",
/// "across racks" (the widest tier).
pub fn spread(topo: &Topology, tier: Tier) -> String {
    if tier.0 == 0 {
        format!("in one {}", topo.tier_name(tier))
    } else {
        let below = topo.tier_name(Tier(tier.0 - 1));
        if tier == topo.top_tier() {
            format!("across {below}s")
        } else {
            format!("across {below}s in one {}", topo.tier_name(tier))
        }
    }
}

/// Seconds as a countdown reads them: whole seconds up to 999, then minutes or more.
pub fn seconds(s: f64) -> String {
    if !s.is_finite() {
        "no limit".into()
    } else if s < 999.5 {
        format!("{:.0} s", s.max(0.0).ceil())
    } else {
        duration(s)
    }
}

fn up_to(left_s: f64) -> String {
    if left_s.is_finite() {
        format!("up to {}", seconds(left_s))
    } else {
        "with no time limit".into()
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The ghosts as a data attribute: `job:12,left:183.0,at:1234.567890,gpus:4` per ghost,
/// separated by `;` (`left:inf` for no limit; `at` is when the wait's phase began, in
/// seconds).
pub fn ghosts_attr(ghosts: &[Ghost]) -> String {
    ghosts
        .iter()
        .map(|g| {
            format!(
                "job:{},left:{},at:{:.6},gpus:{}",
                g.job,
                if g.left_s.is_finite() { format!("{:.1}", g.left_s) } else { "inf".into() },
                g.since_us as f64 / 1e6,
                g.gpus.len()
            )
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// The queue row as a data attribute: `12:183.0` per job with a timer, `12` without,
/// separated by `;`.
pub fn queue_attr(row: &[QueueEntry]) -> String {
    row.iter()
        .map(|q| match q.left_s {
            Some(l) if l.is_finite() => format!("{}:{l:.1}", q.job),
            Some(_) => format!("{}:inf", q.job),
            None => q.job.to_string(),
        })
        .collect::<Vec<_>>()
        .join(";")
}
