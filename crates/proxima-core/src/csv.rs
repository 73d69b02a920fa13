//! The small CSV reader every trace format shares.
//!
//! Traces come from spreadsheets, pandas and hand edits, so the reader forgives what those
//! tools add: a UTF-8 byte-order mark, CRLF line ends, blank lines, spaces around fields,
//! and RFC 4180 quotes (`"a, b"`, with `""` for a quote inside). It is strict about what
//! would silently change a job: a row with too few or too many fields, an unclosed quote,
//! a number that is not a number. A quoted field may not span lines: no trace format has
//! a reason to put a line break in a job, and keeping one row per line keeps every error's
//! line number exact.
//!
//! Besides splitting lines, this module holds the checks the readers share (numbers,
//! whole numbers, limits), so that the same mistake reads the same in every format.
//!
//! It is on the ground floor, beside the errors, because more than the trace readers read
//! CSV: the efficiency fits' progress traces (`efficiency.rs`), the calibration tables
//! (`proxima-lab`'s `calibrate/`) and the Lingjun topology (`topology/formats/lingjun.rs`). The one check that
//! needs to know the cluster's limits, a GPU count, is the trace readers' own
//! (`trace::gpu_count`).

use crate::error::InputError;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// The largest number of seconds a trace may give (about 31,700 years). Simulated time is
/// `u64` microseconds, which ends at 1.8 × 10^13 s; anything near that is a typo or a
/// timestamp in the wrong unit.
pub(crate) const MAX_SECONDS: f64 = 1.0e12;

/// The largest iteration count or batch size a trace may give. Far above any real job,
/// and small enough that every whole number up to it is exact in an `f64`.
pub(crate) const MAX_COUNT: f64 = 1.0e15;

/// One non-blank line of the input with its 1-based line number.
#[derive(Debug)]
pub struct Row<'a> {
    pub line: u32,
    pub fields: Vec<Cow<'a, str>>,
}

/// The non-blank lines of a CSV text after its header: the header's column names
/// (lower-cased, trimmed) and an iterator over the data rows.
pub struct Table<'a> {
    pub columns: Vec<String>,
    pub header_line: u32,
    lines: std::iter::Enumerate<std::str::Split<'a, char>>,
}

impl<'a> Table<'a> {
    /// Reads the header (the first non-blank line). An input with no header at all is an
    /// error on line 1.
    pub fn new(text: &'a str) -> Result<Table<'a>, InputError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.split('\n').enumerate();
        for (i, raw) in lines.by_ref() {
            let line = line_number(i);
            let content = raw.strip_suffix('\r').unwrap_or(raw);
            if content.trim().is_empty() {
                continue;
            }
            let fields = split_line(content).map_err(|what| InputError::at_line(line, "header", what))?;
            let columns = fields.iter().map(|f| f.trim().to_ascii_lowercase()).collect();
            return Ok(Table { columns, header_line: line, lines });
        }
        Err(InputError::at_line(1, "header", "the file is empty; expected a CSV header line"))
    }

    /// The index of each expected column, by name, in the order `expected` lists them.
    /// A missing column is an error naming it; so is a column written twice. Columns not
    /// in `expected` are errors when `allow_unknown` is false (Proxima's own format, where
    /// an unknown column is most likely a misspelt one) and ignored otherwise (formats
    /// written by other tools, which may add columns Proxima has no use for).
    pub fn locate(
        &self,
        expected: &[&str],
        optional: &[&str],
        allow_unknown: bool,
        format_header: &str,
    ) -> Result<BTreeMap<String, usize>, InputError> {
        let mut found = BTreeMap::new();
        for (i, c) in self.columns.iter().enumerate() {
            let known = expected.contains(&c.as_str()) || optional.contains(&c.as_str());
            if !known && !allow_unknown {
                return Err(InputError::at_line(
                    self.header_line,
                    display_column(c, i),
                    format!("unknown column; the columns are {format_header}"),
                ));
            }
            if let Some(first) = found.insert(c.clone(), i) {
                return Err(InputError::at_line(
                    self.header_line,
                    display_column(c, i),
                    format!("the column appears twice (columns {} and {})", first + 1, i + 1),
                ));
            }
        }
        for name in expected {
            if !found.contains_key(*name) {
                return Err(InputError::at_line(
                    self.header_line,
                    *name,
                    format!("missing column; the header must be {format_header}"),
                ));
            }
        }
        Ok(found)
    }

    /// The next data row, skipping blank lines. A row whose field count differs from the
    /// header's is an error naming the first missing column or the first extra one.
    pub fn next_row(&mut self) -> Option<Result<Row<'a>, InputError>> {
        for (i, raw) in self.lines.by_ref() {
            let line = line_number(i);
            let content = raw.strip_suffix('\r').unwrap_or(raw);
            if content.trim().is_empty() {
                continue;
            }
            let fields = match split_line(content) {
                Ok(f) => f,
                Err(what) => return Some(Err(InputError::at_line(line, "row", what))),
            };
            let n = self.columns.len();
            if fields.len() < n {
                let missing = &self.columns[fields.len()];
                return Some(Err(InputError::at_line(
                    line,
                    display_column(missing, fields.len()),
                    format!("missing value: the row has {} fields but the header has {n} columns", fields.len()),
                )));
            }
            if fields.len() > n {
                return Some(Err(InputError::at_line(
                    line,
                    format!("column {}", n + 1),
                    format!(
                        "unexpected extra value '{}': the row has {} fields but the header has {n} columns (quote values that contain commas)",
                        fields[n].trim(),
                        fields.len()
                    ),
                )));
            }
            return Some(Ok(Row { line, fields }));
        }
        None
    }
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// A column's name for messages, or its position when the header left it blank.
fn display_column(name: &str, index: usize) -> String {
    if name.is_empty() {
        format!("column {}", index + 1)
    } else {
        name.to_string()
    }
}

/// Splits one line (without its line end) into fields. Spaces around a field are removed;
/// a quoted field keeps everything between its quotes, with `""` read as one quote.
pub(crate) fn split_line(line: &str) -> Result<Vec<Cow<'_, str>>, String> {
    let mut fields = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    loop {
        // Skip leading blanks of the field.
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'"' {
            let column = fields.len() + 1;
            let mut value = String::new();
            let mut start = i + 1;
            let mut j = start;
            loop {
                match bytes.get(j) {
                    None => {
                        return Err(format!(
                            "the quote opened in field {column} is not closed on this line (a field may not span lines)"
                        ))
                    }
                    Some(b'"') if bytes.get(j + 1) == Some(&b'"') => {
                        value.push_str(&line[start..=j]);
                        j += 2;
                        start = j;
                    }
                    Some(b'"') => {
                        value.push_str(&line[start..j]);
                        j += 1;
                        break;
                    }
                    Some(_) => j += 1,
                }
            }
            while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
                j += 1;
            }
            match bytes.get(j) {
                None => {
                    fields.push(Cow::Owned(value));
                    return Ok(fields);
                }
                Some(b',') => {
                    fields.push(Cow::Owned(value));
                    i = j + 1;
                }
                Some(_) => {
                    return Err(format!(
                        "unexpected text after the closing quote of field {column} (write a quote inside a quoted field as \"\")"
                    ))
                }
            }
        } else {
            let end = line[i..].find(',').map(|k| i + k);
            let raw = &line[i..end.unwrap_or(line.len())];
            if raw.contains('"') {
                return Err(format!(
                    "field {} has a quote inside an unquoted value; quote the whole field and double the inner quote",
                    fields.len() + 1
                ));
            }
            fields.push(Cow::Borrowed(raw.trim_end_matches([' ', '\t'])));
            match end {
                Some(e) => i = e + 1,
                None => return Ok(fields),
            }
        }
    }
}

/// Quotes a value for writing when reading it back would otherwise change it.
pub(crate) fn quote(value: &str) -> Cow<'_, str> {
    let plain =
        !value.is_empty() && !value.contains([',', '"', '\n', '\r']) && value.trim_matches([' ', '\t']) == value;
    if plain {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("\"{}\"", value.replace('"', "\"\"")))
    }
}

// ---------------------------------------------------------------------------------------
// Field checks shared by the readers. Each returns the message part of an error; callers
// add the line and the column.
// ---------------------------------------------------------------------------------------

/// Turns a field check's message into an error at a line and column, for `map_err`.
pub fn at(line: u32, field: &'static str) -> impl Fn(String) -> InputError {
    move |what| InputError::at_line(line, field, what)
}

/// A finite number, or why not.
pub fn number(value: &str) -> Result<f64, String> {
    if value.is_empty() {
        return Err("expected a number, got an empty value".into());
    }
    match value.parse::<f64>() {
        Ok(x) if x.is_nan() => Err(format!("expected a number, got '{value}'")),
        Ok(x) if x.is_infinite() => {
            let lower = value.to_ascii_lowercase();
            if lower.contains("inf") {
                Err(format!("expected a finite number, got '{value}'"))
            } else {
                Err(format!("the number '{value}' is too large"))
            }
        }
        Ok(x) => Ok(x),
        Err(_) => Err(format!("expected a number, got '{value}'")),
    }
}

/// A number of seconds that must be greater than zero (a duration).
pub(crate) fn positive_seconds(value: &str) -> Result<f64, String> {
    let x = number(value).map_err(|m| format!("{m} (a duration in seconds)"))?;
    if x <= 0.0 {
        return Err(format!("expected a positive number of seconds, got '{value}'"));
    }
    if x > MAX_SECONDS {
        return Err(format!("'{value}' seconds is too large (the limit is 10^12 s, about 31,700 years)"));
    }
    Ok(x)
}

/// A number of seconds that may be zero (a submission time).
pub(crate) fn submit_seconds(value: &str) -> Result<f64, String> {
    let x = number(value).map_err(|m| format!("{m} (a submission time in seconds)"))?;
    if x < 0.0 {
        return Err(format!("expected a submission time of 0 seconds or more, got '{value}'"));
    }
    if x > MAX_SECONDS {
        return Err(format!("'{value}' seconds is too large (the limit is 10^12 s, about 31,700 years)"));
    }
    // -0 and 0 are the same time; keep one spelling so traces compare equal.
    Ok(x + 0.0)
}

/// A whole number of at least 1 and at most `max`. Spreadsheet spellings of whole numbers
/// such as `4.0` are accepted; `4.5` is not.
pub(crate) fn positive_whole(value: &str, max: f64) -> Result<f64, String> {
    let bad = || format!("expected a positive whole number, got '{value}'");
    if value.is_empty() {
        return Err("expected a positive whole number, got an empty value".into());
    }
    let x = match value.parse::<f64>() {
        Ok(x) if x.is_nan() => return Err(bad()),
        Ok(x) if x.is_infinite() && !value.to_ascii_lowercase().contains("inf") => {
            return Err(format!("the number '{value}' is too large (at most {max})"))
        }
        Ok(x) if x.is_infinite() => return Err(bad()),
        Ok(x) => x,
        Err(_) => return Err(bad()),
    };
    if x < 1.0 || x.fract() != 0.0 {
        return Err(bad());
    }
    if x > max {
        return Err(format!("'{value}' is too large (at most {max})"));
    }
    Ok(x)
}

/// The largest global batch size a trace may give: far above any real job's (the Pollux
/// workloads' largest is 32,768).
pub(crate) const MAX_BATCH: u32 = 1 << 30;

/// A global batch size: a whole number from 1 to [`MAX_BATCH`].
pub(crate) fn batch_size(value: &str) -> Result<u32, String> {
    Ok(positive_whole(value, MAX_BATCH as f64)? as u32)
}

/// Remembers job ids, so that a second use of one names both lines.
#[derive(Default)]
pub(crate) struct SeenIds {
    lines: BTreeMap<String, u32>,
}

impl SeenIds {
    pub fn check(&mut self, id: &str, line: u32) -> Result<(), String> {
        if id.is_empty() {
            return Err("a job id must not be empty".into());
        }
        if let Some(first) = self.lines.insert(id.to_string(), line) {
            self.lines.insert(id.to_string(), first);
            return Err(format!("duplicate job id '{id}': line {first} already uses it"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str) -> Vec<String> {
        split_line(line).unwrap().into_iter().map(|c| c.into_owned()).collect()
    }

    #[test]
    fn plain_and_spaced_fields() {
        assert_eq!(split("a,b,c"), ["a", "b", "c"]);
        assert_eq!(split("  a , b\t,c  "), ["a", "b", "c"]);
        assert_eq!(split("a,,"), ["a", "", ""]);
        assert_eq!(split(""), [""]);
    }

    #[test]
    fn quoted_fields_follow_rfc_4180() {
        assert_eq!(split(r#""a, b",c"#), ["a, b", "c"]);
        assert_eq!(split(r#"x,"say ""hi""",y"#), ["x", r#"say "hi""#, "y"]);
        assert_eq!(split(r#" "  padded  " ,z"#), ["  padded  ", "z"]);
        assert_eq!(split(r#""""#), [""]);
        assert_eq!(split(r#"a,"""#), ["a", ""]);
    }

    #[test]
    fn broken_quotes_are_errors() {
        assert!(split_line(r#"a,"open"#).unwrap_err().contains("not closed"));
        assert!(split_line(r#""a"b,c"#).unwrap_err().contains("after the closing quote"));
        assert!(split_line(r#"a,b"c"#).unwrap_err().contains("quote inside"));
    }

    #[test]
    fn quote_round_trips() {
        for v in ["plain", "a,b", "say \"x\"", " lead", "trail ", ""] {
            let line = format!("{},end", quote(v));
            assert_eq!(split(&line), [v, "end"], "{v:?}");
        }
        assert!(matches!(quote("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn table_skips_bom_blank_lines_and_crlf() {
        let mut t = Table::new("\u{feff}\r\n A ,B\r\n1,2\r\n\r\n3,4\r\n\r\n").unwrap();
        assert_eq!(t.columns, ["a", "b"]);
        assert_eq!(t.header_line, 2);
        let r = t.next_row().unwrap().unwrap();
        assert_eq!((r.line, r.fields.len()), (3, 2));
        let r = t.next_row().unwrap().unwrap();
        assert_eq!(r.line, 5);
        assert!(t.next_row().is_none());
    }

    #[test]
    fn wrong_field_counts_name_the_column() {
        let mut t = Table::new("a,b,c\n1,2\n1,2,3,4\n").unwrap();
        let e = t.next_row().unwrap().unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "c"));
        let e = t.next_row().unwrap().unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(3), "column 4"));
        assert!(e.message.contains("'4'"), "{e}");
    }

    #[test]
    fn number_checks() {
        assert_eq!(number(" 1.5".trim()), Ok(1.5));
        assert!(number("abc").unwrap_err().contains("expected a number"));
        assert!(number("NaN").unwrap_err().contains("expected a number"));
        assert!(number("inf").unwrap_err().contains("finite"));
        assert!(number("1e999").unwrap_err().contains("too large"));
        assert!(positive_seconds("0").is_err());
        assert!(positive_seconds("-3").is_err());
        assert!(positive_seconds("2e12").unwrap_err().contains("too large"));
        assert_eq!(submit_seconds("0"), Ok(0.0));
        assert!(submit_seconds("-0.5").is_err());
        assert_eq!(positive_whole("8.0", 100.0), Ok(8.0));
        assert!(positive_whole("8.5", 100.0).is_err());
        assert!(positive_whole("0", 100.0).is_err());
        assert!(positive_whole("101", 100.0).unwrap_err().contains("too large"));
    }

    #[test]
    fn duplicate_ids_name_the_first_line() {
        let mut seen = SeenIds::default();
        seen.check("a", 2).unwrap();
        seen.check("b", 3).unwrap();
        let e = seen.check("a", 7).unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(seen.check("", 8).is_err());
    }
}
