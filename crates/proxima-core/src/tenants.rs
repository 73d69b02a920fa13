//! Tenants: the teams, projects or virtual clusters that share a cluster, and the GPUs each
//! is guaranteed.
//!
//! A job's tenant comes from its trace (Philly's `cluster` column, the `tenant` column of
//! Proxima's own formats, a seeded mix for synthetic traces); a job whose trace names none
//! belongs to the tenant [`DEFAULT_TENANT`]. Inside the core a tenant is a [`TenantId`], the
//! position of its name in the sorted list of the scenario's tenants, so the same trace
//! gives the same ids whatever order its rows are in; names appear again only at the edge
//! (the summary, `jobs.csv`, the CLI).
//!
//! Every tenant has a quota: a number of GPUs it is guaranteed, the *nominal quota* of a
//! Kubernetes Kueue ClusterQueue or the *capacity* of a YARN capacity-scheduler queue. The
//! quotas come from a [`TenantSpec`] (`equal`, the default, `demand`, `weights:...` or
//! explicit `NAME=GPUS,...`) and never add up to more than the cluster. Quotas matter in two
//! places: policies run with `quota=on` put jobs within their tenant's quota first and take
//! back GPUs lent to others ([`crate::policy::mechanisms::quota`]), and the finish-time fairness ρ
//! compares each tenant's jobs with a run of them alone on a cluster of its quota's size
//! ([`crate::fairness`]).

use crate::error::InputError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// A tenant of the scenario: an index into [`Tenants`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TenantId(pub u32);

/// The tenant of jobs whose trace names none.
pub const DEFAULT_TENANT: &str = "default";

/// One tenant: its name and what it is guaranteed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tenant {
    pub name: String,
    /// GPUs guaranteed to the tenant.
    pub quota_gpus: u32,
    /// The tenant's weight when quotas are split by weight (1 otherwise).
    pub weight: f64,
}

/// How the quotas were set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuotaBasis {
    /// Not set: every tenant may use the whole cluster (a scenario built by hand).
    #[default]
    Unset,
    /// Equal shares of the cluster among the tenants with jobs.
    Equal,
    /// Shares in proportion to each tenant's GPU-time demand.
    Demand,
    /// Shares in proportion to weights.
    Weights,
    /// GPUs named one by one.
    Explicit,
}

/// The tenants of a scenario, in [`TenantId`] order (their names sorted).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tenants {
    tenants: Vec<Tenant>,
    basis: QuotaBasis,
}

/// How quotas are set, as a front end receives it (`--tenants` on the command line):
///
/// - `equal`: the cluster's GPUs split evenly between the tenants that have jobs;
/// - `demand`: split in proportion to each tenant's GPU-time demand, the sum over its jobs
///   of GPUs × ideal run time;
/// - `weights:NAME=W,...`: split in proportion to weights (tenants not named weigh 1);
/// - `NAME=GPUS,...`: those quotas; tenants not named get none and only borrow.
///
/// Splits are in whole GPUs by largest remainders (Hamilton's method): each tenant gets the
/// whole part of its exact share, and the GPUs left go one each to the largest fractional
/// parts, ties to the lower tenant id.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum TenantSpec {
    #[default]
    Equal,
    Demand,
    Weights(Vec<(String, f64)>),
    Quotas(Vec<(String, u32)>),
}

const SPEC_USAGE: &str = "expected equal, demand, weights:NAME=W,... or NAME=GPUS,...";

impl TenantSpec {
    /// Parses a tenant spec; errors name the tenant or key at fault.
    pub fn parse(text: &str) -> Result<TenantSpec, InputError> {
        let text = text.trim();
        match text {
            "" => return Err(InputError::new("tenants", format!("empty; {SPEC_USAGE}"))),
            "equal" => return Ok(TenantSpec::Equal),
            "demand" => return Ok(TenantSpec::Demand),
            _ => {}
        }
        let (weights, body) = match text.strip_prefix("weights:") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let mut seen = BTreeSet::new();
        let mut entries = Vec::new();
        for part in body.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .map(|(n, v)| (n.trim(), v.trim()))
                .ok_or_else(|| InputError::new("tenants", format!("'{part}': {SPEC_USAGE}")))?;
            if name.is_empty() {
                return Err(InputError::new("tenants", format!("'{part}': a tenant needs a name")));
            }
            if !seen.insert(name.to_string()) {
                return Err(InputError::new(name, "named twice"));
            }
            entries.push((name.to_string(), value.to_string()));
        }
        if entries.is_empty() {
            return Err(InputError::new("tenants", format!("no tenants named; {SPEC_USAGE}")));
        }
        if weights {
            let parsed = entries
                .into_iter()
                .map(|(name, v)| match v.parse::<f64>() {
                    Ok(w) if w.is_finite() && w >= 0.0 => Ok((name, w)),
                    _ => Err(InputError::new(name, format!("expected a weight of 0 or more, got '{v}'"))),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(TenantSpec::Weights(parsed))
        } else {
            let parsed = entries
                .into_iter()
                .map(|(name, v)| match v.parse::<u32>() {
                    Ok(g) => Ok((name, g)),
                    Err(_) => Err(InputError::new(name, format!("expected a whole number of GPUs, got '{v}'"))),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(TenantSpec::Quotas(parsed))
        }
    }

    /// The tenants the spec names.
    fn names(&self) -> Vec<&str> {
        match self {
            TenantSpec::Equal | TenantSpec::Demand => Vec::new(),
            TenantSpec::Weights(v) => v.iter().map(|(n, _)| n.as_str()).collect(),
            TenantSpec::Quotas(v) => v.iter().map(|(n, _)| n.as_str()).collect(),
        }
    }
}

/// The canonical text, which [`TenantSpec::parse`] reads back.
impl fmt::Display for TenantSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TenantSpec::Equal => f.write_str("equal"),
            TenantSpec::Demand => f.write_str("demand"),
            TenantSpec::Weights(v) => {
                let parts: Vec<String> = v.iter().map(|(n, w)| format!("{n}={w}")).collect();
                write!(f, "weights:{}", parts.join(","))
            }
            TenantSpec::Quotas(v) => {
                let parts: Vec<String> = v.iter().map(|(n, g)| format!("{n}={g}")).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

/// Whole numbers adding up to `total` in proportion to `shares` by largest remainders; all
/// zero when the shares add up to nothing.
pub fn apportion(total: u32, shares: &[f64]) -> Vec<u32> {
    let sum: f64 = shares.iter().sum();
    if sum.is_nan() || sum <= 0.0 {
        return vec![0; shares.len()];
    }
    let exact: Vec<f64> = shares.iter().map(|s| total as f64 * s / sum).collect();
    let mut whole: Vec<u32> = exact.iter().map(|x| libm::floor(*x) as u32).collect();
    let given: u64 = whole.iter().map(|&q| q as u64).sum();
    let left = (total as u64).saturating_sub(given) as usize;
    let mut order: Vec<usize> = (0..shares.len()).filter(|&i| shares[i] > 0.0).collect();
    order.sort_by(|&a, &b| (exact[b] - whole[b] as f64).total_cmp(&(exact[a] - whole[a] as f64)).then(a.cmp(&b)));
    for &i in order.iter().take(left) {
        whole[i] += 1;
    }
    whole
}

impl Tenants {
    /// The tenants named `names` (sorted, distinct; the scenario's tenants with jobs), with
    /// quotas set by `spec` on a cluster of `total_gpus`. `demand_gpu_s[i]` is tenant `i`'s
    /// GPU-time demand; `in_trace` says whether the whole trace (before any window) names a
    /// tenant, so that a spec naming a tenant the trace never mentions is refused as a typo
    /// while one whose jobs all fall outside the window is accepted (and has no effect).
    pub fn build(
        names: Vec<String>,
        demand_gpu_s: &[f64],
        total_gpus: u32,
        spec: &TenantSpec,
        in_trace: impl Fn(&str) -> bool,
    ) -> Result<Tenants, InputError> {
        debug_assert!(names.windows(2).all(|w| w[0] < w[1]), "tenant names are sorted and distinct");
        for name in spec.names() {
            if !in_trace(name) {
                let known: Vec<&str> = names.iter().map(String::as_str).take(20).collect();
                return Err(InputError::new(
                    name,
                    format!("no job of the trace belongs to this tenant (tenants: {})", known.join(", ")),
                ));
            }
        }
        let position = |name: &str| names.binary_search_by(|n| n.as_str().cmp(name)).ok();
        let mut weights = vec![1.0; names.len()];
        let (quotas, basis) = match spec {
            TenantSpec::Equal => (apportion(total_gpus, &weights), QuotaBasis::Equal),
            TenantSpec::Demand => (apportion(total_gpus, demand_gpu_s), QuotaBasis::Demand),
            TenantSpec::Weights(named) => {
                for (name, w) in named {
                    if let Some(i) = position(name) {
                        weights[i] = *w;
                    }
                }
                if !names.is_empty() && weights.iter().all(|&w| w == 0.0) {
                    return Err(InputError::new("tenants", "every tenant with jobs weighs 0"));
                }
                (apportion(total_gpus, &weights), QuotaBasis::Weights)
            }
            TenantSpec::Quotas(named) => {
                let sum: u64 = named.iter().map(|(_, g)| *g as u64).sum();
                if sum > total_gpus as u64 {
                    return Err(InputError::new(
                        "tenants",
                        format!("the quotas add up to {sum} GPUs, more than the cluster's {total_gpus}"),
                    ));
                }
                let mut quotas = vec![0; names.len()];
                for (name, g) in named {
                    if let Some(i) = position(name) {
                        quotas[i] = *g;
                    }
                }
                (quotas, QuotaBasis::Explicit)
            }
        };
        let tenants = names
            .into_iter()
            .zip(quotas)
            .zip(weights)
            .map(|((name, quota_gpus), weight)| Tenant { name, quota_gpus, weight })
            .collect();
        Ok(Tenants { tenants, basis })
    }

    /// How many tenants the table holds.
    pub fn len(&self) -> usize {
        self.tenants.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tenants.is_empty()
    }

    pub fn basis(&self) -> QuotaBasis {
        self.basis
    }

    pub fn iter(&self) -> impl Iterator<Item = (TenantId, &Tenant)> {
        self.tenants.iter().enumerate().map(|(i, t)| (TenantId(i as u32), t))
    }

    pub fn get(&self, id: TenantId) -> Option<&Tenant> {
        self.tenants.get(id.0 as usize)
    }

    /// The tenant's name; [`DEFAULT_TENANT`] for an id the table does not hold (a scenario
    /// built by hand, whose jobs all have tenant 0).
    pub fn name(&self, id: TenantId) -> &str {
        self.get(id).map_or(DEFAULT_TENANT, |t| t.name.as_str())
    }

    /// The tenant's quota; unlimited for an id the table does not hold.
    pub fn quota(&self, id: TenantId) -> u32 {
        self.get(id).map_or(u32::MAX, |t| t.quota_gpus)
    }

    /// The id of a tenant by name.
    pub fn lookup(&self, name: &str) -> Option<TenantId> {
        self.tenants.binary_search_by(|t| t.name.as_str().cmp(name)).ok().map(|i| TenantId(i as u32))
    }

    /// A table of one tenant holding `quota_gpus` (the isolated runs of finish-time
    /// fairness give each tenant its share this way).
    pub fn single(name: &str, quota_gpus: u32, basis: QuotaBasis) -> Tenants {
        Tenants { tenants: vec![Tenant { name: name.to_string(), quota_gpus, weight: 1.0 }], basis }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn specs_parse_and_print_back() {
        for text in ["equal", "demand", "weights:a=2,b=0.5", "a=64,b=0"] {
            let spec = TenantSpec::parse(text).unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(TenantSpec::parse(&spec.to_string()).unwrap(), spec);
        }
        assert_eq!(TenantSpec::parse(" a = 3 , b=4 ").unwrap().to_string(), "a=3,b=4");
        let cases = [
            ("", "tenants", "empty"),
            ("fair", "tenants", "expected equal"),
            ("a=1,a=2", "a", "named twice"),
            ("a=1.5", "a", "whole number of GPUs"),
            ("a=-1", "a", "whole number of GPUs"),
            ("weights:a=x", "a", "weight of 0 or more"),
            ("weights:a=-1", "a", "weight of 0 or more"),
            ("weights:", "tenants", "no tenants named"),
            ("=4", "tenants", "needs a name"),
        ];
        for (text, field, what) in cases {
            let e = TenantSpec::parse(text).unwrap_err();
            assert_eq!(e.field, field, "{text}: {e}");
            assert!(e.message.contains(what), "{text}: {e}");
        }
    }

    #[test]
    fn largest_remainders_add_up_exactly() {
        assert_eq!(apportion(10, &[1.0, 1.0, 1.0]), [4, 3, 3]);
        assert_eq!(apportion(2048, &[1.0; 15]).iter().sum::<u32>(), 2048);
        assert_eq!(apportion(2048, &[1.0; 15])[..9], [137, 137, 137, 137, 137, 137, 137, 137, 136]);
        // 7 × (0.5, 0.3, 0.2) = 3.5, 2.1, 1.4: wholes 3 + 2 + 1, one left for the .5.
        assert_eq!(apportion(7, &[5.0, 3.0, 2.0]), [4, 2, 1]);
        assert_eq!(apportion(5, &[0.0, 0.0]), [0, 0]);
        assert_eq!(apportion(5, &[0.0, 2.0]), [0, 5]);
    }

    #[test]
    fn quotas_from_each_kind_of_spec() {
        let yes = |_: &str| true;
        let n = names(&["a", "b", "c"]);
        let t = Tenants::build(n.clone(), &[3.0, 1.0, 0.0], 16, &TenantSpec::Equal, yes).unwrap();
        assert_eq!(t.iter().map(|(_, x)| x.quota_gpus).collect::<Vec<_>>(), [6, 5, 5]);
        assert_eq!((t.lookup("b"), t.name(TenantId(2)), t.basis()), (Some(TenantId(1)), "c", QuotaBasis::Equal));
        let t = Tenants::build(n.clone(), &[3.0, 1.0, 0.0], 16, &TenantSpec::Demand, yes).unwrap();
        assert_eq!(t.iter().map(|(_, x)| x.quota_gpus).collect::<Vec<_>>(), [12, 4, 0]);
        let w = TenantSpec::parse("weights:a=2,c=1").unwrap();
        let t = Tenants::build(n.clone(), &[0.0; 3], 16, &w, yes).unwrap();
        // b is not named: weight 1. Shares 2:1:1.
        assert_eq!(t.iter().map(|(_, x)| x.quota_gpus).collect::<Vec<_>>(), [8, 4, 4]);
        assert_eq!(t.get(TenantId(0)).unwrap().weight, 2.0);
        let q = TenantSpec::parse("c=4,a=8").unwrap();
        let t = Tenants::build(n.clone(), &[0.0; 3], 16, &q, yes).unwrap();
        assert_eq!(t.iter().map(|(_, x)| x.quota_gpus).collect::<Vec<_>>(), [8, 0, 4]);
        // A name outside the window but in the trace is accepted and has no effect.
        let q = TenantSpec::parse("z=4,a=8").unwrap();
        assert_eq!(Tenants::build(n.clone(), &[0.0; 3], 16, &q, yes).unwrap().quota(TenantId(0)), 8);
    }

    #[test]
    fn bad_quotas_are_refused() {
        let n = names(&["a", "b"]);
        let e =
            Tenants::build(n.clone(), &[0.0; 2], 16, &TenantSpec::parse("a=10,b=7").unwrap(), |_| true).unwrap_err();
        assert!(e.message.contains("add up to 17 GPUs, more than the cluster's 16"), "{e}");
        let e = Tenants::build(n.clone(), &[0.0; 2], 16, &TenantSpec::parse("a=1,typo=2").unwrap(), |x| x != "typo")
            .unwrap_err();
        assert_eq!(e.field, "typo");
        assert!(e.message.contains("tenants: a, b"), "{e}");
        let e = Tenants::build(n, &[0.0; 2], 16, &TenantSpec::parse("weights:a=0,b=0").unwrap(), |_| true).unwrap_err();
        assert!(e.message.contains("weighs 0"), "{e}");
    }

    #[test]
    fn an_unset_table_has_no_limits() {
        let t = Tenants::default();
        assert_eq!((t.quota(TenantId(0)), t.name(TenantId(0)), t.basis()), (u32::MAX, "default", QuotaBasis::Unset));
    }
}
