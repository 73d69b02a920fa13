//! The per-tenant table and the fairness chart: which `summary.json` figures of each tenant
//! they show, how each is written (with the summary table's helpers: three significant
//! figures and a unit) and which colour each tenant gets.
//!
//! Pure: the panels render what these functions return, and tests check them natively.

use super::summary::{sig3, Unit};
use proxima_core::metrics::per_tenant::TenantSummary;
use proxima_core::metrics::Summary;

/// A column of the per-tenant table: a key of a `summary.json` tenant, its heading, its
/// unit and its value in a tenant (`None` where the summary has none, e.g. ρ without the
/// isolated runs).
pub struct TenantMetric {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: Unit,
    value: fn(&TenantSummary) -> Option<f64>,
}

impl TenantMetric {
    pub fn value(&self, t: &TenantSummary) -> Option<f64> {
        (self.value)(t)
    }

    /// The number as `summary.json` writes it (serde_json's shortest text that reads back to
    /// the same bits; whole numbers without a fraction), for `data-value`.
    pub fn raw(&self, t: &TenantSummary) -> Option<String> {
        let v = self.value(t)?;
        Some(match self.unit {
            Unit::Count => format!("{}", v as u64),
            _ => serde_json::to_string(&v).unwrap_or_default(),
        })
    }

    /// The value for people, or a dash where there is none.
    pub fn format(&self, v: Option<f64>) -> String {
        v.map_or_else(|| "–".into(), |v| self.unit.format(v))
    }
}

const fn column(
    key: &'static str,
    label: &'static str,
    unit: Unit,
    value: fn(&TenantSummary) -> Option<f64>,
) -> TenantMetric {
    TenantMetric { key, label, unit, value }
}

/// The columns of the per-tenant table, in order (GPU share used against quota is a column
/// of its own, [`gpu_shares`]).
pub const TENANT_METRICS: &[TenantMetric] = &[
    column("jobs", "jobs", Unit::Count, |t| Some(t.jobs as f64)),
    column("avg_jct_s", "mean JCT", Unit::Duration, |t| Some(t.avg_jct_s)),
    column("p95_jct_s", "p95 JCT", Unit::Duration, |t| Some(t.p95_jct_s)),
    column("avg_queue_s", "mean time queued", Unit::Duration, |t| Some(t.avg_queue_s)),
    column("slowdown", "slowdown", Unit::Plain, |t| Some(t.slowdown)),
    column("preemptions", "preemptions suffered", Unit::Count, |t| Some(t.preemptions as f64)),
    column("rho", "finish-time fairness ρ", Unit::Plain, |t| t.rho),
    column("rho_max", "largest ρ of a job", Unit::Plain, |t| t.rho_max),
];

/// A tenant's share of the GPU-time the run used, and its quota's share of the cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuShare {
    pub used: f64,
    pub quota: f64,
}

/// Each tenant's [`GpuShare`], in the summary's order.
pub fn gpu_shares(s: &Summary) -> Vec<GpuShare> {
    let used: f64 = s.tenants.iter().map(|t| t.used_gpu_s).sum();
    let gpus = f64::from(s.gpus.max(1));
    s.tenants
        .iter()
        .map(|t| GpuShare {
            used: if used > 0.0 { t.used_gpu_s / used } else { 0.0 },
            quota: f64::from(t.quota_gpus) / gpus,
        })
        .collect()
}

/// "34.2% (quota 33.3%)".
pub fn share_text(share: GpuShare) -> String {
    format!("{}% (quota {}%)", sig3(share.used * 100.0), sig3(share.quota * 100.0))
}

/// Colours for tenants, in the order tenants are numbered (by name, sorted; the same in
/// every policy's summary), then repeated. They are Okabe and Ito's palette for people with
/// the common colour-vision deficiencies, each darkened (hue and saturation kept) until its
/// relative luminance is at most 0.18: the playback paints GPUs in these colours and writes
/// white job numbers on them, which then contrast at 4.5:1 or more (the rule of
/// `playback::colours`, whose tests check every entry). Darkened, their sky blue became their
/// blue, so a violet takes its place.
const PALETTE: [[u8; 3]; 8] = [
    [0x00, 0x72, 0xb2], // blue
    [0x99, 0x6a, 0x00], // orange, darkened
    [0x00, 0x84, 0x60], // bluish green, darkened
    [0xba, 0x4b, 0x89], // reddish purple, darkened
    [0x5e, 0x3c, 0x99], // violet, in place of sky blue
    [0xbe, 0x54, 0x00], // vermillion, darkened
    [0x7d, 0x75, 0x0a], // yellow, darkened to olive
    [0x00, 0x00, 0x00], // black
];

/// How many colours tenants have before they repeat.
pub const TENANT_COLOURS: usize = PALETTE.len();

/// The colour of the tenant at `index` of a summary's `tenants`, as sRGB bytes.
pub fn tenant_rgb(index: usize) -> [u8; 3] {
    PALETTE[index % PALETTE.len()]
}

/// The colour of the tenant at `index` of a summary's `tenants`, as CSS (`#rrggbb`).
pub fn tenant_colour(index: usize) -> String {
    let [r, g, b] = tenant_rgb(index);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// What the fairness chart plots: ρ when every run has it for some tenant, else the
/// slowdown (which needs no isolated runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FairnessMeasure {
    Rho,
    Slowdown,
}

impl FairnessMeasure {
    /// ρ if each summary has it, else slowdown.
    pub fn for_runs<'a>(mut summaries: impl Iterator<Item = &'a Summary>) -> FairnessMeasure {
        if summaries.all(|s| s.tenants.iter().any(|t| t.rho.is_some())) {
            FairnessMeasure::Rho
        } else {
            FairnessMeasure::Slowdown
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            FairnessMeasure::Rho => "rho",
            FairnessMeasure::Slowdown => "slowdown",
        }
    }

    /// A tenant's value, if it has one.
    pub fn value(self, t: &TenantSummary) -> Option<f64> {
        match self {
            FairnessMeasure::Rho => t.rho,
            FairnessMeasure::Slowdown => Some(t.slowdown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::summary::tests::summary;
    use super::*;

    fn tenant(name: &str, used_gpu_s: f64, quota_gpus: u32, rho: Option<f64>) -> TenantSummary {
        let mut t: TenantSummary = serde_json::from_value(serde_json::json!({
            "name": name, "quota_gpus": quota_gpus, "jobs": 12, "completed": 12, "rejected": 0,
            "demand_gpu_s": 1.0, "used_gpu_s": used_gpu_s, "avg_jct_s": 3723.5, "p95_jct_s": 59.96,
            "avg_queue_s": 0.1, "comm_overhead_s": 0.0, "comm_overhead_gpu_s": 0.0, "slowdown": 1.23456,
            "preemptions": 12345, "job_preemptions_max": 2
        }))
        .expect("a tenant");
        t.rho = rho;
        t
    }

    #[test]
    fn tenant_figures_are_written_like_the_summary_table_and_kept_raw() {
        let t = tenant("a", 10.0, 4, Some(1.0));
        let find = |key| TENANT_METRICS.iter().find(|m| m.key == key).unwrap();
        assert_eq!(find("avg_jct_s").format(find("avg_jct_s").value(&t)), "1.03 h");
        assert_eq!(find("p95_jct_s").format(find("p95_jct_s").value(&t)), "60 s");
        assert_eq!(find("slowdown").format(find("slowdown").value(&t)), "1.23");
        assert_eq!(find("preemptions").format(find("preemptions").value(&t)), "12,345");
        assert_eq!(find("slowdown").raw(&t).as_deref(), Some("1.23456"));
        assert_eq!(find("jobs").raw(&t).as_deref(), Some("12"));
        assert_eq!(find("rho").raw(&t).as_deref(), Some("1.0"));
        let none = tenant("b", 0.0, 0, None);
        assert_eq!(find("rho").raw(&none), None);
        assert_eq!(find("rho").format(None), "–");
    }

    #[test]
    fn gpu_shares_split_the_used_time_and_the_cluster() {
        let mut s = summary(0.0, 0.0, 0);
        s.tenants = vec![tenant("a", 30.0, 8, None), tenant("b", 10.0, 8, Some(1.5))];
        let shares = gpu_shares(&s);
        assert_eq!(shares, vec![GpuShare { used: 0.75, quota: 0.5 }, GpuShare { used: 0.25, quota: 0.5 }]);
        assert_eq!(share_text(shares[0]), "75% (quota 50%)");
        assert_eq!(FairnessMeasure::for_runs([&s].into_iter()), FairnessMeasure::Rho);
        s.tenants[1].rho = None;
        assert_eq!(FairnessMeasure::for_runs([&s].into_iter()), FairnessMeasure::Slowdown);
        assert_ne!(tenant_colour(0), tenant_colour(1));
        assert_eq!(tenant_colour(0), tenant_colour(8));
        assert_eq!(tenant_colour(1), "#996a00");
    }
}
