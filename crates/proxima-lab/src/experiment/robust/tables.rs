//! The second part of the robustness report: what was run (families, networks, issue 31's
//! cells, policies with their canonical specs) and one full table per family × network.

use super::grid::{Jobs, Wiring};
use super::regret::{CellResult, RobustReport};
use super::report::fmt_regret_ci;
use crate::experiment::report::{fmt_seconds, header};
use std::fmt::Write;

impl RobustReport {
    pub(super) fn write_definitions(&self, md: &mut String) {
        let p = &self.plan;
        let _ = writeln!(md, "## What ran\n");
        let _ = writeln!(md, "- **Families** (jobs):");
        for f in &p.families {
            let jobs = match &f.jobs {
                Jobs::Philly { first_job, window_jobs, windows } => format!(
                    "Philly jobs {first_job}-{} in {windows} windows of {window_jobs}",
                    first_job + windows * window_jobs
                ),
                Jobs::Synthetic { jobs, shape } => {
                    format!("{jobs} synthetic jobs, {} sizes", shape.as_deref().unwrap_or("Philly"))
                }
            };
            let sizes: Vec<String> =
                f.servers.iter().map(|(l, s)| format!("{} GPUs at {l}", s * super::sizing::GPUS_PER_SERVER)).collect();
            let mix = f.mix.as_deref().map_or("the default mix".to_string(), |m| format!("mix `{m}`"));
            let _ = writeln!(
                md,
                "  - `{}` ({}): {}. {jobs}, {mix}; {}.",
                f.name,
                f.set.label(),
                f.description,
                sizes.join(", ")
            );
        }
        let _ = writeln!(md, "- **Networks** (servers of 8 GPUs; parametric ones in racks of 4 servers):");
        for n in &p.networks {
            let how = match &n.wiring {
                Wiring::Parametric { options } => format!("`racks=R,servers=4,gpus=8,{options}`"),
                Wiring::Lingjun { options } => format!("`lingjun:topo.csv,{options}`, sliced"),
            };
            let _ = writeln!(md, "  - `{}` ({}): {}; {how}.", n.name, n.set.label(), n.description);
        }
        let notes: Vec<&CellResult> = self.cells.iter().filter(|c| c.cell.note.is_some()).collect();
        if !notes.is_empty() {
            let _ = writeln!(md, "- **Issue 31's scenarios**, run as `proxima compare --no-rho` runs them:");
            for c in notes {
                let trace = c.cell.windows.first().map(|w| w.label()).unwrap_or_default();
                let _ = writeln!(
                    md,
                    "  - `{}`: {}: `--topology {} --trace {trace} --mix {}`.",
                    c.cell.family,
                    c.cell.note.as_deref().unwrap_or(""),
                    c.cell.cluster.label(),
                    c.cell.mix.as_deref().unwrap_or("")
                );
            }
        }
        let _ = writeln!(md, "- **Policies** (canonical specs as they ran):");
        for d in &p.policies {
            let cap = d.max_preempt.map_or(String::new(), |c| format!("; max_preempt {c}"));
            let _ = writeln!(md, "  - `{}` ({}: {}{cap}): `{}`.", d.spec, d.role.label(), d.why, d.canonical);
        }
        for l in &p.left_out {
            let _ = writeln!(
                md,
                "  - `{}` ({}) left out: it does not parse on this build ({}).",
                l.spec,
                l.role.label(),
                l.reason
            );
        }
        let seeds = p.cells.first().map(|c| format!("{:?}", c.seeds)).unwrap_or_default();
        let _ = writeln!(md, "- **Seeds** {seeds} in every cell; a Philly cell's seed k runs its window k.\n");
    }

    pub(super) fn write_full_tables(&self, md: &mut String) {
        let _ = writeln!(md, "## Full tables\n");
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for c in &self.cells {
            let pair = (c.cell.family.as_str(), c.cell.network.as_str());
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        for (family, network) in pairs {
            let _ = writeln!(md, "### `{family}` on `{network}`\n");
            let cells: Vec<&CellResult> =
                self.cells.iter().filter(|c| c.cell.family == family && c.cell.network == network).collect();
            for c in &cells {
                self.write_cell(md, c);
            }
        }
    }

    fn write_cell(&self, md: &mut String, c: &CellResult) {
        let tails = &self.plan.protocol.tails_against;
        let best: Vec<String> = c.best.iter().map(|(k, b)| format!("{} `{b}`", short(k))).collect();
        let _ = writeln!(
            md,
            "Load {}: {} ({} GPUs), {} jobs a run; best fair baseline by {}.\n",
            c.cell.load,
            c.cell.cluster.label(),
            c.cell.gpus,
            c.jobs,
            best.join(", ")
        );
        header(
            md,
            &[
                "policy",
                "mean JCT",
                "mean-JCT regret",
                "makespan regret",
                "p99 regret",
                &format!("p99 ÷ `{tails}`'s"),
                "most preemptions of a job",
                "comm. overhead per job",
            ],
        );
        for r in &c.rows {
            let unfinished =
                if r.unfinished() > 0 { format!(" ({} unfinished)", r.unfinished()) } else { String::new() };
            let _ = writeln!(
                md,
                "| `{}`{unfinished} | {} | {} | {} | {} | {} | {} | {} |",
                r.policy,
                fmt_seconds(r.mean("avg_jct_s")),
                fmt_regret_ci(&r.regret["avg_jct_s"]),
                fmt_regret_ci(&r.regret["makespan_s"]),
                fmt_regret_ci(&r.regret["p99_jct_s"]),
                fmt_regret_ci(&r.p99_vs_tails),
                r.max_job_preemptions(),
                fmt_seconds(r.mean("comm_overhead_s") / c.jobs.max(1) as f64)
            );
        }
        md.push('\n');
    }
}

/// A regret metric's key in words, short.
fn short(key: &str) -> &'static str {
    match key {
        "avg_jct_s" => "mean JCT",
        "makespan_s" => "makespan",
        "p99_jct_s" => "p99 JCT",
        _ => "?",
    }
}
