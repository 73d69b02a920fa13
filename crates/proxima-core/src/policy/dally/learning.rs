//! How `dally` learns from its own run: the realised ratio of iteration times to the
//! representative estimate per tier, and the auto-tuner's revisions of the delay timers
//! ([`crate::policy::mechanisms::tuner`]).

use super::{Dally, REALISED_WINDOW};
use crate::event::PolicyNote;
use crate::policy::Decision;
use crate::topology::Tier;

impl Dally {
    pub(super) fn realised_ratio(&self, tier: Tier) -> f64 {
        self.realised_median[tier.0 as usize]
    }

    pub(super) fn record_realised(&mut self, tier: Tier, ratio: f64) {
        let r = &mut self.realised[tier.0 as usize];
        r.push_back(ratio);
        if r.len() > REALISED_WINDOW {
            r.pop_front();
        }
        let mut v: Vec<f64> = r.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        self.realised_median[tier.0 as usize] = v[v.len() / 2];
    }

    pub(super) fn tune(&mut self, out: &mut Vec<Decision>) {
        for t in 0..self.timers.len() {
            if !self.tuner.has_fresh(t) {
                continue;
            }
            self.tuner.mark_seen(t);
            let competitors = self.in_phase.get(t).copied().unwrap_or(0);
            if let Some(p) = self.tuner.propose(t, competitors, self.timers[t]) {
                let old = self.timers[t];
                if (p.timer_s - old).abs() >= 1.0 {
                    self.timers[t] = p.timer_s;
                    out.push(Decision::Note(PolicyNote::TimerChanged {
                        tier: Tier(t as u8),
                        old_s: old,
                        new_s: p.timer_s,
                        why: p.why,
                    }));
                }
            }
        }
    }
}
