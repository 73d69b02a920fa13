//! `proxima what-if`: an operator's question on one screen. Given their cluster (a Kueue,
//! Volcano or Slurm file, or any topology) and a trace, it runs their scheduler as
//! configured, the same with a time limit on its topology constraint (required for T
//! seconds, then preferred; T fixed and tuned), the same with eviction to restore locality,
//! and Proxima's network-aware policies, over several seeds, and
//! prints each one's mean JCT against the configured scheduler's as a ratio of means with
//! a bootstrap interval (`docs/OPERATORS.md` walks through it).

use crate::inputs::{scenario_input, scenario_of, UsageError};
use proxima_core::metrics::Summary;
use proxima_core::policy::resolve_policy;
use proxima_core::run::{run_policy, RunOptions};
use proxima_host::inputs::ScenarioArgs;
use proxima_lab::experiment::report::{fmt_ci, fmt_ratio, fmt_seconds as seconds};
use proxima_lab::experiment::stats::{Resamples, Stat};
use std::fmt::Write;

/// The bootstrap of the intervals: resamples, generator seed and confidence, fixed so that
/// the same runs print the same intervals.
const RESAMPLES: u32 = 2000;
const BOOTSTRAP_SEED: u64 = 0x0be7_a71f;
const CONFIDENCE: f64 = 0.95;

/// Proxima's policies every what-if shows beside the operator's own.
const OURS: &[&str] = &["dally", "dally:order=las"];

/// What to compare, besides the scenario.
pub struct WhatIf<'a> {
    /// The scheduler as the operator runs it, e.g. `kueue-tas:required=rack`.
    pub scheduler: &'a str,
    /// The time limit given to its `required` level, in seconds.
    pub timer_s: f64,
    /// Seeds 1..=seeds.
    pub seeds: u64,
}

/// The option that puts a time limit on a scheduler's hard topology constraint, if the
/// scheduler has one: Kueue's `required` level, Volcano's `hard` tier, Slurm's rule.
fn timer_key(scheduler: &str) -> Option<&'static str> {
    let options = scheduler.split_once(':').map_or("", |(_, o)| o);
    let has = |key: &str| options.split(',').any(|kv| kv.trim().starts_with(key));
    match scheduler.split(':').next().unwrap_or("") {
        "kueue-tas" if has("required=") => Some("required_for_s"),
        "volcano" if has("hard=") => Some("hard_for_s"),
        "slurm" => Some("wait_s"),
        _ => None,
    }
}

/// `spec` with one more option.
fn with_option(spec: &str, option: &str) -> String {
    let sep = if spec.contains(':') { ',' } else { ':' };
    format!("{spec}{sep}{option}")
}

/// The policies of a what-if: the scheduler; when it has a hard constraint without a time
/// limit, the same with the limit fixed at `timer_s` and tuned (`auto`); when it can evict
/// and does not, the same with eviction; and [`OURS`].
pub fn policies(scheduler: &str, timer_s: f64) -> Vec<String> {
    let mut out = vec![scheduler.to_string()];
    if let Some(key) = timer_key(scheduler).filter(|k| !scheduler.contains(&format!("{k}="))) {
        // Slurm's tree plugin already waits (max_switch_wait, 300 s): only its block plugin
        // lacks a limit to try.
        if !scheduler.starts_with("slurm") || scheduler.contains("block=on") {
            out.push(with_option(scheduler, &format!("{key}={timer_s}")));
        }
        out.push(with_option(scheduler, &format!("{key}=auto")));
    }
    let name = scheduler.split(':').next().unwrap_or("");
    if matches!(name, "kueue-tas" | "volcano" | "slurm") && !scheduler.contains("evict=") {
        out.push(with_option(scheduler, "evict=on"));
    }
    out.extend(OURS.iter().filter(|p| **p != scheduler).map(|p| p.to_string()));
    out
}

/// Runs every policy on every seed and returns the screen to print.
pub fn what_if(args: &ScenarioArgs, w: &WhatIf) -> Result<String, UsageError> {
    if w.seeds == 0 {
        return Err(UsageError("--seeds: at least 1".into()));
    }
    if !(w.timer_s.is_finite() && w.timer_s >= 0.0) {
        return Err(UsageError(format!("--timer: expected seconds, 0 or more, got {}", w.timer_s)));
    }
    let specs = policies(w.scheduler, w.timer_s);
    for p in &specs {
        resolve_policy(p).map_err(|e| UsageError::in_argument("policy", e))?;
    }
    // summaries[policy][seed]
    let mut summaries: Vec<Vec<Summary>> = vec![Vec::new(); specs.len()];
    let mut described = None;
    let mut input = scenario_input(args)?;
    for seed in 1..=w.seeds {
        input.seed = seed;
        let scenario = scenario_of(&input)?;
        for (i, p) in specs.iter().enumerate() {
            let finished = run_policy(scenario.clone(), p, RunOptions::<UsageError>::default())
                .map_err(|e| e.into_error(|e| UsageError::in_argument("policy", e)))?;
            summaries[i].push(finished.summary().clone());
        }
        described.get_or_insert_with(|| (scenario.topology.gpu_count(), scenario.jobs.len()));
    }
    let (gpus, jobs) = described.expect("at least one seed");
    Ok(screen(args, w, &specs, &summaries, gpus, jobs))
}

fn screen(args: &ScenarioArgs, w: &WhatIf, specs: &[String], runs: &[Vec<Summary>], gpus: u32, jobs: usize) -> String {
    let mut out = String::new();
    let _ =
        writeln!(out, "what if: {} ({gpus} GPUs), {} ({jobs} jobs), seeds 1-{}", args.topology, args.trace, w.seeds);
    let _ = writeln!(
        out,
        "mean JCT over seeds, and each policy's ÷ the scheduler as configured ({}): ratio of means, {:.0}% bootstrap interval over seeds",
        w.scheduler,
        100.0 * CONFIDENCE
    );
    let _ = writeln!(out);
    let resamples = Resamples::draw(w.seeds as usize, RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE);
    let of = |i: usize, f: fn(&Summary) -> f64| runs[i].iter().map(f).collect::<Vec<f64>>();
    let base = of(0, |s| s.avg_jct_s);
    let width = specs.iter().map(|s| s.chars().count()).max().unwrap_or(6).max(6);
    let _ = writeln!(
        out,
        "{:width$}  {:>18}  {:>22}  {:>10}  {:>10}  {:>10}  {:>10}",
        "policy", "mean JCT", "÷ configured", "p95 JCT", "queueing", "spread", "unplaced"
    );
    for (i, spec) in specs.iter().enumerate() {
        let jct = Stat::of(&of(i, |s| s.avg_jct_s));
        let ratio = if i == 0 {
            "1".to_string()
        } else if w.seeds < 2 {
            fmt_ratio(jct.mean / Stat::of(&base).mean)
        } else {
            fmt_ci(&resamples.ratio_of_means(&of(i, |s| s.avg_jct_s), &base, 1.0))
        };
        let mean = |f: fn(&Summary) -> f64| Stat::of(&of(i, f)).mean;
        let _ = writeln!(
            out,
            "{spec:width$}  {:>18}  {ratio:>22}  {:>10}  {:>10}  {:>10}  {:>10}",
            format!("{} ± {}", seconds(jct.mean), seconds(jct.sd)),
            seconds(mean(|s| s.p95_jct_s)),
            seconds(mean(|s| s.avg_queue_s)),
            format!("{:.1}%", 100.0 * mean(spread_share)),
            format!("{:.1}", mean(|s| s.jobs_unfinished as f64)),
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "queueing: mean wait per job; spread: share of placements over more than one server; unplaced: jobs never placed by the end (a required level no domain of which holds them waits forever, as in Kueue)."
    );
    out
}

/// The share of placements that span more than one server.
fn spread_share(s: &Summary) -> f64 {
    let total = s.tier_counts.total();
    let inside = s.tier_counts.get("server").unwrap_or(0);
    if total == 0 {
        0.0
    } else {
        (total - inside.min(total)) as f64 / total as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timer_is_added_only_to_a_hard_constraint_without_one_and_eviction_where_it_is_off() {
        assert_eq!(
            policies("kueue-tas:required=rack", 300.0),
            [
                "kueue-tas:required=rack",
                "kueue-tas:required=rack,required_for_s=300",
                "kueue-tas:required=rack,required_for_s=auto",
                "kueue-tas:required=rack,evict=on",
                "dally",
                "dally:order=las"
            ]
        );
        assert_eq!(
            policies("kueue-tas:preferred=rack", 300.0),
            ["kueue-tas:preferred=rack", "kueue-tas:preferred=rack,evict=on", "dally", "dally:order=las"]
        );
        assert_eq!(policies("kueue-tas", 300.0)[1], "kueue-tas:evict=on");
        assert_eq!(
            policies("volcano:hard=2", 60.0)[1..3],
            ["volcano:hard=2,hard_for_s=60", "volcano:hard=2,hard_for_s=auto"]
        );
        assert_eq!(policies("slurm", 60.0)[..3], ["slurm", "slurm:wait_s=auto", "slurm:evict=on"]);
        assert_eq!(policies("slurm:block=on", 60.0)[1..3], ["slurm:block=on,wait_s=60", "slurm:block=on,wait_s=auto"]);
        assert_eq!(policies("dally", 60.0), ["dally", "dally:order=las"]);
        let timed = "kueue-tas:required=rack,required_for_s=60,evict=on";
        assert_eq!(policies(timed, 300.0)[..2], [timed, "dally"]);
    }
}
