//! What the catalogue says of a policy ([`PolicyInfo`]): its name, what it does, where it
//! comes from, its options (key, kind, default, meaning) and how it is built from a spec.
//! Each policy declares its own `INFO` beside its `from_spec`; the options several
//! policies share are here.

use super::{Policy, PolicySpec};
use crate::error::InputError;

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

/// A policy: its name, what it does, where it comes from, its options, and how it is built
/// from a spec whose name is its own (the options it does not take are left in the spec,
/// for [`PolicySpec::finish`] to refuse).
#[derive(Clone, Copy, Debug)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub source: &'static str,
    pub options: &'static [PolicyOption],
    pub build: fn(&mut PolicySpec) -> Result<Box<dyn Policy>, InputError>,
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

pub(super) const fn opt(
    key: &'static str,
    kind: OptionKind,
    default: &'static str,
    meaning: &'static str,
) -> PolicyOption {
    PolicyOption { key, kind, default, meaning, requires: None }
}

pub(super) const fn opt_with(
    key: &'static str,
    kind: OptionKind,
    default: &'static str,
    meaning: &'static str,
    requires: &'static str,
) -> PolicyOption {
    PolicyOption { key, kind, default, meaning, requires: Some(requires) }
}

use OptionKind::*;

pub(super) const BACKFILL: PolicyOption =
    opt("backfill", Switch, "on", "off: a job that cannot start blocks the jobs behind it");
pub(super) const QUOTA: PolicyOption =
    opt("quota", Switch, "off", "on: tenants' quotas, with jobs beyond them reclaimable");
pub(super) const RESTORE: PolicyOption =
    opt("restore_s", Seconds, "30", "checkpoint and restore cost a preempted job pays");
/// Where a policy that predicts slowdowns reads them ([`super::mechanisms::profile`]); `requires` is
/// what the policy needs set for it to predict any.
pub(super) const fn profile(requires: Option<&'static str>) -> PolicyOption {
    PolicyOption {
        key: "profile",
        kind: Choice(&["table", "exact"]),
        default: "table",
        meaning: "predicted slowdowns from a table measured on an idle cluster (per model, GPU count and tier), stretched by observed link shares; exact: the engine's own model with every link's live load, for ablation only",
        requires,
    }
}
pub(super) const fn profile_error(requires: &'static str) -> PolicyOption {
    opt_with(
        "profile_error",
        Number,
        "0",
        "each job's predicted communication time off by a factor drawn uniformly in [1-E, 1+E], fixed per job (a hash of its id and the run's seed); E in [0, 1)",
        requires,
    )
}
pub(super) const RESTORE_QUOTA: PolicyOption =
    opt_with("restore_s", Seconds, "30", "checkpoint and restore cost a reclaimed job pays", "quota=on");
