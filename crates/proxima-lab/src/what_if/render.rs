//! The report as text: the screen `proxima what-if` prints, and the Markdown it writes with
//! `--report` (the HTML, `html.rs`, says the same with figures).

use super::report::{PolicyRow, WhatIfReport};
use crate::experiment::report::{fmt_ci, fmt_ratio, fmt_seconds as seconds};
use crate::experiment::stats::{RatioCi, Stat};
use std::fmt::Write;

/// A ratio cell: 1 for the configured scheduler, the ratio alone for one seed, else the
/// ratio with its interval.
pub(super) fn ratio_cell(ratio: Option<&RatioCi>, seeds: u64) -> String {
    match ratio {
        None => "1".to_string(),
        Some(ci) if seeds < 2 => ci.ratio.map_or_else(|| "—".to_string(), fmt_ratio),
        Some(ci) => fmt_ci(ci),
    }
}

/// A count over seeds: its mean, one decimal.
pub(super) fn count(s: &Stat) -> String {
    format!("{:.1}", s.mean)
}

/// The first line of every rendering.
pub(super) fn title(r: &WhatIfReport) -> String {
    format!("what if: {} ({} GPUs), {} ({} jobs), seeds 1-{}", r.topology, r.gpus, r.trace, r.jobs, r.seeds)
}

/// The screen: one row per policy.
pub fn screen(r: &WhatIfReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", title(r));
    let _ = writeln!(
        out,
        "mean JCT over seeds, and each policy's ÷ the scheduler as configured ({}): ratio of means, {:.0}% bootstrap interval over seeds",
        r.scheduler,
        100.0 * r.confidence
    );
    let _ = writeln!(out);
    let width = r.policies.iter().map(|p| p.spec.chars().count()).max().unwrap_or(6).max(6);
    let _ = writeln!(
        out,
        "{:width$}  {:>18}  {:>22}  {:>10}  {:>10}  {:>10}  {:>10}",
        "policy", "mean JCT", "÷ configured", "p95 JCT", "queueing", "spread", "unplaced"
    );
    for p in &r.policies {
        let [jct, ratio, p95, queue, spread, unplaced] = value_cells(r, p);
        let _ = writeln!(
            out,
            "{:width$}  {jct:>18}  {ratio:>22}  {p95:>10}  {queue:>10}  {spread:>10}  {unplaced:>10}",
            p.spec,
        );
    }
    let _ = writeln!(out);
    if let Some(caution) = incomplete_caution(r) {
        let _ = writeln!(out, "{caution}");
    }
    let _ = writeln!(
        out,
        "queueing: mean wait per job; spread: share of placements over more than one server; unplaced: jobs never placed by the end (a required level no domain of which holds them waits forever, as in Kueue)."
    );
    out
}

/// The Markdown report: the screen's table, per tenant, and the three analyses.
pub fn markdown(r: &WhatIfReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# What if: {}\n", r.scheduler);
    let _ = writeln!(out, "{}.\n", title(r));
    for (heading, body) in sections(r) {
        let _ = writeln!(out, "## {heading}\n");
        for paragraph in &body.prose {
            let _ = writeln!(out, "{paragraph}\n");
        }
        let _ = writeln!(out, "| {} |", body.header.join(" | "));
        let _ = writeln!(out, "|{}", body.header.iter().map(|_| "---|").collect::<String>());
        for row in &body.rows {
            let _ = writeln!(out, "| {} |", row.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
        }
        let _ = writeln!(out);
    }
    out
}

/// A section of the report: prose, then a table.
pub(super) struct Section {
    pub prose: Vec<String>,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The report's sections, shared by the Markdown and the HTML.
pub(super) fn sections(r: &WhatIfReport) -> Vec<(String, Section)> {
    vec![
        ("Mean JCT by policy".to_string(), policies_section(r)),
        ("Per tenant".to_string(), tenants_section(r)),
        ("Preemptions that freed GPUs nobody used".to_string(), fragmentation_section(r)),
        ("Jobs held for their topology level".to_string(), holding_section(r)),
        ("Jobs a quota admitted that were not placed".to_string(), quota_section(r)),
    ]
}

fn policies_section(r: &WhatIfReport) -> Section {
    let mut prose = vec![format!(
        "Mean job completion time (JCT) over seeds 1-{}, and each policy's ÷ the scheduler as configured (`{}`): ratio of means with its {:.0}% bootstrap interval over seeds (≈: the interval holds 1, the seeds show no difference). Queueing: mean wait per job; spread: share of placements over more than one server; unplaced: jobs never placed by the end.",
        r.seeds,
        r.scheduler,
        100.0 * r.confidence
    )];
    prose.extend(incomplete_caution(r));
    let header = strings(&["policy", "mean JCT", "÷ configured", "p95 JCT", "queueing", "spread", "unplaced"]);
    let rows = r
        .policies
        .iter()
        .map(|p| std::iter::once(format!("`{}`", p.spec)).chain(value_cells(r, p)).collect())
        .collect();
    Section { prose, header, rows }
}

/// A policy's figures in the JCT table, as the screen and the report both show them: mean
/// JCT, its ratio to the configured scheduler's, p95, queueing, spread, unplaced.
fn value_cells(r: &WhatIfReport, p: &PolicyRow) -> [String; 6] {
    [
        format!("{} ± {}", seconds(p.jct.mean), seconds(p.jct.sd)),
        ratio_cell(p.jct_ratio.as_ref(), r.seeds) + incomplete_mark(r, p),
        seconds(p.p95_jct.mean),
        seconds(p.queue.mean),
        format!("{:.1}%", 100.0 * p.spread.mean),
        count(&p.unplaced),
    ]
}

/// ` †` on a ratio when this policy or the configured scheduler left jobs unplaced: the two
/// means are then over different jobs.
fn incomplete_mark(r: &WhatIfReport, p: &PolicyRow) -> &'static str {
    let configured = r.policies.first().map_or(0.0, |c| c.unplaced.mean);
    if p.unplaced.mean > 0.0 || configured > 0.0 {
        " †"
    } else {
        ""
    }
}

/// What a mean over finished jobs hides when some policy never placed some jobs.
pub fn incomplete_caution(r: &WhatIfReport) -> Option<String> {
    let left: Vec<String> = r
        .policies
        .iter()
        .filter(|p| p.unplaced.mean > 0.0)
        .map(|p| format!("`{}` ({:.1} a run)", p.spec, p.unplaced.mean))
        .collect();
    (!left.is_empty()).then(|| {
        format!(
            "† Not like for like: {} left jobs never placed, out of {} a run. A mean JCT is over the jobs a policy finished, so it leaves out the jobs that waited forever, and a ratio against a policy that left jobs out flatters that policy. Compare the unplaced column first.",
            left.join(", "),
            r.jobs
        )
    })
}

fn tenants_section(r: &WhatIfReport) -> Section {
    let prose = vec![
        "Each tenant's mean JCT under each policy (over its completed jobs, mean over seeds), and its ÷ the same tenant's under the configured scheduler, ratio of means with its interval over seeds.".to_string(),
    ];
    let mut header = strings(&["policy"]);
    header.extend(r.tenants.iter().map(|t| format!("{t}: mean JCT, ÷ configured")));
    let rows = r
        .policies
        .iter()
        .map(|p| {
            let mut row = vec![format!("`{}`", p.spec)];
            row.extend(
                p.tenants
                    .iter()
                    .map(|t| format!("{} ({})", seconds(t.jct.mean), ratio_cell(t.jct_ratio.as_ref(), r.seeds))),
            );
            row
        })
        .collect();
    Section { prose, header, rows }
}

fn fragmentation_section(r: &WhatIfReport) -> Section {
    let prose = vec![format!(
        "Per run, mean over seeds. A preemption (eviction and quota reclaim included) *freed GPUs nobody used* when no other job was placed on any GPU it freed within {} after it. Where the preemption named the job it was for, *beneficiary waiting*: that job was not placed within the window either (kueue #5243: preemption freed scattered GPUs and the job stayed stuck).",
        seconds(r.window_s)
    )];
    let header =
        strings(&["policy", "preemptions", "freed GPUs nobody used", "for a named job", "beneficiary waiting"]);
    let rows = r
        .policies
        .iter()
        .map(|p| {
            let f = &p.fragmentation;
            vec![
                format!("`{}`", p.spec),
                count(&f.preemptions),
                count(&f.freed_unused),
                count(&f.with_beneficiary),
                count(&f.beneficiary_waiting),
            ]
        })
        .collect();
    Section { prose, header, rows }
}

fn holding_section(r: &WhatIfReport) -> Section {
    let prose = vec![
        "Per run, mean over seeds. A job is *held* while at least as many GPUs as it asks for are free and it still waits: for its topology level, or behind a job ahead of it in a queue without backfill. Held waits: waits that held the job and ended in a placement; held time: their held seconds summed; still held at the end: jobs never placed that were held, with their held time. How they ended: got the level it waited for (or a tighter one), timer ran out (took a wider placement), other. Slowdown got: the placement's iteration time over the job's ideal.".to_string(),
        "What it bought: where the scheduler named the best placement free while the job waited (`WaitingForTier` with a best placement: Kueue's required level, Volcano's hard tier, Slurm, strict, Proxima's delay timers), the scheduler's estimate of that placement's slowdown (no contention) against the slowdown those same jobs got (contention included), and the run time saved against it (slowdown difference × ideal iteration time × iterations left, summed; negative: waiting bought nothing). A hold only behind the job ahead in a queue without backfill names no placement: \"not in events\".".to_string(),
    ];
    let header = strings(&[
        "policy",
        "held waits",
        "held time",
        "still held at the end",
        "got level",
        "timer ran out",
        "other",
        "slowdown got",
        "best free then → got",
        "run time saved",
    ]);
    // No held wait: nothing to say ("—"); held waits during which the scheduler did not say
    // what was free: "not in events".
    let opt = |held: bool, s: &Option<Stat>, f: &dyn Fn(f64) -> String| match s {
        Some(s) => f(s.mean),
        None if held => "not in events".to_string(),
        None => "—".to_string(),
    };
    let rows = r
        .policies
        .iter()
        .map(|p| {
            let h = &p.holding;
            let slowdown = |x: f64| format!("{x:.2}×");
            vec![
                format!("`{}`", p.spec),
                count(&h.held_waits),
                seconds(h.held_s.mean),
                format!("{} ({})", count(&h.held_at_end), seconds(h.held_at_end_s.mean)),
                count(&h.got_level),
                count(&h.timer_out),
                count(&h.other),
                h.slowdown_got.as_ref().map_or_else(|| "—".to_string(), |s| slowdown(s.mean)),
                opt(h.slowdown_got.is_some(), &h.best_now_slowdown, &|best| {
                    let got = h.best_now_got_slowdown.as_ref().map_or(f64::NAN, |s| s.mean);
                    format!("{} → {}", slowdown(best), slowdown(got))
                }),
                opt(h.slowdown_got.is_some(), &h.saved_s, &|x| seconds(x)),
            ]
        })
        .collect();
    Section { prose, header, rows }
}

fn quota_section(r: &WhatIfReport) -> Section {
    let mut prose = vec![format!(
        "On a cluster with quotas, a job *admitted and not placed* waited at least {} in all within its tenant's quota (its tenant's running GPUs plus its own at most the quota: Kueue's quota arithmetic admits it) with at least its GPUs free, and was still not placed then (kueue #4329: quota counts GPUs a placement cannot use). Counted for every policy by the report's own quota arithmetic; *admits by quota* says whether the policy itself does (`quota=on`): one that does not may also hold such a job behind borrowers or for its order. Count per run, mean over seeds; seed 1's listed, the longest wait first.",
        seconds(r.window_s)
    )];
    if !r.quotas {
        prose.push("This scenario has no quotas (`--tenants` sets them): nothing is admitted by quota.".to_string());
    }
    let header = strings(&[
        "policy",
        "admits by quota",
        "admitted, not placed",
        "jobs (seed 1): job, tenant, GPUs, admitted wait, then",
    ]);
    let rows = r.policies.iter().map(|p| quota_row(p, r.quotas)).collect();
    Section { prose, header, rows }
}

fn quota_row(p: &PolicyRow, quotas: bool) -> Vec<String> {
    let q = &p.quota;
    let admits = if q.policy_admits { "yes" } else { "no" }.to_string();
    if !quotas {
        return vec![format!("`{}`", p.spec), admits, "—".to_string(), "—".to_string()];
    }
    let listed = q
        .listed
        .iter()
        .map(|a| {
            let then = if a.placed { "placed" } else { "never placed" };
            format!("{} ({}), {}, {} GPUs, {}, {then}", a.job, a.name, a.tenant, a.gpus, seconds(a.admitted_waiting_s))
        })
        .collect::<Vec<_>>()
        .join("; ");
    vec![format!("`{}`", p.spec), admits, count(&q.count), if listed.is_empty() { "none".to_string() } else { listed }]
}
