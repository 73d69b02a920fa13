//! The policies as data: each one's name, what it does, where it comes from and its
//! options (key, kind, default, meaning), and the set the app offers with a checkbox.
//! `proxima policies`, Python's `proxima.policies()`, the app's policy list and the table
//! in `docs/SCHEDULER.md` all come from here, and a test checks that every default here is
//! the one the policy really takes.

/// What values an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `on` or `off`.
    Switch,
    /// Seconds, at least 0.
    Seconds,
    /// Seconds, or `off` for none.
    SecondsOrOff,
    /// Seconds, `auto` to tune them online, or `off` for none.
    SecondsAutoOrOff,
    /// A number.
    Number,
    /// A whole number.
    Whole,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// Seconds per tier, tightest first, separated by `/`.
    PerTier,
    /// GPU-seconds thresholds separated by `/`, or `none`.
    Thresholds,
    /// `run` (the run's seed) or a whole number.
    Seed,
    /// Sizes in blocks, powers of two from 1 up, separated by `/`.
    BlockSizes,
}

impl OptionKind {
    /// The values in words, for listings.
    pub fn values(&self) -> String {
        match self {
            OptionKind::Switch => "on|off".into(),
            OptionKind::Seconds => "seconds".into(),
            OptionKind::SecondsOrOff => "seconds|off".into(),
            OptionKind::SecondsAutoOrOff => "seconds|auto|off".into(),
            OptionKind::Number => "number".into(),
            OptionKind::Whole => "whole number".into(),
            OptionKind::Choice(words) => words.join("|"),
            OptionKind::PerTier => "seconds per tier, e.g. 300/150".into(),
            OptionKind::Thresholds => "GPU-seconds, e.g. 3250/7200, or none".into(),
            OptionKind::Seed => "run|whole number".into(),
            OptionKind::BlockSizes => "blocks, powers of two from 1 up, e.g. 1/2/4".into(),
        }
    }
}

/// One option of a policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyOption {
    pub key: &'static str,
    pub kind: OptionKind,
    pub default: &'static str,
    pub meaning: &'static str,
    /// Another option the policy needs set for this one to apply, e.g. `migrate=on`.
    pub requires: Option<&'static str>,
}

/// A policy: its name, what it does, where it comes from, and its options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub source: &'static str,
    pub options: &'static [PolicyOption],
}

impl PolicyInfo {
    /// The options on one line with their defaults: `backfill=on (…), quota=off (…)`.
    pub fn options_line(&self) -> String {
        let one = |o: &PolicyOption| match o.requires {
            Some(r) => format!("{}={} ({}; with {r})", o.key, o.default, o.meaning),
            None => format!("{}={} ({})", o.key, o.default, o.meaning),
        };
        self.options.iter().map(one).collect::<Vec<_>>().join(", ")
    }
}

/// A spec the app offers with a checkbox, and what it is in a few words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recommended {
    pub spec: &'static str,
    pub what: &'static str,
}

const fn opt(key: &'static str, kind: OptionKind, default: &'static str, meaning: &'static str) -> PolicyOption {
    PolicyOption { key, kind, default, meaning, requires: None }
}

const fn opt_with(
    key: &'static str,
    kind: OptionKind,
    default: &'static str,
    meaning: &'static str,
    requires: &'static str,
) -> PolicyOption {
    PolicyOption { key, kind, default, meaning, requires: Some(requires) }
}

use OptionKind::*;

const BACKFILL: PolicyOption = opt("backfill", Switch, "on", "off: a job that cannot start blocks the jobs behind it");
const QUOTA: PolicyOption = opt("quota", Switch, "off", "on: tenants' quotas, with jobs beyond them reclaimable");
const RESTORE: PolicyOption = opt("restore_s", Seconds, "30", "checkpoint and restore cost a preempted job pays");
/// Where a policy that predicts slowdowns reads them ([`super::mechanisms::profile`]); `requires` is
/// what the policy needs set for it to predict any.
const fn profile(requires: Option<&'static str>) -> PolicyOption {
    PolicyOption {
        key: "profile",
        kind: Choice(&["table", "exact"]),
        default: "table",
        meaning: "predicted slowdowns from a table measured on an idle cluster (per model, GPU count and tier), stretched by observed link shares; exact: the engine's own model with every link's live load, for ablation only",
        requires,
    }
}
const fn profile_error(requires: &'static str) -> PolicyOption {
    opt_with(
        "profile_error",
        Number,
        "0",
        "each job's predicted communication time off by a factor drawn uniformly in [1-E, 1+E], fixed per job (a hash of its id and the run's seed); E in [0, 1)",
        requires,
    )
}
const RESTORE_QUOTA: PolicyOption =
    opt_with("restore_s", Seconds, "30", "checkpoint and restore cost a reclaimed job pays", "quota=on");

pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "fifo",
        summary: "First come, first served; a job takes the first free GPUs in index order, wherever they are. The topology-oblivious baseline.",
        source: "a scheduler that only counts GPUs",
        options: &[BACKFILL, QUOTA, RESTORE_QUOTA],
    },
    PolicyInfo {
        name: "consolidate",
        summary: "First come, first served; a job takes the tightest placement free now (one server if it can, else one rack, ...), best fit within that tier, and never waits for a better one. With `migrate=on`, running jobs are checkpointed and moved to defragment, network-blind, at `dally`'s restore cost and guard rails.",
        source: "\"tighter is better\" packing; migration as in Gandiva (Xiao et al., OSDI 2018)",
        options: &[
            BACKFILL,
            opt("migrate", Switch, "off", "on: move running jobs to tighter placements and out of the way"),
            opt("restore_s", Seconds, "30", "checkpoint and restore cost a moved or reclaimed job pays"),
            opt_with("min_run_s", Seconds, "600", "a job runs this long before it may be moved", "migrate=on"),
            opt_with("max_preempt", Whole, "2", "moves per job at most", "migrate=on"),
            QUOTA,
        ],
    },
    PolicyInfo {
        name: "strict",
        summary: "First come, first served with backfill; every job waits, without limit, for its tightest tier.",
        source: "the consolidation constraint Tiresias (Gu et al., NSDI 2019) describes",
        options: &[BACKFILL, QUOTA, RESTORE_QUOTA],
    },
    PolicyInfo {
        name: "slurm",
        summary: "A job waits up to `wait_s` for a placement under at most `switches` leaf switches, then takes the tightest free. With `block=on`, Slurm's topology/block placement instead: the leaf switches are the blocks, and a job goes to the best-fitting aligned run of 2^k blocks of the smallest size in `block_sizes` that holds it, waiting (by default as long as it takes) when none does. With `evict=on`, running jobs are checkpointed and moved to defragment, as `consolidate:migrate=on` does.",
        source: "Slurm `--switches=N@max-time` (sbatch(1)); `max_switch_wait` default 300 s (SchedMD/slurm `src/slurmctld/job_mgr.c`); `src/plugins/topology/block/eval_nodes_block.c`, `block_record.c` (default block sizes)",
        options: &[
            opt("switches", Whole, "1", "leaf switches a placement may span while the job waits (not with block=on)"),
            opt("wait_s", SecondsAutoOrOff, "300", "how long a job waits for that; with block=on the default is off (as long as it takes, as Slurm's block plugin) and a number is Proxima's timer; auto: tuned online as dally's timers (Proxima's)"),
            profile(Some("wait_s=auto")),
            profile_error("wait_s=auto"),
            opt("block", Switch, "off", "on: Slurm's topology/block placement, the leaf switches as blocks"),
            opt_with("block_sizes", BlockSizes, "1/2/4/8/16", "aggregated block sizes a job may be confined to, in blocks, from 1 up in powers of two", "block=on"),
            opt("evict", Switch, "off", "on: move running jobs to tighter placements and out of the way"),
            opt_with("restore_s", Seconds, "30", "checkpoint and restore cost a moved (evict=on) or reclaimed (quota=on) job pays", "evict=on"),
            opt_with("min_run_s", Seconds, "600", "a job runs this long before it may be moved", "evict=on"),
            opt_with("max_preempt", Whole, "2", "moves per job at most", "evict=on"),
            opt("quota", Switch, "off", "on: tenants' quotas, with jobs beyond them reclaimable (not with evict=on)"),
        ],
    },
    PolicyInfo {
        name: "tiresias",
        summary: "Discretised 2D-LAS: queues by attained GPU-time, preemptive, optional PromoteKnob starvation rule, consolidates only placement-sensitive jobs. `tiresias:queues=57600,starve=off,place=most_free,running_first=off,round_s=60` is the Pollux artifact's `tiresias.py`.",
        source: "Gu et al., NSDI 2019; SymbioticLab/Tiresias `simulator/`; petuum/adaptdl `osdi21-artifact` `simulator/tiresias.py`",
        options: &[
            opt("queues", Thresholds, "3250/7200", "attained GPU-seconds at which a job drops a queue"),
            opt("starve", Switch, "off", "on: PromoteKnob, a job starved for long is promoted"),
            opt("place", Choice(&["skew", "tightest", "most_free", "first_fit"]), "skew", "skew: consolidate only placement-sensitive jobs; tightest: every job"),
            opt("skew", Number, "1.05", "the model skew above which a job is placement-sensitive"),
            opt("running_first", Switch, "on", "within a queue, running jobs before waiting ones"),
            RESTORE,
            opt("round_s", SecondsOrOff, "off", "reschedule only every this many seconds"),
            QUOTA,
        ],
    },
    PolicyInfo {
        name: "srtf",
        summary: "Shortest remaining ideal time first, preemptive (`preempt=off`: shortest job first), tightest placement free now. Clairvoyant: it reads every job's true remaining run time from the trace, which no real scheduler knows. A reference, not a baseline.",
        source: "the Tiresias simulator's `shortest` scheme",
        options: &[opt("preempt", Switch, "on", "off: shortest job first, no preemption"), RESTORE, QUOTA],
    },
    PolicyInfo {
        name: "random",
        summary: "First come, first served with backfill; GPUs drawn uniformly at random among the free ones, from the run's seed.",
        source: "the Tiresias simulator's `random` placement",
        options: &[BACKFILL, opt("seed", Seed, "run", "the draws' seed: the run's, or this number"), QUOTA, RESTORE_QUOTA],
    },
    PolicyInfo {
        name: "dally",
        summary: "The network-sensitive scheduler of arXiv:2401.16492 (v2: \"Dally\"): delay scheduling for consolidation, network-sensitive preemption and auto-tuned delay timers. Ablations: `preempt=off`, `autotune=off` (static timers), `preempt=off,autotune=off` (delay scheduling alone), `delay=off` (preemption without delay), `delay=all` (every job waits its tier's full timer, sensitive or not), `runtime=oracle` (what knowing the future is worth). `order=las` serves jobs least attained service first, in `tiresias`'s queues, and preempts jobs of lower queues for a placement within the tier a job accepts when the exchange pays: Dally's network awareness without its first-come order, knowing no run times.",
        source: "arXiv:2401.16492",
        options: &[
            opt("delay", Choice(&["on", "off", "all"]), "on", "off: no delay timers; all: every job waits its tier's full timer"),
            opt("preempt", Switch, "on", "network-sensitive preemption and re-consolidation"),
            opt("autotune", Switch, "on", "off: the timers stay as given"),
            opt("timers", PerTier, "300/150", "delay timers per tier, tightest first: static, or the tuner's start"),
            opt("threshold", Number, "1.05", "slowdown above which a job is network-sensitive"),
            opt("starve_s", SecondsOrOff, "off", "a job waiting this long gets the cluster reserved for it"),
            RESTORE,
            opt("min_run_s", Seconds, "600", "a job runs this long before it may be preempted"),
            opt("max_preempt", Whole, "2", "preemptions per job at most, of every kind (48 with order=las)"),
            opt("tune_every_s", Seconds, "600", "how often the tuner revises the timers"),
            opt("quota", Switch, "off", "on: tenants' quotas; preemption takes another tenant's job only from a borrower"),
            opt("runtime", Choice(&["estimate", "oracle"]), "estimate", "remaining run times estimated from completed jobs and attained service; oracle: read from the trace, for ablation only (not with order=las)"),
            profile(None),
            profile_error("profile=table"),
            opt("order", Choice(&["fifo", "las"]), "fifo", "the order waiting jobs are served in; las: least attained GPU-time first, lower queues preempted"),
            opt_with("queues", Thresholds, "3600/57600", "attained GPU-seconds at which a job drops a queue", "order=las"),
            opt_with("service", Choice(&["exchange", "priority"]), "exchange", "when a higher queue preempts: exchange, only when the waiter saves more than its victims lose (their slower resume included); priority: always, as tiresias", "order=las"),
        ],
    },
    PolicyInfo {
        name: "kueue-tas",
        summary: "Kueue's Topology Aware Scheduling: jobs admitted in submission order, each within one domain of a topology level. `required`: never across the level, waiting as long as it takes; `preferred` (the default, at the tightest switch tier): the next level up at once when no domain of it holds the job; `unconstrained=on`: anywhere, fullest nodes first (LeastFreeCapacity). Among domains that hold a job, the one with the fewest free GPUs (BestFit). A level is a tier name of the cluster (a Kueue file's node labels), `kubernetes.io/hostname`, `server`, `rack`, `cluster` or `tightest`.",
        source: "kubernetes-sigs/kueue `pkg/cache/scheduler/tas_flavor_snapshot.go` (`findLevelWithFitDomains`, `findBestFitDomainBy`, `sortedDomains`), `site/content/en/docs/concepts/topology_aware_scheduling.md`, `apis/kueue/v1beta2/clusterqueue_types.go` (queueing strategies)",
        options: &[
            opt("preferred", Choice(&["LEVEL", "tightest"]), "tightest", "the level a job prefers, widened level by level at once when no domain holds it"),
            opt("required", Choice(&["LEVEL", "off"]), "off", "the level a job must stay within, however long it waits"),
            opt("unconstrained", Switch, "off", "on: anywhere, fullest servers first (LeastFreeCapacity)"),
            opt("queue", Choice(&["besteffort", "strict"]), "besteffort", "BestEffortFIFO: a job that fits passes a head that does not; strict: StrictFIFO, the head blocks"),
            opt("required_for_s", SecondsAutoOrOff, "off", "with required: the level is required for this long of waiting, then preferred (Proxima's, not Kueue's); auto: tuned online as dally's timers, each job waiting at most what it stands to gain"),
            profile(Some("required=tightest,required_for_s=auto")),
            profile_error("required=tightest,required_for_s=auto"),
            opt("evict", Switch, "off", "on: defragment (not Kueue's): move jobs running wider than their level back into one domain, and server-local jobs out of the way of a job that does not fit"),
            opt_with("restore_s", Seconds, "30", "checkpoint and restore cost a moved job pays", "evict=on"),
            opt_with("min_run_s", Seconds, "600", "a job runs this long before it may be moved", "evict=on"),
            opt_with("max_preempt", Whole, "2", "moves per job at most", "evict=on"),
        ],
    },
    PolicyInfo {
        name: "volcano",
        summary: "Volcano's network-topology-aware scheduling: jobs in submission order (one that does not fit blocks no one), all of a job's GPUs or none. `hard=TIER`: inside one HyperNode of that tier or lower, waiting as long as it takes; `soft=on` (the default): the lowest tier with a HyperNode that holds the job, else anywhere, at once. Among the HyperNodes of that tier that hold it, the fullest after placing it (HyperNode binpack); inside it, servers closest to the job's other GPUs, fullest first. A tier is a number from the servers up or a tier name of the cluster (a Volcano file's `tierName`s).",
        source: "volcano-sh/volcano `pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go` (`hyperNodeGradientFn`, `getSubJobHyperNodeBinPackingScore`), `pkg/scheduler/actions/allocate/allocate.go` (`allocateForJob`), `pkg/scheduler/framework/session.go` (soft as hard at the top), `docs/user-guide/how_to_use_network_topology_aware_scheduling.md`",
        options: &[
            opt("soft", Switch, "on", "the lowest tier with a HyperNode that holds the job, else anywhere, at once"),
            opt("hard", Choice(&["TIER", "off"]), "off", "the highest HyperNode tier a job may use, however long it waits"),
            opt("hard_for_s", SecondsAutoOrOff, "off", "with hard: the tier holds for this long of waiting, then the job is placed as soft (Proxima's, not Volcano's); auto: tuned online as dally's timers"),
            profile(Some("hard=1,hard_for_s=auto")),
            profile_error("hard=1,hard_for_s=auto"),
            opt("evict", Switch, "off", "on: move running jobs to tighter placements and out of a hard job's way, as consolidate:migrate=on (Proxima's; Volcano does not preempt for topology jobs)"),
            opt_with("restore_s", Seconds, "30", "checkpoint and restore cost a moved job pays", "evict=on"),
            opt_with("min_run_s", Seconds, "600", "a job runs this long before it may be moved", "evict=on"),
            opt_with("max_preempt", Whole, "2", "moves per job at most", "evict=on"),
        ],
    },
];

/// The specs the app offers with a checkbox: the baselines, Dally, and its ablations.
pub const RECOMMENDED: &[Recommended] = &[
    Recommended { spec: "fifo", what: "first come, first served; first free GPUs, whatever the topology" },
    Recommended { spec: "consolidate", what: "first come, first served; tightest placement free now, never waits" },
    Recommended {
        spec: "consolidate:migrate=on",
        what: "consolidate, and running jobs are moved to defragment (Gandiva)",
    },
    Recommended {
        spec: "strict",
        what: "first come, first served with backfill; every job waits for its tightest tier",
    },
    Recommended {
        spec: "slurm",
        what: "waits up to 300 s for a placement under one leaf switch, then takes the tightest free",
    },
    Recommended { spec: "tiresias", what: "discretised 2D-LAS by attained GPU-time, preemptive (Tiresias)" },
    Recommended {
        spec: "srtf",
        what: "shortest remaining ideal time first, preemptive; clairvoyant (reads true run times), a reference",
    },
    Recommended { spec: "random", what: "first come, first served with backfill; free GPUs drawn at random" },
    Recommended { spec: "dally", what: "network-sensitive: delay timers, preemption, auto-tuned timers" },
    Recommended {
        spec: "dally:order=las",
        what: "recommended: Dally's placement, delay and preemption, least attained GPU-time first, knowing no run times; within 0.2% of the best fair baseline or better on all 63 development cells and within 0.6% on all 66 held-out cells of the robustness experiment, up to 21% faster on thin networks",
    },
    Recommended { spec: "dally:preempt=off", what: "Dally without preemption" },
    Recommended { spec: "dally:autotune=off", what: "Dally with static timers (300 s server, 150 s rack)" },
    Recommended { spec: "dally:preempt=off,autotune=off", what: "Dally with delay timers only" },
    Recommended { spec: "dally:delay=off", what: "Dally's preemption without delay timers" },
    Recommended { spec: "dally:delay=all", what: "every job waits its tier's full timer, sensitive or not" },
];

/// The policy of that name.
pub fn policy_info(name: &str) -> Option<&'static PolicyInfo> {
    POLICIES.iter().find(|p| p.name == name)
}

/// The catalogue as a Markdown table, as `docs/SCHEDULER.md` shows it.
pub fn markdown_table() -> String {
    let mut out = String::from("| policy | what it does | options (default) | source |\n|---|---|---|---|\n");
    for p in POLICIES {
        let options: Vec<String> = p
            .options
            .iter()
            .map(|o| {
                let with = o.requires.map(|r| format!(", with `{r}`")).unwrap_or_default();
                format!("`{}={}` ({}{with})", o.key, o.default, o.meaning)
            })
            .collect();
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", p.name, p.summary, options.join("; "), p.source));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{resolve_policy, PolicySpec};

    /// Every option is one the policy takes, and its default here is the one the policy
    /// really uses: naming it with that value changes nothing.
    #[test]
    fn every_declared_default_is_the_policys_own() {
        for p in POLICIES {
            let plain = resolve_policy(p.name).unwrap_or_else(|e| panic!("{}: {e}", p.name)).spec();
            for o in p.options {
                let text = match o.requires {
                    Some(r) => format!("{}:{r},{}={}", p.name, o.key, o.default),
                    None => format!("{}:{}={}", p.name, o.key, o.default),
                };
                let with = resolve_policy(&text).unwrap_or_else(|e| panic!("{text}: {e}")).spec();
                let base = match o.requires {
                    Some(r) => resolve_policy(&format!("{}:{r}", p.name)).unwrap().spec(),
                    None => plain.clone(),
                };
                assert_eq!(with, base, "{text} is not the default");
            }
        }
    }

    /// Every option the canonical spec spells out is declared, with the value it shows.
    #[test]
    fn the_canonical_specs_options_are_all_declared() {
        for p in POLICIES {
            let canonical = PolicySpec::parse(&resolve_policy(p.name).unwrap().spec()).unwrap();
            assert_eq!(canonical.name, p.name);
            for (key, value) in &canonical.options {
                let declared = p.options.iter().find(|o| o.key == key);
                let declared = declared.unwrap_or_else(|| panic!("{}: option {key} is not declared", p.name));
                assert_eq!(declared.default, value, "{}: {key}", p.name);
            }
        }
    }

    #[test]
    fn every_recommended_spec_resolves_and_is_offered_once() {
        for (i, r) in RECOMMENDED.iter().enumerate() {
            assert!(resolve_policy(r.spec).is_ok(), "{}", r.spec);
            assert!(!RECOMMENDED[..i].iter().any(|o| o.spec == r.spec), "{} twice", r.spec);
        }
        let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            ["fifo", "consolidate", "strict", "slurm", "tiresias", "srtf", "random", "dally", "kueue-tas", "volcano"]
        );
    }
}
