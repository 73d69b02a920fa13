//! The gallery of lessons: named scenarios, each with two sentences on what it shows, what
//! to watch, and the claim it makes as data. The tests below run every lesson through the
//! core and check its claim, so a change to the simulator or a policy that stops a lesson
//! from teaching fails the build instead of leaving a page that says something untrue.

use crate::editor::cluster_file::import_cluster;
use crate::scenario::defaults::{
    default_scenario, DEFAULT_TOPOLOGY, FIRST_RUN_JOBS, FIRST_RUN_MIX, FIRST_RUN_TOPOLOGY,
};
use proxima_core::share::{SharedScenario, TopologyChoice, TraceChoice};

/// What a lesson's run shows, checked by the tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Claim {
    /// `policy`'s mean JCT is at most `ratio` × `other`'s.
    MeanJctBelow { policy: &'static str, other: &'static str, ratio: f64 },
    /// `policy`'s median JCT is at most `ratio` × `other`'s.
    MedianJctBelow { policy: &'static str, other: &'static str, ratio: f64 },
    /// `policy`'s p99 JCT is at most `ratio` × `other`'s: the longest jobs, the largest.
    P99JctBelow { policy: &'static str, other: &'static str, ratio: f64 },
    /// `policy`'s mean JCT is within `ratio` of `other`'s, either way: the two place alike.
    MeanJctSame { policy: &'static str, other: &'static str, ratio: f64 },
    /// `policy` leaves exactly `jobs` jobs unfinished at the end of the run (queued for
    /// ever: a required level no domain of which holds them).
    Unfinished { policy: &'static str, jobs: u32 },
    /// `policy`'s communication overhead is at most `ratio` × `other`'s.
    OverheadBelow { policy: &'static str, other: &'static str, ratio: f64 },
    /// The auto-tuner of `policy` changes a timer at least `at_least` times.
    TimerChanges { policy: &'static str, at_least: u64 },
    /// Every policy's mean JCT is within `ratio` of the best one's.
    AllWithin { ratio: f64 },
}

/// A lesson's cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LessonTopology {
    /// The parametric form `racks=R,servers=S,gpus=G[,...]`.
    Parametric(&'static str),
    /// A cluster file (Kueue, Volcano, Slurm, ...) imported as the editor's Open imports
    /// it, with the import box's options for what the file does not say
    /// (`nic_gbps=100`), so the scenario names it as an imported cluster.
    File { name: &'static str, text: &'static str, options: &'static str },
}

impl LessonTopology {
    /// The scenario's choice of cluster. A lesson's file is part of the build and the
    /// lessons' test imports it, so it always imports.
    pub fn choice(&self) -> TopologyChoice {
        match *self {
            LessonTopology::Parametric(text) => {
                TopologyChoice::from_argument(text).expect("a lesson's parametric cluster is valid")
            }
            LessonTopology::File { name, text, options } => {
                let (topology, _) = import_cluster(name, text, options).expect("a lesson's cluster file imports");
                TopologyChoice::Custom(topology.spec().clone())
            }
        }
    }

    /// The cluster as the gallery names it.
    pub fn describe(&self) -> String {
        match *self {
            LessonTopology::Parametric(text) => text.to_string(),
            LessonTopology::File { name, options, .. } => format!("{name} ({options})"),
        }
    }
}

/// The Kueue file of Kueue's TAS guide: 8 nodes of 8 GPUs, 2 nodes a rack, 2 racks a block.
const KUEUE_TAS_CLUSTER: &str = include_str!("../tests/fixtures/kueue/cluster.yaml");

/// A named scenario with what it teaches.
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    /// Stable name, for the page's test ids.
    pub id: &'static str,
    pub title: &'static str,
    /// Two sentences: what happens in this scenario and why.
    pub explanation: &'static str,
    /// What to look at in the results.
    pub watch: &'static str,
    pub topology: LessonTopology,
    pub jobs: u32,
    pub load: f64,
    /// The model mix (`--mix`), when not the default.
    pub mix: Option<&'static str>,
    pub policies: &'static [&'static str],
    pub claims: &'static [Claim],
}

impl Lesson {
    /// The lesson as a scenario to load into the form.
    pub fn scenario(&self) -> SharedScenario {
        SharedScenario {
            topology: self.topology.choice(),
            trace: TraceChoice::Synthetic { jobs: self.jobs, load: self.load, seed: 1, tenants: None },
            mix: self.mix.map(str::to_string),
            policies: self.policies.iter().map(|p| p.to_string()).collect(),
            seed: 1,
        }
    }
}

/// The id of the lesson whose scenario this is, unchanged.
pub fn lesson_of(scenario: &SharedScenario) -> Option<&'static str> {
    LESSONS.iter().find(|l| l.scenario() == *scenario).map(|l| l.id)
}

/// The lessons, in the order the page shows them. All but the first run use the congested
/// cluster of [`DEFAULT_TOPOLOGY`] (32 GPUs, 32:1 uplinks, TCP) unless they say otherwise. "A timer too short" is the
/// guided tour's third step: on the synthetic traces here the timers' length changes mean
/// JCT by well under 1%, so no synthetic scenario teaches it honestly yet. "A wait that
/// pays" is gone for the same kind of reason: since `dally` estimates run times instead of
/// reading them, its bounded waits on this cluster (1,000 jobs at load 0.9 and at 1.2,
/// seeds 1–10) change nothing on half the seeds and otherwise go either way, from 0.73× to
/// 1.56× the mean JCT of `dally:delay=off`, so one seed's gain would teach luck.
pub const LESSONS: &[Lesson] = &[
    Lesson {
        id: "first-run",
        title: "Dally against consolidation",
        explanation: "On a loaded cluster whose servers share thin NICs and uplinks, a job spread over servers trains slower. Consolidation takes the tightest placement free now; Dally lets sensitive jobs decline scattered GPUs and wait a bounded time for one server, and preempts to make room.",
        watch: "Mean JCT of dally against consolidate, the playback's first wait (a job declining free GPUs, its ghost and countdown), and the timer chart: the auto-tuner moves a timer during the run.",
        topology: LessonTopology::Parametric(FIRST_RUN_TOPOLOGY),
        jobs: FIRST_RUN_JOBS,
        load: 0.9,
        mix: Some(FIRST_RUN_MIX),
        policies: &["fifo", "consolidate", "dally"],
        claims: &[
            Claim::MeanJctBelow { policy: "dally", other: "consolidate", ratio: 0.7 },
            Claim::TimerChanges { policy: "dally", at_least: 1 },
        ],
    },
    Lesson {
        id: "shared-uplink",
        title: "Contention on a shared uplink",
        explanation: "FIFO takes the first free GPUs wherever they are, so many jobs straddle the racks and share the 32:1 uplinks. Consolidation keeps each job inside a server or a rack when it can, and the gradient exchanges stop competing.",
        watch: "Communication overhead: fifo's is more than five times consolidate's, and its mean JCT more than twice as long.",
        topology: LessonTopology::Parametric(DEFAULT_TOPOLOGY),
        jobs: 1000,
        load: 0.9,
        mix: None,
        policies: &["fifo", "consolidate"],
        claims: &[
            Claim::OverheadBelow { policy: "consolidate", other: "fifo", ratio: 0.2 },
            Claim::MeanJctBelow { policy: "consolidate", other: "fifo", ratio: 0.5 },
        ],
    },
    Lesson {
        id: "preemption-pays",
        title: "A preemption that pays",
        explanation: "When the queue is long, Dally preempts a job that tolerates a scattered placement to free a tight one for a sensitive job. The preempted job loses a little, the sensitive one gains much more.",
        watch: "Preemptions and mean JCT of dally against dally:preempt=off: a few dozen preemptions cut mean JCT by more than a seventh.",
        topology: LessonTopology::Parametric(DEFAULT_TOPOLOGY),
        jobs: 1000,
        load: 0.9,
        mix: None,
        policies: &["dally:preempt=off", "dally"],
        claims: &[Claim::MeanJctBelow { policy: "dally", other: "dally:preempt=off", ratio: 0.85 }],
    },
    Lesson {
        id: "preemption-costs",
        title: "A preemption that does not pay",
        explanation: "On uplinks oversubscribed 64:1 a job spread over both racks is slow enough that Dally preempts to keep sensitive jobs tight, but with fewer jobs and less load the queue is short and a tight placement would soon have come free anyway. Each preemption still costs the stopped job its wait to get GPUs back and the time to restore its checkpoint.",
        watch: "Mean JCT, mean queueing, communication overhead and preemptions of dally against dally:preempt=off: the preemptions all but remove the overhead, yet jobs queue more than three times as long and mean JCT is more than a quarter longer.",
        topology: LessonTopology::Parametric("racks=2,servers=4,gpus=4,oversub=64,fabric=tcp"),
        jobs: 600,
        load: 0.7,
        mix: None,
        policies: &["dally:preempt=off", "dally"],
        claims: &[Claim::MeanJctBelow { policy: "dally:preempt=off", other: "dally", ratio: 0.8 }],
    },
    Lesson {
        id: "auto-tuner",
        title: "The auto-tuner finding its level",
        explanation: "Both runs start with 5-second delay timers: one keeps them, the other lets the auto-tuner revisit them every ten minutes of simulated time. The tuner moves the timers about ten times, yet mean JCT stays the same: on this cluster what pays is preempting, not the length of the wait.",
        watch: "The timer chart of dally:timers=5/5: the marks where the tuner moved a timer and the levels it chose; mean JCT equal to the static run's.",
        topology: LessonTopology::Parametric(DEFAULT_TOPOLOGY),
        jobs: 1000,
        load: 0.9,
        mix: None,
        policies: &["dally:timers=5/5,autotune=off", "dally:timers=5/5"],
        claims: &[
            Claim::TimerChanges { policy: "dally:timers=5/5", at_least: 5 },
            Claim::AllWithin { ratio: 1.02 },
        ],
    },
    Lesson {
        id: "service-order",
        title: "Arrival order, service order, and both with the network",
        explanation: "dally serves waiting jobs in arrival order and places them with the network in mind; tiresias serves the job that has had the least GPU-time first, so short jobs overtake long ones, but it takes GPUs wherever they free up; dally:order=las does both. None of them knows a job's run time: service order finds the long jobs by watching them run.",
        watch: "Median JCT of tiresias and dally:order=las less than half of dally's (short jobs go first); communication overhead of tiresias ten times dally's (its jobs straddle the 32:1 uplinks); mean JCT of dally:order=las about a third below both.",
        topology: LessonTopology::Parametric(DEFAULT_TOPOLOGY),
        jobs: 1000,
        load: 0.9,
        mix: None,
        policies: &["dally", "tiresias", "dally:order=las"],
        claims: &[
            Claim::MedianJctBelow { policy: "tiresias", other: "dally", ratio: 0.5 },
            Claim::MedianJctBelow { policy: "dally:order=las", other: "dally", ratio: 0.5 },
            Claim::OverheadBelow { policy: "dally", other: "tiresias", ratio: 0.2 },
            Claim::MeanJctBelow { policy: "dally:order=las", other: "dally", ratio: 0.75 },
            Claim::MeanJctBelow { policy: "dally:order=las", other: "tiresias", ratio: 0.75 },
        ],
    },
    Lesson {
        id: "wait-preempt",
        title: "Waiting and preempting, each alone and both",
        explanation: "dally has two ways to get a job a tight placement: wait a while for one (its delay timers) and checkpoint less sensitive jobs to make one (preemption). Here they are apart and together. On this loaded cluster a job queues for hours before any GPU frees, and its timer (minutes) runs out during that queue, so waiting alone lands every job where consolidate would: dally:preempt=off is consolidate, to the second. Preemption is what keeps jobs off the 32:1 uplinks. Whether waiting on top of preemption helps differs from seed to seed (on seed 1 it costs, on seed 3 it helps a little).",
        watch: "Mean JCT: dally:preempt=off equal to dally:delay=off,preempt=off and to consolidate; dally:delay=off and dally well below them; communication overhead of the preempting policies under half of consolidate's.",
        topology: LessonTopology::Parametric(DEFAULT_TOPOLOGY),
        jobs: 1000,
        load: 0.9,
        mix: None,
        policies: &["consolidate", "dally:delay=off,preempt=off", "dally:preempt=off", "dally:delay=off", "dally"],
        claims: &[
            Claim::MeanJctSame { policy: "dally:delay=off,preempt=off", other: "consolidate", ratio: 1.001 },
            Claim::MeanJctSame { policy: "dally:preempt=off", other: "consolidate", ratio: 1.001 },
            Claim::MeanJctBelow { policy: "dally:delay=off", other: "consolidate", ratio: 0.8 },
            Claim::MeanJctBelow { policy: "dally", other: "consolidate", ratio: 0.9 },
            Claim::OverheadBelow { policy: "dally:delay=off", other: "consolidate", ratio: 0.5 },
            Claim::OverheadBelow { policy: "dally", other: "consolidate", ratio: 0.5 },
        ],
    },
    Lesson {
        id: "light-load",
        title: "Light load, where no policy matters",
        explanation: "At a fifth of the cluster's capacity almost every job finds a tight placement free the moment it arrives. There is nothing to wait for and nobody to preempt, so every policy places jobs alike.",
        watch: "Mean JCT: fifo, consolidate and dally within 3% of each other; raise the offered load to see them part.",
        topology: LessonTopology::Parametric(DEFAULT_TOPOLOGY),
        jobs: 300,
        load: 0.2,
        mix: None,
        policies: &["fifo", "consolidate", "dally"],
        claims: &[Claim::AllWithin { ratio: 1.03 }],
    },
    Lesson {
        id: "llm-thin-network",
        title: "LLMs on a thin network: placement decides",
        explanation: "Today's models exchange gigabytes every step: LLaMA 7B and 13B sharded (FSDP) and GPT-2 XL in bf16, on A100 servers with one 100 Gbit/s NIC each and racks sharing uplinks 16:1. A 16-GPU LLaMA job spread over racks is about 3.5 times slower than inside a rack even alone (GPT-2 XL 1.5 times), and slower still when its ring shares the uplinks with others.",
        watch: "Mean JCT and communication overhead of random against consolidate and dally: scattering jobs makes mean JCT 2.5 times as long here, and dally is a tenth faster than consolidate (the placement map in docs/EXPERIMENTS.md has the whole picture).",
        topology: LessonTopology::Parametric("racks=4,servers=4,gpus=8,oversub=16,nic_gbps=100"),
        jobs: 300,
        load: 0.8,
        mix: Some("llm"),
        policies: &["consolidate", "random", "dally"],
        claims: &[
            Claim::MeanJctBelow { policy: "consolidate", other: "random", ratio: 0.5 },
            Claim::MeanJctBelow { policy: "dally", other: "consolidate", ratio: 0.9 },
        ],
    },
    Lesson {
        id: "llm-rich-network",
        title: "LLMs on a rich network: placement is free",
        explanation: "The same jobs on servers with eight 400 Gbit/s NICs each and uplinks as wide as the servers below them. A ring spread over racks drives as much bandwidth as one inside a rack, and NVLink's edge inside a server hides behind compute, so where a job lands hardly matters.",
        watch: "Mean JCT: random, consolidate and dally come out equal (on the thin network random took 2.5 times as long as consolidate).",
        topology: LessonTopology::Parametric("racks=4,servers=4,gpus=8,nics=8,nic_gbps=400"),
        jobs: 300,
        load: 0.8,
        mix: Some("llm"),
        policies: &["consolidate", "random", "dally"],
        claims: &[Claim::AllWithin { ratio: 1.03 }],
    },
    Lesson {
        id: "kueue-cluster",
        title: "Your Kueue cluster: what would Kueue do, with a time limit, with eviction, and dally",
        explanation: "The cluster of Kueue's Topology Aware Scheduling guide, imported from its Kueue file (8 nodes of 8 GPUs, two nodes a rack, one 100 Gbit/s NIC per node), with 1,000 of today's models at load 1.2. Kueue with the rack required never crosses a rack: the one 32-GPU job, larger than any rack, never starts, and the required level's mean JCT counts only the 999 jobs that finished. Proxima's tuned time limit (required_for_s=auto) finds that waiting for a rack gains a job nothing here, since every rack uplink is as wide as its nodes' NICs, so it lets every job widen at once and places exactly as preferred does: every job runs, but the widened jobs' rings cross the 100 Gbit/s NICs and mean JCT is nearly a third longer than the required level's. Eviction (evict=on) moves small jobs out of the way of the 8- and 12-GPU jobs: the 8-GPU jobs wait two fifths less, the 12-GPU job less than half as long, the 1- to 4-GPU jobs longer, and the median job's JCT doubles. dally places every job, but its jobs queue three times as long as under the required level; dally:order=las, least attained service first with the same network awareness, places every job with the lowest mean JCT of all. To try your own cluster, open or drop its Kueue, Volcano or Slurm file on the topology editor, or run proxima what-if on the command line (docs/OPERATORS.md).",
        watch: "Jobs unfinished: 1 for the required level (with or without eviction), 0 for the others. Mean JCT of the tuned limit equal to preferred's. Median JCT of the required level less than half its median with eviction, and p99 JCT (the large jobs) a tenth lower with eviction. Mean JCT of dally:order=las below every other, dally's the highest.",
        topology: LessonTopology::File { name: "cluster.yaml", text: KUEUE_TAS_CLUSTER, options: "nic_gbps=100" },
        jobs: 1000,
        load: 1.2,
        mix: Some("llm"),
        policies: &[
            "kueue-tas:required=cloud.provider.com/topology-rack",
            "kueue-tas:required=cloud.provider.com/topology-rack,required_for_s=auto",
            "kueue-tas:required=cloud.provider.com/topology-rack,evict=on",
            "kueue-tas:preferred=cloud.provider.com/topology-rack",
            "dally",
            "dally:order=las",
        ],
        claims: &[
            Claim::Unfinished { policy: "kueue-tas:required=cloud.provider.com/topology-rack", jobs: 1 },
            Claim::Unfinished { policy: "kueue-tas:required=cloud.provider.com/topology-rack,evict=on", jobs: 1 },
            Claim::Unfinished {
                policy: "kueue-tas:required=cloud.provider.com/topology-rack,required_for_s=auto",
                jobs: 0,
            },
            Claim::Unfinished { policy: "dally", jobs: 0 },
            Claim::Unfinished { policy: "dally:order=las", jobs: 0 },
            Claim::MeanJctSame {
                policy: "kueue-tas:required=cloud.provider.com/topology-rack,required_for_s=auto",
                other: "kueue-tas:preferred=cloud.provider.com/topology-rack",
                ratio: 1.001,
            },
            Claim::MeanJctBelow {
                policy: "kueue-tas:required=cloud.provider.com/topology-rack",
                other: "kueue-tas:required=cloud.provider.com/topology-rack,required_for_s=auto",
                ratio: 0.8,
            },
            Claim::MedianJctBelow {
                policy: "kueue-tas:required=cloud.provider.com/topology-rack",
                other: "kueue-tas:required=cloud.provider.com/topology-rack,evict=on",
                ratio: 0.5,
            },
            Claim::P99JctBelow {
                policy: "kueue-tas:required=cloud.provider.com/topology-rack,evict=on",
                other: "kueue-tas:required=cloud.provider.com/topology-rack",
                ratio: 0.95,
            },
            Claim::MeanJctBelow {
                policy: "dally:order=las",
                other: "kueue-tas:required=cloud.provider.com/topology-rack",
                ratio: 0.95,
            },
            Claim::MeanJctBelow { policy: "dally:order=las", other: "dally", ratio: 0.65 },
            Claim::MeanJctBelow {
                policy: "kueue-tas:required=cloud.provider.com/topology-rack",
                other: "dally",
                ratio: 0.7,
            },
        ],
    },
];

/// The first lesson is the page's default scenario.
pub fn first_run_matches_default() -> bool {
    LESSONS[0].scenario() == default_scenario()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::engine::Simulation;
    use proxima_core::event::{Observer, PolicyNote, SimEvent};
    use proxima_core::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
    use proxima_core::metrics::Summary;
    use proxima_core::policy::resolve_policy;
    use proxima_core::time::SimTime;
    use std::cell::Cell;
    use std::collections::BTreeMap;
    use std::rc::Rc;

    struct TimerCount(Rc<Cell<u64>>);

    impl Observer for TimerCount {
        fn observe(&mut self, _now: SimTime, event: &SimEvent) {
            if let SimEvent::Policy { note: PolicyNote::TimerChanged { .. } } = event {
                self.0.set(self.0.get() + 1);
            }
        }
    }

    /// Each policy's summary and timer changes, run through the core as the worker runs it.
    fn run(lesson: &Lesson) -> BTreeMap<&'static str, (Summary, u64)> {
        let s = lesson.scenario();
        let TraceChoice::Synthetic { jobs, load, seed, .. } = s.trace else { unreachable!("lessons are synthetic") };
        let trace = proxima_core::trace::synthetic::SyntheticSpec { jobs, load, seed }.to_string();
        let mut input = ScenarioInput::new(TopologyInput::from(&s.topology), TraceInput::Synthetic(trace), s.seed);
        input.mix = s.mix.clone();
        let scenario = build_scenario(&input).unwrap();
        lesson
            .policies
            .iter()
            .map(|p| {
                let mut sim = Simulation::new(scenario.clone(), resolve_policy(p).unwrap());
                let changes = Rc::new(Cell::new(0));
                sim.add_observer(Box::new(TimerCount(changes.clone())));
                while sim.step().is_some() {}
                (*p, (sim.summary(), changes.get()))
            })
            .collect()
    }

    #[test]
    fn every_lesson_shows_what_it_claims() {
        assert!(first_run_matches_default(), "the first lesson is the page's first run");
        for lesson in LESSONS {
            let results = run(lesson);
            let jct = |p: &str| results[p].0.avg_jct_s;
            for claim in lesson.claims {
                let holds = match *claim {
                    Claim::MeanJctBelow { policy, other, ratio } => jct(policy) <= ratio * jct(other),
                    Claim::MedianJctBelow { policy, other, ratio } => {
                        results[policy].0.p50_jct_s <= ratio * results[other].0.p50_jct_s
                    }
                    Claim::P99JctBelow { policy, other, ratio } => {
                        results[policy].0.p99_jct_s <= ratio * results[other].0.p99_jct_s
                    }
                    Claim::MeanJctSame { policy, other, ratio } => {
                        jct(policy) <= ratio * jct(other) && jct(other) <= ratio * jct(policy)
                    }
                    Claim::Unfinished { policy, jobs } => results[policy].0.jobs_unfinished == jobs,
                    Claim::OverheadBelow { policy, other, ratio } => {
                        results[policy].0.comm_overhead_s <= ratio * results[other].0.comm_overhead_s
                    }
                    Claim::TimerChanges { policy, at_least } => results[policy].1 >= at_least,
                    Claim::AllWithin { ratio } => {
                        let all: Vec<f64> = results.values().map(|r| r.0.avg_jct_s).collect();
                        let best = all.iter().copied().fold(f64::INFINITY, f64::min);
                        all.iter().all(|&j| j <= ratio * best)
                    }
                };
                let seen: Vec<String> = results
                    .iter()
                    .map(|(p, (s, t))| {
                        format!(
                            "{p}: mean JCT {:.0} s, median {:.0} s, p99 {:.0} s, overhead {:.0} s, {} unfinished, {t} timer changes",
                            s.avg_jct_s, s.p50_jct_s, s.p99_jct_s, s.comm_overhead_s, s.jobs_unfinished
                        )
                    })
                    .collect();
                assert!(holds, "lesson {:?} no longer shows {claim:?}: {}", lesson.title, seen.join("; "));
            }
        }
    }
}
