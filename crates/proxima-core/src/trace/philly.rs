//! The Philly-derived job log: `timestamp,duration,num_gpus,gpu_time,cluster`.
//!
//! One row per job of Microsoft's Philly cluster (August–December 2017) as the Pollux
//! artifact distributes it: the submission as local wall-clock time, the measured run time
//! in seconds, the GPUs requested, their product in GPU-seconds and a virtual-cluster hash.
//! The virtual cluster is the job's tenant (Philly gave each team a virtual cluster with a
//! GPU quota; 15 of them appear in the log). The log has no job ids and no model names, so a
//! job is named after its line (`philly-L123`) and gets its model later, from the workload
//! mix. Rows are not sorted by
//! time; the reader keeps file order.
//!
//! Wall-clock times become seconds by pure calendar arithmetic, as if the local clock never
//! jumped: the daylight-saving change inside the trace (early November) makes submissions
//! within that hour up to an hour off relative to each other, which no scheduler result
//! depends on.

use super::gpu_count;
use super::{Trace, TraceFormat, TraceJob, TraceWork};
use crate::csv::{self, Table};
use crate::error::InputError;

const HEADER: &str = "timestamp,duration,num_gpus,gpu_time,cluster";
const REQUIRED: &[&str] = &["timestamp", "duration", "num_gpus"];
/// Read when present: `gpu_time` is checked to be a number, `cluster` names the job's
/// tenant (its virtual cluster).
const OPTIONAL: &[&str] = &["gpu_time", "cluster"];

/// Parses a Philly CSV. Every row must parse; see `docs/FORMATS.md` for what each column
/// becomes.
pub fn parse(text: &str) -> Result<Trace, InputError> {
    let mut table = Table::new(text)?;
    let col = table.locate(REQUIRED, OPTIONAL, true, HEADER)?;
    let (ts, dur, gpus) = (col["timestamp"], col["duration"], col["num_gpus"]);
    let gpu_time = col.get("gpu_time").copied();
    let cluster = col.get("cluster").copied();
    let mut jobs = Vec::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let line = row.line;
        let submit_s = parse_timestamp(&row.fields[ts]).map_err(csv::at(line, "timestamp"))?;
        let duration = csv::positive_seconds(&row.fields[dur]).map_err(csv::at(line, "duration"))?;
        let gpus = gpu_count(&row.fields[gpus]).map_err(csv::at(line, "num_gpus"))?;
        if let Some(g) = gpu_time {
            // Should equal duration × num_gpus; it is redundant, so a mismatch is not an
            // error, but a value that is not a number means the row is not what we think.
            let v = csv::number(&row.fields[g]).map_err(csv::at(line, "gpu_time"))?;
            if v < 0.0 {
                return Err(InputError::at_line(
                    line,
                    "gpu_time",
                    format!("expected 0 or more GPU-seconds, got '{}'", &row.fields[g]),
                ));
            }
        }
        jobs.push(TraceJob {
            name: format!("philly-L{line}"),
            submit_s,
            gpus,
            model: None,
            work: TraceWork::DurationS(duration),
            batch: None,
            tenant: cluster.map(|c| row.fields[c].to_string()).filter(|c| !c.is_empty()),
            line,
        });
    }
    super::from_rows(TraceFormat::Philly, jobs, table.header_line)
}

/// Seconds since 1970-01-01 00:00:00 of a wall-clock time `YYYY-MM-DD HH:MM:SS` (a `T`
/// between date and time is accepted too), read as if the clock were UTC.
pub(crate) fn parse_timestamp(value: &str) -> Result<f64, String> {
    let expected = || format!("expected a date and time like 2017-10-09 07:01:55, got '{value}'");
    let b = value.as_bytes();
    if b.len() != 19
        || b[4] != b'-'
        || b[7] != b'-'
        || (b[10] != b' ' && b[10] != b'T')
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(expected());
    }
    let digits = |from: usize, to: usize| -> Result<i64, String> {
        let s = &value[from..to];
        if s.bytes().all(|c| c.is_ascii_digit()) {
            Ok(s.parse::<i64>().expect("ASCII digits parse"))
        } else {
            Err(expected())
        }
    };
    let (year, month, day) = (digits(0, 4)?, digits(5, 7)?, digits(8, 10)?);
    let (hour, minute, second) = (digits(11, 13)?, digits(14, 16)?, digits(17, 19)?);
    if year < 1970 {
        return Err(format!("the year {year} is before 1970 in '{value}'"));
    }
    if !(1..=12).contains(&month) {
        return Err(format!("month {month} does not exist in '{value}'"));
    }
    let last = days_in_month(year, month);
    if day < 1 || day > last {
        return Err(format!("day {day} does not exist in {year}-{month:02} (it has {last} days) in '{value}'"));
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!("the time of day is out of range (00:00:00 to 23:59:59) in '{value}'"));
    }
    let days = days_from_civil(year, month, day);
    Ok((days * 86_400 + hour * 3_600 + minute * 60 + second) as f64)
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant,
/// "chrono-Compatible Low-Level Date Algorithms", `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "timestamp,duration,num_gpus,gpu_time,cluster
2017-10-09 07:01:55,66.0,1,66.0,11cb48
2017-10-09 06:13:03,2951.0,8,23608.0,6214e9
";

    fn err(text: &str) -> InputError {
        parse(text).unwrap_err()
    }

    fn row(line: &str) -> InputError {
        err(&format!("timestamp,duration,num_gpus,gpu_time,cluster\n{line}\n"))
    }

    #[test]
    fn reads_rows_in_file_order() {
        let t = parse(GOOD).unwrap();
        assert_eq!(t.format, TraceFormat::Philly);
        assert_eq!(t.jobs.len(), 2);
        let j = &t.jobs[0];
        assert_eq!(j.name, "philly-L2");
        assert_eq!(j.line, 2);
        assert_eq!(j.gpus, 1);
        assert_eq!(j.model, None);
        assert_eq!(j.work, TraceWork::DurationS(66.0));
        // Unsorted: the second row was submitted 48 min 52 s earlier.
        assert_eq!(t.jobs[0].submit_s - t.jobs[1].submit_s, 48.0 * 60.0 + 52.0);
        assert_eq!(t.jobs[1].gpus, 8);
        // The virtual cluster is the tenant.
        assert_eq!(t.jobs[0].tenant.as_deref(), Some("11cb48"));
        assert_eq!(t.jobs[1].tenant.as_deref(), Some("6214e9"));
        let without = parse("timestamp,duration,num_gpus\n2017-10-09 07:01:55,66,1\n").unwrap();
        assert_eq!(without.jobs[0].tenant, None);
    }

    #[test]
    fn calendar_arithmetic_matches_known_epochs() {
        assert_eq!(parse_timestamp("1970-01-01 00:00:00"), Ok(0.0));
        // 2017-10-09T07:01:55Z is Unix time 1507532515.
        assert_eq!(parse_timestamp("2017-10-09 07:01:55"), Ok(1_507_532_515.0));
        assert_eq!(parse_timestamp("2000-03-01T00:00:00"), Ok(951_868_800.0));
        assert_eq!(parse_timestamp("2016-02-29 12:00:00"), Ok(1_456_747_200.0));
    }

    #[test]
    fn invalid_dates_are_explained() {
        assert!(parse_timestamp("2017-02-29 00:00:00").unwrap_err().contains("day 29 does not exist"));
        assert!(parse_timestamp("2017-13-01 00:00:00").unwrap_err().contains("month 13"));
        assert!(parse_timestamp("2017-04-31 00:00:00").unwrap_err().contains("30 days"));
        assert!(parse_timestamp("2017-04-00 00:00:00").is_err());
        assert!(parse_timestamp("2017-04-01 24:00:00").unwrap_err().contains("time of day"));
        assert!(parse_timestamp("2017-04-01 23:60:00").is_err());
        assert!(parse_timestamp("1969-12-31 23:59:59").unwrap_err().contains("before 1970"));
        assert!(parse_timestamp("2017/04/01 00:00:00").unwrap_err().contains("expected a date"));
        assert!(parse_timestamp("2017-4-1 0:00:00").is_err());
        assert!(parse_timestamp("1507532515").is_err());
    }

    #[test]
    fn bad_rows_name_line_and_field() {
        let cases = [
            ("2017-10-09 07:01:55,66.0,abc,66.0,x", "num_gpus", "expected a positive whole number, got 'abc'"),
            ("2017-10-09 07:01:55,66.0,0,0,x", "num_gpus", "positive whole number"),
            ("2017-10-09 07:01:55,66.0,-2,0,x", "num_gpus", "positive whole number"),
            ("2017-10-09 07:01:55,66.0,1.5,0,x", "num_gpus", "positive whole number"),
            ("2017-10-09 07:01:55,66.0,2000000,0,x", "num_gpus", "more than the 1048576"),
            ("2017-10-09 07:01:55,0,1,0,x", "duration", "positive number of seconds"),
            ("2017-10-09 07:01:55,-5,1,0,x", "duration", "positive number of seconds"),
            ("2017-10-09 07:01:55,NaN,1,0,x", "duration", "expected a number"),
            ("2017-10-09 07:01:55,inf,1,0,x", "duration", "finite"),
            ("2017-10-09 07:01:55,1e400,1,0,x", "duration", "too large"),
            ("2017-10-09 07:01:55,,1,0,x", "duration", "empty"),
            ("2017-10-09 07:01:55,66,1,lots,x", "gpu_time", "expected a number, got 'lots'"),
            ("2017-10-09 07:01:55,66,1,-1,x", "gpu_time", "0 or more"),
            ("yesterday,66,1,66,x", "timestamp", "expected a date and time"),
            ("2017-10-09 07:01:55,66,1,66", "cluster", "missing value"),
            ("2017-10-09 07:01:55,66,1,66,x,y", "column 6", "extra value 'y'"),
        ];
        for (line, field, what) in cases {
            let e = row(line);
            assert_eq!(e.line, Some(2), "{line}: {e}");
            assert_eq!(e.field, field, "{line}: {e}");
            assert!(e.message.contains(what), "{line}: {e}");
        }
    }

    #[test]
    fn a_mismatched_gpu_time_is_accepted() {
        let t = parse("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,10,4,1,x\n").unwrap();
        assert_eq!(t.jobs[0].gpus, 4);
    }

    #[test]
    fn header_problems() {
        let e = err("timestamp,duration,gpu_time,cluster\n2017-10-09 07:01:55,10,1,x\n");
        assert_eq!((e.line, e.field.as_str()), (Some(1), "num_gpus"));
        assert!(e.message.contains("missing column"), "{e}");
        let e = err("timestamp,duration,num_gpus,gpu_time,cluster\n\n\n");
        assert_eq!(e.field, "header");
        assert!(e.message.contains("no jobs"), "{e}");
        let e = err("");
        assert_eq!(e.line, Some(1));
        // Optional columns may be absent; unknown extra columns are ignored.
        let t = parse("num_gpus,timestamp,duration,note\n2,2017-10-09 07:01:55,10,hi\n").unwrap();
        assert_eq!(t.jobs[0].gpus, 2);
        assert_eq!(t.jobs[0].work, TraceWork::DurationS(10.0));
    }

    #[test]
    fn bom_crlf_spaces_quotes_and_blank_lines() {
        let text = "\u{feff}timestamp, duration ,num_gpus,gpu_time,cluster\r\n\
                    \"2017-10-09 07:01:55\" , 66.0 ,\"4\",264,\"a,b\"\r\n\r\n\
                    2017-10-09 06:13:03,1,1,1,c\r\n\r\n\r\n";
        let t = parse(text).unwrap();
        assert_eq!(t.jobs.len(), 2);
        assert_eq!(t.jobs[0].gpus, 4);
        assert_eq!(t.jobs[0].work, TraceWork::DurationS(66.0));
        assert_eq!(t.jobs[1].line, 4);
        assert_eq!(t.jobs[1].name, "philly-L4");
        let e =
            parse("timestamp,duration,num_gpus,gpu_time,cluster\r\n2017-10-09 07:01:55,\"66,1,1,x\r\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "row"));
        assert!(e.message.contains("not closed"), "{e}");
    }
}
