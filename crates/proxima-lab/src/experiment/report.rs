//! `report.md` and `report.json`: the report as text, made only here, at the edge.

use super::aggregate::{BoundStats, PolicyRow, Report, ScenarioReport};
use super::execute::{METRICS, RHO_METRICS};
use super::figures::{FigureKind, SUMMARY_METRICS};
use super::stats::{RatioCi, Stat};
use std::fmt::Write;

/// The label of a metric key.
pub(super) fn label(key: &str) -> &'static str {
    METRICS.iter().chain(RHO_METRICS).find(|m| m.key == key).map(|m| m.label).unwrap_or("?")
}

/// A ratio with three significant figures below 0.1.
pub fn fmt_ratio(x: f64) -> String {
    if !x.is_finite() {
        "∞".to_string()
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 0.1 {
        format!("{x:.2}")
    } else if x >= 0.001 {
        format!("{x:.3}")
    } else {
        format!("{x:.1e}")
    }
}

/// `0.85 [0.80–0.90]`, with `≈` when the interval includes 1.
pub fn fmt_ci(ci: &RatioCi) -> String {
    match ci.ratio {
        None => "— (baseline ≈ 0)".to_string(),
        Some(r) => {
            let mark = if ci.includes_one() { " ≈" } else { "" };
            format!("{} [{}–{}]{mark}", fmt_ratio(r), fmt_ratio(ci.low), fmt_ratio(ci.high))
        }
    }
}

/// Seconds as `N s` below ten hours, else `N.N h`.
pub fn fmt_seconds(s: f64) -> String {
    if s.abs() >= 36_000.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{s:.0} s")
    }
}

/// A ρ: two decimals up to 100, whole numbers above (a job of seconds that waited a day
/// has a ρ in the tens of thousands).
pub(super) fn fmt_rho_cell(rho: f64) -> String {
    if rho >= 100.0 {
        format!("{rho:.0}")
    } else {
        format!("{rho:.2}")
    }
}

/// A ratio cell, or — for a metric the report was written without (a `report.json` older
/// than the metric).
pub(super) fn fmt_ratio_cell(ci: Option<&RatioCi>) -> String {
    ci.map_or_else(|| "—".to_string(), fmt_ci)
}

/// A table cell: the value over seeds, or — for a figure the runs do not have (ρ of a
/// scenario with one tenant, or a report written before the metric existed).
pub(super) fn fmt_cell(key: &str, s: Option<&Stat>) -> String {
    s.map_or_else(|| "—".to_string(), |v| fmt_value(key, v))
}

fn fmt_value(key: &str, s: &Stat) -> String {
    match key {
        "rho_max" => format!("{} ± {}", fmt_rho_cell(s.mean), fmt_rho_cell(s.sd)),
        "rho_over_1" => format!("{:.1}% ± {:.1}", 100.0 * s.mean, 100.0 * s.sd),
        "preemptions" | "unfinished" | "job_preemptions_max" => format!("{:.0} ± {:.0}", s.mean, s.sd),
        "jain_slowdown" => format!("{:.3} ± {:.3}", s.mean, s.sd),
        "restore_s" => format!("{:.0} h ± {:.0}", s.mean / 3600.0, s.sd / 3600.0),
        "comm_overhead_s" => format!("{:.0} job-h ± {:.0}", s.mean / 3600.0, s.sd / 3600.0),
        "comm_overhead_gpu_s" => format!("{:.0} GPU-h ± {:.0}", s.mean / 3600.0, s.sd / 3600.0),
        _ if s.mean.abs() >= 36_000.0 => format!("{:.1} h ± {:.1}", s.mean / 3600.0, s.sd / 3600.0),
        _ => format!("{:.0} s ± {:.0}", s.mean, s.sd),
    }
}

pub(super) fn header(md: &mut String, columns: &[&str]) {
    let _ = writeln!(md, "| {} |", columns.join(" | "));
    let _ = writeln!(
        md,
        "|{}",
        columns.iter().enumerate().map(|(i, _)| if i == 0 { "---|" } else { "---:|" }).collect::<String>()
    );
}

fn bound_line(b: &BoundStats) -> String {
    format!(
        "makespan lower bound {} (longest job: submission + ideal run {}; work: {}); mean ideal run time (a floor under the mean JCT) {}",
        fmt_seconds(b.makespan_s.mean),
        fmt_seconds(b.critical_job_s.mean),
        fmt_seconds(b.work_s.mean),
        fmt_seconds(b.mean_ideal_run_s.mean)
    )
}

/// The value columns of the full tables.
const VALUE_COLUMNS: &[&str] = &[
    "avg_jct_s",
    "p95_jct_s",
    "makespan_s",
    "avg_queue_s",
    "comm_overhead_s",
    "comm_overhead_gpu_s",
    "single_gpu_jct_s",
    "multi_gpu_jct_s",
    "preemptions",
    "restore_s",
    "jain_slowdown",
    "job_preemptions_max",
    "rho_max",
    "rho_over_1",
];

/// The ratio columns of the full tables.
const RATIO_COLUMNS: &[&str] = &[
    "avg_jct_s",
    "makespan_s",
    "p95_jct_s",
    "avg_queue_s",
    "comm_overhead_s",
    "comm_overhead_gpu_s",
    "single_gpu_jct_s",
    "multi_gpu_jct_s",
];

impl Report {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serialises")
    }

    /// `report.md`: how to read it, the summary, the figures, the sweeps, the oracle check,
    /// who pays (fairness per policy and per tenant) and the full tables.
    pub fn to_markdown(&self) -> String {
        let mut md = String::new();
        self.write_intro(&mut md);
        self.write_claims(&mut md);
        self.write_summary(&mut md);
        self.write_window_intervals(&mut md);
        self.write_candidate(&mut md);
        self.write_cdfs(&mut md);
        self.write_sweeps(&mut md);
        self.write_oracles(&mut md);
        self.write_fairness(&mut md);
        self.write_full_tables(&mut md);
        md
    }

    fn write_intro(&self, md: &mut String) {
        let p = &self.plan;
        let _ = writeln!(md, "# Experiment `{}`\n", p.name);
        let _ = writeln!(md, "Generated by `proxima experiment {}`: {} runs.\n", p.name, self.runs);
        let _ = writeln!(md, "## How to read it\n");
        let _ = writeln!(md, "- **Networks**:");
        for n in &p.networks {
            let _ = writeln!(md, "  - `{}`: {} (topology options `{}`).", n.name, n.description, n.topology_options);
        }
        let _ = writeln!(md, "- **Workloads** (each on every network, congested and uncongested):");
        for w in &p.workloads {
            let seeds = match (w.seeds.first(), w.seeds.last()) {
                (Some(a), Some(b)) => format!("seeds {a}–{b}"),
                _ => "no seeds".to_string(),
            };
            let _ = writeln!(
                md,
                "  - `{}` ({}): {}, {} racks × {} servers × {} GPUs = {} GPUs, {}; {}.",
                w.name,
                w.set.label(),
                w.trace.label(),
                w.racks,
                w.servers_per_rack,
                w.gpus_per_server,
                w.gpus(),
                w.load,
                seeds
            );
        }
        let _ = writeln!(
            md,
            "- **Development** workloads are those `{}` was developed on; **held-out** ones were fixed before any further change to it, and are reported apart.",
            p.subject
        );
        let _ = writeln!(
            md,
            "- **Policies**: {}.",
            p.policies.iter().map(|q| format!("`{q}`")).collect::<Vec<_>>().join(", ")
        );
        let _ = writeln!(
            md,
            "- **Ratios** are ratios of means: the mean over seeds of a policy's metric over the baseline's mean on the same seeds (below 1: the policy is lower). In brackets, the {:.0}% percentile bootstrap interval from {} paired resamples of the seeds (fixed generator seed {:#x}), each seed's value the mean over the scenario's windows: on Philly scenarios it covers the model draw only (see *What each interval covers* below). **≈** marks an interval that includes 1: these seeds show no difference.",
            100.0 * p.bootstrap.confidence,
            p.bootstrap.resamples,
            p.bootstrap.seed
        );
        let _ = writeln!(
            md,
            "- **Values** are mean ± sample standard deviation over seeds. Communication overhead is summed over jobs in job-hours (each job's time beyond its ideal run) and in GPU-hours (that time times the job's GPUs; docs/METRICS.md); restore time is summed over jobs, in hours. Fairness: Jain's index over the tenants' mean slowdowns (1: every tenant slowed alike; 1 with a single tenant) and the preemptions of the job preempted most (docs/METRICS.md); finish-time fairness ρ (max over jobs, and the share of jobs with ρ > 1) over the first {} seed(s) of each main-grid scenario, the ones with isolated runs. — marks a figure the runs do not have: ρ where all jobs belong to one tenant, or a figure the report was written without.",
            self.rho_seed_count()
        );
        let _ = writeln!(
            md,
            "- **Makespan lower bound** (whatever the policy): the larger of the latest submission + ideal run time of any job, and, over submission times t, t + GPU-work submitted at or after t / GPUs (ideal run time: tightest feasible placement, no contention). Full tables give makespan ÷ bound.\n"
        );
    }

    fn write_summary(&self, md: &mut String) {
        let p = &self.plan;
        let _ = writeln!(md, "## Summary: `{}` against each baseline\n", p.subject);
        for set in self.sets() {
            for n in &p.networks {
                let rows = self.ratio_rows(set, &n.name, SUMMARY_METRICS);
                if rows.is_empty() {
                    continue;
                }
                let _ = writeln!(md, "### {} workloads, `{}` network\n", set.label(), n.name);
                let mut columns = vec!["scenario", "baseline"];
                columns.extend(SUMMARY_METRICS.iter().map(|m| label(m)));
                header(md, &columns);
                for row in &rows {
                    let cells: Vec<String> = row.ratios.iter().map(|ci| fmt_ratio_cell(ci.as_ref())).collect();
                    let _ = writeln!(md, "| {} | `{}` | {} |", row.scenario, row.baseline, cells.join(" | "));
                }
                md.push('\n');
                self.embed(
                    md,
                    |k| matches!(k, FigureKind::Ratios { set: s, network } if *s == set && *network == n.name),
                );
            }
        }
    }

    fn embed(&self, md: &mut String, which: impl Fn(&FigureKind) -> bool) {
        for f in self.figures().iter().filter(|f| which(&f.kind)) {
            let _ = writeln!(md, "![{}]({})\n", f.title, f.file);
        }
    }

    fn write_cdfs(&self, md: &mut String) {
        if self.cdfs.is_empty() {
            return;
        }
        let _ = writeln!(md, "## JCT distributions\n");
        self.embed(md, |k| matches!(k, FigureKind::Cdf { .. }));
    }

    fn write_sweeps(&self, md: &mut String) {
        if self.sweeps.is_empty() {
            return;
        }
        let _ = writeln!(md, "## Sweeps\n");
        let subject = &self.plan.subject;
        for (index, sweep) in self.sweeps.iter().enumerate() {
            let s = &sweep.sweep;
            let _ = writeln!(md, "### {}: `{}`, `{}` network\n", s.label, s.workload, s.network);
            let _ = writeln!(md, "Mean JCT of each policy:\n");
            let mut columns = vec![s.parameter.as_str()];
            columns.extend(s.policies.iter().map(String::as_str));
            columns.push("makespan bound");
            let columns: Vec<String> = columns
                .iter()
                .map(|c| {
                    if c.contains(':') || s.policies.iter().any(|p| p == c) {
                        format!("`{c}`")
                    } else {
                        c.to_string()
                    }
                })
                .collect();
            header(md, &columns.iter().map(String::as_str).collect::<Vec<_>>());
            for point in &sweep.points {
                let cells: Vec<String> = point.rows.iter().map(|r| fmt_seconds(r.values["avg_jct_s"].mean)).collect();
                let _ = writeln!(
                    md,
                    "| {} | {} | {} |",
                    point.x,
                    cells.join(" | "),
                    fmt_seconds(point.bounds.makespan_s.mean)
                );
            }
            let _ = writeln!(md, "\n`{subject}` over each, mean JCT and communication overhead (job-s and GPU-s):\n");
            let others: Vec<&String> = s.policies.iter().filter(|p| *p != subject).collect();
            let mut columns = vec![s.parameter.clone()];
            for o in &others {
                columns.push(format!("JCT ÷ `{o}`"));
            }
            for unit in ["job-s", "GPU-s"] {
                for o in &others {
                    columns.push(format!("overhead ({unit}) ÷ `{o}`"));
                }
            }
            header(md, &columns.iter().map(String::as_str).collect::<Vec<_>>());
            for point in &sweep.points {
                let jct: Vec<String> = point.comparisons.iter().map(|c| fmt_ci(&c.ratios["avg_jct_s"])).collect();
                let ovh = |key: &str| -> Vec<String> {
                    point.comparisons.iter().map(|c| fmt_ratio_cell(c.ratios.get(key))).collect()
                };
                let (job_s, gpu_s) = (ovh("comm_overhead_s"), ovh("comm_overhead_gpu_s"));
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} |",
                    point.x,
                    jct.join(" | "),
                    job_s.join(" | "),
                    gpu_s.join(" | ")
                );
            }
            md.push('\n');
            self.embed(md, |k| matches!(k, FigureKind::Sweep { index: i } if *i == index));
        }
    }

    fn write_oracles(&self, md: &mut String) {
        if self.oracles.is_empty() {
            return;
        }
        let settings = self.oracles[0].grid.len();
        let _ = writeln!(md, "## Oracle check of the auto-tuner\n");
        let _ = writeln!(
            md,
            "`{}` against `dally:autotune=off` with each of {} static timer settings (server/rack, seconds), the best picked in hindsight on the same seeds (which flatters it). Mean JCT:\n",
            self.plan.oracles[0].tuned, settings
        );
        header(
            md,
            &[
                "scenario",
                "best static",
                "its mean JCT",
                "auto-tuned",
                "tuned ÷ best",
                &format!("rank of {}", settings + 1),
                "worst static",
            ],
        );
        for o in &self.oracles {
            let best = o.grid.iter().find(|(t, _)| *t == o.best_static).map(|(_, s)| s.mean).unwrap_or(f64::NAN);
            let worst =
                o.grid
                    .iter()
                    .fold(("", f64::NEG_INFINITY), |w, (t, s)| if s.mean > w.1 { (t.as_str(), s.mean) } else { w });
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} ({}) |",
                o.scenario,
                o.best_static,
                fmt_seconds(best),
                fmt_seconds(o.tuned.mean),
                fmt_ci(&o.tuned_vs_best),
                o.rank,
                worst.0,
                fmt_seconds(worst.1)
            );
        }
        md.push('\n');
    }

    fn write_full_tables(&self, md: &mut String) {
        let _ = writeln!(md, "## Full tables\n");
        for sc in &self.scenarios {
            self.write_scenario(md, sc);
        }
    }

    fn write_scenario(&self, md: &mut String, sc: &ScenarioReport) {
        let d = &sc.scenario;
        let reference = &self.plan.reference;
        let _ = writeln!(md, "### {}\n", d.name);
        let _ = writeln!(
            md,
            "{} workload, `{}` network, {}: `{}` ({} GPUs), {} ({} jobs), {}, seeds {:?}.\n",
            d.set.label(),
            d.network,
            d.congestion_label(),
            d.topology,
            sc.gpus,
            d.trace.label(),
            sc.jobs,
            d.load,
            d.seeds
        );
        let _ = writeln!(
            md,
            "Network: {}.\n",
            proxima_core::topology::resolve_topology_arg(&d.topology)
                .map_or_else(|e| e.to_string(), |t| t.describe_network())
        );
        let _ = writeln!(md, "{}.\n", bound_line(&sc.bounds));
        let mut columns = vec!["policy".to_string()];
        for key in VALUE_COLUMNS {
            columns.push(label(key).to_string());
            if *key == "makespan_s" {
                columns.push("makespan ÷ bound".into());
            }
        }
        header(md, &columns.iter().map(String::as_str).collect::<Vec<_>>());
        for row in &sc.rows {
            let _ = writeln!(md, "| `{}` | {} |", row.policy, self.value_cells(row, &sc.bounds).join(" | "));
        }
        let unfinished: Vec<String> = sc
            .rows
            .iter()
            .filter(|r| r.values["unfinished"].max > 0.0)
            .map(|r| format!("`{}` (up to {:.0})", r.policy, r.values["unfinished"].max))
            .collect();
        if !unfinished.is_empty() {
            let _ = writeln!(
                md,
                "\nJobs left unfinished when the run ended (the policy stalled): {}.",
                unfinished.join(", ")
            );
        }
        let _ = writeln!(md, "\nRatio of means to `{reference}`:\n");
        let mut columns = vec!["policy".to_string()];
        columns.extend(RATIO_COLUMNS.iter().map(|k| label(k).to_string()));
        header(md, &columns.iter().map(String::as_str).collect::<Vec<_>>());
        for c in sc.comparisons.iter().filter(|c| c.baseline == *reference) {
            let cells: Vec<String> = RATIO_COLUMNS.iter().map(|k| fmt_ratio_cell(c.ratios.get(*k))).collect();
            let _ = writeln!(md, "| `{}` | {} |", c.policy, cells.join(" | "));
        }
        md.push('\n');
    }

    fn value_cells(&self, row: &PolicyRow, bounds: &BoundStats) -> Vec<String> {
        let mut cells = Vec::new();
        for key in VALUE_COLUMNS {
            // A report written before a metric existed has no value for it, nor has a row
            // without isolated runs a ρ.
            cells.push(fmt_cell(key, row.values.get(*key)));
            if *key == "makespan_s" {
                cells.push(format!("{:.2}", row.values[*key].mean / bounds.makespan_s.mean));
            }
        }
        cells
    }
}
