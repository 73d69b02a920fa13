//! The event log's own parts of the encoding (`crate::codec` has the numbers and text):
//! GPUs as runs of consecutive ids, tiers, jobs and the scheduler's reasons.

use crate::codec::{put_f32, put_f64, put_u64, Reader};
use proxima_core::event::{Reason, TimerEvidence};
use proxima_core::topology::{GpuId, Tier, MAX_GPUS};
use proxima_core::JobId;

/// GPUs as runs of consecutive ids: the number of runs, then per run the gap from the end
/// of the previous run and the length. Placements are mostly a few runs, whatever their
/// size. The engine hands GPUs sorted; unsorted input would still round-trip (gaps are
/// zigzag-encoded).
pub(super) fn put_gpus(b: &mut Vec<u8>, gpus: &[GpuId]) {
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

pub(super) fn put_tier_opt(b: &mut Vec<u8>, t: Option<Tier>) {
    b.push(t.map(|t| t.0).unwrap_or(u8::MAX));
}

pub(super) fn put_reason(b: &mut Vec<u8>, reason: &Reason) {
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
        Reason::Reclaimed { for_job, cost_s } => {
            b.push(12);
            put_u64(b, for_job.0 as u64);
            put_f32(b, *cost_s as f32);
        }
    }
}

impl Reader<'_> {
    pub(super) fn tier(&mut self) -> Result<Tier, String> {
        Ok(Tier(self.u8()?))
    }

    pub(super) fn tier_opt(&mut self) -> Result<Option<Tier>, String> {
        let t = self.u8()?;
        Ok((t != u8::MAX).then_some(Tier(t)))
    }

    pub(super) fn job(&mut self) -> Result<JobId, String> {
        Ok(JobId(self.u32()?))
    }

    pub(super) fn gpus(&mut self) -> Result<Vec<GpuId>, String> {
        let runs = self.len(self.remaining())?;
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

    pub(super) fn reason(&mut self) -> Result<Reason, String> {
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
                let n = self.len(self.remaining())?;
                let victims = (0..n).map(|_| self.job()).collect::<Result<_, _>>()?;
                Reason::PlacedByPreemption { tier, victims, gain_s: f(self)? }
            }
            10 => Reason::Reconsolidating { from: self.tier()?, to: self.tier()?, gain_s: f(self)?, cost_s: f(self)? },
            11 => Reason::Reconsolidated { from: self.tier()?, to: self.tier()? },
            12 => Reason::Reclaimed { for_job: self.job()?, cost_s: f(self)? },
            k => return Err(format!("unknown reason kind {k}")),
        })
    }
}

/// The tuner's evidence for a timer change, as its numbers (the page words it).
pub(super) fn put_evidence(b: &mut Vec<u8>, e: &TimerEvidence) {
    put_u64(b, e.successes as u64);
    put_u64(b, e.samples as u64);
    put_u64(b, e.competitors_now as u64);
    for x in [e.rate, e.gain, e.mean_competitors, e.best_t, e.best_net] {
        put_f64(b, x);
    }
}

pub(super) fn read_evidence(r: &mut Reader) -> Result<TimerEvidence, String> {
    let count = |r: &mut Reader| -> Result<u32, String> {
        u32::try_from(r.u64()?).map_err(|_| "a count out of range".to_string())
    };
    let (successes, samples, competitors_now) = (count(r)?, count(r)?, count(r)?);
    Ok(TimerEvidence {
        successes,
        samples,
        competitors_now,
        rate: r.f64()?,
        gain: r.f64()?,
        mean_competitors: r.f64()?,
        best_t: r.f64()?,
        best_net: r.f64()?,
    })
}
