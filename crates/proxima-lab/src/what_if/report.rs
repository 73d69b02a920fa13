//! The what-if's report as data: per policy, the run figures over seeds with their ratio to
//! the configured scheduler, per tenant, and the three analyses, each a [`Stat`] over seeds.
//! Serialisable, so the web page can keep or export it as JSON.

use super::analysis::{Admitted, RunAnalysis};
use super::{RunResult, WhatIfPlan, BOOTSTRAP_SEED, CONFIDENCE, LISTED, RESAMPLES, WINDOW_S};
use crate::experiment::stats::{RatioCi, Resamples, Stat, RATIO_FLOOR_S};
use proxima_core::metrics::Summary;
use proxima_core::Scenario;
use serde::Serialize;

/// The what-if, ready to render.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhatIfReport {
    pub topology: String,
    pub trace: String,
    pub gpus: u32,
    pub jobs: usize,
    pub seeds: u64,
    pub scheduler: String,
    pub timer_s: f64,
    pub confidence: f64,
    pub window_s: f64,
    /// Whether the scenario has quotas (else nothing is admitted by quota).
    pub quotas: bool,
    pub tenants: Vec<String>,
    /// The policies, the configured scheduler first.
    pub policies: Vec<PolicyRow>,
}

/// One policy's figures over seeds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyRow {
    pub spec: String,
    pub jct: Stat,
    /// Mean JCT ÷ the configured scheduler's, ratio of means with its bootstrap interval
    /// over seeds (a single seed's interval is the ratio itself); none for the configured one.
    pub jct_ratio: Option<RatioCi>,
    pub p95_jct: Stat,
    pub queue: Stat,
    /// Share of placements over more than one server.
    pub spread: Stat,
    /// Jobs never placed by the end.
    pub unplaced: Stat,
    pub tenants: Vec<TenantRow>,
    pub fragmentation: Fragmentation,
    pub holding: Holding,
    pub quota: QuotaUnplaced,
}

/// One tenant's mean JCT under a policy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TenantRow {
    pub name: String,
    pub completed: Stat,
    pub jct: Stat,
    pub jct_ratio: Option<RatioCi>,
}

/// Preemptions and what became of the GPUs they freed, per run (`analysis.rs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fragmentation {
    pub preemptions: Stat,
    pub freed_unused: Stat,
    pub with_beneficiary: Stat,
    pub beneficiary_waiting: Stat,
}

/// Jobs held with their GPUs free, per run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Holding {
    pub held_waits: Stat,
    pub held_s: Stat,
    /// Jobs still waiting at the end that were held, and their held seconds.
    pub held_at_end: Stat,
    pub held_at_end_s: Stat,
    pub got_level: Stat,
    pub timer_out: Stat,
    pub other: Stat,
    /// Mean over seeds of the mean slowdown got after a held wait (seeds with held waits).
    pub slowdown_got: Option<Stat>,
    /// Held waits in which the scheduler named the best placement free; when any did, its
    /// mean slowdown and the run time saved against it (seeds where it named one).
    pub with_best_now: Stat,
    pub best_now_slowdown: Option<Stat>,
    pub best_now_got_slowdown: Option<Stat>,
    pub saved_s: Option<Stat>,
}

/// Jobs admitted by quota and not placed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuotaUnplaced {
    /// Whether this policy itself admits by quota (`quota=on`) on this scenario.
    pub policy_admits: bool,
    pub count: Stat,
    /// Seed 1's, the longest waits first, at most [`LISTED`].
    pub listed: Vec<Admitted>,
}

impl WhatIfReport {
    /// The report of `runs[policy][seed]` of the policies `specs`, on `scenario` (seed 1's).
    pub fn build(plan: &WhatIfPlan, scenario: &Scenario, specs: &[String], runs: Vec<Vec<RunResult>>) -> WhatIfReport {
        let resamples = Resamples::draw(plan.seeds as usize, RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE);
        let base: Vec<&Summary> = runs[0].iter().map(|r| &r.summary).collect();
        let tenants: Vec<String> = base[0].tenants.iter().map(|t| t.name.clone()).collect();
        let policies = specs
            .iter()
            .zip(&runs)
            .enumerate()
            .map(|(i, (spec, runs))| policy_row(spec, runs, (i > 0).then_some(&base[..]), &resamples))
            .collect();
        WhatIfReport {
            topology: plan.topology_label.clone(),
            trace: plan.trace_label.clone(),
            gpus: scenario.topology.gpu_count(),
            jobs: scenario.jobs.len(),
            seeds: plan.seeds,
            scheduler: plan.scheduler.clone(),
            timer_s: plan.timer_s,
            confidence: CONFIDENCE,
            window_s: WINDOW_S,
            quotas: scenario.tenants.basis() != proxima_core::tenants::QuotaBasis::Unset,
            tenants,
            policies,
        }
    }
}

fn stat_of<T>(items: &[T], f: impl Fn(&T) -> f64) -> Stat {
    Stat::of(&items.iter().map(f).collect::<Vec<f64>>())
}

/// A [`Stat`] over the seeds where `keep` holds, or none if it holds for none.
fn stat_where(
    items: &[RunAnalysis],
    keep: impl Fn(&RunAnalysis) -> bool,
    f: impl Fn(&RunAnalysis) -> f64,
) -> Option<Stat> {
    let values: Vec<f64> = items.iter().filter(|a| keep(a)).map(f).collect();
    (!values.is_empty()).then(|| Stat::of(&values))
}

fn policy_row(spec: &str, runs: &[RunResult], base: Option<&[&Summary]>, resamples: &Resamples) -> PolicyRow {
    let summaries: Vec<&Summary> = runs.iter().map(|r| &r.summary).collect();
    let analyses: Vec<RunAnalysis> = runs.iter().map(|r| r.analysis.clone()).collect();
    let jcts: Vec<f64> = summaries.iter().map(|s| s.avg_jct_s).collect();
    let jct_ratio = base.map(|b| {
        let base: Vec<f64> = b.iter().map(|s| s.avg_jct_s).collect();
        resamples.ratio_of_means(&jcts, &base, RATIO_FLOOR_S)
    });
    let tenants = (0..summaries[0].tenants.len()).map(|t| tenant_row(t, &summaries, base, resamples)).collect();
    let mut listed = analyses[0].admitted_unplaced.clone();
    listed.sort_by(|a, b| b.admitted_waiting_s.total_cmp(&a.admitted_waiting_s).then(a.job.cmp(&b.job)));
    listed.truncate(LISTED);
    let n = |f: fn(&RunAnalysis) -> u64| stat_of(&analyses, |a| f(a) as f64);
    PolicyRow {
        spec: spec.to_string(),
        jct: Stat::of(&jcts),
        jct_ratio,
        p95_jct: stat_of(&summaries, |s| s.p95_jct_s),
        queue: stat_of(&summaries, |s| s.avg_queue_s),
        spread: stat_of(&summaries, |s| spread_share(s)),
        unplaced: stat_of(&summaries, |s| s.jobs_unfinished as f64),
        tenants,
        fragmentation: Fragmentation {
            preemptions: n(|a| a.preemptions),
            freed_unused: n(|a| a.freed_unused),
            with_beneficiary: n(|a| a.with_beneficiary),
            beneficiary_waiting: n(|a| a.beneficiary_waiting),
        },
        holding: Holding {
            held_waits: n(|a| a.held_waits),
            held_s: stat_of(&analyses, |a| a.held_s),
            held_at_end: n(|a| a.held_at_end),
            held_at_end_s: stat_of(&analyses, |a| a.held_at_end_s),
            got_level: n(|a| a.held_got_level),
            timer_out: n(|a| a.held_timer_out),
            other: n(|a| a.held_other),
            slowdown_got: stat_where(&analyses, |a| a.held_waits > 0, |a| a.held_slowdown_got),
            with_best_now: n(|a| a.with_best_now),
            best_now_slowdown: stat_where(&analyses, |a| a.with_best_now > 0, |a| a.best_now_slowdown),
            best_now_got_slowdown: stat_where(&analyses, |a| a.with_best_now > 0, |a| a.best_now_got_slowdown),
            saved_s: stat_where(&analyses, |a| a.with_best_now > 0, |a| a.saved_s),
        },
        quota: QuotaUnplaced {
            policy_admits: analyses[0].admits_by_quota,
            count: stat_of(&analyses, |a| a.admitted_unplaced.len() as f64),
            listed,
        },
    }
}

fn tenant_row(t: usize, summaries: &[&Summary], base: Option<&[&Summary]>, resamples: &Resamples) -> TenantRow {
    let jct_of = |s: &Summary| s.tenants.get(t).map_or(0.0, |x| x.avg_jct_s);
    let jcts: Vec<f64> = summaries.iter().map(|s| jct_of(s)).collect();
    TenantRow {
        name: summaries[0].tenants[t].name.clone(),
        completed: stat_of(summaries, |s| s.tenants.get(t).map_or(0.0, |x| x.completed as f64)),
        jct: Stat::of(&jcts),
        jct_ratio: base.map(|b| {
            let base: Vec<f64> = b.iter().map(|s| jct_of(s)).collect();
            resamples.ratio_of_means(&jcts, &base, RATIO_FLOOR_S)
        }),
    }
}

/// The share of placements that span more than one server.
pub(super) fn spread_share(s: &Summary) -> f64 {
    let total = s.tier_counts.total();
    let inside = s.tier_counts.get("server").unwrap_or(0);
    if total == 0 {
        0.0
    } else {
        (total - inside.min(total)) as f64 / total as f64
    }
}
