//! Reading a placements table: one measured configuration of one model per row.

use super::*;

const HEADER: &str = "placement,local_bsz,step_time,sync_time";

/// One measured row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    /// 1-based line in the input.
    pub line: u32,
    /// The placement as written, e.g. `1133`.
    pub placement: String,
    /// `m`: nodes with at least one GPU.
    pub nodes: u32,
    /// `N`: GPUs in all.
    pub gpus: u32,
    /// The most GPUs on one node.
    pub max_per_node: u32,
    pub local_bsz: f64,
    pub step_s: f64,
    pub sync_s: f64,
}

/// Reads a placements table. Columns may come in any order and extra columns are ignored;
/// every problem is an error naming its line and column.
pub fn parse_placements(text: &str) -> Result<Vec<Sample>, InputError> {
    let mut table = Table::new(text)?;
    let col = table.locate(&["placement", "local_bsz", "step_time", "sync_time"], &[], true, HEADER)?;
    let mut samples = Vec::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let line = row.line;
        let get = |name: &str| &*row.fields[col[name]];
        let placement = get("placement");
        let (nodes, gpus, max_per_node) = parse_placement(placement).map_err(csv::at(line, "placement"))?;
        let local_bsz = positive(get("local_bsz"), "a local batch size").map_err(csv::at(line, "local_bsz"))?;
        let step_s = positive(get("step_time"), "seconds").map_err(csv::at(line, "step_time"))?;
        let sync_s = csv::number(get("sync_time")).map_err(csv::at(line, "sync_time"))?;
        if sync_s < 0.0 {
            return Err(InputError::at_line(
                line,
                "sync_time",
                format!("expected 0 seconds or more, got '{}'", get("sync_time")),
            ));
        }
        samples.push(Sample {
            line,
            placement: placement.to_string(),
            nodes,
            gpus,
            max_per_node,
            local_bsz,
            step_s,
            sync_s,
        });
    }
    if samples.is_empty() {
        return Err(InputError::at_line(
            table.header_line,
            "header",
            "no rows: the file has a header but no measurements",
        ));
    }
    Ok(samples)
}

fn positive(value: &str, what: &str) -> Result<f64, String> {
    let x = csv::number(value)?;
    if x > 0.0 {
        Ok(x)
    } else {
        Err(format!("expected a positive number ({what}), got '{value}'"))
    }
}

/// `(nodes, gpus, most per node)` of a placement string: one digit per node, its GPU count.
/// Zeros are nodes without GPUs and do not count.
fn parse_placement(p: &str) -> Result<(u32, u32, u32), String> {
    if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "expected one digit per node giving its GPU count, e.g. '4' (four GPUs on one node) or '1111' (one on each of four nodes), got '{p}'"
        ));
    }
    let counts = p.bytes().map(|b| (b - b'0') as u32).filter(|&k| k > 0);
    let (mut nodes, mut gpus, mut most) = (0, 0, 0);
    for k in counts {
        nodes += 1;
        gpus += k;
        most = most.max(k);
    }
    if gpus == 0 {
        return Err(format!("'{p}' places no GPU"));
    }
    Ok((nodes, gpus, most))
}
