//! The runs table: one row per run in id order; columns `run_id`, the grid's keys, then
//! every metric of `summary.json` in the order the summary writes them (maps such as
//! `tier_counts` flattened to `tier_counts.server`, ...). The summary's labels (`policy`,
//! `seed`, `topology`, `trace`) are the run's inputs, already in the grid's columns, so
//! they are left out, and so is the per-tenant list (`tenants`): one column per tenant and
//! field would make a table of hundreds of columns that differ between windows; each run's
//! `summary.json` keeps it, and the cross-tenant figures (`jain_slowdown`, preemptions per
//! job) are columns. A plan with runs that ask for ρ (`rho = true`) has the summary's
//! `rho_max`, `rho_p50` and `rho_over_1` columns even where no run could measure it; the
//! runs without ρ leave them empty.
//!
//! The table is a pure function of the plan and the summaries' text: the order in which
//! runs finished, or where they ran, cannot change a byte of it. Numbers are written as
//! `summary.json` writes them (shortest round-trip form).

use crate::plan::Plan;
use crate::spec::Cell;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::{self, Write};

/// The summary's fields that are the run's inputs, not its results.
const LABELS: &[&str] = &["policy", "seed", "topology", "trace"];

/// The summary's lists, left to `summary.json` (see the module documentation).
const LISTS: &[&str] = &["tenants"];

/// The summary's finish-time fairness figures, written only by runs that made their
/// isolated runs (and measured some ρ).
pub const RHO_COLUMNS: &[&str] = &["rho_max", "rho_p50", "rho_over_1"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Str,
    Int,
    Float,
    Bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub columns: Vec<Column>,
    /// Row-major; `None` is an empty cell.
    pub rows: Vec<Vec<Option<Cell>>>,
}

/// A JSON object's entries in the order written (serde_json's own map sorts them).
struct Ordered(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The metrics of one summary, flattened, in the summary's order.
pub fn metrics(summary_json: &str) -> Result<Vec<(String, Cell)>, String> {
    let Ordered(fields) = serde_json::from_str(summary_json).map_err(|e| format!("not a summary: {e}"))?;
    let mut out = Vec::new();
    for (key, value) in fields {
        if LABELS.contains(&key.as_str()) || LISTS.contains(&key.as_str()) {
            continue;
        }
        match value {
            Value::Object(map) => {
                // Maps in a summary (tier counts) are BTreeMaps: their JSON order is sorted,
                // which serde_json's map keeps.
                for (k, v) in map {
                    out.push((format!("{key}.{k}"), cell(&v)?));
                }
            }
            v => out.push((key, cell(&v)?)),
        }
    }
    Ok(out)
}

fn cell(v: &Value) -> Result<Cell, String> {
    Ok(match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) if !n.is_f64() => Cell::Int(i),
            _ => Cell::Float(n.as_f64().ok_or("a number out of range")?),
        },
        Value::Bool(b) => Cell::Bool(*b),
        Value::String(s) => Cell::Str(s.clone()),
        other => return Err(format!("unexpected value in a summary: {other}")),
    })
}

fn kind_of<'a>(cells: impl Iterator<Item = &'a Cell>) -> Kind {
    let mut kind = None;
    for c in cells {
        let k = match c {
            Cell::Str(_) => Kind::Str,
            Cell::Int(_) => Kind::Int,
            Cell::Float(_) => Kind::Float,
            Cell::Bool(_) => Kind::Bool,
        };
        kind = Some(match (kind, k) {
            (None, k) => k,
            (Some(a), b) if a == b => a,
            (Some(Kind::Int), Kind::Float) | (Some(Kind::Float), Kind::Int) => Kind::Float,
            _ => Kind::Str,
        });
    }
    kind.unwrap_or(Kind::Str)
}

impl Table {
    /// The table of a plan whose runs are all done: `summaries[id]` is each run's
    /// `summary.json` text.
    pub fn build(plan: &Plan, summaries: &BTreeMap<String, String>) -> Result<Table, String> {
        let mut metric_names: Vec<String> = Vec::new();
        let mut per_run: Vec<BTreeMap<String, Cell>> = Vec::with_capacity(plan.runs.len());
        for run in &plan.runs {
            let text = summaries.get(&run.id).ok_or_else(|| format!("run {} has no summary", run.id))?;
            let m = metrics(text).map_err(|e| format!("run {}: {e}", run.id))?;
            for (name, _) in &m {
                if !metric_names.contains(name) {
                    metric_names.push(name.clone());
                }
            }
            per_run.push(m.into_iter().collect());
        }
        // They come last in a summary, so appending the missing ones keeps its order.
        if plan.runs.iter().any(|r| r.inputs.rho) {
            for name in RHO_COLUMNS {
                if !metric_names.iter().any(|n| n == name) {
                    metric_names.push(name.to_string());
                }
            }
        }
        let mut rows: Vec<Vec<Option<Cell>>> = Vec::with_capacity(plan.runs.len());
        for (run, m) in plan.runs.iter().zip(&per_run) {
            let mut row = vec![Some(Cell::Str(run.id.clone()))];
            row.extend(run.cells.iter().cloned());
            row.extend(metric_names.iter().map(|n| m.get(n).cloned()));
            rows.push(row);
        }
        let names: Vec<String> =
            std::iter::once("run_id".to_string()).chain(plan.columns.iter().cloned()).chain(metric_names).collect();
        let columns = names
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                // ρ is a ratio even in a column no run could fill.
                let kind = if RHO_COLUMNS.contains(&name.as_str()) {
                    Kind::Float
                } else {
                    kind_of(rows.iter().filter_map(|r| r[i].as_ref()))
                };
                Column { name, kind }
            })
            .collect();
        Ok(Table { columns, rows })
    }

    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let header: Vec<String> = self.columns.iter().map(|c| csv_field(&c.name)).collect();
        out.push_str(&header.join(","));
        out.push('\n');
        for row in &self.rows {
            for (i, c) in row.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match c {
                    None => {}
                    Some(Cell::Str(s)) => out.push_str(&csv_field(s)),
                    Some(Cell::Int(v)) => {
                        let _ = write!(out, "{v}");
                    }
                    Some(Cell::Float(x)) => out.push_str(&serde_json::to_string(x).expect("finite")),
                    Some(Cell::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
                }
            }
            out.push('\n');
        }
        out
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Paths;
    use crate::spec::Spec;

    #[test]
    fn metrics_keep_the_summary_order() {
        let m = metrics(r#"{"policy":"fifo","seed":1,"gpus":4,"avg_jct_s":1.0,"tier_counts":{"rack":2,"server":3},"tenants":[{"name":"a"}]}"#)
            .unwrap();
        let names: Vec<&str> = m.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["gpus", "avg_jct_s", "tier_counts.rack", "tier_counts.server"]);
        assert_eq!(m[1].1, Cell::Float(1.0));
    }

    #[test]
    fn csv_in_id_order_with_quoted_specs() {
        let spec = Spec::from_toml(
            "[grid]\ntopology = 'racks=1,servers=2,gpus=2'\ntrace = 'synthetic:jobs=3'\npolicy = ['fifo', 'dally']\n",
            "s.toml",
        )
        .unwrap();
        let paths = Paths { spec_dir: ".".into(), data_dir: ".".into() };
        let plan = Plan::new(&spec, &paths).unwrap();
        let summaries: BTreeMap<String, String> = plan
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), format!(r#"{{"policy":"x","avg_jct_s":{}.5,"preemptions":{i}}}"#, i + 1)))
            .collect();
        let t = Table::build(&plan, &summaries).unwrap();
        let csv = t.to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "run_id,topology,trace,policy,avg_jct_s,preemptions");
        assert!(lines[1].starts_with(&format!("{},\"racks=1,servers=2,gpus=2\",synthetic:jobs=3,", plan.runs[0].id)));
        assert!(lines[1].ends_with(",1.5,0"));
        assert_eq!(t.columns[4].kind, Kind::Float);
        assert_eq!(t.columns[5].kind, Kind::Int);
    }
}
