//! "Had it not been preempted", in the worker: the policy re-run with one preemption
//! forbidden (`proxima_core::session::Session::without_preemption`), the two jobs' own JCTs with and
//! without it, then the same what-if repeated on other seeds' traces.
//!
//! One re-run cannot say whether a preemption paid: forbidding it changes every later
//! decision, so the mean JCT of the whole run moves by as much as the preemption's own
//! effect for reasons of its own. On seed `s + i` the trace is another draw of the same
//! generator, with other jobs, so "the same preemption" does not exist there: the what-if
//! forbids the policy's preemption of the same rank (its first, its fifth...), which asks
//! the question the reader asked of a preemption made at the same stage of a run like it.

use crate::protocol::{
    FromWorker, JobJcts, Problem, RunRequest, SeedWhatIf, SeedsOutcome, TraceSource, WhatIfOutcome, WithoutPreemption,
};
use crate::worker::request_session;
use proxima_core::cluster::JobId;
use proxima_core::engine::Simulation;
use proxima_core::event::{Observer, SimEvent};
use proxima_core::session::{Session, WithoutPreemption as Rerun};
use proxima_core::time::SimTime;

/// The seeds the what-if is repeated over, the run's own included: enough for an interval
/// that can exclude zero when the effect is a tenth of the mean, few enough that the
/// worker answers within seconds on the page's scenarios.
pub const WHAT_IF_SEEDS: u32 = 8;

/// Answers a what-if: the run's own seed first ([`FromWorker::WhatIf`]), then the seeds
/// ([`FromWorker::WhatIfSeeds`]), each as soon as it is known.
pub fn answer_what_if(w: &WithoutPreemption, send: &mut dyn FnMut(FromWorker)) {
    let first = without_preemption(w);
    let failed = first.is_err();
    let own = first.as_ref().ok().map(|(_, own)| own.clone());
    send(FromWorker::WhatIf { id: w.id, result: first.map(|(outcome, _)| outcome) });
    if failed {
        return;
    }
    send(FromWorker::WhatIfSeeds { id: w.id, result: over_seeds(w, own) });
}

/// The policy's preemptions in a run, in time order: (job, instant).
#[derive(Default)]
struct Preemptions(Vec<(u32, u64)>);

impl Observer for Preemptions {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        if let SimEvent::Preempted { job, .. } = event {
            self.0.push((job.0, now.0));
        }
    }
}

/// A job's JCT in a finished simulation, in seconds.
fn jct_s(sim: &Simulation, job: u32) -> Option<f64> {
    let submit = sim.scenario().jobs.get(job as usize)?.submit;
    let end = sim.runs().get(job as usize)?.end?;
    Some((end.0 - submit.0) as f64 / 1e6)
}

/// The session of the what-if's one policy on the request's scenario: built once for the
/// run as it was and its re-run, which both start from the same scenario.
fn what_if_session(request: &RunRequest, policy: &str) -> Result<Session, Problem> {
    request_session(&one_policy(request, policy))
}

/// The run as it was, with its preemptions.
fn original(session: &Session) -> (Simulation, Preemptions) {
    let mut sim = Simulation::new(session.scenario().clone(), session.policies()[0].build());
    let mut seen = Preemptions::default();
    sim.run_observed(&mut [&mut seen]);
    (sim, seen)
}

/// The run re-run without the preemption of `job` at `at_us`.
fn rerun(session: &Session, job: u32, at_us: u64) -> Result<Rerun, Problem> {
    if job as usize >= session.scenario().jobs.len() {
        return Err(format!("the run has no job {job}").into());
    }
    Ok(session.without_preemption(0, JobId(job), SimTime(at_us)))
}

/// The request with `policy` as its only policy: the what-if asks about one.
fn one_policy(request: &RunRequest, policy: &str) -> RunRequest {
    RunRequest { policies: vec![policy.to_string()], ..request.clone() }
}

/// "Had this job not been preempted then": the request's one policy re-run with that
/// preemption forbidden, on the scenario built as for the run, with the two jobs' JCTs;
/// and the run's own seed as the first of [`over_seeds`].
pub fn without_preemption(w: &WithoutPreemption) -> Result<(WhatIfOutcome, SeedWhatIf), Problem> {
    let policy = w.request.policies.first().ok_or_else(|| Problem::from("the what-if names no policy"))?;
    let session = what_if_session(&w.request, policy)?;
    let (before, _) = original(&session);
    let run = rerun(&session, w.job, w.at_us)?;
    let summary = run.simulation.summary();
    let jobs = std::iter::once(w.job)
        .chain(w.for_job)
        .map(|job| JobJcts { job, with_s: jct_s(&before, job), without_s: jct_s(&run.simulation, job) })
        .collect();
    let own = SeedWhatIf { seed: w.request.seed, original_s: before.summary().avg_jct_s, rerun_s: summary.avg_jct_s };
    let outcome = WhatIfOutcome {
        refused: run.refused,
        avg_jct_s: summary.avg_jct_s,
        jobs_completed: summary.jobs_completed,
        job_preemptions: run.simulation.runs()[w.job as usize].preemptions,
        preemptions: summary.preemptions,
        jobs,
    };
    Ok((outcome, own))
}

/// The what-if on the other seeds: on each, the policy's run, then its re-run without its
/// preemption of rank `w.rank`. A trace file is the same on every seed, so it is not
/// repeated (`w.seeds` is 1 for it, and the outcome holds the run's own seed alone).
fn over_seeds(w: &WithoutPreemption, own: Option<SeedWhatIf>) -> Result<SeedsOutcome, Problem> {
    let policy = w.request.policies.first().ok_or_else(|| Problem::from("the what-if names no policy"))?;
    let mut outcome = SeedsOutcome { seeds: own.into_iter().collect(), without_one: Vec::new() };
    let repeats = if matches!(w.request.trace, TraceSource::File { .. }) { 1 } else { w.seeds.max(1) };
    for i in 1..repeats {
        let mut request = w.request.clone();
        request.seed = w.request.seed.wrapping_add(u64::from(i));
        let session = what_if_session(&request, policy)?;
        let (before, seen) = original(&session);
        let Some(&(job, at_us)) = seen.0.get(w.rank as usize) else {
            outcome.without_one.push(request.seed);
            continue;
        };
        let run = rerun(&session, job, at_us)?;
        outcome.seeds.push(SeedWhatIf {
            seed: request.seed,
            original_s: before.summary().avg_jct_s,
            rerun_s: run.simulation.summary().avg_jct_s,
        });
    }
    Ok(outcome)
}
