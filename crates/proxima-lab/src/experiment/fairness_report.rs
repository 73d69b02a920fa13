//! The report's fairness section: who pays for the subject's gains. Per congested `tcp`
//! scenario with several tenants, the policies' fairness figures side by side, then the
//! tenants' preemptions and ρ under the subject, the reference and the fair baselines.

use super::aggregate::{Report, ScenarioReport};
use super::report::{fmt_rho_cell, header, label};
use super::tenant_table::{TenantRho, TenantTable};
use std::fmt::Write;

/// The fairness figures per policy, in this order.
const FAIRNESS_COLUMNS: &[&str] = &["preemptions", "job_preemptions_max", "jain_slowdown", "rho_max", "rho_over_1"];

impl Report {
    /// The scenarios the fairness section shows: the main grid's with a tenant table, on
    /// the first network, congested (the others are in `report.json`).
    fn fairness_scenarios(&self) -> Vec<&ScenarioReport> {
        let first = self.plan.networks.first().map(|n| n.name.as_str());
        self.scenarios
            .iter()
            .filter(|sc| {
                sc.tenants.is_some() && Some(sc.scenario.network.as_str()) == first && sc.scenario.oversub > 1.0
            })
            .collect()
    }

    /// Seeds with isolated runs in the scenario that has most: the plan's count, or fewer
    /// when the scenarios have fewer seeds.
    pub(super) fn rho_seed_count(&self) -> usize {
        let most = self.plan.main.iter().map(|&s| self.plan.scenarios[s].seeds.len()).max().unwrap_or(0);
        self.plan.rho_seeds.min(most)
    }

    pub(super) fn write_fairness(&self, md: &mut String) {
        let shown = self.fairness_scenarios();
        if shown.is_empty() {
            return;
        }
        let p = &self.plan;
        let _ = writeln!(md, "## Who pays: fairness per policy and per tenant\n");
        let _ = writeln!(
            md,
            "Finish-time fairness ρ of a job is its JCT in the shared cluster over its JCT when its tenant's jobs run alone, under the same policy, on a share of the cluster the size of the tenant's equal quota (docs/METRICS.md); a tenant's ρ is its jobs' shared JCTs summed over their isolated JCTs summed. The plan makes these isolated runs for the first {} seed(s) of each main-grid scenario; ρ figures are means over those seeds. Scenarios whose jobs all belong to one tenant (the synthetic workloads) have no ρ (—): the tenant's share would be the whole cluster and ρ would be 1 by construction. Shown: the congested scenarios on the `{}` network; `report.json` has every main-grid scenario with several tenants.\n",
            self.rho_seed_count(),
            p.networks.first().map_or("", |n| n.name.as_str())
        );
        for sc in shown {
            let table = sc.tenants.as_ref().expect("filtered on tenants");
            let _ = writeln!(md, "### {}\n", sc.scenario.name);
            let mut columns = vec!["policy".to_string()];
            columns.extend(FAIRNESS_COLUMNS.iter().map(|k| label(k).to_string()));
            header(md, &columns.iter().map(String::as_str).collect::<Vec<_>>());
            for row in &sc.rows {
                let cells: Vec<String> =
                    FAIRNESS_COLUMNS.iter().map(|k| super::report::fmt_cell(k, row.values.get(*k))).collect();
                let _ = writeln!(md, "| `{}` | {} |", row.policy, cells.join(" | "));
            }
            md.push('\n');
            write_tenants(md, table);
        }
    }
}

/// The tenants of one scenario: preemptions suffered (mean over seeds) per policy, and ρ.
fn write_tenants(md: &mut String, table: &TenantTable) {
    let _ = writeln!(
        md,
        "Preemptions each tenant's jobs suffered (mean over seeds), and the tenant's ρ (mean over the seeds with isolated runs), tenants by GPU-time asked for:\n"
    );
    let mut columns = vec!["tenant".to_string(), "jobs".into(), "GPU-h asked".into()];
    columns.extend(table.policies.iter().map(|p| format!("preemptions `{p}`")));
    columns.extend(table.rho_policies.iter().map(|p| format!("ρ `{p}`")));
    header(md, &columns.iter().map(String::as_str).collect::<Vec<_>>());
    for t in &table.tenants {
        let mut cells = vec![format!("{:.0}", t.jobs), format!("{:.0}", t.demand_gpu_s / 3600.0)];
        cells.extend(t.preemptions.iter().map(|s| format!("{:.1}", s.mean)));
        cells.extend(
            t.rho
                .iter()
                .map(|r: &Option<TenantRho>| r.as_ref().map_or_else(|| "—".into(), |r| fmt_rho_cell(r.rho.mean))),
        );
        let _ = writeln!(md, "| {} | {} |", t.name, cells.join(" | "));
    }
    md.push('\n');
}
