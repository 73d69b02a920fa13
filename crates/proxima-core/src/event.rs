//! What happens in a simulation, as data: the events observers receive and the reasons
//! schedulers give for their decisions.

use crate::cluster::JobId;
use crate::topology::{GpuId, Tier, Topology};
use serde::Serialize;

/// Why a scheduler placed, kept waiting or preempted a job. Reasons are data so the app can
/// render them as it likes; [`Reason::describe`] gives the plain sentence.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// Topology-oblivious: GPUs chosen without regard to where they are (the first free in
    /// index order under `fifo`, the most free servers or a random draw under the baselines
    /// that use them).
    FirstFit,
    /// The tightest placement free now; the scheduler never waits for a better one.
    TightestNow { tier: Tier },
    /// Delay scheduling: the job waits for a placement at `wanted` or tighter. Its timer for
    /// that tier has `left_s` seconds to run; the best placement free now is at `best_now`
    /// (none if it does not fit at all) and would run `slowdown` times slower than ideal.
    /// An infinite `left_s` means no time limit (`strict`).
    WaitingForTier { wanted: Tier, left_s: f64, best_now: Option<Tier>, slowdown: f64 },
    /// Delay scheduling placed the job at the tier it waited for (or tighter).
    GotWantedTier { tier: Tier, waited_s: f64 },
    /// The timers ran out and the job took the best placement free: `tier`, `slowdown`
    /// times slower than ideal.
    TimerExpired { tier: Tier, waited_s: f64, slowdown: f64 },
    /// The job is insensitive to placement (its slowdown at the widest tier is below the
    /// threshold), so it takes what is free at once.
    Insensitive { tier: Tier, slowdown: f64 },
    /// Waited `waited_s`, the starvation bound; placed wherever it fits.
    StarvationBound { tier: Tier, waited_s: f64 },
    /// Not enough free GPUs at any tier.
    NoRoom { free: u32 },
    /// Preempted so that `for_job` gets a placement at `tier`: its estimated gain `gain_s`
    /// exceeds the checkpoint/restore cost `cost_s` of the jobs preempted for it. A zero
    /// `gain_s` marks a policy that estimates no gain (a priority scheduler such as
    /// `tiresias`, or migration that only knows tighter is better); `dally` preempts only for
    /// a gain above the cost, so its gains are never zero.
    PreemptedFor { for_job: JobId, tier: Tier, gain_s: f64, cost_s: f64 },
    /// Placed on GPUs freed by preempting `victims` (zero `gain_s`: not estimated).
    PlacedByPreemption { tier: Tier, victims: Vec<JobId>, gain_s: f64 },
    /// A scattered job checkpointed to move to a tighter placement (`from` → `to`; zero
    /// `gain_s`: not estimated).
    Reconsolidating { from: Tier, to: Tier, gain_s: f64, cost_s: f64 },
    /// Moved to a tighter placement after checkpointing, or (`from == to`) moved within its
    /// tier to make room for another job.
    Reconsolidated { from: Tier, to: Tier },
    /// Checkpointed to give back GPUs its tenant borrowed: `for_job`'s tenant is within its
    /// quota and needs them (`quota=on`, [`crate::policy::mechanisms::quota`]). Pays `cost_s` to restore.
    Reclaimed { for_job: JobId, cost_s: f64 },
}

impl Reason {
    /// A placement at a tier the job was willing to wait for: [`Reason::GotWantedTier`] if it
    /// did wait, [`Reason::TightestNow`] if the tier was free when it asked.
    pub fn wanted_tier(tier: Tier, waited_s: f64) -> Reason {
        if waited_s > 0.0 {
            Reason::GotWantedTier { tier, waited_s }
        } else {
            Reason::TightestNow { tier }
        }
    }

    /// Why a priority scheduler (no gain estimated) checkpoints `job`'s GPUs for `for_job`:
    /// [`Reason::Reclaimed`] when the victim's tenant was borrowing them beyond its quota,
    /// [`Reason::PreemptedFor`] otherwise.
    pub fn preempted_for(for_job: JobId, tier: Tier, cost_s: f64, reclaimed: bool) -> Reason {
        if reclaimed {
            Reason::Reclaimed { for_job, cost_s }
        } else {
            Reason::PreemptedFor { for_job, tier, gain_s: 0.0, cost_s }
        }
    }

    /// A sentence for people, e.g. "waiting for a server-local placement, timer 42 s left;
    /// best now: cross-rack, estimated slowdown 1.8×", with durations in whole seconds.
    pub fn describe(&self, topo: &Topology) -> String {
        self.describe_with(topo, &|s| format!("{s:.0} s"))
    }

    /// [`Reason::describe`] with durations written by `seconds` (the web page writes
    /// "2.8 d" where a file keeps "241954 s").
    pub fn describe_with(&self, topo: &Topology, seconds: &dyn Fn(f64) -> String) -> String {
        let tier = |t: &Tier| topo.tier_name(*t).to_string();
        match self {
            Reason::FirstFit => "placed without regard to topology (first free, most free or random GPUs)".into(),
            Reason::TightestNow { tier: t } => format!("tightest placement free now: {}", tier(t)),
            Reason::WaitingForTier { wanted, left_s, best_now, slowdown } => {
                let best = match best_now {
                    Some(b) => format!("best now: {}, estimated slowdown {:.2}×", tier(b), slowdown),
                    None => "no placement free now".to_string(),
                };
                if left_s.is_finite() {
                    format!("waiting for a {}-local placement, timer {} left; {best}", tier(wanted), seconds(*left_s))
                } else {
                    format!("waiting for a {}-local placement, no time limit; {best}", tier(wanted))
                }
            }
            Reason::GotWantedTier { tier: t, waited_s } => {
                format!("got the {}-local placement it waited {} for", tier(t), seconds(*waited_s))
            }
            Reason::TimerExpired { tier: t, waited_s, slowdown } => format!(
                "delay timer ran out after {}; took a {} placement, estimated slowdown {:.2}×",
                seconds(*waited_s),
                tier(t),
                slowdown
            ),
            Reason::Insensitive { tier: t, slowdown } => format!(
                "insensitive to placement (at most {:.2}× slower spread out): placed at once, {}",
                slowdown,
                tier(t)
            ),
            Reason::StarvationBound { tier: t, waited_s } => {
                format!("waited {}, the starvation bound: placed where it fits, {}", seconds(*waited_s), tier(t))
            }
            Reason::NoRoom { free } => format!("not enough free GPUs ({free} free)"),
            Reason::PreemptedFor { for_job, cost_s, gain_s, .. } if *gain_s == 0.0 => {
                format!("checkpointed so that job {} can start; pays a {} restore", for_job.0, seconds(*cost_s))
            }
            Reason::PreemptedFor { for_job, tier: t, gain_s, cost_s } => format!(
                "preempted so that job {} gets a {} placement (gain {} > cost {})",
                for_job.0,
                tier(t),
                seconds(*gain_s),
                seconds(*cost_s)
            ),
            Reason::PlacedByPreemption { tier: t, victims, gain_s } if *gain_s == 0.0 => {
                format!("placed at {} after {} job(s) were checkpointed for it", tier(t), victims.len())
            }
            Reason::PlacedByPreemption { tier: t, victims, gain_s } => {
                format!("placed at {} by preempting {} job(s), estimated gain {}", tier(t), victims.len(), seconds(*gain_s))
            }
            Reason::Reconsolidating { from, to, gain_s, cost_s } if *gain_s == 0.0 => format!(
                "checkpointed to move from {} to {}, a tighter placement free now; pays a {} restore",
                tier(from),
                tier(to),
                seconds(*cost_s)
            ),
            Reason::Reconsolidating { from, to, gain_s, cost_s } => format!(
                "checkpointed to move from {} to {} (gain {} > cost {})",
                tier(from),
                tier(to),
                seconds(*gain_s),
                seconds(*cost_s)
            ),
            Reason::Reconsolidated { from, to } if from == to => {
                format!("moved to another {} placement to make room", tier(to))
            }
            Reason::Reconsolidated { from, to } => format!("re-consolidated from {} to {}", tier(from), tier(to)),
            Reason::Reclaimed { for_job, cost_s } => format!(
                "its tenant was over its quota and job {}'s tenant, within its own, needed the GPUs back; pays a {} restore",
                for_job.0, seconds(*cost_s)
            ),
        }
    }
}

/// A scheduler's note about itself, e.g. the auto-tuner moving a delay timer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PolicyNote {
    /// The delay timer of `tier` changed from `old_s` to `new_s`, on the evidence in `why`.
    TimerChanged { tier: Tier, old_s: f64, new_s: f64, why: TimerEvidence },
}

/// What the timer tuner saw when it moved a timer (`policy/mechanisms/tuner.rs`): of its recent
/// waits at the tier, how many found a placement and how fast, what a placement gained,
/// how crowded the queue is, and the cap it found best. Written out (JSON, the event log)
/// as its sentence, so that files and event hashes read the same as a plain message.
#[derive(Clone, Debug, PartialEq)]
pub struct TimerEvidence {
    pub successes: u32,
    pub samples: u32,
    /// Placements found per second of waiting.
    pub rate: f64,
    /// Mean seconds of run time a successful wait saved.
    pub gain: f64,
    pub competitors_now: u32,
    pub mean_competitors: f64,
    /// The cap, in seconds, with the best expected net gain.
    pub best_t: f64,
    /// That net gain, in seconds per waiting job.
    pub best_net: f64,
}

impl std::fmt::Display for TimerEvidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} recent waits found a placement (rate {:.5}/s of waiting), mean gain {:.0} s, {} competing now vs {:.1} on average: best cap {:.0} s (net {:.0} s per waiting job)",
            self.successes,
            self.samples,
            self.rate,
            self.gain,
            self.competitors_now,
            self.mean_competitors,
            self.best_t,
            self.best_net
        )
    }
}

impl Serialize for TimerEvidence {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Something that happened in a simulation. Observers receive every one, in order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SimEvent {
    /// The job was submitted and joined the queue.
    Arrived { job: JobId },
    /// The job asks for more GPUs than the cluster has; it never runs.
    Rejected { job: JobId, gpus: u32, cluster_gpus: u32 },
    /// The job started (or restarted) on `gpus`, at `tier`, at `iter_s` seconds per iteration.
    Placed { job: JobId, gpus: Vec<GpuId>, tier: Tier, iter_s: f64, reason: Reason },
    /// The scheduler keeps the job waiting, for `reason` (sent when the reason changes kind).
    Waiting { job: JobId, reason: Reason },
    /// The job was checkpointed and returned to the queue with its progress.
    Preempted { job: JobId, done_iterations: f64, reason: Reason },
    /// The job finished its work.
    Completed { job: JobId },
    /// Contention or placement changed the job's iteration time.
    RateChanged { job: JobId, iter_s: f64 },
    /// A note from the scheduler.
    Policy { note: PolicyNote },
}

/// Receives the events of a simulation as they happen.
pub trait Observer {
    fn observe(&mut self, now: crate::time::SimTime, event: &SimEvent);
}

/// An observer that hashes a canonical rendering of every event (FNV-1a, 64 bits): two runs
/// with the same hash saw the same events at the same times, natively or in WebAssembly.
///
/// The rendering is the line `proxima run --events` would write for the event, "TIME_US
/// EVENT_JSON" and a newline, but it is never built: the JSON serialiser writes straight
/// into the hash. Building each line as a `String` cost about as much as the simulation
/// itself on the Philly trace (two allocations and a copy per event), and the browser's
/// worker hashes every run.
#[derive(Clone, Debug)]
pub struct EventHasher {
    hash: u64,
    count: u64,
}

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

impl Default for EventHasher {
    fn default() -> Self {
        EventHasher { hash: FNV_OFFSET_BASIS, count: 0 }
    }
}

impl EventHasher {
    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    fn fold(&mut self, bytes: &[u8]) {
        let mut hash = self.hash;
        for &b in bytes {
            hash ^= b as u64;
            hash = hash.wrapping_mul(FNV_PRIME);
        }
        self.hash = hash;
    }
}

/// The serialiser's output goes into the hash. Writing to memory cannot fail, and this is
/// no IO: `std::io::Write` is only the interface `serde_json` writes through.
impl std::io::Write for EventHasher {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.fold(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Observer for EventHasher {
    fn observe(&mut self, now: crate::time::SimTime, event: &SimEvent) {
        self.fold(decimal(now.0, &mut [0; 20]));
        self.fold(b" ");
        serde_json::to_writer(&mut *self, event).expect("events serialise");
        self.fold(b"\n");
        self.count += 1;
    }
}

/// `n` in decimal, as `format!("{n}")` writes it, in `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut start = buf.len();
    loop {
        start -= 1;
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[start..];
        }
    }
}
