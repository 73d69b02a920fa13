//! The robustness report's figure as data: the recommended policy's mean-JCT regret by
//! family and load (rows) and network (columns). The CLI draws it as a heat map.

use super::regret::RobustReport;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegretMap {
    /// File name beside `report.md`.
    pub file: String,
    pub title: String,
    /// `FAMILY, load L`, in the plan's order of families and loads.
    pub rows: Vec<String>,
    /// Networks in the order cells first name them.
    pub columns: Vec<String>,
    /// Per row and column, the regret; `None` where the grid has no such cell.
    pub values: Vec<Vec<Option<f64>>>,
    /// The protocol's target for the set (the colour scale's midpoint).
    pub target: f64,
}

impl RobustReport {
    /// The figure of the recommended policy's mean-JCT regret.
    pub fn regret_map(&self) -> RegretMap {
        let p = &self.plan;
        let policy = &p.protocol.recommended;
        let mut rows: Vec<(String, f64)> = Vec::new();
        let mut columns: Vec<String> = Vec::new();
        for c in &p.cells {
            if !rows.iter().any(|(f, l)| *f == c.family && *l == c.load) {
                rows.push((c.family.clone(), c.load));
            }
            if !columns.contains(&c.network) {
                columns.push(c.network.clone());
            }
        }
        let values =
            rows.iter()
                .map(|(family, load)| {
                    columns
                        .iter()
                        .map(|network| {
                            let cell = self.cells.iter().find(|c| {
                                c.cell.family == *family && c.cell.load == *load && c.cell.network == *network
                            })?;
                            cell.row(policy)?.regret["avg_jct_s"].ratio
                        })
                        .collect()
                })
                .collect();
        let target = if p.set.is_held_out() { p.protocol.held_out_mean_jct_regret } else { p.protocol.mean_jct_regret };
        RegretMap {
            file: format!("regret-{}.svg", p.set.slug()),
            title: format!(
                "{policy}: mean JCT ÷ the best fair baseline's, {} cells ({} seeds each)",
                p.set.label(),
                p.cells.first().map_or(0, |c| c.seeds.len())
            ),
            rows: rows.into_iter().map(|(f, l)| format!("{f}, load {l}")).collect(),
            columns,
            values,
            target,
        }
    }
}
