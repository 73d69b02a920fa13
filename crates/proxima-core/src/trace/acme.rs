//! The Acme job traces of Shanghai AI Lab's Seren and Kalos clusters (InternLM/AcmeTrace,
//! `data/job_trace/trace_seren.csv` and `trace_kalos.csv`, CC-BY-4.0; "Characterization of
//! Large Language Model Development in the Datacenter", NSDI'24):
//!
//! ```text
//! job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time
//! 5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0
//! ```
//!
//! Kalos adds `mem_per_pod_GB`, `shared_mem_per_pod`, `fail_time` and `stop_time`. What the
//! upstream README says of the columns Proxima reads: `user` is a hashed user id, `gpu_num`
//! the GPUs the job required, `submit_time` its submission, and `duration` "total job
//! execution time", `end_time` minus `start_time` in seconds. How rows become jobs (see
//! `docs/FORMATS.md`):
//!
//! - The submission is the timestamp with its UTC offset applied (Seren's are written at
//!   +08:00, Kalos's at +00:00), so the seconds are true instants.
//! - The work is `duration`, the measured run time, whatever the final `state`: a job that
//!   failed or was cancelled after it started held its GPUs that long all the same.
//! - The user is the job's tenant.
//! - Rows that make no GPU job are left out and counted in [`Trace::skipped`], for front
//!   ends to report: CPU-only jobs (`gpu_num` 0: 410,243 of the 880,740 jobs upstream, per its README) and jobs that
//!   never ran (`duration` 0 or empty, such as jobs cancelled while queued).
//! - Other columns are not read: `start_time`, `end_time` and `queue` record what the
//!   real scheduler did, which is what a simulation replaces.

use super::gpu_count;
use super::philly::parse_timestamp;
use super::{SkipReason, Skipped, Trace, TraceFormat, TraceJob, TraceWork};
use crate::csv::{self, SeenIds, Table};
use crate::error::InputError;

const HEADER: &str =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time";
const REQUIRED: &[&str] = &["job_id", "user", "gpu_num", "submit_time", "duration"];

/// Parses an Acme CSV (Seren's or Kalos's columns); see `docs/FORMATS.md`.
pub fn parse(text: &str) -> Result<Trace, InputError> {
    let mut table = Table::new(text)?;
    let col = table.locate(REQUIRED, &[], true, HEADER)?;
    let mut seen = SeenIds::default();
    let mut jobs = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    let mut rows = 0u32;
    while let Some(row) = table.next_row() {
        let row = row?;
        let line = row.line;
        rows += 1;
        let get = |name: &str| row.fields[col[name]].trim();
        let id = get("job_id");
        if id.is_empty() {
            return Err(InputError::at_line(line, "job_id", "the job id is empty"));
        }
        seen.check(id, line).map_err(csv::at(line, "job_id"))?;
        let submit_s = parse_zoned(get("submit_time")).map_err(csv::at(line, "submit_time"))?;
        let gpus = match get("gpu_num") {
            value if csv::number(value) == Ok(0.0) => None,
            value => Some(gpu_count(value).map_err(csv::at(line, "gpu_num"))?),
        };
        let duration = match get("duration") {
            "" => 0.0,
            value => csv::number(value)
                .and_then(|d| if d < 0.0 { Err(format!("expected 0 or more seconds, got '{value}'")) } else { Ok(d) })
                .map_err(csv::at(line, "duration"))?,
        };
        let reason = if gpus.is_none() {
            Some(SkipReason::CpuOnly)
        } else if duration == 0.0 {
            Some(SkipReason::NeverRan)
        } else {
            None
        };
        if let Some(reason) = reason {
            match skipped.iter_mut().find(|s| s.reason == reason) {
                Some(s) => s.rows += 1,
                None => skipped.push(Skipped { reason, rows: 1, first_line: line }),
            }
            continue;
        }
        let duration = csv::positive_seconds(get("duration")).map_err(csv::at(line, "duration"))?;
        let user = get("user");
        jobs.push(TraceJob {
            name: id.to_string(),
            submit_s,
            gpus: gpus.expect("CPU-only rows are skipped above"),
            model: None,
            work: TraceWork::DurationS(duration),
            batch: None,
            tenant: (!user.is_empty()).then(|| user.to_string()),
            line,
        });
    }
    if jobs.is_empty() && rows > 0 {
        return Err(InputError::at_line(
            table.header_line,
            "gpu_num",
            format!("no GPU jobs: all {rows} rows are CPU-only (gpu_num 0) or never ran (duration 0)"),
        ));
    }
    let mut trace = super::from_rows(TraceFormat::Acme, jobs, table.header_line)?;
    trace.skipped = skipped;
    Ok(trace)
}

/// Seconds since 1970-01-01 00:00:00 UTC of `YYYY-MM-DD HH:MM:SS+HH:MM` (or `-HH:MM`, `Z`,
/// or no zone at all, read as UTC).
fn parse_zoned(value: &str) -> Result<f64, String> {
    let expected = || format!("expected a date and time like 2023-03-01 00:18:22+08:00, got '{value}'");
    if value.len() < 19 || !value.is_char_boundary(19) {
        return Err(expected());
    }
    let (local, zone) = value.split_at(19);
    let seconds = parse_timestamp(local).map_err(|_| expected())?;
    let offset = match zone {
        "" | "Z" => 0,
        _ => {
            let b = zone.as_bytes();
            let sign = match b[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return Err(expected()),
            };
            let digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit()).then(|| s.parse::<i64>().ok()).flatten();
            match (b.len(), b.get(3)) {
                (6, Some(b':')) => match (digits(&zone[1..3]), digits(&zone[4..6])) {
                    (Some(h), Some(m)) if h <= 23 && m <= 59 => sign * (h * 3_600 + m * 60),
                    _ => return Err(expected()),
                },
                _ => return Err(expected()),
            }
        }
    };
    let utc = seconds - offset as f64;
    if utc < 0.0 {
        return Err(format!("'{value}' is before 1970"));
    }
    Ok(utc)
}

#[cfg(test)]
#[path = "acme_tests.rs"]
mod tests;
