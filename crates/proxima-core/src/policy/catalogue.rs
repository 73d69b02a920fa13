//! The policies as data: every policy's [`PolicyInfo`], each declared beside its
//! `from_spec` (`fifo::INFO`, …), in one table ([`POLICIES`]) that both resolves a spec to a
//! policy and lists the policies, and the set the app offers with a checkbox.
//! `proxima policies`, Python's `proxima.policies()`, the app's policy list and the table
//! in `docs/SCHEDULER.md` all come from here, and a test checks that every default here is
//! the one the policy really takes.

use super::info::{PolicyInfo, Recommended};
use super::{consolidate, dally, fifo, kueue_tas, random, slurm, srtf, strict, tiresias, volcano};

/// Every policy a spec can name, in the order listings show them.
pub const POLICIES: &[PolicyInfo] = &[
    fifo::INFO,
    consolidate::INFO,
    strict::INFO,
    slurm::INFO,
    tiresias::INFO,
    srtf::INFO,
    random::INFO,
    dally::INFO,
    kueue_tas::INFO,
    volcano::INFO,
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
