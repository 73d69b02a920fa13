//! A job history described for "your cluster": read by the core's [`parse_trace`], which
//! detects every format Proxima reads (the operators' Slurm `sacct`, Kueue Workloads and
//! Volcano Jobs among them), and summarised: jobs, tenants, time span, GPUs per job, and
//! the rows the reader left out on purpose, by reason. In the worker, as every trace file
//! is read: a 16 MiB history never passes through the page's thread, and the trace
//! readers stay out of the page's module.

use crate::protocol::{FileData, HistorySummary, LeftOut, Problem};
use proxima_core::error::SourcedError;
use proxima_core::inputs::utf8_text;
use proxima_core::trace::{parse_trace, Trace};
use proxima_core::workload::tenant_name;
use std::collections::BTreeSet;

/// The history's text, checked to be UTF-8, with the file's name in every error.
pub fn history_text(name: &str, data: &FileData) -> Result<String, Problem> {
    let bytes = data.read().map_err(|e| Problem::Message(format!("{name}: {e}")))?;
    Ok(utf8_text(name, &bytes)?.to_string())
}

/// Reads and summarises a history, naming the file, line and field of the first thing
/// it cannot read.
pub fn describe_history(name: &str, data: &FileData) -> Result<HistorySummary, Problem> {
    let text = history_text(name, data)?;
    let trace = parse_trace(&text).map_err(|e| SourcedError::new(name, e))?;
    Ok(summarise(&trace))
}

fn summarise(trace: &Trace) -> HistorySummary {
    let tenants: BTreeSet<&str> = trace.jobs.iter().map(tenant_name).collect();
    let submits = trace.jobs.iter().map(|j| j.submit_s);
    let first = submits.clone().fold(f64::INFINITY, f64::min);
    let last = submits.fold(f64::NEG_INFINITY, f64::max);
    let gpus = trace.jobs.iter().map(|j| j.gpus);
    HistorySummary {
        format: trace.format.label().to_string(),
        jobs: trace.jobs.len() as u32,
        tenants: tenants.len() as u32,
        span_s: if trace.jobs.is_empty() { 0.0 } else { last - first },
        gpus_per_job: (gpus.clone().min().unwrap_or(0), gpus.max().unwrap_or(0)),
        left_out: trace
            .skipped
            .iter()
            .map(|s| LeftOut { reason: s.reason.label().to_string(), rows: s.rows, first_line: s.first_line })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Acme history (Seren's columns): two GPU jobs of two users, a CPU-only job and a
    /// job cancelled while queued.
    pub const ACME: &str = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time
a1,alice,1,8,128,Other,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:10+08:00,2023-03-01 01:00:10+08:00,3600,10,28800.0
c1,alice,1,0,16,Other,COMPLETED,2023-03-01 00:30:00+08:00,2023-03-01 00:30:01+08:00,2023-03-01 00:31:01+08:00,60,1,0.0
b1,bob,2,16,256,Other,FAILED,2023-03-01 02:00:00+08:00,2023-03-01 02:00:30+08:00,2023-03-01 02:10:30+08:00,600,30,9600.0
q1,bob,1,4,64,Other,CANCELLED,2023-03-01 03:00:00+08:00,,,0,,0.0
";

    fn bytes(text: &[u8]) -> FileData {
        FileData::Bytes(text.to_vec().into())
    }

    #[test]
    fn a_history_is_summarised_with_the_rows_left_out() {
        let h = describe_history("seren.csv", &bytes(ACME.as_bytes())).unwrap();
        assert_eq!((h.format.as_str(), h.jobs, h.tenants), ("Acme CSV", 2, 2));
        assert_eq!(h.span_s, 7200.0);
        assert_eq!(h.gpus_per_job, (8, 16));
        let left: Vec<(u32, u32)> = h.left_out.iter().map(|l| (l.rows, l.first_line)).collect();
        assert_eq!(left, vec![(1, 3), (1, 5)], "{:?}", h.left_out);
        assert!(h.left_out[0].reason.starts_with("CPU-only"), "{:?}", h.left_out);
    }

    #[test]
    fn a_bad_history_names_file_line_and_field() {
        let bad = ACME.replace("a1,alice,1,8,", "a1,alice,1,eight,");
        let Problem::Input(e) = describe_history("seren.csv", &bytes(bad.as_bytes())).unwrap_err() else {
            panic!("an input's problem says where it is")
        };
        assert_eq!((e.source.as_str(), e.line, e.field.as_str()), ("seren.csv", Some(2), "gpu_num"), "{e}");
        let Problem::Input(e) = describe_history("h.csv", &bytes(b"id,submit_s,gpus\n\xe9,0,1\n")).unwrap_err() else {
            panic!("an input's problem says where it is")
        };
        assert_eq!((e.line, e.field.as_str()), (Some(2), "encoding"));
    }
}
