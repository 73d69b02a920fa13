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

use proxima_core::engine::Simulation;
use proxima_core::event::{EventHasher, Observer, PolicyNote, Reason, SimEvent};
use proxima_core::time::SimTime;
use proxima_core::topology::{GpuId, Tier, MAX_GPUS};
use proxima_core::JobId;
use std::cell::RefCell;
use std::rc::Rc;

/// The most events a playback log holds: about 3.3 MB. A run this long
/// takes minutes to watch even at the fastest speed, and the page keeps it in memory with
/// its index.
pub const MAX_PLAYBACK_EVENTS: usize = 250_000;

/// The encoding's version, the first byte of every log.
const VERSION: u8 = 1;

/// An observer shared with its owner, who reads it after the run (the engine keeps its
/// observers boxed).
pub struct SharedObserver<T>(pub Rc<RefCell<T>>);

impl<T: Observer> Observer for SharedObserver<T> {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.0.borrow_mut().observe(now, event);
    }
}

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
    /// jobs seen (GPUs, model, ideal run time), the initial delay timers, the run's end.
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
        let timers = initial_timers(&sim.policy_spec());
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
        put_u64(&mut out, self.jobs_seen as u64);
        for j in &scenario.jobs[..self.jobs_seen as usize] {
            put_u64(&mut out, j.gpus as u64);
            put_u64(&mut out, j.model.0 as u64);
            put_f32(&mut out, j.ideal_run_s().map(|s| s as f32).unwrap_or(f32::NAN));
        }
        put_u64(&mut out, self.recorded as u64);
        out.extend_from_slice(&self.bytes);
        out
    }

    pub fn recorded(&self) -> usize {
        self.recorded
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
                put_str(b, why);
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

/// The delay timers a policy starts with, per tier below the top, from its spec
/// (`...,timers=300/150,...`); empty for policies without timers.
pub fn initial_timers(spec: &str) -> Vec<f64> {
    let Some(rest) = spec.split_once("timers=").map(|(_, r)| r) else { return Vec::new() };
    let text = rest.split(',').next().unwrap_or("");
    text.split('/').filter_map(|t| t.parse::<f64>().ok()).collect()
}

/// Facts about one job that playback shows.
#[derive(Clone, Debug, PartialEq)]
pub struct JobFacts {
    pub gpus: u32,
    /// Index into [`PlaybackLog::models`].
    pub model: u16,
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
    pub jobs: Vec<JobFacts>,
    /// Event times, in microseconds, non-decreasing.
    pub times: Vec<u64>,
    /// The events, without rate changes; floats at `f32` precision.
    pub events: Vec<SimEvent>,
}

impl PlaybackLog {
    /// Decodes a log made by [`Recorder::finish`]; an error says what is wrong with it.
    pub fn decode(bytes: &[u8]) -> Result<PlaybackLog, String> {
        let mut r = Reader { bytes, at: 0 };
        let version = r.u8()?;
        if version != VERSION {
            return Err(format!("playback log version {version}, expected {VERSION}"));
        }
        let end_us = r.u64()?;
        let cut_at_us = if r.u8()? == 1 { Some(r.u64()?) } else { None };
        let n = r.len(1 << 8)?;
        let initial_timers = (0..n).map(|_| r.f64()).collect::<Result<_, _>>()?;
        let n = r.len(1 << 12)?;
        let models = (0..n).map(|_| r.str()).collect::<Result<_, _>>()?;
        let n = r.len(bytes.len())?;
        let mut jobs = Vec::with_capacity(n);
        for _ in 0..n {
            let gpus = r.u32()?;
            let model = u16::try_from(r.u64()?).map_err(|_| "model index out of range".to_string())?;
            let ideal_s = r.f32()? as f64;
            jobs.push(JobFacts { gpus, model, ideal_s });
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
                    let why = r.str()?;
                    SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, why } }
                }
                k => return Err(format!("unknown event kind {k}")),
            };
            times.push(now);
            events.push(event);
        }
        if r.at != bytes.len() {
            return Err(format!("{} bytes left over", bytes.len() - r.at));
        }
        Ok(PlaybackLog { end_us, cut_at_us, initial_timers, models, jobs, times, events })
    }
}

// -- the encoding ------------------------------------------------------------------------

fn put_u64(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push((v as u8) | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

fn put_f32(b: &mut Vec<u8>, v: f32) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_f64(b: &mut Vec<u8>, v: f64) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u64(b, s.len() as u64);
    b.extend_from_slice(s.as_bytes());
}

/// GPUs as runs of consecutive ids: the number of runs, then per run the gap from the end
/// of the previous run and the length. Placements are mostly a few runs, whatever their
/// size. The engine hands GPUs sorted; unsorted input would still round-trip (gaps are
/// zigzag-encoded).
fn put_gpus(b: &mut Vec<u8>, gpus: &[GpuId]) {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for g in gpus {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == g.0 => *len += 1,
            _ => runs.push((g.0, 1)),
        }
    }
    put_u64(b, runs.len() as u64);
    let mut prev_end: i64 = 0;
    for (start, len) in runs {
        let gap = start as i64 - prev_end;
        put_u64(b, ((gap << 1) ^ (gap >> 63)) as u64);
        put_u64(b, len as u64);
        prev_end = start as i64 + len as i64;
    }
}

fn put_tier_opt(b: &mut Vec<u8>, t: Option<Tier>) {
    b.push(t.map(|t| t.0).unwrap_or(u8::MAX));
}

fn put_reason(b: &mut Vec<u8>, reason: &Reason) {
    match reason {
        Reason::FirstFit => b.push(0),
        Reason::TightestNow { tier } => {
            b.push(1);
            b.push(tier.0);
        }
        Reason::WaitingForTier { wanted, left_s, best_now, slowdown } => {
            b.push(2);
            b.push(wanted.0);
            put_f32(b, *left_s as f32);
            put_tier_opt(b, *best_now);
            put_f32(b, *slowdown as f32);
        }
        Reason::GotWantedTier { tier, waited_s } => {
            b.push(3);
            b.push(tier.0);
            put_f32(b, *waited_s as f32);
        }
        Reason::TimerExpired { tier, waited_s, slowdown } => {
            b.push(4);
            b.push(tier.0);
            put_f32(b, *waited_s as f32);
            put_f32(b, *slowdown as f32);
        }
        Reason::Insensitive { tier, slowdown } => {
            b.push(5);
            b.push(tier.0);
            put_f32(b, *slowdown as f32);
        }
        Reason::StarvationBound { tier, waited_s } => {
            b.push(6);
            b.push(tier.0);
            put_f32(b, *waited_s as f32);
        }
        Reason::NoRoom { free } => {
            b.push(7);
            put_u64(b, *free as u64);
        }
        Reason::PreemptedFor { for_job, tier, gain_s, cost_s } => {
            b.push(8);
            put_u64(b, for_job.0 as u64);
            b.push(tier.0);
            put_f32(b, *gain_s as f32);
            put_f32(b, *cost_s as f32);
        }
        Reason::PlacedByPreemption { tier, victims, gain_s } => {
            b.push(9);
            b.push(tier.0);
            put_u64(b, victims.len() as u64);
            for v in victims {
                put_u64(b, v.0 as u64);
            }
            put_f32(b, *gain_s as f32);
        }
        Reason::Reconsolidating { from, to, gain_s, cost_s } => {
            b.push(10);
            b.push(from.0);
            b.push(to.0);
            put_f32(b, *gain_s as f32);
            put_f32(b, *cost_s as f32);
        }
        Reason::Reconsolidated { from, to } => {
            b.push(11);
            b.push(from.0);
            b.push(to.0);
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> Result<u8, String> {
        let v = *self.bytes.get(self.at).ok_or("the log ends early")?;
        self.at += 1;
        Ok(v)
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            v |= ((byte & 0x7f) as u64) << shift;
            if byte < 0x80 {
                return Ok(v);
            }
        }
        Err("a number in the log is too long".into())
    }

    fn u32(&mut self) -> Result<u32, String> {
        u32::try_from(self.u64()?).map_err(|_| "a number in the log is out of range".to_string())
    }

    /// A count that cannot exceed `max` (so a damaged log cannot ask for a huge allocation).
    fn len(&mut self, max: usize) -> Result<usize, String> {
        let n = self.u64()?;
        if n > max as u64 {
            return Err(format!("a count of {n} in the log is too large"));
        }
        Ok(n as usize)
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let slice = self.bytes.get(self.at..self.at + N).ok_or("the log ends early")?;
        self.at += N;
        Ok(slice.try_into().expect("N bytes"))
    }

    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.take::<4>()?))
    }

    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(self.take::<8>()?))
    }

    fn str(&mut self) -> Result<String, String> {
        let n = self.len(self.bytes.len())?;
        let bytes = self.bytes.get(self.at..self.at + n).ok_or("the log ends early")?;
        let s = std::str::from_utf8(bytes).map_err(|_| "text in the log is not UTF-8")?;
        self.at += n;
        Ok(s.to_string())
    }

    fn tier(&mut self) -> Result<Tier, String> {
        Ok(Tier(self.u8()?))
    }

    fn tier_opt(&mut self) -> Result<Option<Tier>, String> {
        let t = self.u8()?;
        Ok((t != u8::MAX).then_some(Tier(t)))
    }

    fn job(&mut self) -> Result<JobId, String> {
        Ok(JobId(self.u32()?))
    }

    fn gpus(&mut self) -> Result<Vec<GpuId>, String> {
        let runs = self.len(self.bytes.len())?;
        let mut gpus = Vec::new();
        let mut prev_end: i64 = 0;
        for _ in 0..runs {
            let z = self.u64()?;
            let gap = (z >> 1) as i64 ^ -((z & 1) as i64);
            let len = self.u32()?;
            let start = prev_end + gap;
            // A damaged log must not ask for more GPUs than any cluster has.
            if start < 0 || start + len as i64 > u32::MAX as i64 || gpus.len() + len as usize > MAX_GPUS as usize {
                return Err("GPU ids in the log are out of range".into());
            }
            gpus.extend((start as u32..start as u32 + len).map(GpuId));
            prev_end = start + len as i64;
        }
        Ok(gpus)
    }

    fn reason(&mut self) -> Result<Reason, String> {
        let f = |r: &mut Self| r.f32().map(|v| v as f64);
        Ok(match self.u8()? {
            0 => Reason::FirstFit,
            1 => Reason::TightestNow { tier: self.tier()? },
            2 => Reason::WaitingForTier {
                wanted: self.tier()?,
                left_s: f(self)?,
                best_now: self.tier_opt()?,
                slowdown: f(self)?,
            },
            3 => Reason::GotWantedTier { tier: self.tier()?, waited_s: f(self)? },
            4 => Reason::TimerExpired { tier: self.tier()?, waited_s: f(self)?, slowdown: f(self)? },
            5 => Reason::Insensitive { tier: self.tier()?, slowdown: f(self)? },
            6 => Reason::StarvationBound { tier: self.tier()?, waited_s: f(self)? },
            7 => Reason::NoRoom { free: self.u32()? },
            8 => Reason::PreemptedFor { for_job: self.job()?, tier: self.tier()?, gain_s: f(self)?, cost_s: f(self)? },
            9 => {
                let tier = self.tier()?;
                let n = self.len(self.bytes.len())?;
                let victims = (0..n).map(|_| self.job()).collect::<Result<_, _>>()?;
                Reason::PlacedByPreemption { tier, victims, gain_s: f(self)? }
            }
            10 => Reason::Reconsolidating { from: self.tier()?, to: self.tier()?, gain_s: f(self)?, cost_s: f(self)? },
            11 => Reason::Reconsolidated { from: self.tier()?, to: self.tier()? },
            k => return Err(format!("unknown reason kind {k}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::policy::resolve_policy;
    use proxima_core::topology::resolve_topology_arg;
    use proxima_core::trace::synthetic;
    use proxima_core::workload::{build_scenario, ModelMix, WorkloadOptions};

    /// Every event of a run, as the engine sent them.
    #[derive(Default)]
    struct Everything(Vec<(SimTime, SimEvent)>);

    impl Observer for Everything {
        fn observe(&mut self, now: SimTime, event: &SimEvent) {
            self.0.push((now, event.clone()));
        }
    }

    fn sim(topology: &str, jobs: u32, load: f64, policy: &str) -> Simulation {
        let topo = resolve_topology_arg(topology).unwrap();
        let trace = synthetic::generate(
            &synthetic::parse(&format!("synthetic:jobs={jobs},load={load},seed=3")).unwrap(),
            topo.gpu_count(),
        );
        let catalog = proxima_core::model::Catalog::built_in();
        let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
        let scenario = build_scenario(topo, &trace, &options, "t").unwrap();
        Simulation::new(scenario, resolve_policy(policy).unwrap())
    }

    #[test]
    fn a_run_round_trips_without_rate_changes() {
        let mut s = sim("teaching", 300, 1.2, "dally");
        let all = Rc::new(RefCell::new(Everything::default()));
        let rec = Rc::new(RefCell::new(Recorder::default()));
        s.add_observer(Box::new(SharedObserver(all.clone())));
        s.add_observer(Box::new(SharedObserver(rec.clone())));
        let summary = s.run();
        let bytes = rec.borrow().finish(&s, SimTime::from_secs_f64(summary.makespan_s));
        let log = PlaybackLog::decode(&bytes).unwrap();
        let expected: Vec<(SimTime, SimEvent)> =
            all.borrow().0.iter().filter(|(_, e)| !matches!(e, SimEvent::RateChanged { .. })).cloned().collect();
        assert_eq!(log.events.len(), expected.len());
        assert!(log.events.iter().any(|e| matches!(e, SimEvent::Waiting { .. })), "dally makes jobs wait here");
        for (i, ((t, e), got)) in expected.iter().zip(&log.events).enumerate() {
            assert_eq!(log.times[i], t.0, "time of event {i}");
            assert_eq!(std::mem::discriminant(e), std::mem::discriminant(got), "event {i}");
            assert!(same_at_f32(e, got), "event {i}: {e:?} vs {got:?}");
        }
        assert_eq!(log.jobs.len(), 300);
        assert_eq!(log.cut_at_us, None);
        assert_eq!(log.initial_timers, vec![300.0, 150.0]);
        assert_eq!(log.models[log.jobs[0].model as usize], s.scenario().catalog.get(s.scenario().jobs[0].model).name);
        assert_eq!(log.end_us, SimTime::from_secs_f64(summary.makespan_s).0);
        // Compact: well under the ~90 bytes of a JSON line per event.
        assert!(bytes.len() < 16 * log.events.len() + 8 * 300, "{} bytes for {} events", bytes.len(), log.events.len());
    }

    /// Two events equal up to the f32 rounding of their floats.
    fn same_at_f32(a: &SimEvent, b: &SimEvent) -> bool {
        let ja = serde_json::to_value(a).unwrap();
        let jb = serde_json::to_value(b).unwrap();
        close(&ja, &jb)
    }

    fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
        use serde_json::Value::*;
        match (a, b) {
            (Number(x), Number(y)) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                x == y || (x as f32) as f64 == y
            }
            (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q)),
            (Object(x), Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
            }
            _ => a == b,
        }
    }

    #[test]
    fn the_recorder_stops_at_its_cap_and_says_when() {
        let mut s = sim("teaching", 100, 0.8, "consolidate");
        let rec = Rc::new(RefCell::new(Recorder::with_cap(50)));
        s.add_observer(Box::new(SharedObserver(rec.clone())));
        let summary = s.run();
        let log = PlaybackLog::decode(&rec.borrow().finish(&s, SimTime::from_secs_f64(summary.makespan_s))).unwrap();
        assert_eq!(log.events.len(), 50);
        let cut = log.cut_at_us.expect("cut");
        assert!(cut >= *log.times.last().unwrap() && cut < log.end_us);
        assert!(log.jobs.len() < 100);
    }

    #[test]
    fn gpus_and_reasons_round_trip() {
        let reasons = [
            Reason::FirstFit,
            Reason::WaitingForTier { wanted: Tier(0), left_s: 42.5, best_now: None, slowdown: 0.0 },
            Reason::WaitingForTier { wanted: Tier(1), left_s: 1.0, best_now: Some(Tier(2)), slowdown: 1.5 },
            Reason::PlacedByPreemption { tier: Tier(0), victims: vec![JobId(3), JobId(900_000)], gain_s: 12.0 },
            Reason::PreemptedFor { for_job: JobId(7), tier: Tier(0), gain_s: 90.0, cost_s: 30.0 },
            Reason::Reconsolidating { from: Tier(2), to: Tier(0), gain_s: 5.0, cost_s: 1.0 },
            Reason::Reconsolidated { from: Tier(2), to: Tier(0) },
            Reason::NoRoom { free: 12 },
            Reason::StarvationBound { tier: Tier(2), waited_s: 7200.0 },
            Reason::Insensitive { tier: Tier(1), slowdown: 1.25 },
            Reason::TimerExpired { tier: Tier(1), waited_s: 30.0, slowdown: 1.5 },
            Reason::GotWantedTier { tier: Tier(0), waited_s: 110.0 },
            Reason::TightestNow { tier: Tier(0) },
        ];
        for reason in reasons {
            let mut b = Vec::new();
            put_reason(&mut b, &reason);
            let mut r = Reader { bytes: &b, at: 0 };
            assert_eq!(r.reason().unwrap(), reason);
            assert_eq!(r.at, b.len());
        }
        for gpus in [vec![], vec![5], vec![0, 1, 2, 3, 8, 9, 2047], vec![9, 3, 4]] {
            let gpus: Vec<GpuId> = gpus.into_iter().map(GpuId).collect();
            let mut b = Vec::new();
            put_gpus(&mut b, &gpus);
            assert_eq!(Reader { bytes: &b, at: 0 }.gpus().unwrap(), gpus);
        }
    }

    #[test]
    fn damaged_logs_are_errors_not_panics() {
        let mut s = sim("teaching", 20, 0.8, "dally");
        let rec = Rc::new(RefCell::new(Recorder::default()));
        s.add_observer(Box::new(SharedObserver(rec.clone())));
        let summary = s.run();
        let bytes = rec.borrow().finish(&s, SimTime::from_secs_f64(summary.makespan_s));
        for cut in 0..bytes.len() {
            assert!(PlaybackLog::decode(&bytes[..cut]).is_err(), "a log cut at {cut} bytes");
        }
        let mut flipped = bytes.clone();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = PlaybackLog::decode(&flipped);
            flipped[i] ^= 0xff;
        }
    }

    #[test]
    fn initial_timers_come_from_the_spec() {
        assert_eq!(initial_timers("dally:preempt=on,autotune=on,timers=300/150,threshold=1.05"), vec![300.0, 150.0]);
        assert_eq!(initial_timers("dally:timers=30/15"), vec![30.0, 15.0]);
        assert!(initial_timers("consolidate:backfill=on").is_empty());
    }
}
