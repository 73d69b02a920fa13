//! Slurm's host-list expressions, as `topology.conf` uses them in `Nodes=` and `Switches=`:
//! `tux[0-3,12,18-20]`, `s[1-3,5]`, `node[01-16]`, `rack[1-2]-n[1-4]`, `a,b,c`.
//!
//! The grammar follows Slurm's parser (`src/common/hostlist.c`, one dimension): a list is
//! names separated by commas or white space outside brackets; a name is literal text and
//! bracketed ranges, each range `N` or `LO-HI` with `LO ≤ HI`; a number is printed with
//! as many digits as `LO` was written with (`[08-10]` gives `08 09 10`, `[8-10]` gives
//! `8 9 10`); several bracket groups in one name multiply, the leftmost varying slowest.
//! Where Slurm is lenient and the text is surely a typo, Proxima refuses it: an empty range
//! (`n[]`, `n[1-]`, `n[1,,2]`), a reversed one (`n[5-3]`, which Slurm also refuses), an
//! unmatched bracket.

/// What is wrong with a host list (the caller adds the key and the line).
#[derive(Debug, PartialEq)]
pub(super) enum HostlistError {
    /// Not a host list, in words.
    Invalid(String),
    /// This item would name more hosts than the budget left.
    TooMany(String),
}

/// The names of a host list, in the order written. `budget` is how many names the caller
/// may still take; a list that would exceed it is refused before it is expanded, so a short
/// text such as `n[0-99999999999]` cannot exhaust memory.
pub(super) fn expand(text: &str, budget: &mut usize) -> Result<Vec<String>, HostlistError> {
    let mut names = Vec::new();
    for item in split_items(text).map_err(HostlistError::Invalid)? {
        let parts = parse_item(item).map_err(HostlistError::Invalid)?;
        let count = parts.iter().try_fold(1usize, |n, part| match part {
            Part::Literal(_) => Some(n),
            Part::Ranges(ranges) => n.checked_mul(ranges.iter().try_fold(0usize, |sum, r| sum.checked_add(r.len()))?),
        });
        match count {
            Some(n) if n <= *budget => *budget -= n,
            _ => return Err(HostlistError::TooMany(item.to_string())),
        }
        let mut expanded = vec![String::new()];
        for part in &parts {
            match part {
                Part::Literal(text) => expanded.iter_mut().for_each(|name| name.push_str(text)),
                Part::Ranges(ranges) => {
                    let mut next = Vec::with_capacity(expanded.len());
                    for prefix in &expanded {
                        for range in ranges {
                            for n in range.lo..=range.hi {
                                next.push(format!("{prefix}{n:0width$}", width = range.width));
                            }
                        }
                    }
                    expanded = next;
                }
            }
        }
        names.extend(expanded);
    }
    Ok(names)
}

/// One piece of a name: literal text, or a bracketed list of ranges.
enum Part<'a> {
    Literal(&'a str),
    Ranges(Vec<Range>),
}

struct Range {
    lo: u64,
    hi: u64,
    /// Digits to print, from how `lo` was written.
    width: usize,
}

impl Range {
    fn len(&self) -> usize {
        usize::try_from(self.hi - self.lo).map_or(usize::MAX, |d| d.saturating_add(1))
    }
}

/// The names of a list: split at commas and white space outside brackets; empty items (a
/// doubled or trailing comma) are skipped, as Slurm skips them.
fn split_items(text: &str) -> Result<Vec<&str>, String> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' if depth > 0 => return Err(format!("'[' inside brackets in '{text}'")),
            '[' => depth = 1,
            ']' if depth == 0 => return Err(format!("']' without '[' in '{text}'")),
            ']' => depth = 0,
            ',' | ' ' | '\t' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if depth > 0 {
        return Err(format!("'[' is not closed in '{text}'"));
    }
    items.push(&text[start..]);
    items.retain(|item| !item.is_empty());
    if items.is_empty() {
        return Err("empty: no names".to_string());
    }
    Ok(items)
}

/// A name's literal text and bracket groups (brackets are known to be balanced here).
fn parse_item(item: &str) -> Result<Vec<Part<'_>>, String> {
    let mut parts = Vec::new();
    let mut rest = item;
    while let Some(open) = rest.find('[') {
        if open > 0 {
            parts.push(Part::Literal(&rest[..open]));
        }
        let close = open + rest[open..].find(']').expect("brackets are balanced");
        parts.push(Part::Ranges(parse_ranges(&rest[open + 1..close], item)?));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest));
    }
    Ok(parts)
}

/// The ranges inside one pair of brackets: `0-3,12,18-20`.
fn parse_ranges(inside: &str, item: &str) -> Result<Vec<Range>, String> {
    inside
        .split(',')
        .map(|range| {
            if range.is_empty() {
                return Err(format!("empty range in '{item}'"));
            }
            let (lo, hi) = range.split_once('-').unwrap_or((range, range));
            if lo.is_empty() || hi.is_empty() {
                return Err(format!("empty range '{range}' in '{item}': a range is N or LO-HI"));
            }
            let number = |digits: &str| -> Result<u64, String> {
                if !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("'{range}' in '{item}' is not a number or a range LO-HI of numbers"));
                }
                digits.parse::<u64>().map_err(|_| format!("the number '{digits}' in '{item}' is too large"))
            };
            let (lo_n, hi_n) = (number(lo)?, number(hi)?);
            if lo_n > hi_n {
                return Err(format!(
                    "reversed range '{range}' in '{item}': the first number must not be larger than the last"
                ));
            }
            Ok(Range { lo: lo_n, hi: hi_n, width: lo.len() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        expand(text, &mut 1000).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn error(text: &str) -> String {
        match expand(text, &mut 1000).unwrap_err() {
            HostlistError::Invalid(message) => message,
            HostlistError::TooMany(item) => panic!("{item}: too many"),
        }
    }

    #[test]
    fn ranges_as_slurm_writes_them() {
        // The examples of Slurm's topology.conf(5).
        assert_eq!(names("tux[0-3,12,18-20]"), ["tux0", "tux1", "tux2", "tux3", "tux12", "tux18", "tux19", "tux20"]);
        assert_eq!(names("s[0-2,4-8,12]").len(), 9);
        assert_eq!(names("s[1-3,5]"), ["s1", "s2", "s3", "s5"]);
        // Zero padding follows the first number.
        assert_eq!(names("node[08-10]"), ["node08", "node09", "node10"]);
        assert_eq!(names("node[8-10]"), ["node8", "node9", "node10"]);
        assert_eq!(names("node[01-16]").last().unwrap(), "node16");
        // Plain names, commas and spaces between them, empty items skipped.
        assert_eq!(names("a,b c,,d,"), ["a", "b", "c", "d"]);
        // Several groups multiply, the leftmost slowest; text after a group is kept.
        assert_eq!(names("r[1-2]n[1-2]-ib"), ["r1n1-ib", "r1n2-ib", "r2n1-ib", "r2n2-ib"]);
        assert_eq!(names("[3-4]"), ["3", "4"]);
        assert_eq!(names("gpu[7]"), ["gpu7"]);
    }

    #[test]
    fn typos_are_refused_with_the_item_named() {
        assert_eq!(error("node[]"), "empty range in 'node[]'");
        assert_eq!(error("node[1,,2]"), "empty range in 'node[1,,2]'");
        assert_eq!(error("node[1-]"), "empty range '1-' in 'node[1-]': a range is N or LO-HI");
        assert_eq!(
            error("node[16-1]"),
            "reversed range '16-1' in 'node[16-1]': the first number must not be larger than the last"
        );
        assert_eq!(error("node[1-4"), "'[' is not closed in 'node[1-4'");
        assert_eq!(error("node1-4]"), "']' without '[' in 'node1-4]'");
        assert_eq!(error("n[[1]]"), "'[' inside brackets in 'n[[1]]'");
        assert_eq!(error("n[a-c]"), "'a-c' in 'n[a-c]' is not a number or a range LO-HI of numbers");
        assert_eq!(error("n[-3]"), "empty range '-3' in 'n[-3]': a range is N or LO-HI");
        assert_eq!(error(" , "), "empty: no names");
        assert!(error("n[1-99999999999999999999]").contains("too large"));
        assert!(matches!(expand("n[1-1001]", &mut 1000), Err(HostlistError::TooMany(_))));
    }

    #[test]
    fn the_budget_is_checked_before_expanding() {
        let mut budget = 10;
        assert_eq!(expand("n[1-4]", &mut budget).unwrap().len(), 4);
        assert_eq!(budget, 6);
        let too_many = |item: &str| Err(HostlistError::TooMany(item.to_string()));
        assert_eq!(expand("n1,n[1-7]", &mut budget), too_many("n[1-7]"));
        assert_eq!(expand("n[0-18446744073709551615]", &mut (1 << 20)), too_many("n[0-18446744073709551615]"));
        assert_eq!(expand("a[1-100000]b[1-100000]", &mut (1 << 20)), too_many("a[1-100000]b[1-100000]"));
    }
}
