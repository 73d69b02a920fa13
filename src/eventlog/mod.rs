//! The event log a run sends to the page for playback, in a compact binary encoding, and
//! the hash of the run's whole event stream.
//!
//! Runs can have hundreds of thousands of events, and JSON lines of them take about 90
//! bytes each (a 200,000-job run writes 63 MB with `proxima run --events`). Playback needs
//! less: not the rate changes (the page derives link sharing from the placements), and
//! floats only to display precision. So the worker records each event as a kind byte, the
//! time since the previous event and the job as LEB128 varints, GPUs as runs of
//! consecutive ids, and the reason's numbers as `f32`: about 13 bytes per event (the first
//! 250,000 events of a 200,000-job run take 3.3 MB). The bytes cross to the page as a
//! `Uint8Array` whose memory is transferred with the message, not copied. Past
//! [`MAX_PLAYBACK_EVENTS`] the recorder
//! stops (playback then covers a prefix of the run, which the page says), so a huge run
//! never makes a huge message.
//!
//! The hash is the core's [`EventHasher`] over every event, rate changes included: the
//! same number `proxima run --events` prints, so the page and the CLI can be compared.

mod codec;
#[cfg(test)]
mod tests;

use crate::codec::{put_f32, put_f64, put_str, put_u64, Reader};
use codec::{put_evidence, put_gpus, put_reason, read_evidence};
use proxima_core::engine::Simulation;
use proxima_core::event::{EventHasher, Observer, PolicyNote, SimEvent};
use proxima_core::metrics::per_tenant::tenant_count;
use proxima_core::tenants::TenantId;
use proxima_core::time::SimTime;
use proxima_core::topology::Tier;
use proxima_core::JobId;

/// The most events a playback log holds: about 3.3 MB. A run this long
/// takes minutes to watch even at the fastest speed, and the page keeps it in memory with
/// its index.
pub const MAX_PLAYBACK_EVENTS: usize = 250_000;

/// The encoding's version, the first byte of every log (2 added each job's tenant, 3 the
/// tuner's evidence as numbers).
const VERSION: u8 = 3;

/// The hash of a run's events as text: 16 lowercase hex digits, as the CLI prints it.
pub fn hash_hex(hasher: &EventHasher) -> String {
    format!("{:016x}", hasher.hash())
}

/// Records the events playback needs, encoded, up to a cap.
#[derive(Debug)]
pub struct Recorder {
    bytes: Vec<u8>,
    last_us: u64,
    recorded: usize,
    cap: usize,
    /// The time of the first event left out, once the cap is reached.
    cut_at_us: Option<u64>,
    /// One more than the highest job id recorded.
    jobs_seen: u32,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::with_cap(MAX_PLAYBACK_EVENTS)
    }
}

impl Recorder {
    pub fn with_cap(cap: usize) -> Recorder {
        Recorder { bytes: Vec::new(), last_us: 0, recorded: 0, cap, cut_at_us: None, jobs_seen: 0 }
    }

    /// The whole log, with the facts about the run playback needs besides its events: the
    /// jobs seen (GPUs, model, tenant, ideal run time), the initial delay timers, the run's
    /// end.
    pub fn finish(&self, sim: &Simulation, end: SimTime) -> Vec<u8> {
        let scenario = sim.scenario();
        let mut out = Vec::with_capacity(self.bytes.len() + 64 + self.jobs_seen as usize * 8);
        out.push(VERSION);
        put_u64(&mut out, end.0);
        match self.cut_at_us {
            Some(t) => {
                out.push(1);
                put_u64(&mut out, t);
            }
            None => out.push(0),
        }
        let timers = sim.policy_delay_timers();
        put_u64(&mut out, timers.len() as u64);
        for t in timers {
            put_f64(&mut out, t);
        }
        // The models by the catalogue's index, so jobs refer to them by number.
        let models: Vec<&str> = scenario.catalog.models().map(|(_, m)| m.name.as_str()).collect();
        put_u64(&mut out, models.len() as u64);
        for m in models {
            put_str(&mut out, m);
        }
        // The tenants by id, as the summary lists them (so a tenant's number here is its
        // place in `summary.json`'s `tenants`, and its colour the per-tenant table's).
        let tenants = tenant_count(scenario);
        put_u64(&mut out, tenants as u64);
        for id in 0..tenants {
            put_str(&mut out, scenario.tenants.name(TenantId(id as u32)));
        }
        put_u64(&mut out, self.jobs_seen as u64);
        for j in &scenario.jobs[..self.jobs_seen as usize] {
            put_u64(&mut out, j.gpus as u64);
            put_u64(&mut out, j.model.0 as u64);
            put_u64(&mut out, j.tenant.0 as u64);
            put_f32(&mut out, j.ideal_run_s().map(|s| s as f32).unwrap_or(f32::NAN));
        }
        put_u64(&mut out, self.recorded as u64);
        out.extend_from_slice(&self.bytes);
        out
    }

    fn encode(&mut self, now: SimTime, event: &SimEvent) {
        let (kind, job) = match event {
            SimEvent::Arrived { job } => (0u8, *job),
            SimEvent::Rejected { job, .. } => (1, *job),
            SimEvent::Placed { job, .. } => (2, *job),
            SimEvent::Waiting { job, .. } => (3, *job),
            SimEvent::Preempted { job, .. } => (4, *job),
            SimEvent::Completed { job } => (5, *job),
            SimEvent::Policy { .. } => (6, JobId(0)),
            // Playback recomputes link sharing from the placements.
            SimEvent::RateChanged { .. } => return,
        };
        if self.recorded >= self.cap {
            self.cut_at_us.get_or_insert(now.0);
            return;
        }
        let b = &mut self.bytes;
        b.push(kind);
        put_u64(b, now.0 - self.last_us);
        self.last_us = now.0;
        if kind != 6 {
            put_u64(b, job.0 as u64);
            self.jobs_seen = self.jobs_seen.max(job.0 + 1);
        }
        match event {
            SimEvent::Rejected { gpus, cluster_gpus, .. } => {
                put_u64(b, *gpus as u64);
                put_u64(b, *cluster_gpus as u64);
            }
            SimEvent::Placed { gpus, tier, iter_s, reason, .. } => {
                b.push(tier.0);
                put_f32(b, *iter_s as f32);
                put_gpus(b, gpus);
                put_reason(b, reason);
            }
            SimEvent::Waiting { reason, .. } => put_reason(b, reason),
            SimEvent::Preempted { done_iterations, reason, .. } => {
                put_f32(b, *done_iterations as f32);
                put_reason(b, reason);
            }
            SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, why } } => {
                b.push(tier.0);
                put_f64(b, *old_s);
                put_f64(b, *new_s);
                put_evidence(b, why);
            }
            _ => {}
        }
        self.recorded += 1;
    }
}

impl Observer for Recorder {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.encode(now, event);
    }
}

/// Facts about one job that playback shows.
#[derive(Clone, Debug, PartialEq)]
pub struct JobFacts {
    pub gpus: u32,
    /// Index into [`PlaybackLog::models`].
    pub model: u16,
    /// Index into [`PlaybackLog::tenants`].
    pub tenant: u32,
    /// Run time at the tightest placement without contention; NaN for a rejected job.
    pub ideal_s: f64,
}

/// A decoded log: what playback animates.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaybackLog {
    /// When the run ended (its last event).
    pub end_us: u64,
    /// `Some(t)` if the recorder stopped at its cap: events from `t` on are missing.
    pub cut_at_us: Option<u64>,
    pub initial_timers: Vec<f64>,
    pub models: Vec<String>,
    /// The run's tenants in id order: the order of `summary.json`'s `tenants`.
    pub tenants: Vec<String>,
    pub jobs: Vec<JobFacts>,
    /// Event times, in microseconds, non-decreasing.
    pub times: Vec<u64>,
    /// The events, without rate changes; floats at `f32` precision.
    pub events: Vec<SimEvent>,
}

impl PlaybackLog {
    /// Decodes a log made by [`Recorder::finish`]; an error says what is wrong with it.
    pub fn decode(bytes: &[u8]) -> Result<PlaybackLog, String> {
        let mut r = Reader::new(bytes);
        let version = r.u8()?;
        if version != VERSION {
            return Err(format!("playback log version {version}, expected {VERSION}"));
        }
        let end_us = r.u64()?;
        let cut_at_us = if r.u8()? == 1 { Some(r.u64()?) } else { None };
        let n = r.len(1 << 8)?;
        let initial_timers = (0..n).map(|_| r.f64()).collect::<Result<_, _>>()?;
        let n = r.len(1 << 12)?;
        let models: Vec<String> = (0..n).map(|_| r.str()).collect::<Result<_, _>>()?;
        let n = r.len(bytes.len())?;
        let tenants: Vec<String> = (0..n).map(|_| r.str()).collect::<Result<_, _>>()?;
        let n = r.len(bytes.len())?;
        let mut jobs = Vec::with_capacity(n);
        for _ in 0..n {
            let gpus = r.u32()?;
            let model = u16::try_from(r.u64()?).ok().filter(|&m| (m as usize) < models.len());
            let model = model.ok_or("model index out of range")?;
            let tenant = r.u32()?;
            if tenant as usize >= tenants.len() {
                return Err(format!("tenant {tenant} of {}", tenants.len()));
            }
            let ideal_s = r.f32()? as f64;
            jobs.push(JobFacts { gpus, model, tenant, ideal_s });
        }
        let n = r.len(bytes.len())?;
        let mut times = Vec::with_capacity(n);
        let mut events = Vec::with_capacity(n);
        let mut now: u64 = 0;
        for _ in 0..n {
            let kind = r.u8()?;
            now = now.checked_add(r.u64()?).ok_or("time overflows")?;
            let job = if kind != 6 { JobId(r.u32()?) } else { JobId(0) };
            if kind != 6 && job.0 as usize >= jobs.len() {
                return Err(format!("event for job {} of {}", job.0, jobs.len()));
            }
            let event = match kind {
                0 => SimEvent::Arrived { job },
                1 => SimEvent::Rejected { job, gpus: r.u32()?, cluster_gpus: r.u32()? },
                2 => {
                    let tier = Tier(r.u8()?);
                    let iter_s = r.f32()? as f64;
                    let gpus = r.gpus()?;
                    SimEvent::Placed { job, gpus, tier, iter_s, reason: r.reason()? }
                }
                3 => SimEvent::Waiting { job, reason: r.reason()? },
                4 => {
                    let done_iterations = r.f32()? as f64;
                    SimEvent::Preempted { job, done_iterations, reason: r.reason()? }
                }
                5 => SimEvent::Completed { job },
                6 => {
                    let tier = Tier(r.u8()?);
                    let old_s = r.f64()?;
                    let new_s = r.f64()?;
                    let why = read_evidence(&mut r)?;
                    SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, why } }
                }
                k => return Err(format!("unknown event kind {k}")),
            };
            times.push(now);
            events.push(event);
        }
        if r.remaining() != 0 {
            return Err(format!("{} bytes left over", r.remaining()));
        }
        Ok(PlaybackLog { end_us, cut_at_us, initial_timers, models, tenants, jobs, times, events })
    }
}
