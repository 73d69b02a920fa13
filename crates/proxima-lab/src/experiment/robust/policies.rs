//! The robustness experiment's policies as data: the recommended policy, the fair
//! baselines its regret is measured against, and ablations. Adding a row (a profile-error
//! ablation, say) is one entry of [`ROWS`].

use crate::experiment::paper::{CANDIDATE, FAIR_BASELINES};
use proxima_core::policy::resolve_policy;
use serde::{Deserialize, Serialize};

/// What a policy is in the experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The policy Proxima recommends, whose regret the verdicts judge.
    Recommended,
    /// A baseline that may use every mechanism not about the network: the best of them per
    /// cell and metric is what regret divides by.
    FairBaseline,
    /// A variant of the recommended policy, shown for what one change does; never a
    /// baseline.
    Ablation,
}

impl Role {
    pub fn label(self) -> &'static str {
        match self {
            Role::Recommended => "recommended",
            Role::FairBaseline => "fair baseline",
            Role::Ablation => "ablation",
        }
    }
}

/// A policy of the experiment, resolved: its canonical spec (every option spelled out, as
/// the policy was when the experiment ran) and its cap on preemptions per job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyDef {
    pub spec: String,
    pub role: Role,
    pub why: String,
    pub canonical: String,
    /// `max_preempt` of the canonical spec; `None` when the policy has no such cap.
    pub max_preempt: Option<u32>,
}

/// A row of [`ROWS`] whose spec does not parse on this build (an ablation of an option
/// not merged yet): the report lists it with the reason instead of failing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeftOut {
    pub spec: String,
    pub role: Role,
    pub reason: String,
}

/// `dally`, the policy the recommended one replaces, is a fair baseline here: regret
/// against it says whether the replacement ever does worse than what it replaces. So is
/// `consolidate:migrate=on` allowed as many moves per job as the recommended policy may
/// preempt one (48), since the cap is not about the network. The other fair baselines are
/// the paper experiment's ([`FAIR_BASELINES`]).
const DALLY_WHY: &str = "the policy the recommended one replaces";

/// The recommended policy and the ablations, in report order; the fair baselines follow
/// the recommended policy.
const ROWS: &[(&str, Role, &str)] = &[
    (CANDIDATE, Role::Recommended, "Proxima's recommended policy"),
    ("dally", Role::FairBaseline, DALLY_WHY),
    (
        "consolidate:migrate=on,max_preempt=48",
        Role::FairBaseline,
        "network-blind migration allowed as many moves per job as the recommended policy's cap",
    ),
    (
        "dally:order=las,service=priority,max_preempt=2",
        Role::Ablation,
        "the recommended policy as version three had it: service order preempts whenever the queues say so, uncapped",
    ),
    (
        "dally:order=las,patient_above=off",
        Role::Ablation,
        "the recommended policy as first frozen: every wait capped by its tier's timer, however slow the looser placement",
    ),
    (
        "dally:order=las,profile=exact",
        Role::Ablation,
        "the recommended policy reading the engine's own slowdowns with the live load instead of a measured profile",
    ),
    (
        "dally:order=las,profile_error=0.25",
        Role::Ablation,
        "the recommended policy with every job's profiled exchange off by up to 25% either way",
    ),
    (
        "dally:order=las,profile_error=0.1",
        Role::Ablation,
        "the recommended policy with every job's profiled exchange off by up to 10% either way",
    ),
    (
        "dally:profile=exact",
        Role::Ablation,
        "dally reading the engine's own slowdowns, for how much of dally's gain the profile keeps",
    ),
    ("dally:profile_error=0.25", Role::Ablation, "dally with every job's profiled exchange off by up to 25%"),
    (
        "dally:order=las,max_preempt=12",
        Role::Ablation,
        "the recommended policy with a quarter of its cap on preemptions per job",
    ),
    (
        "dally:order=las,max_preempt=24",
        Role::Ablation,
        "the recommended policy with half its cap on preemptions per job",
    ),
];

/// The `max_preempt` of a canonical spec: `Some(n)`, or `None` when the spec has no such
/// key or it is `off`.
pub fn max_preempt(canonical: &str) -> Option<u32> {
    let options = canonical.split_once(':').map_or("", |(_, o)| o);
    options.split(',').find_map(|kv| kv.strip_prefix("max_preempt=")).and_then(|v| v.parse().ok())
}

/// Every policy of the experiment that parses, in report order (recommended, fair
/// baselines, ablations), and the rows that do not.
pub fn policies() -> (Vec<PolicyDef>, Vec<LeftOut>) {
    let mut rows: Vec<(&str, Role, String)> = ROWS.iter().map(|&(s, r, w)| (s, r, w.to_string())).collect();
    for &b in FAIR_BASELINES {
        rows.push((b, Role::FairBaseline, "a fair baseline of the paper experiment".to_string()));
    }
    rows.sort_by_key(|(_, role, _)| *role as u8);
    let (mut defs, mut left_out) = (Vec::new(), Vec::new());
    for (spec, role, why) in rows {
        match resolve_policy(spec) {
            Ok(policy) => {
                let canonical = policy.spec();
                let max_preempt = max_preempt(&canonical);
                defs.push(PolicyDef { spec: spec.into(), role, why, canonical, max_preempt });
            }
            Err(e) => left_out.push(LeftOut { spec: spec.into(), role, reason: e.to_string() }),
        }
    }
    (defs, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_come_from_the_canonical_spec() {
        assert_eq!(max_preempt("dally:delay=on,max_preempt=2,runtime=estimate"), Some(2));
        assert_eq!(max_preempt("dally:max_preempt=off"), None);
        assert_eq!(max_preempt("tiresias:queues=3250/7200"), None);
        assert_eq!(max_preempt("consolidate:backfill=on,migrate=on,max_preempt=3"), Some(3));
    }

    #[test]
    fn the_recommended_policy_leads_and_the_fair_baselines_are_the_papers_and_dally() {
        let (defs, left_out) = policies();
        assert_eq!(defs[0].spec, CANDIDATE);
        assert_eq!(defs[0].role, Role::Recommended);
        assert!(defs[0].max_preempt.is_some(), "{}", defs[0].canonical);
        let fair: Vec<&str> = defs.iter().filter(|d| d.role == Role::FairBaseline).map(|d| d.spec.as_str()).collect();
        assert_eq!(fair[0], "dally");
        // Migration with the recommended policy's own cap on moves, then the paper's.
        assert_eq!(fair[1], "consolidate:migrate=on,max_preempt=48");
        assert_eq!(&fair[2..], FAIR_BASELINES);
        for required in ["tiresias:place=tightest", "consolidate:migrate=on"] {
            assert!(fair.contains(&required), "{required}");
        }
        // A row that does not parse is left out with its reason, never run.
        for l in &left_out {
            assert!(!l.reason.is_empty() && defs.iter().all(|d| d.spec != l.spec));
        }
        assert_eq!(defs.len() + left_out.len(), ROWS.len() + FAIR_BASELINES.len());
    }
}
