//! Proxima's own trace formats, CSV and JSON, which say everything a job needs.
//!
//! CSV: `id,submit_s,gpus,model,duration_s`, or `iterations` in place of `duration_s`.
//! The `model` column may be left out, and a blank model means "assign one from the mix".
//! An optional `batch` column gives a job's global batch size (blank: not stated), and an
//! optional `tenant` column the team, project or virtual cluster it belongs to (blank: the
//! default tenant).
//! A file may carry both `duration_s` and `iterations`, as long as each row fills exactly
//! one of them (that is how [`to_csv`] writes a trace that mixes the two).
//!
//! JSON: `{"version": 1, "jobs": [{"id": "a", "submit_s": 0, "gpus": 4, "model":
//! "resnet50", "duration_s": 3600}]}`, or a bare array of jobs; a job may add `"batch"` and
//! `"tenant"`. Unknown keys are errors that
//! name the key, so a typo never passes silently. Errors carry the line: serde_json's for
//! syntax, the line of the offending key for a bad value.
//!
//! [`to_csv`] and [`to_json`] write these formats, and reading back what they wrote gives
//! the same jobs (the `line` of each job is where it sits in the new text).

use super::gpu_count;
use super::outline::Outline;
use super::{Trace, TraceFormat, TraceJob, TraceWork};
use crate::csv::{self, SeenIds, Table};
use crate::error::InputError;
use serde_json::Value;
use std::fmt::Write as _;

/// The version of the JSON format [`to_json`] writes and [`parse_json`] reads.
pub const JSON_FORMAT_VERSION: u64 = 1;

const CSV_HEADER: &str = "id,submit_s,gpus[,model],duration_s|iterations[,batch][,tenant]";
const CSV_REQUIRED: &[&str] = &["id", "submit_s", "gpus"];
const CSV_OPTIONAL: &[&str] = &["model", "duration_s", "iterations", "batch", "tenant"];
const JSON_KEYS: &str = "id, submit_s, gpus, model, duration_s, iterations, batch, tenant";

/// Parses either native format, choosing by the first character.
pub fn parse(text: &str) -> Result<Trace, InputError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text).trim_start();
    if body.starts_with('{') || body.starts_with('[') {
        parse_json(text)
    } else {
        parse_csv(text)
    }
}

// ---------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------

/// Parses Proxima CSV; see `docs/FORMATS.md`.
pub fn parse_csv(text: &str) -> Result<Trace, InputError> {
    let mut table = Table::new(text)?;
    let col = table.locate(CSV_REQUIRED, CSV_OPTIONAL, false, CSV_HEADER)?;
    let duration_col = col.get("duration_s").copied();
    let iterations_col = col.get("iterations").copied();
    if duration_col.is_none() && iterations_col.is_none() {
        return Err(InputError::at_line(
            table.header_line,
            "duration_s",
            "missing column: give each job's work as duration_s (seconds) or iterations",
        ));
    }
    let model_col = col.get("model").copied();
    let batch_col = col.get("batch").copied();
    let tenant_col = col.get("tenant").copied();
    let mut seen = SeenIds::default();
    let mut jobs = Vec::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let line = row.line;
        let id = &*row.fields[col["id"]];
        seen.check(id, line).map_err(csv::at(line, "id"))?;
        let submit_s = csv::submit_seconds(&row.fields[col["submit_s"]]).map_err(csv::at(line, "submit_s"))?;
        let gpus = gpu_count(&row.fields[col["gpus"]]).map_err(csv::at(line, "gpus"))?;
        let model = model_col.map(|m| &*row.fields[m]).filter(|m| !m.is_empty()).map(str::to_string);
        let duration = duration_col.map(|c| &*row.fields[c]).filter(|v| !v.is_empty());
        let iterations = iterations_col.map(|c| &*row.fields[c]).filter(|v| !v.is_empty());
        let work = match (duration, iterations) {
            (Some(d), None) => TraceWork::DurationS(csv::positive_seconds(d).map_err(csv::at(line, "duration_s"))?),
            (None, Some(i)) => TraceWork::Iterations(positive_iterations(i).map_err(csv::at(line, "iterations"))?),
            (Some(_), Some(_)) => {
                return Err(InputError::at_line(line, "iterations", "give either duration_s or iterations, not both"))
            }
            (None, None) => {
                let field = if duration_col.is_some() { "duration_s" } else { "iterations" };
                return Err(InputError::at_line(
                    line,
                    field,
                    "the job's work is empty: give duration_s (seconds) or iterations",
                ));
            }
        };
        let batch = match batch_col.map(|c| &*row.fields[c]).filter(|v| !v.is_empty()) {
            Some(b) => Some(csv::batch_size(b).map_err(csv::at(line, "batch"))?),
            None => None,
        };
        let tenant = tenant_col.map(|c| &*row.fields[c]).filter(|t| !t.is_empty()).map(str::to_string);
        jobs.push(TraceJob { name: id.to_string(), submit_s, gpus, model, work, batch, tenant, line });
    }
    super::from_rows(TraceFormat::ProximaCsv, jobs, table.header_line)
}

/// An iteration count: any positive number (fractions are allowed, so that work computed
/// elsewhere survives a round trip) up to [`csv::MAX_COUNT`].
fn positive_iterations(value: &str) -> Result<f64, String> {
    let x = csv::number(value).map_err(|m| format!("{m} (an iteration count)"))?;
    if x <= 0.0 {
        return Err(format!("expected a positive number of iterations, got '{value}'"));
    }
    if x > csv::MAX_COUNT {
        return Err(format!("'{value}' iterations is too large (at most 10^15)"));
    }
    Ok(x)
}

/// Writes a trace as Proxima CSV. Only the work columns the jobs use are written; the
/// `model` column is always there, blank for jobs without a model.
pub fn to_csv(trace: &Trace) -> String {
    let any_duration = trace.jobs.iter().any(|j| matches!(j.work, TraceWork::DurationS(_)));
    let any_iterations = trace.jobs.iter().any(|j| matches!(j.work, TraceWork::Iterations(_)));
    let any_batch = trace.jobs.iter().any(|j| j.batch.is_some());
    let any_tenant = trace.jobs.iter().any(|j| j.tenant.is_some());
    let mut out = String::from("id,submit_s,gpus,model");
    if any_duration || !any_iterations {
        out.push_str(",duration_s");
    }
    if any_iterations {
        out.push_str(",iterations");
    }
    if any_batch {
        out.push_str(",batch");
    }
    if any_tenant {
        out.push_str(",tenant");
    }
    out.push('\n');
    for j in &trace.jobs {
        let model = j.model.as_deref().unwrap_or("");
        // An empty model is written as an empty field, which reads back as "no model".
        let model = if model.is_empty() { "".into() } else { csv::quote(model) };
        // `{}` of an f64 is the shortest text that reads back as the same number.
        let _ = write!(out, "{},{},{},{}", csv::quote(&j.name), j.submit_s, j.gpus, model);
        match (j.work, any_duration, any_iterations) {
            (TraceWork::DurationS(d), _, true) => {
                let _ = write!(out, ",{d},");
            }
            (TraceWork::DurationS(d), _, false) => {
                let _ = write!(out, ",{d}");
            }
            (TraceWork::Iterations(i), true, _) => {
                let _ = write!(out, ",,{i}");
            }
            (TraceWork::Iterations(i), false, _) => {
                let _ = write!(out, ",{i}");
            }
        }
        if any_batch {
            out.push(',');
            if let Some(b) = j.batch {
                let _ = write!(out, "{b}");
            }
        }
        if any_tenant {
            out.push(',');
            out.push_str(&j.tenant.as_deref().filter(|t| !t.is_empty()).map(csv::quote).unwrap_or_default());
        }
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------

/// The keys a job object may have.
const JOB_KEYS: [&str; 8] = ["id", "submit_s", "gpus", "model", "duration_s", "iterations", "batch", "tenant"];

/// Parses Proxima JSON; see `docs/FORMATS.md`.
pub fn parse_json(text: &str) -> Result<Trace, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        InputError::at_line(e.line().max(1) as u32, "json", message)
    })?;
    let outline = Outline::of(text);
    let mut seen = SeenIds::default();
    let jobs = job_items(&doc, &outline)?
        .iter()
        .enumerate()
        .map(|(i, item)| JobObject::new(i, item, outline.jobs.get(i))?.read(&mut seen))
        .collect::<Result<Vec<_>, _>>()?;
    if jobs.is_empty() {
        return Err(InputError::at_line(outline.root_key_line("jobs"), "jobs", "no jobs: the list is empty"));
    }
    Ok(Trace::new(TraceFormat::ProximaJson, jobs))
}

/// The document's jobs: the document itself when it is an array, or its `jobs` once its
/// other keys and its version are checked.
fn job_items<'a>(doc: &'a Value, outline: &Outline) -> Result<&'a Vec<Value>, InputError> {
    let root = match doc {
        Value::Array(items) => return Ok(items),
        Value::Object(root) => root,
        _ => return Err(InputError::at_line(1, "json", "expected an object with \"jobs\" or an array of jobs")),
    };
    if let Some(key) = root.keys().find(|k| *k != "version" && *k != "jobs") {
        let what = "unknown key; a trace document has \"version\" and \"jobs\"";
        return Err(InputError::at_line(outline.root_key_line(key), key.as_str(), what));
    }
    match root.get("version") {
        Some(v) if v.as_u64() != Some(JSON_FORMAT_VERSION) => {
            let what = format!("unsupported version {v}; this Proxima reads version {JSON_FORMAT_VERSION}");
            return Err(InputError::at_line(outline.root_key_line("version"), "version", what));
        }
        _ => {}
    }
    match root.get("jobs") {
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(InputError::at_line(outline.root_key_line("jobs"), "jobs", "expected an array of jobs")),
        None => Err(InputError::at_line(1, "jobs", "missing: a trace document needs a \"jobs\" array")),
    }
}

/// One job object with where its keys are in the text, so that every error names the
/// line of the key at fault and the field as `jobs[i].key`.
struct JobObject<'a> {
    i: usize,
    obj: &'a serde_json::Map<String, Value>,
    shape: Option<&'a super::outline::JobShape>,
    line: u32,
}

impl<'a> JobObject<'a> {
    fn new(i: usize, item: &'a Value, shape: Option<&'a super::outline::JobShape>) -> Result<Self, InputError> {
        let line = shape.map_or(1, |s| s.line);
        let Value::Object(obj) = item else {
            let what = "expected a job object {\"id\": ..., \"submit_s\": ..., ...}";
            return Err(InputError::at_line(line, format!("jobs[{i}]"), what));
        };
        Ok(JobObject { i, obj, shape, line })
    }

    fn err(&self, key: &str, what: impl Into<String>) -> InputError {
        let line = self.shape.and_then(|s| s.key_line(key)).unwrap_or(self.line);
        InputError::at_line(line, format!("jobs[{}].{key}", self.i), what.into())
    }

    fn missing(&self, key: &str, what: &str) -> InputError {
        InputError::at_line(self.line, format!("jobs[{}].{key}", self.i), what.to_string())
    }

    /// The value of `key`, treating `null` as absent.
    fn present(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    /// A number (or a number in quotes) read by the CSV reader's check for that column;
    /// `None` when the key is absent or `null`.
    fn number<T>(&self, key: &str, check: impl Fn(&str) -> Result<T, String>) -> Result<Option<T>, InputError> {
        self.present(key).map(|v| self.read_number(key, v, check)).transpose()
    }

    /// A number the job must have: absent is "missing", and `null` is not a number.
    fn required<T>(&self, key: &str, check: impl Fn(&str) -> Result<T, String>) -> Result<T, InputError> {
        let v = self.obj.get(key).ok_or_else(|| self.missing(key, "missing"))?;
        self.read_number(key, v, check)
    }

    fn read_number<T>(&self, key: &str, v: &Value, check: impl Fn(&str) -> Result<T, String>) -> Result<T, InputError> {
        let raw = self.shape.and_then(|s| s.raw_number(key));
        let text = number_text(v, raw).map_err(|m| self.err(key, m))?;
        check(&text).map_err(|m| self.err(key, m))
    }

    /// A name (a model, a tenant): a string, with `null` and `""` meaning none.
    fn name(&self, key: &str, what: &str) -> Result<Option<String>, InputError> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.err(key, format!("expected {what} or null, got {other}"))),
        }
    }

    fn read(&self, seen: &mut SeenIds) -> Result<TraceJob, InputError> {
        if let Some(key) = self.shape.and_then(|s| s.duplicate.as_deref()) {
            return Err(self.err(key, "the key appears twice in this job"));
        }
        if let Some(key) = self.obj.keys().find(|k| !JOB_KEYS.contains(&k.as_str())) {
            return Err(self.err(key, format!("unknown key (a job has {JSON_KEYS})")));
        }
        let id = match self.obj.get("id") {
            // JSON strings are exact: unlike a CSV field, spaces in an id are kept.
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => {
                self.shape.and_then(|s| s.raw_number("id")).map_or_else(|| n.to_string(), str::to_string)
            }
            Some(other) => return Err(self.err("id", format!("expected a string or a number, got {other}"))),
            None => return Err(self.missing("id", "missing")),
        };
        seen.check(&id, self.line).map_err(|m| self.err("id", m))?;
        let submit_s = self.required("submit_s", csv::submit_seconds)?;
        let gpus = self.required("gpus", gpu_count)?;
        let work = match (self.present("duration_s"), self.present("iterations")) {
            (Some(d), None) => TraceWork::DurationS(self.read_number("duration_s", d, csv::positive_seconds)?),
            (None, Some(n)) => TraceWork::Iterations(self.read_number("iterations", n, positive_iterations)?),
            (Some(_), Some(_)) => return Err(self.err("iterations", "give either duration_s or iterations, not both")),
            (None, None) => {
                let what = "missing: give the job's work as duration_s (seconds) or iterations";
                return Err(self.missing("duration_s", what));
            }
        };
        Ok(TraceJob {
            name: id,
            submit_s,
            gpus,
            model: self.name("model", "a model name")?,
            work,
            batch: self.number("batch", csv::batch_size)?,
            tenant: self.name("tenant", "a tenant name")?,
            line: self.line,
        })
    }
}

/// The text of a JSON number, so that it goes through the same checks as a CSV field.
/// The number's text as written (`raw`) is preferred to serde_json's value: without its
/// `float_roundtrip` feature serde_json may read a decimal one unit in the last place off,
/// and Rust's own `f64` parser is exact.
fn number_text(v: &Value, raw: Option<&str>) -> Result<String, String> {
    match v {
        Value::Number(n) => Ok(raw.map_or_else(|| n.to_string(), str::to_string)),
        // A number in quotes is a common spreadsheet export; read it like a CSV field.
        Value::String(s) => Ok(s.trim().to_string()),
        other => Err(format!("expected a number, got {other}")),
    }
}

/// Writes a trace as Proxima JSON, one job per line.
pub fn to_json(trace: &Trace) -> String {
    let mut out = format!("{{\n  \"version\": {JSON_FORMAT_VERSION},\n  \"jobs\": [\n");
    for (i, j) in trace.jobs.iter().enumerate() {
        // Keys in the documented order (serde_json's map would sort them).
        let text = |v: Value| serde_json::to_string(&v).expect("a JSON value always serialises");
        let _ = write!(
            out,
            "    {{\"id\": {}, \"submit_s\": {}, \"gpus\": {}",
            text(Value::String(j.name.clone())),
            text(json_number(j.submit_s)),
            j.gpus
        );
        if let Some(m) = j.model.as_deref().filter(|m| !m.is_empty()) {
            let _ = write!(out, ", \"model\": {}", text(Value::String(m.to_string())));
        }
        let _ = match j.work {
            TraceWork::DurationS(d) => write!(out, ", \"duration_s\": {}", text(json_number(d))),
            TraceWork::Iterations(n) => write!(out, ", \"iterations\": {}", text(json_number(n))),
        };
        if let Some(b) = j.batch {
            let _ = write!(out, ", \"batch\": {b}");
        }
        if let Some(t) = j.tenant.as_deref().filter(|t| !t.is_empty()) {
            let _ = write!(out, ", \"tenant\": {}", text(Value::String(t.to_string())));
        }
        out.push('}');
        out.push_str(if i + 1 < trace.jobs.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

/// Whole numbers without a fraction (`3600`, not `3600.0`); others as the shortest text
/// that reads back as the same `f64`. Non-finite numbers cannot be in a checked trace;
/// they are written as `null`, which the reader rejects.
fn json_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
#[path = "native_tests.rs"]
mod tests;
