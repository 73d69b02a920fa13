//! The page's part of a what-if on a preemption ([`crate::what_if`]): asking it of the run
//! played back, the student's prediction, and the worker's answers arriving.

use super::State;
use crate::protocol::{SeedsOutcome, WhatIfOutcome};
use crate::what_if::{ask, WhatIfAct};
use crate::Shared;

impl State {
    /// Applies a what-if act.
    pub(super) fn what_if(&mut self, act: WhatIfAct) {
        match act {
            WhatIfAct::Ask { policy, preemption, rank } => {
                let id = self.take_id();
                self.what_if = ask(&self.results, id, policy, preemption, rank).map(Shared::new);
            }
            WhatIfAct::Predict(p) => {
                if let Some(w) = &mut self.what_if {
                    if w.prediction.is_none() {
                        w.make_mut().prediction = Some(p);
                    }
                }
            }
            WhatIfAct::Close => self.what_if = None,
        }
    }

    /// The worker's answer to what-if `id` (an older one's is ignored).
    pub(super) fn what_if_answered(&mut self, id: u32, result: Result<WhatIfOutcome, String>) {
        if let Some(w) = self.what_if.as_mut().filter(|w| w.request.id == id && w.answer.is_none()) {
            w.make_mut().answer = Some(result);
        }
    }

    /// The worker's what-if `id` repeated over seeds.
    pub(super) fn what_if_seeds_answered(&mut self, id: u32, result: Result<SeedsOutcome, String>) {
        if let Some(w) = self.what_if.as_mut().filter(|w| w.request.id == id && w.seeds.is_none()) {
            w.make_mut().seeds = Some(result);
        }
    }

    /// The worker stopped: a what-if waiting for it will get no answer.
    pub(super) fn what_if_lost(&mut self, why: &str) {
        let lost = format!("the worker stopped ({why}); ask again");
        if let Some(w) = self.what_if.as_mut().filter(|w| w.answer.is_none() || w.seeds.is_none()) {
            let w = w.make_mut();
            if w.answer.is_none() {
                w.answer = Some(Err(lost.clone()));
            }
            w.seeds = Some(Err(lost));
        }
    }
}
