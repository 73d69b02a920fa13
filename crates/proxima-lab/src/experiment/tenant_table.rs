//! Who pays, per tenant: for a main-grid scenario whose jobs belong to several tenants, the
//! preemptions each tenant's jobs suffered under the subject, the reference and the fair
//! baselines, and each tenant's finish-time fairness ρ under the subject and the reference
//! where the plan computed it. A pure function of the runs, like the rest of the report.

use super::results::Results;
use super::stats::Stat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One scenario's tenants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantTable {
    /// The preemption columns: the subject, the reference, then the other fair baselines.
    pub policies: Vec<String>,
    /// The ρ columns: the subject and the reference.
    pub rho_policies: Vec<String>,
    /// By GPU-time asked for, most first (ties by name).
    pub tenants: Vec<TenantRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantRow {
    /// The tenant's name in the trace (Philly's virtual cluster).
    pub name: String,
    /// Its jobs and the GPU-time they asked for (GPUs × ideal run time), mean over the
    /// reference's runs (the same jobs under every policy; the seed sets their models). On
    /// a scenario of several trace windows a run is one window under one seed, so these,
    /// the preemptions and ρ are per window, as the rows' figures are.
    pub jobs: f64,
    pub demand_gpu_s: f64,
    /// Per entry of [`TenantTable::policies`]: preemptions its jobs suffered in a run, over
    /// runs (0 in a run where the tenant has no jobs).
    pub preemptions: Vec<Stat>,
    /// Per entry of [`TenantTable::rho_policies`]: the tenant's ρ over the seeds whose runs
    /// have it, or `None` where none has.
    pub rho: Vec<Option<TenantRho>>,
}

/// A tenant's ρ (its jobs' shared JCTs summed over their isolated JCTs summed) over seeds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantRho {
    pub seeds: u32,
    pub rho: Stat,
}

/// The table of main-grid scenario `scenario`, when its reference runs have jobs of more
/// than one tenant.
pub(super) fn tenant_table(r: &Results, scenario: usize) -> Option<TenantTable> {
    let plan = r.plan;
    let reference = r.runs(scenario, &plan.reference);
    // Tenants by name, with their jobs and demand summed over the reference's seeds.
    let mut names: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for run in &reference {
        for t in run.summary.tenants.iter().filter(|t| t.jobs > 0) {
            let e = names.entry(t.name.as_str()).or_insert((0.0, 0.0));
            e.0 += t.jobs as f64;
            e.1 += t.demand_gpu_s;
        }
    }
    if names.len() < 2 {
        return None;
    }
    let seeds = reference.len() as f64;
    let mut order: Vec<(&str, f64, f64)> = names.into_iter().map(|(n, (j, d))| (n, j / seeds, d / seeds)).collect();
    order.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(b.0)));

    let mut policies = vec![plan.subject.clone(), plan.reference.clone()];
    for b in &plan.fair_baselines {
        if !policies.contains(b) {
            policies.push(b.clone());
        }
    }
    let rho_policies = vec![plan.subject.clone(), plan.reference.clone()];
    let runs: Vec<Vec<_>> = policies.iter().map(|p| r.runs(scenario, p)).collect();
    let tenants = order
        .into_iter()
        .map(|(name, jobs, demand_gpu_s)| {
            let of = |run: &super::execute::TaskResult| run.summary.tenants.iter().find(|t| t.name == name).cloned();
            let preemptions = runs
                .iter()
                .map(|per_seed| {
                    let values: Vec<f64> =
                        per_seed.iter().map(|run| of(run).map_or(0.0, |t| t.preemptions as f64)).collect();
                    Stat::of(&values)
                })
                .collect();
            let rho = rho_policies
                .iter()
                .map(|p| {
                    let values: Vec<f64> = runs[policies.iter().position(|q| q == p).expect("a column")]
                        .iter()
                        .filter_map(|run| of(run).and_then(|t| t.rho))
                        .collect();
                    (!values.is_empty()).then(|| TenantRho { seeds: values.len() as u32, rho: Stat::of(&values) })
                })
                .collect();
            TenantRow { name: name.to_string(), jobs, demand_gpu_s, preemptions, rho }
        })
        .collect();
    Some(TenantTable { policies, rho_policies, tenants })
}
