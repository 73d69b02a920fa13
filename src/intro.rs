//! The guided introduction: a tiny hand-made trace on the `teaching` cluster, run for real
//! under four policies in the worker, and the numbers the walk-through quotes, read from
//! those runs. Nothing here is canned: change the trace and the text follows.
//!
//! The trace repeats one situation ([`EPISODES`] times, [`EPISODE_S`] apart). Four
//! ResNet-18 jobs of 3 GPUs start at once and take one server each, leaving one GPU free
//! per server: four free GPUs, all in different servers. Ten seconds later a VGG-16 job
//! asks for 4 GPUs. It can start at once spread over four servers in two racks, or wait
//! for the short ResNet-18 job, whose server frees up 120 s into the episode.

use crate::protocol::{RunRequest, TopologyInput, TraceInput};
use proxima_core::engine::{JobStatus, Simulation};
use proxima_core::event::{Observer, PolicyNote, SimEvent};
use proxima_core::time::SimTime;
use serde::{Deserialize, Serialize};

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

/// The policies it compares, in the order the steps use them.
pub const POLICIES: [&str; 4] = [
    "consolidate",
    "dally:preempt=off,autotune=off",
    "dally:preempt=off,autotune=off,timers=60/30",
    "dally:preempt=off,timers=30/15",
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
        topology: TopologyInput::Arg(TOPOLOGY.into()),
        trace: TraceInput::File { name: "introduction.csv".into(), text: trace_csv() },
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyFacts {
    pub policy: String,
    /// Per episode: the sensitive job's wait, its tier's name, and its completion time
    /// (JCT), in seconds.
    pub waited_s: Vec<f64>,
    pub tier: Vec<String>,
    pub jct_s: Vec<f64>,
    /// The delay timer changes: (seconds, tier name, old, new).
    pub timer_changes: Vec<(f64, String, f64, f64)>,
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
}

/// The numbers of the walk-through, one [`PolicyFacts`] per policy in [`POLICIES`] order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IntroFacts {
    pub policies: Vec<PolicyFacts>,
    /// How much slower the sensitive job runs spread over four servers than in one
    /// (its iteration time there over its ideal one).
    pub spread_slowdown: f64,
}

/// Collects the timer changes of a run.
#[derive(Default)]
pub struct TimerNotes(pub Vec<(SimTime, usize, f64, f64)>);

impl Observer for TimerNotes {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        if let SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, .. } } = event {
            self.0.push((now, tier.0 as usize, *old_s, *new_s));
        }
    }
}

/// The facts of one finished run of the introduction's trace.
pub fn facts_of(policy: &str, sim: &Simulation, timers: &[(SimTime, usize, f64, f64)]) -> PolicyFacts {
    let scenario = sim.scenario();
    let topo = &scenario.topology;
    let mut f = PolicyFacts { policy: policy.to_string(), ..PolicyFacts::default() };
    for e in 0..EPISODES {
        let j = sensitive_job(e) as usize;
        let (job, run) = (&scenario.jobs[j], &sim.runs()[j]);
        if run.status != JobStatus::Completed {
            continue;
        }
        f.waited_s.push(run.queued_total.as_secs_f64());
        f.tier.push(run.tier.map(|t| topo.tier_name(t).to_string()).unwrap_or_default());
        f.jct_s.push((run.end.expect("completed") - job.submit).as_secs_f64());
    }
    f.timer_changes = timers.iter().map(|&(t, tier, old, new)| (t.as_secs_f64(), topo.tier_name(proxima_core::topology::Tier(tier as u8)).to_string(), old, new)).collect();
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::build_request_scenario;
    use proxima_core::policy::resolve_policy;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn facts() -> Vec<PolicyFacts> {
        let scenario = build_request_scenario(&request(1)).unwrap();
        POLICIES
            .iter()
            .map(|p| {
                let mut sim = Simulation::new(scenario.clone(), resolve_policy(p).unwrap());
                let notes = Rc::new(RefCell::new(TimerNotes::default()));
                sim.add_observer(Box::new(crate::eventlog::Shared(notes.clone())));
                sim.run();
                let n = notes.borrow();
                facts_of(p, &sim, &n.0)
            })
            .collect()
    }

    /// The story the walk-through tells must be what the runs do.
    #[test]
    fn the_runs_tell_the_story() {
        let f = facts();
        let [consolidate, wait, short, tuned] = [&f[0], &f[1], &f[2], &f[3]];
        for p in &f {
            assert_eq!(p.jct_s.len(), EPISODES as usize, "{}: every sensitive job completes", p.policy);
        }
        // Consolidate starts it at once, spread, slower.
        assert_eq!(consolidate.waited_s[0], 0.0);
        assert_eq!(consolidate.tier[0], "cluster");
        assert!(consolidate.jct_s[0] > SENSITIVE_S as f64 * 1.2);
        // Waiting for the server that frees at 120 s pays.
        assert_eq!(wait.tier[0], "server");
        assert_eq!(wait.waited_s[0], (SHORT_JOB_S - SENSITIVE_AT_S) as f64);
        assert_eq!(wait.jct_s[0], (SHORT_JOB_S - SENSITIVE_AT_S + SENSITIVE_S) as f64);
        assert!(wait.jct_s[0] < consolidate.jct_s[0]);
        // A 60 s timer gives up before the server frees: worse than not waiting at all.
        assert_eq!(short.tier[0], "cluster");
        assert!(short.waited_s[0] >= 60.0 && short.waited_s[0] < 61.0, "{}", short.waited_s[0]);
        assert!(short.jct_s[0] > consolidate.jct_s[0]);
        // The tuner, starting at 30 s, raises the server timer past the 110 s wait.
        assert!(tuned.tier[0] != "server");
        let settled = tuned.settled_from().expect("the tuner finds a timer that works");
        assert!(settled < EPISODES as usize - 3, "settled at episode {settled}");
        let last_server = tuned.timer_changes.iter().filter(|c| c.1 == "server").last().unwrap();
        assert!(last_server.3 >= (SHORT_JOB_S - SENSITIVE_AT_S) as f64, "{last_server:?}");
        assert!(tuned.jct_s[EPISODES as usize - 1] == wait.jct_s[0]);
    }
}
