//! What the views ask of a frame: the next and previous events, the delay timers
//! running, what a job is doing and why, the marks on the time line, sentences about
//! events, and how each job is drawn.

use super::colours::{job_look, ColourBy, Look};
use super::{Countdown, Frame, JobNow, Mark, MarkKind, Playback};
use crate::numbers::duration;
use proxima_core::event::{PolicyNote, Reason, SimEvent, TimerEvidence};
use proxima_core::topology::Topology;

/// A moment worth opening playback at: a job kept waiting by a delay timer, or preempted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moment {
    pub time_us: u64,
    pub job: u32,
    /// `waiting` or `preempted` (the page's `data-moment`).
    pub kind: &'static str,
}

impl Playback {
    /// Where the first screen's comparison opens dally's playback: the first delay
    /// decision, a job declining free GPUs to wait for a tighter placement (its ghost,
    /// countdown and subtitle show it); in a run without one, the first delay-timer wait or
    /// preemption, whichever comes first (the moments its placement differs).
    pub fn first_moment(&self) -> Option<Moment> {
        if let Some(d) = self.declines().first() {
            return Some(Moment { time_us: d.time_us, job: d.job, kind: "waiting" });
        }
        self.log.events.iter().zip(&self.log.times).find_map(|(e, &time_us)| match e {
            SimEvent::Waiting { job, reason: Reason::WaitingForTier { .. } } => {
                Some(Moment { time_us, job: job.0, kind: "waiting" })
            }
            SimEvent::Preempted { job, reason: Reason::PreemptedFor { .. }, .. } => {
                Some(Moment { time_us, job: job.0, kind: "preempted" })
            }
            _ => None,
        })
    }

    /// The run's preemptions, in order, for the what-if "had it not been preempted"
    /// (`crate::what_if`).
    pub fn preemptions(&self) -> Vec<crate::what_if::Preemption> {
        let for_job = |r: &Reason| match r {
            Reason::PreemptedFor { for_job, .. } | Reason::Reclaimed { for_job, .. } => Some(for_job.0),
            _ => None,
        };
        (self.log.events.iter().zip(&self.log.times))
            .filter_map(|(e, &at_us)| match e {
                SimEvent::Preempted { job, reason, .. } => {
                    Some(crate::what_if::Preemption { job: job.0, at_us, for_job: for_job(reason) })
                }
                _ => None,
            })
            .collect()
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
                    reason_text(reason, topo)
                )
            }
            SimEvent::Waiting { job, reason } => format!("job {} {}", job.0, reason_text(reason, topo)),
            SimEvent::Preempted { job, reason, .. } => format!("job {} {}", job.0, reason_text(reason, topo)),
            SimEvent::Completed { job } => format!("job {} completed", job.0),
            SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, why } } => {
                format!("{} timer {} s → {} s: {}", topo.tier_name(*tier), round(*old_s), round(*new_s), evidence(why))
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

    /// The index of a job's tenant in [`crate::eventlog::PlaybackLog::tenants`] (0 for a
    /// job the log does not know).
    pub fn tenant_of(&self, job: u32) -> u32 {
        self.log.jobs.get(job as usize).map_or(0, |j| j.tenant)
    }

    /// The name of a job's tenant.
    pub fn tenant_name(&self, job: u32) -> &str {
        self.log.tenants.get(self.tenant_of(job) as usize).map_or("?", String::as_str)
    }

    /// How a job is drawn when jobs are coloured `by` job or tenant.
    pub fn look(&self, job: u32, by: ColourBy) -> Look {
        job_look(job, self.tenant_of(job), by)
    }

    /// The tenants with jobs in the log, by index: what a tenant legend lists.
    pub fn tenants_shown(&self) -> Vec<u32> {
        (0..self.tenant_jobs.len() as u32).filter(|&t| self.tenant_jobs[t as usize] > 0).collect()
    }
}

/// A scheduler's reason in words, its durations as people read them ("gain 2.8 d", not
/// "gain 241954 s"; files keep the seconds).
pub fn reason_text(reason: &Reason, topo: &Topology) -> String {
    reason.describe_with(topo, &duration)
}

fn round(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The tuner's evidence in words, with durations as people read them.
pub fn evidence(e: &TimerEvidence) -> String {
    let gain = if e.successes > 0 {
        format!(", and a wait that did saved {} of run time on average", duration(e.gain))
    } else {
        String::new()
    };
    format!(
        "{} of the last {} waits found a placement{gain}; {} jobs compete now ({:.1} on average), so a cap of {} pays best ({} net per waiting job)",
        e.successes,
        e.samples,
        e.competitors_now,
        e.mean_competitors,
        duration(e.best_t),
        duration(e.best_net.max(0.0))
    )
}
