//! Communication overhead in the report, in job-seconds and in GPU-seconds: both come from
//! the summaries, every table that shows one shows the other with its unit named, and a
//! `report.json` written before the GPU-seconds existed still renders, with a dash for them.

use super::execute::metric_index;
use super::tests::tiny_plan;
use super::*;

/// The cells, over every table of `md`, of the columns whose heading contains `heading`.
fn column_cells(md: &str, heading: &str) -> Vec<String> {
    let cells = |line: &str| -> Option<Vec<String>> {
        Some(line.strip_prefix("| ")?.strip_suffix(" |")?.split(" | ").map(String::from).collect())
    };
    let lines: Vec<&str> = md.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let is_header = lines.get(i + 1).is_some_and(|next| next.starts_with("|---"));
        let Some(head) = cells(line).filter(|_| is_header) else { continue };
        let columns: Vec<usize> = (0..head.len()).filter(|&c| head[c].contains(heading)).collect();
        for row in lines[i + 2..].iter().map_while(|l| cells(l)) {
            out.extend(columns.iter().map(|&c| row[c].clone()));
        }
    }
    out
}

#[test]
fn overhead_in_job_and_gpu_seconds_in_every_table_and_older_reports_still_render() {
    let plan = tiny_plan();
    let results: Vec<TaskResult> = plan.tasks().iter().map(|t| run_task(&plan, t, None).expect("runs")).collect();
    let (job_s, gpu_s) = (metric_index("comm_overhead_s"), metric_index("comm_overhead_gpu_s"));
    for r in &results {
        assert_eq!(r.values[job_s], r.summary.comm_overhead_s);
        assert_eq!(r.values[gpu_s], r.summary.comm_overhead_gpu_s);
    }
    // Multi-GPU jobs pay the overhead here, so its GPU-time exceeds its job-time somewhere.
    assert!(results.iter().any(|r| r.summary.comm_overhead_gpu_s > r.summary.comm_overhead_s + 1.0));
    let report = aggregate(&plan, &results);
    let md = report.to_markdown();
    // The summary, the sweep and both full tables (values and ratios) name both units.
    let (job_cells, gpu_cells) = (column_cells(&md, "(job-s)"), column_cells(&md, "(GPU-s)"));
    assert_eq!(job_cells.len(), gpu_cells.len());
    assert!(md.contains("| comm. overhead (job-s) | comm. overhead (GPU-s) |"), "the full tables");
    assert!(md.contains("overhead (job-s) ÷ `consolidate` | overhead (GPU-s) ÷ `consolidate` |"), "the sweep");
    assert!(gpu_cells.iter().any(|c| c.contains(" GPU-h ± ")), "{gpu_cells:?}");
    assert!(job_cells.iter().any(|c| c.contains(" job-h ± ")), "{job_cells:?}");
    assert!(gpu_cells.iter().all(|c| c != "—"), "{gpu_cells:?}");

    // The same report as an older `report.json`: no GPU-seconds in any row or comparison.
    let mut json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let mut stripped = 0;
    let mut strip = |holder: &mut serde_json::Value, rows: &str, key: &str| {
        for row in holder[rows].as_array_mut().unwrap() {
            stripped += row[key].as_object_mut().unwrap().remove("comm_overhead_gpu_s").is_some() as u32;
        }
    };
    for sc in json["scenarios"].as_array_mut().unwrap() {
        strip(sc, "rows", "values");
        strip(sc, "comparisons", "ratios");
    }
    for sw in json["sweeps"].as_array_mut().unwrap() {
        for point in sw["points"].as_array_mut().unwrap() {
            strip(point, "rows", "values");
            strip(point, "comparisons", "ratios");
        }
    }
    assert!(stripped > 0);
    let old = Report::from_json(&json.to_string()).expect("an older report reads");
    let md = old.to_markdown();
    let gpu_cells = column_cells(&md, "(GPU-s)");
    assert_eq!(gpu_cells.len(), job_cells.len());
    assert!(gpu_cells.iter().all(|c| c == "—"), "{gpu_cells:?}");
    let gpu_column = figures::SUMMARY_METRICS.iter().position(|m| *m == "comm_overhead_gpu_s").unwrap();
    let rows = old.ratio_rows(ScenarioSet::Development, "tcp", figures::SUMMARY_METRICS);
    assert!(!rows.is_empty() && rows.iter().all(|r| r.ratios[gpu_column].is_none()));
}
