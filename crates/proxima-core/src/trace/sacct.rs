//! Slurm's job accounting as `sacct --parsable2` prints it: a cluster's job history.
//!
//! The documented command (`docs/FORMATS.md`) is
//!
//! ```text
//! sacct --allusers --parsable2 --starttime 2026-03-01 --endtime 2026-03-08 \
//!       --format=JobID,Submit,Start,End,State,NNodes,AllocTRES,Account,User
//! JobID|Submit|Start|End|State|NNodes|AllocTRES|Account|User
//! 4101|2026-03-01T08:00:12|2026-03-01T08:00:14|2026-03-01T11:12:40|COMPLETED|2|billing=128,cpu=128,gres/gpu=16,mem=1000G,node=2|vision|alice
//! 4101.batch|2026-03-01T08:00:14|2026-03-01T08:00:14|2026-03-01T11:12:40|COMPLETED|1|cpu=64,gres/gpu=8,mem=500G,node=1|vision|
//! ```
//!
//! The reader needs the columns JobID, Submit, Start, End, State and AllocTRES, in any
//! order and any letter case; Account and User are read when present; other columns are
//! ignored. How rows become jobs:
//!
//! - One job per allocation. Job steps (`4101.batch`, `4101.extern`, `4101.0`, the rows
//!   without `--allocations`/`-X`) are folded into their allocation: they never make jobs,
//!   since the allocation row already holds the GPUs and the times.
//! - An array task (`4102_7`) is a job of its own, named as sacct names it; a pending
//!   array row (`4102_[8-15]`) is one pending row however many tasks it stands for.
//! - The components of a heterogeneous job (`4103+0`, `4103+1`) are allocated together and
//!   run as one program, so they make one job named `4103`: its GPUs the sum of the
//!   components', its run from the earliest start to the latest end.
//! - GPUs are AllocTRES's `gres/gpu=N`; without it, the sum of the typed counts
//!   (`gres/gpu:a100=N`), which Slurm prints beside the untyped total when GPUs have types.
//! - The submission is Submit, the work the measured run time End − Start. Timestamps are
//!   sacct's default `2026-03-01T08:00:12`, local time without a zone; Proxima takes them
//!   as given, so a run across a daylight-saving change is off by that hour.
//! - The tenant is Account when the column is there and not empty, else User.
//! - Left out and counted in [`Trace::skipped`]: pending jobs (State `PENDING`), jobs that
//!   never started (Start `Unknown`/`None`, such as `CANCELLED by 1234` while queued, or a
//!   run of 0 s), CPU-only allocations (no GPU in AllocTRES), and jobs still running (End
//!   `Unknown`). Every other end state (COMPLETED, FAILED, TIMEOUT, CANCELLED,
//!   OUT_OF_MEMORY, NODE_FAIL, PREEMPTED, DEADLINE, BOOT_FAIL, REQUEUED...) is kept: the
//!   job held its GPUs from Start to End whatever ended it.

use super::{gpu_count, SkipReason, Skipped, Trace, TraceFormat, TraceJob, TraceWork};
use crate::csv::MAX_SECONDS;
use crate::error::InputError;
use crate::topology::MAX_GPUS;
use std::collections::BTreeMap;

/// The `--format` the documentation gives, for error messages.
const FORMAT: &str = "JobID,Submit,Start,End,State,NNodes,AllocTRES,Account,User";
const REQUIRED: [&str; 6] = ["JobID", "Submit", "Start", "End", "State", "AllocTRES"];

/// States of a job that waits in the queue (again).
const WAITING: &[&str] = &["PENDING", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"];
/// States of a job that holds its allocation and has not ended.
const ACTIVE: &[&str] = &[
    "RUNNING",
    "SUSPENDED",
    "COMPLETING",
    "CONFIGURING",
    "RESIZING",
    "SIGNALING",
    "STAGE_OUT",
    "STOPPED",
    "POWER_UP_NODE",
    "UPDATE_DB",
];
/// States of a job that has ended.
const ENDED: &[&str] = &[
    "COMPLETED",
    "FAILED",
    "TIMEOUT",
    "CANCELLED",
    "OUT_OF_MEMORY",
    "NODE_FAIL",
    "PREEMPTED",
    "DEADLINE",
    "BOOT_FAIL",
    "REQUEUED",
    "REVOKED",
    "SPECIAL_EXIT",
];

/// Where the columns sit in a row.
struct Columns {
    width: usize,
    at: BTreeMap<&'static str, usize>,
    account: Option<usize>,
    user: Option<usize>,
}

/// What the state column says, as far as the reader cares.
#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Waiting,
    Active,
    Ended,
}

/// One allocation (the components of a heterogeneous job merged), before the rules decide
/// whether it is a job.
struct Allocation {
    name: String,
    line: u32,
    submit_s: f64,
    start_s: Option<f64>,
    end_s: Option<f64>,
    phase: Phase,
    gpus: u32,
    tenant: Option<String>,
}

/// Parses `sacct --parsable2` output (or `--parsable`, whose lines end in `|`); see the
/// module documentation and `docs/FORMATS.md`.
pub fn parse(text: &str) -> Result<Trace, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .split('\n')
        .enumerate()
        .map(|(i, raw)| (u32::try_from(i + 1).unwrap_or(u32::MAX), raw.strip_suffix('\r').unwrap_or(raw)));
    let Some((header_line, header)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(InputError::at_line(1, "header", "the file is empty; expected a sacct --parsable2 header"));
    };
    let trailing = header.ends_with('|');
    let columns = Columns::of(header, header_line, trailing)?;
    let mut allocations: Vec<Allocation> = Vec::new();
    let mut first_line: BTreeMap<String, u32> = BTreeMap::new();
    let mut het_index: BTreeMap<String, usize> = BTreeMap::new();
    let mut steps = 0u32;
    for (line, content) in lines {
        if content.trim().is_empty() {
            continue;
        }
        let fields = columns.split(content, line, trailing)?;
        let id = fields[columns.at["JobID"]].trim();
        let Some(allocation_id) = allocation_of(id).map_err(|m| InputError::at_line(line, "JobID", m))? else {
            steps += 1;
            continue; // A job step: its allocation's row holds the GPUs and times.
        };
        if let Some(first) = first_line.insert(allocation_id.to_string(), line) {
            return Err(InputError::at_line(
                line,
                "JobID",
                format!(
                    "job '{allocation_id}' appears twice (line {first} too); sacct --duplicates output is not read"
                ),
            ));
        }
        let row = read_allocation(&columns, &fields, line, allocation_id)?;
        match allocation_id.split_once('+') {
            Some((base, _)) => match het_index.get(base) {
                Some(&i) => merge(&mut allocations[i], row),
                None => {
                    het_index.insert(base.to_string(), allocations.len());
                    allocations.push(Allocation { name: base.to_string(), ..row });
                }
            },
            None => allocations.push(row),
        }
    }
    if allocations.is_empty() && steps > 0 {
        return Err(InputError::at_line(
            header_line,
            "JobID",
            format!("no jobs: all {steps} rows are job steps (such as 123.batch) and no allocation row is there"),
        ));
    }
    collect(allocations, header_line)
}

impl Columns {
    fn of(header: &str, line: u32, trailing: bool) -> Result<Columns, InputError> {
        let header = if trailing { &header[..header.len() - 1] } else { header };
        let names: Vec<String> = header.split('|').map(|c| c.trim().to_ascii_lowercase()).collect();
        let find = |name: &str| names.iter().position(|c| *c == name.to_ascii_lowercase());
        let mut at = BTreeMap::new();
        for name in REQUIRED {
            let i = find(name).ok_or_else(|| {
                InputError::at_line(
                    line,
                    name,
                    format!("missing column in the sacct header; run sacct --parsable2 --format={FORMAT}"),
                )
            })?;
            at.insert(name, i);
        }
        for (i, name) in names.iter().enumerate() {
            if let Some(j) = names[..i].iter().position(|n| n == name) {
                return Err(InputError::at_line(
                    line,
                    name.as_str(),
                    format!("the column appears twice (columns {} and {})", j + 1, i + 1),
                ));
            }
        }
        Ok(Columns { width: names.len(), at, account: find("account"), user: find("user") })
    }

    /// The fields of a data row; a row whose count differs from the header's is an error.
    fn split<'a>(&self, content: &'a str, line: u32, trailing: bool) -> Result<Vec<&'a str>, InputError> {
        let content = if trailing { content.strip_suffix('|').unwrap_or(content) } else { content };
        let fields: Vec<&str> = content.split('|').collect();
        if fields.len() != self.width {
            return Err(InputError::at_line(
                line,
                "row",
                format!(
                    "the row has {} fields separated by '|' but the header has {} columns",
                    fields.len(),
                    self.width
                ),
            ));
        }
        Ok(fields)
    }
}

/// The allocation a JobID belongs to, or `None` for a job step. An allocation is `123`, an
/// array task `123_4`, a pending array `123_[4-9]` or a heterogeneous component `123+0`; a
/// step is any of them followed by `.` and the step's name.
fn allocation_of(id: &str) -> Result<Option<&str>, String> {
    let (allocation, step) = match id.split_once('.') {
        Some((a, s)) => (a, Some(s)),
        None => (id, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    let well_formed = match allocation.split_once(['_', '+']) {
        None => digits(allocation),
        Some((job, rest)) if allocation.as_bytes()[job.len()] == b'+' => digits(job) && digits(rest),
        Some((job, rest)) => {
            let pending_array = rest.len() > 2 && rest.starts_with('[') && rest.ends_with(']');
            digits(job) && (digits(rest) || pending_array)
        }
    };
    if !well_formed || step.is_some_and(str::is_empty) {
        return Err(format!(
            "expected a Slurm job id such as 123, 123_4, 123+0 or a step such as 123.batch, got '{id}'"
        ));
    }
    Ok(step.is_none().then_some(allocation))
}

/// Reads the fields of one allocation row.
fn read_allocation(columns: &Columns, fields: &[&str], line: u32, name: &str) -> Result<Allocation, InputError> {
    let get = |column: &str| fields[columns.at[column]].trim();
    let at = |field: &'static str| move |m: String| InputError::at_line(line, field, m);
    let submit_s = timestamp(get("Submit")).map_err(at("Submit"))?.ok_or_else(|| {
        InputError::at_line(line, "Submit", format!("expected the submission time, got '{}'", get("Submit")))
    })?;
    let optional = |i: Option<usize>| i.map(|i| fields[i].trim()).filter(|v| !v.is_empty());
    Ok(Allocation {
        name: name.to_string(),
        line,
        submit_s,
        start_s: timestamp(get("Start")).map_err(at("Start"))?,
        end_s: timestamp(get("End")).map_err(at("End"))?,
        phase: phase(get("State")).map_err(at("State"))?,
        gpus: gpus_allocated(get("AllocTRES")).map_err(at("AllocTRES"))?,
        tenant: optional(columns.account).or(optional(columns.user)).map(str::to_string),
    })
}

/// Folds a further component of a heterogeneous job into the first one.
fn merge(into: &mut Allocation, component: Allocation) {
    into.gpus = into.gpus.saturating_add(component.gpus).min(MAX_GPUS + 1);
    into.submit_s = into.submit_s.min(component.submit_s);
    into.start_s = into.start_s.zip(component.start_s).map(|(a, b)| a.min(b));
    into.end_s = into.end_s.zip(component.end_s).map(|(a, b)| a.max(b));
    if component.phase != Phase::Ended {
        into.phase = component.phase;
    }
}

/// Seconds since 1970 of sacct's `2026-03-01T08:00:12` (read as if the clock were UTC), or
/// `None` for `Unknown`, `None` or an empty field.
fn timestamp(value: &str) -> Result<Option<f64>, String> {
    if value.is_empty() || value.eq_ignore_ascii_case("unknown") || value.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    super::philly::parse_timestamp(value)
        .map(Some)
        .map_err(|m| m.replace("like 2017-10-09 07:01:55", "like 2026-03-01T08:00:12 (or Unknown)"))
}

/// The phase of a State such as `COMPLETED` or `CANCELLED by 1234`.
fn phase(value: &str) -> Result<Phase, String> {
    let word = value.split_whitespace().next().unwrap_or("").trim_end_matches('+').to_ascii_uppercase();
    if WAITING.contains(&word.as_str()) {
        Ok(Phase::Waiting)
    } else if ACTIVE.contains(&word.as_str()) {
        Ok(Phase::Active)
    } else if ENDED.contains(&word.as_str()) {
        Ok(Phase::Ended)
    } else {
        Err(format!("expected a Slurm job state such as COMPLETED, FAILED, PENDING or RUNNING, got '{value}'"))
    }
}

/// The GPUs of an AllocTRES such as `billing=8,cpu=8,gres/gpu=8,mem=64G,node=1`: the
/// untyped `gres/gpu` count, else the sum of the typed `gres/gpu:TYPE` counts, else 0.
fn gpus_allocated(tres: &str) -> Result<u32, String> {
    let mut untyped: Option<u64> = None;
    let mut typed: u64 = 0;
    for item in tres.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let Some((name, value)) = item.split_once('=') else {
            return Err(format!("expected TRES such as cpu=8,gres/gpu=8, got '{item}' in '{tres}'"));
        };
        let is_gpu = name == "gres/gpu" || name.strip_prefix("gres/gpu:").is_some_and(|t| !t.is_empty());
        if !is_gpu {
            continue;
        }
        let count =
            value.parse::<u64>().map_err(|_| format!("expected gres/gpu=N with N a whole number, got '{item}'"))?;
        if name == "gres/gpu" {
            untyped = Some(count);
        } else {
            typed = typed.saturating_add(count);
        }
    }
    let total = untyped.unwrap_or(typed);
    if total > MAX_GPUS as u64 {
        return Err(format!("{total} GPUs is more than the {MAX_GPUS} Proxima supports"));
    }
    Ok(total as u32)
}

/// Applies the rules to each allocation: a job, or a row left out and counted.
fn collect(allocations: Vec<Allocation>, header_line: u32) -> Result<Trace, InputError> {
    let mut jobs = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    for a in &allocations {
        match job_of(a)? {
            Ok(job) => jobs.push(job),
            Err(reason) => match skipped.iter_mut().find(|s| s.reason == reason) {
                Some(s) => s.rows += 1,
                None => skipped.push(Skipped { reason, rows: 1, first_line: a.line }),
            },
        }
    }
    if jobs.is_empty() && !allocations.is_empty() {
        let counts: Vec<String> = skipped.iter().map(|s| format!("{} {}", s.rows, s.reason.label())).collect();
        return Err(InputError::at_line(
            header_line,
            "rows",
            format!("no GPU jobs: all {} allocations were left out: {}", allocations.len(), counts.join(", ")),
        ));
    }
    let mut trace = super::from_rows(TraceFormat::Sacct, jobs, header_line)?;
    trace.skipped = skipped;
    Ok(trace)
}

/// The job an allocation makes, or why it makes none; an error when its times contradict.
fn job_of(a: &Allocation) -> Result<Result<TraceJob, SkipReason>, InputError> {
    let reason = if a.phase == Phase::Waiting {
        Some(SkipReason::Pending)
    } else if a.start_s.is_none() {
        Some(SkipReason::NeverRan)
    } else if a.gpus == 0 {
        Some(SkipReason::CpuOnly)
    } else if a.end_s.is_none() || a.phase == Phase::Active {
        Some(SkipReason::StillRunning)
    } else {
        None
    };
    if let Some(reason) = reason {
        return Ok(Err(reason));
    }
    let (start, end) = (a.start_s.expect("checked above"), a.end_s.expect("checked above"));
    let run_s = end - start;
    if run_s < 0.0 {
        return Err(InputError::at_line(a.line, "End", format!("the job ends {} s before it starts", start - end)));
    }
    if run_s == 0.0 {
        return Ok(Err(SkipReason::NeverRan));
    }
    if run_s > MAX_SECONDS {
        return Err(InputError::at_line(a.line, "End", format!("a run of {run_s} s is too long")));
    }
    let gpus = gpu_count(&a.gpus.to_string()).map_err(|m| InputError::at_line(a.line, "AllocTRES", m))?;
    Ok(Ok(TraceJob {
        name: a.name.clone(),
        submit_s: a.submit_s,
        gpus,
        model: None,
        work: TraceWork::DurationS(run_s),
        batch: None,
        tenant: a.tenant.clone(),
        line: a.line,
    }))
}

#[cfg(test)]
#[path = "sacct_tests.rs"]
mod tests;
