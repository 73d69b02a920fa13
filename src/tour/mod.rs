//! The guided introduction ("the tour"): a tiny hand-made trace on the `teaching` cluster,
//! run for real under five policies in the worker, and the numbers the walk-through
//! quotes, read from those runs. Nothing here is canned: change the trace and the text
//! follows.
//!
//! The trace repeats one situation ([`EPISODES`] times, [`EPISODE_S`] apart). Four
//! ResNet-18 jobs of 3 GPUs start at once and take one server each, leaving one GPU free
//! per server: four free GPUs, all in different servers. Ten seconds later a VGG-16 job
//! asks for 4 GPUs. It can start at once spread over four servers in two racks, or wait
//! for the short ResNet-18 job, whose server frees up 120 s into the episode.

//!
//! - this file: the trace, the runs and the facts read from them;
//! - [`steps`]: the walk-through's text, with those facts in it;
//! - [`state`]: the tour's part of the page's state and its reducer;
//! - [`view`]: the component, each step with the playback of its run ([`view::TourView`]).

mod state;
mod steps;
pub mod view;

pub use state::{Tour, TourAction};
pub use steps::{steps, Step, STEPS};

use crate::eventlog::PlaybackLog;
use crate::protocol::{FileData, PolicyResult, RunRequest, TraceSource};
use proxima_core::event::{PolicyNote, SimEvent};
use proxima_core::inputs::TopologyInput;
use proxima_core::share::TopologyChoice;

/// How many times the situation repeats: the tuner needs 20 waits at a tier before it
/// trusts what it saw, so a few more than that.
pub const EPISODES: u32 = 30;
/// Seconds between episodes: every job of one episode has ended before the next starts.
pub const EPISODE_S: u32 = 4000;
/// When the short job ends and its server frees up, in seconds into an episode.
pub const SHORT_JOB_S: u32 = 120;
/// When the sensitive job arrives, in seconds into an episode.
pub const SENSITIVE_AT_S: u32 = 10;
/// Its run time at a server-local placement.
pub const SENSITIVE_S: u32 = 1800;

/// The cluster of the introduction.
pub const TOPOLOGY: &str = "teaching";

/// The introduction's cluster as its story was written: the `teaching` preset's links, with
/// the calibrated NCCL-over-TCP efficiencies and the built-in model catalogue rather than
/// the RDMA fabric's (whose A100 catalogue has no ResNet-18), so that the numbers it quotes
/// stay those of its trace.
pub fn topology_spec() -> proxima_core::topology::TopologySpec {
    let mut spec = proxima_core::topology::resolve_topology_arg(TOPOLOGY).expect("a preset").spec().clone();
    spec.collective = None;
    spec.gpu = None;
    spec
}

/// The policies it compares, in the order the steps use them.
pub const POLICIES: [&str; 5] = [
    "consolidate",
    "dally:preempt=off,autotune=off",
    "dally:preempt=off,autotune=off,timers=60/30",
    "dally:preempt=off,timers=30/15",
    "dally:preempt=off",
];

/// The trace, in Proxima's CSV format.
pub fn trace_csv() -> String {
    let mut out = String::from("id,submit_s,gpus,model,duration_s\n");
    for e in 0..EPISODES {
        let t = e * EPISODE_S;
        out += &format!("e{e}-short,{t},3,resnet18,{SHORT_JOB_S}\n");
        for b in 1..=3 {
            out += &format!("e{e}-long{b},{t},3,resnet18,3000\n");
        }
        out += &format!("e{e}-vgg16,{},4,vgg16,{SENSITIVE_S}\n", t + SENSITIVE_AT_S);
    }
    out
}

/// The run the introduction asks the worker for.
pub fn request(run_id: u32) -> RunRequest {
    RunRequest {
        run_id,
        topology: TopologyInput::Choice(TopologyChoice::Custom(topology_spec())),
        trace: TraceSource::File {
            name: "introduction.csv".into(),
            data: FileData::Bytes(trace_csv().into_bytes().into()),
        },
        seed: 1,
        mix: None,
        policies: POLICIES.iter().map(|p| p.to_string()).collect(),
    }
}

/// The sensitive job of episode `e` (jobs are numbered in submission order, five per
/// episode, the sensitive one last).
pub fn sensitive_job(e: u32) -> u32 {
    e * 5 + 4
}

/// What one policy did with the sensitive jobs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyFacts {
    pub policy: String,
    /// Per episode: the sensitive job's wait, its tier's name, and its completion time
    /// (JCT), in seconds.
    pub waited_s: Vec<f64>,
    pub tier: Vec<String>,
    pub jct_s: Vec<f64>,
    /// Its slowdown at its placement (run time over ideal run time).
    pub slowdown: Vec<f64>,
    /// The delay timer changes: (seconds, tier, old, new).
    pub timer_changes: Vec<(f64, u8, f64, f64)>,
}

impl PolicyFacts {
    /// The first episode from which every sensitive job got a server of its own.
    pub fn settled_from(&self) -> Option<usize> {
        let last_bad = self.tier.iter().rposition(|t| t != "server");
        match last_bad {
            None => Some(0),
            Some(i) if i + 1 < self.tier.len() => Some(i + 1),
            Some(_) => None,
        }
    }

    /// The server timer's changes.
    pub fn server_timer_changes(&self) -> Vec<(f64, f64, f64)> {
        self.timer_changes.iter().filter(|c| c.1 == 0).map(|c| (c.0, c.2, c.3)).collect()
    }
}

/// Reads what a policy did with the sensitive jobs from its result: the rows of
/// `jobs.csv`, as data, for waits, tiers and completion times; the playback log for the
/// timer changes.
pub fn facts_of(result: &PolicyResult) -> Result<PolicyFacts, String> {
    let mut f = PolicyFacts { policy: result.policy.clone(), ..PolicyFacts::default() };
    let rows = result.jobs.unpack()?;
    for e in 0..EPISODES {
        let job = sensitive_job(e);
        let row = rows.iter().find(|r| r.id == job).ok_or(format!("job {job} is missing from the results"))?;
        let (Some(jct), Some(slowdown)) = (row.jct, row.slowdown) else {
            return Err(format!("job {job}, a sensitive job of the introduction, did not complete"));
        };
        f.waited_s.push(row.queue.as_secs_f64());
        f.jct_s.push(jct.as_secs_f64());
        f.slowdown.push(slowdown);
        f.tier.push(row.tier.clone().unwrap_or_default());
    }
    let log = PlaybackLog::decode(&result.playback)?;
    for (t, e) in log.times.iter().zip(&log.events) {
        if let SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, .. } } = e {
            f.timer_changes.push((*t as f64 / 1e6, tier.0, *old_s, *new_s));
        }
    }
    Ok(f)
}

/// The numbers of the walk-through, one [`PolicyFacts`] per policy in [`POLICIES`] order.
pub fn facts(results: &[&PolicyResult]) -> Result<Vec<PolicyFacts>, String> {
    if results.len() != POLICIES.len() {
        return Err(format!("{} of {} runs finished", results.len(), POLICIES.len()));
    }
    results.iter().map(|r| facts_of(r)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FromWorker;

    fn results() -> Vec<PolicyResult> {
        let mut out = Vec::new();
        crate::worker::run_request(&request(1), &|| 0.0, &mut |m| {
            if let FromWorker::PolicyDone { result, .. } = m {
                out.push(*result);
            }
        });
        out
    }

    fn all_facts() -> Result<Vec<PolicyFacts>, String> {
        facts(&results().iter().collect::<Vec<_>>())
    }

    /// The story the walk-through tells must be what the runs do.
    #[test]
    fn the_runs_tell_the_story() {
        let f = all_facts().unwrap();
        let [consolidate, wait, short, tuned, from_default] = [&f[0], &f[1], &f[2], &f[3], &f[4]];
        // Consolidate starts it at once, spread, slower.
        assert_eq!(consolidate.waited_s[0], 0.0);
        assert_eq!(consolidate.tier[0], "cluster");
        assert!(consolidate.slowdown[0] > 1.2, "{}", consolidate.slowdown[0]);
        // Waiting for the server that frees at 120 s pays.
        assert_eq!(wait.tier[0], "server");
        assert_eq!(wait.waited_s[0], (SHORT_JOB_S - SENSITIVE_AT_S) as f64);
        assert_eq!(wait.jct_s[0], (SHORT_JOB_S - SENSITIVE_AT_S + SENSITIVE_S) as f64);
        assert!(wait.jct_s[0] < consolidate.jct_s[0]);
        // Timers of 60 s and 30 s give up before the server frees: worse than not waiting at
        // all. In the first episode no job has completed, so there is no run-time estimate to
        // cap the budgets, and the job waits out both timers.
        assert_eq!(short.tier[0], "cluster");
        assert!(short.waited_s[0] >= 90.0 && short.waited_s[0] < 91.0, "{}", short.waited_s[0]);
        assert!(short.jct_s[0] > consolidate.jct_s[0]);
        // The tuner, starting at 30 s, raises the server timer past the 110 s wait.
        assert!(tuned.tier[0] != "server");
        let settled = tuned.settled_from().expect("the tuner finds a timer that works");
        assert!(settled < EPISODES as usize - 3, "settled at episode {settled}");
        let last_server = *tuned.server_timer_changes().last().unwrap();
        assert!(last_server.2 >= (SHORT_JOB_S - SENSITIVE_AT_S) as f64, "{last_server:?}");
        assert_eq!(tuned.jct_s[EPISODES as usize - 1], wait.jct_s[0]);
        assert!(consolidate.timer_changes.is_empty() && wait.timer_changes.is_empty());
        // Started at 300 s, the tuner comes down to a value that still waits long enough.
        let down = from_default.server_timer_changes();
        assert!(down.first().unwrap().1 == 300.0 && down.last().unwrap().2 >= wait.waited_s[0], "{down:?}");
        assert!(from_default.tier.iter().all(|t| t == "server"));
    }

    #[test]
    fn the_steps_quote_the_runs() {
        let f = all_facts().unwrap();
        let steps = steps(&f);
        assert_eq!(steps.len(), STEPS);
        let text = |i: usize| steps[i].paragraphs.join(" ");
        assert!(text(1).contains("a cluster placement") && text(1).contains("1.58× slower"), "{}", text(1));
        assert!(text(2).contains("waited 110 s") && text(2).contains("% sooner than spread out"), "{}", text(2));
        assert!(text(3).contains("later than if it had not waited"), "{}", text(3));
        assert!(text(4).contains("30 s → 60 s") && text(4).contains("60 s → 120 s"), "{}", text(4));
        assert!(text(4).contains("Started at the default 300 s instead, it comes down: 300 s → 150 s"), "{}", text(4));
        assert_eq!(steps[2].policy, 1);
        assert_eq!(steps[2].job, Some(4));
        assert!(steps[4].job.is_some());
    }

    #[test]
    fn missing_runs_are_an_error() {
        let r = results();
        assert!(facts(&[&r[0], &r[1]]).is_err());
    }
}
