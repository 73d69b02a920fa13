//! The Tiresias simulator's trace: `job_id,num_gpu,submit_time,iterations,model_name,duration,interval`.
//!
//! Each row is a job of the Tiresias (NSDI'19) simulator: its id, GPU count, submission
//! second, iteration count, model, measured run time in seconds, and the gap to the next
//! submission. The run time was measured on Tiresias's own testbed, so it is what defines
//! the job's work: Proxima re-derives the iterations from its own model of the job, so
//! that the job takes `duration` seconds at its tightest placement. `iterations` is read
//! and checked (a positive whole number) but does not set the work, and `interval` is
//! checked to be a number of seconds and otherwise unused (the submission times already
//! say when jobs arrive).

use super::gpu_count;
use super::{Trace, TraceFormat, TraceJob, TraceWork};
use crate::csv::{self, SeenIds, Table};
use crate::error::InputError;

const HEADER: &str = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval";
const REQUIRED: &[&str] = &["job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration"];
const OPTIONAL: &[&str] = &["interval"];

/// Parses a Tiresias CSV; see `docs/FORMATS.md`.
pub fn parse(text: &str) -> Result<Trace, InputError> {
    let mut table = Table::new(text)?;
    let col = table.locate(REQUIRED, OPTIONAL, true, HEADER)?;
    let interval = col.get("interval").copied();
    let mut seen = SeenIds::default();
    let mut jobs = Vec::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let line = row.line;
        let get = |name: &str| &*row.fields[col[name]];
        let id = get("job_id");
        seen.check(id, line).map_err(csv::at(line, "job_id"))?;
        let gpus = gpu_count(get("num_gpu")).map_err(csv::at(line, "num_gpu"))?;
        let submit_s = csv::submit_seconds(get("submit_time")).map_err(csv::at(line, "submit_time"))?;
        csv::positive_whole(get("iterations"), csv::MAX_COUNT).map_err(csv::at(line, "iterations"))?;
        let model = get("model_name");
        if model.is_empty() {
            return Err(InputError::at_line(line, "model_name", "the model name is empty"));
        }
        let duration = csv::positive_seconds(get("duration")).map_err(csv::at(line, "duration"))?;
        if let Some(i) = interval {
            let v = csv::number(&row.fields[i]).map_err(csv::at(line, "interval"))?;
            if v < 0.0 {
                return Err(InputError::at_line(
                    line,
                    "interval",
                    format!("expected 0 or more seconds, got '{}'", &row.fields[i]),
                ));
            }
        }
        jobs.push(TraceJob {
            name: id.to_string(),
            submit_s,
            gpus,
            model: Some(model.to_string()),
            work: TraceWork::DurationS(duration),
            batch: None,
            tenant: None,
            line,
        });
    }
    super::from_rows(TraceFormat::Tiresias, jobs, table.header_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: &str) -> InputError {
        parse(&format!("{HEADER}\n0,1,0,606,vgg19,164,30\n{line}\n")).unwrap_err()
    }

    #[test]
    fn reads_jobs_with_their_model_and_duration() {
        let t = parse(&format!("{HEADER}\n0,1,0,606,vgg19,164,30\n1,8,30,133,vgg11,147,23\n")).unwrap();
        assert_eq!(t.format, TraceFormat::Tiresias);
        assert_eq!(t.jobs.len(), 2);
        let j = &t.jobs[1];
        assert_eq!(j.name, "1");
        assert_eq!(j.gpus, 8);
        assert_eq!(j.submit_s, 30.0);
        assert_eq!(j.model.as_deref(), Some("vgg11"));
        assert_eq!(j.work, TraceWork::DurationS(147.0));
        assert_eq!(j.line, 3);
    }

    #[test]
    fn bad_rows_name_line_and_field() {
        let cases = [
            ("1,x,30,133,vgg11,147,23", "num_gpu", "positive whole number, got 'x'"),
            ("1,0,30,133,vgg11,147,23", "num_gpu", "positive whole number"),
            ("1,1,-1,133,vgg11,147,23", "submit_time", "0 seconds or more"),
            ("1,1,NaN,133,vgg11,147,23", "submit_time", "expected a number"),
            ("1,1,30,0,vgg11,147,23", "iterations", "positive whole number"),
            ("1,1,30,12.5,vgg11,147,23", "iterations", "positive whole number"),
            ("1,1,30,1e300,vgg11,147,23", "iterations", "too large"),
            ("1,1,30,133,,147,23", "model_name", "empty"),
            ("1,1,30,133,vgg11,0,23", "duration", "positive number of seconds"),
            ("1,1,30,133,vgg11,-infinity,23", "duration", "finite"),
            ("1,1,30,133,vgg11,147,soon", "interval", "expected a number"),
            ("1,1,30,133,vgg11,147,-4", "interval", "0 or more"),
            ("1,1,30,133,vgg11,147", "interval", "missing value"),
            ("1,1,30,133,vgg11,147,23,9", "column 8", "extra value"),
            (",1,30,133,vgg11,147,23", "job_id", "must not be empty"),
        ];
        for (line, field, what) in cases {
            let e = row(line);
            assert_eq!(e.line, Some(3), "{line}: {e}");
            assert_eq!(e.field, field, "{line}: {e}");
            assert!(e.message.contains(what), "{line}: {e}");
        }
    }

    #[test]
    fn duplicate_ids_name_both_lines() {
        let e = row("0,1,30,133,vgg11,147,23");
        assert_eq!((e.line, e.field.as_str()), (Some(3), "job_id"));
        assert!(e.message.contains("duplicate job id '0'") && e.message.contains("line 2"), "{e}");
    }

    #[test]
    fn header_only_is_an_error() {
        let e = parse(&format!("{HEADER}\r\n\r\n")).unwrap_err();
        assert!(e.message.contains("no jobs"), "{e}");
        let e = parse("job_id,num_gpu,submit_time,iterations,model_name\n0,1,0,1,vgg19\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(1), "duration"));
    }

    #[test]
    fn bom_crlf_spaces_and_quotes() {
        let text = format!(
            "\u{feff}{HEADER}\r\n \"0\" , 2 ,0, 606 ,\"resnet-50, v1.5\",164,30\r\n1,1,5,1,vgg19,1.5,0\r\n\r\n"
        );
        let t = parse(&text).unwrap();
        assert_eq!(t.jobs.len(), 2);
        assert_eq!(t.jobs[0].name, "0");
        assert_eq!(t.jobs[0].gpus, 2);
        assert_eq!(t.jobs[0].model.as_deref(), Some("resnet-50, v1.5"));
        assert_eq!(t.jobs[1].work, TraceWork::DurationS(1.5));
    }
}
