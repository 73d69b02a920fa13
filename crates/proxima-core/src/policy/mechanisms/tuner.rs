//! The auto-tuner of the delay timers.
//!
//! A delay timer for a tier caps how long a job waits for a placement at that tier before it
//! accepts the next looser one. Waiting pays when a placement at the tier tends to appear
//! soon and being spread costs much; it wastes time when such placements are rare. The
//! tuner learns both from the run's own past, never from its future:
//!
//! - **observed waits**: for each tier, how long recent jobs waited before a placement at the
//!   tier appeared, or that none appeared before their timer ran out (a censored
//!   observation). A Kaplan–Meier estimate turns them into the chance that a placement
//!   appears within `w` seconds; beyond the longest observation the tail is exponential,
//!   with the rate at which placements appeared per second of waiting (the release rate of
//!   suitable GPUs as waiting jobs experienced it).
//! - **queue length**: waits observed with fewer (more) jobs competing for the same tier than
//!   wait now are stretched (shrunk) in proportion, clamped to a factor of two.
//! - **realised slowdowns**: what a job gains by waiting is its remaining ideal run time times
//!   the slowdown jobs actually suffered at the next looser tier (the estimate corrected by
//!   the realised ratio), minus its slowdown at this one: the gain `g` of each recent wait.
//!
//! For a candidate timer `T`, a job with gain `g` waits at most `min(T, g)` (its budget) and
//! nets `Σ_{w ≤ cap} P(appears at w) · (g − w) − P(not by cap) · cap`; the tuner picks the
//! `T` on a grid that maximises the sum over recent waits. The rate of the exponential tail
//! counts one pseudo-observation (a placement after the current timer), so that a short run
//! of failures does not read as "placements never appear". A new value moves at most a factor of two from the old per step, so
//! one burst of bad luck cannot swing the timers wildly.

use crate::event::TimerEvidence;
use std::collections::VecDeque;

/// One observed wait for a placement at some tier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaitSample {
    /// Seconds waited.
    pub waited_s: f64,
    /// Whether a placement at the tier appeared (false: the timer ran out first).
    pub success: bool,
    /// Jobs waiting for the same tier when this wait began (the job itself excluded).
    pub competitors: u32,
}

/// Candidate timer values, in seconds.
pub const GRID_S: &[f64] = &[
    0.0, 5.0, 10.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 240.0, 360.0, 480.0, 720.0, 960.0, 1440.0, 1920.0,
    2880.0, 3600.0,
];

/// Fewest samples (and successes) a tier needs before the tuner trusts its history.
pub const MIN_SAMPLES: usize = 20;

/// Recent history per tier.
#[derive(Clone, Debug)]
pub struct TimerTuner {
    window: usize,
    waits: Vec<VecDeque<WaitSample>>,
    gains: Vec<VecDeque<f64>>,
    /// Per tier, whether a wait was recorded since the last proposal: without new evidence
    /// the proposal cannot change (but for the competitors now), so it is not recomputed.
    fresh: Vec<bool>,
    /// Lower bound of every timer: a timer of zero would stop jobs from waiting at all, and
    /// with it the observations the tuner learns from.
    pub min_s: f64,
    pub max_s: f64,
}

/// A proposed timer and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    pub timer_s: f64,
    pub why: TimerEvidence,
}

impl TimerTuner {
    pub fn new(tiers: usize, window: usize, min_s: f64, max_s: f64) -> TimerTuner {
        TimerTuner {
            window,
            waits: vec![VecDeque::new(); tiers],
            gains: vec![VecDeque::new(); tiers],
            fresh: vec![false; tiers],
            min_s,
            max_s,
        }
    }

    pub fn record_wait(&mut self, tier: usize, sample: WaitSample) {
        self.fresh[tier] = true;
        let q = &mut self.waits[tier];
        q.push_back(sample);
        if q.len() > self.window {
            q.pop_front();
        }
    }

    pub fn record_gain(&mut self, tier: usize, gain_s: f64) {
        let q = &mut self.gains[tier];
        q.push_back(gain_s.max(0.0));
        if q.len() > self.window {
            q.pop_front();
        }
    }

    /// Whether waits were recorded at `tier` since [`TimerTuner::mark_seen`].
    pub fn has_fresh(&self, tier: usize) -> bool {
        self.fresh[tier]
    }

    pub fn mark_seen(&mut self, tier: usize) {
        self.fresh[tier] = false;
    }

    /// A timer for `tier` given the history and the jobs competing for it now, or `None` if
    /// the history is too thin to say.
    pub fn propose(&self, tier: usize, competitors_now: u32, current_s: f64) -> Option<Proposal> {
        let waits = &self.waits[tier];
        let successes = waits.iter().filter(|s| s.success).count();
        if waits.len() < MIN_SAMPLES || self.gains[tier].len() < MIN_SAMPLES {
            return None;
        }
        let mean_competitors = waits.iter().map(|s| s.competitors as f64).sum::<f64>() / waits.len() as f64;
        let stretch = ((competitors_now as f64 + 1.0) / (mean_competitors + 1.0)).clamp(0.5, 2.0);
        let mut obs: Vec<(f64, bool)> = waits.iter().map(|s| (s.waited_s * stretch, s.success)).collect();
        // Successes before censorings at equal times, as Kaplan–Meier requires.
        obs.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        let gains: Vec<f64> = self.gains[tier].iter().copied().collect();
        let gain = gains.iter().sum::<f64>() / gains.len() as f64;
        // One pseudo-observation, a placement appearing after the current timer, keeps a
        // short run of failures from reading as "placements never appear".
        let exposure: f64 = obs.iter().map(|o| o.0).sum::<f64>() + current_s.max(self.min_s);
        let rate = (successes as f64 + 1.0) / exposure;

        let grid: Vec<f64> = GRID_S.iter().copied().filter(|&t| t >= self.min_s && t <= self.max_s).collect();
        let curve = success_curve(&obs, rate, &grid);
        // Each job waits at most min(timer, its own gain) (its budget), so the saving of a
        // timer is summed job by job: jobs with much to gain weigh as much as they stand to
        // gain, which is what mean completion time rewards.
        let at_cap = |cap: f64| -> (f64, f64) {
            let i = grid.iter().rposition(|&t| t <= cap).unwrap_or(0);
            curve[i]
        };
        let nets = grid.iter().map(|&t| {
            gains
                .iter()
                .map(|&g| {
                    let (p, q) = at_cap(t.min(g));
                    g * p - q
                })
                .sum::<f64>()
                / gains.len() as f64
        });
        let (best_t, best_net) = grid.iter().copied().zip(nets).fold((self.min_s, f64::NEG_INFINITY), |best, cand| {
            if cand.1 > best.1 + 1e-9 {
                cand
            } else {
                best
            }
        });
        // Move at most a factor of two per step (from at least the minimum).
        let floor = current_s.max(self.min_s.max(1.0));
        let timer_s = best_t.clamp(floor / 2.0, floor * 2.0).clamp(self.min_s, self.max_s);
        let why = TimerEvidence {
            successes: successes as u32,
            samples: waits.len() as u32,
            rate,
            gain,
            competitors_now,
            mean_competitors,
            best_t,
            best_net,
        };
        Some(Proposal { timer_s, why })
    }
}

/// Expected net saving of a waiting job with gain `gain` under a cap of `t` seconds:
/// successes by `t` save `gain − wait`, failures lose `t`. `obs` is sorted (time, success).
#[cfg(test)]
fn expected_net(obs: &[(f64, bool)], rate: f64, gain: f64, t: f64) -> f64 {
    let (p, q) = success_curve(obs, rate, &[t])[0];
    gain * p - q
}

/// For each cap of an ascending `grid`, `(p, q)` such that a waiting job with gain `g` nets
/// `g·p − q`: `p` is the chance that a placement appears by the cap, `q` the expected time
/// spent waiting (until the placement, or the whole cap). The Kaplan–Meier curve of `obs`
/// is walked once for the whole grid; beyond the last observation the tail is exponential
/// at `rate`.
fn success_curve(obs: &[(f64, bool)], rate: f64, grid: &[f64]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(grid.len());
    let mut at_risk = obs.len() as f64;
    let mut survival = 1.0;
    let mut p = 0.0;
    let mut waited = 0.0;
    let mut last_time = 0.0;
    let mut i = 0;
    for &t in grid {
        while i < obs.len() && obs[i].0 <= t {
            let time = obs[i].0;
            let mut events = 0.0;
            let mut leaving = 0.0;
            while i < obs.len() && obs[i].0 == time {
                if obs[i].1 {
                    events += 1.0;
                }
                leaving += 1.0;
                i += 1;
            }
            if events > 0.0 && at_risk > 0.0 {
                let drop = survival * events / at_risk;
                p += drop;
                waited += drop * time;
                survival -= drop;
            }
            at_risk -= leaving;
            last_time = time;
        }
        let (mut p_t, mut waited_t, mut survival_t) = (p, waited, survival);
        if i == obs.len() && t > last_time && rate > 0.0 {
            // Successes in the tail arrive at `last + u`, u ~ Exp(rate), until the cap.
            let d = t - last_time;
            let e = libm::exp(-rate * d);
            p_t += survival * (1.0 - e);
            waited_t += survival * (last_time * (1.0 - e) + (1.0 - e) / rate - d * e);
            survival_t *= e;
        }
        out.push((p_t, waited_t + survival_t * t));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuner_with(waits: &[(f64, bool)], gain: f64) -> TimerTuner {
        let mut t = TimerTuner::new(2, 200, 5.0, 3600.0);
        for &(w, s) in waits {
            t.record_wait(0, WaitSample { waited_s: w, success: s, competitors: 0 });
            t.record_gain(0, gain);
        }
        t
    }

    #[test]
    fn placements_that_appear_soon_and_large_gains_raise_the_timer() {
        // Placements reliably appear within a minute or two and waiting saves 20 minutes:
        // the cap should rise from 30 s (to 60 s, the factor-of-two limit).
        let waits: Vec<(f64, bool)> = (0..20).map(|i| (20.0 + 5.0 * i as f64, true)).collect();
        let t = tuner_with(&waits, 1200.0);
        let p = t.propose(0, 0, 30.0).unwrap();
        assert_eq!(p.timer_s, 60.0, "{}", p.why);
        // Without the step limit it would go to at least the longest observed wait.
        let p = t.propose(0, 0, 1000.0).unwrap();
        assert!(p.timer_s >= 115.0, "{}", p.why);
    }

    #[test]
    fn rare_placements_and_small_gains_lower_the_timer() {
        // Nearly every wait ran out at 300 s, and waiting would save only 30 s anyway.
        let mut waits: Vec<(f64, bool)> = (0..18).map(|_| (300.0, false)).collect();
        waits.push((250.0, true));
        waits.push((280.0, true));
        let t = tuner_with(&waits, 30.0);
        let p = t.propose(0, 0, 300.0).unwrap();
        assert_eq!(p.timer_s, 150.0, "halved: {}", p.why);
        let p = t.propose(0, 0, 10.0).unwrap();
        assert_eq!(p.timer_s, 5.0, "down to the minimum: {}", p.why);
    }

    #[test]
    fn more_competitors_now_make_waiting_less_attractive() {
        // Placements appear after about 100 s and save 150 s: worth waiting for alone, not
        // behind twice as many competitors as the history saw.
        let waits: Vec<(f64, bool)> = (0..20).map(|i| (80.0 + 2.0 * i as f64, true)).collect();
        let mut t = TimerTuner::new(1, 200, 5.0, 3600.0);
        for &(w, s) in &waits {
            t.record_wait(0, WaitSample { waited_s: w, success: s, competitors: 1 });
            t.record_gain(0, 150.0);
        }
        let calm = t.propose(0, 1, 120.0).unwrap();
        let crowded = t.propose(0, 5, 120.0).unwrap();
        assert!(calm.timer_s > crowded.timer_s, "{} vs {}", calm.why, crowded.why);
    }

    #[test]
    fn thin_history_proposes_nothing() {
        let t = tuner_with(
            &[
                (10.0, true),
                (20.0, false),
                (30.0, true),
                (5.0, false),
                (8.0, true),
                (9.0, true),
                (11.0, true),
                (12.0, false),
            ],
            100.0,
        );
        assert!(t.propose(0, 0, 30.0).is_none());
    }

    #[test]
    fn net_saving_by_hand() {
        // Two observations: success at 10 s, censored at 20 s. Gain 100 s.
        // T = 10: KM drop 1/2 at 10 s: 0.5·(100 − 10) − 0.5·10 = 40.
        let obs = [(10.0, true), (20.0, false)];
        assert!((expected_net(&obs, 0.0, 100.0, 10.0) - 40.0).abs() < 1e-9);
        // T = 5: nothing yet: −5.
        assert!((expected_net(&obs, 0.0, 100.0, 5.0) + 5.0).abs() < 1e-9);
    }
}
