//! Numbers for people: three significant figures, thousands grouped, durations in the unit
//! people would use, ratios to a baseline. Pure and below every part of the page that
//! writes numbers (the results' summary, the charts, the tour's text), so that none of
//! them reaches into another for these.

/// `x` with three significant figures, without trailing zeros (`36200`, `7.11`, `0.0163`).
pub fn sig3(x: f64) -> String {
    sig(x, 3)
}

fn sig(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() { "0".into() } else { x.to_string() };
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    let scale = 10f64.powi(magnitude + 1 - digits);
    let rounded = if decimals == 0 { (x / scale).round() * scale } else { x };
    let text = format!("{rounded:.decimals$}");
    // Trailing zeros go (9.996 is written 10.00, then 10).
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text };
    group(&text)
}

/// Thousands separated by commas in the whole part.
fn group(text: &str) -> String {
    let (sign, rest) = text.strip_prefix('-').map_or(("", text), |r| ("-", r));
    let (whole, frac) = rest.split_once('.').map_or((rest, None), |(w, f)| (w, Some(f)));
    if whole.len() <= 4 {
        return text.to_string();
    }
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}{}", frac.map(|f| format!(".{f}")).unwrap_or_default())
}

/// A count in full, with thousands separated.
pub fn count(v: f64) -> String {
    group(&format!("{}", v.round() as i64))
}

/// Seconds for people, three significant figures: `45.2 s`, `16.7 min`, `10.1 h`, `3.2 d`.
pub fn duration(s: f64) -> String {
    let (value, unit) = in_unit(s);
    format!("{} {unit}", sig3(value))
}

/// Seconds in the unit people would use for them: s below a minute, min below an hour,
/// h below a day, d above.
pub fn in_unit(s: f64) -> (f64, &'static str) {
    let a = s.abs();
    if a < 60.0 {
        (s, "s")
    } else if a < 3600.0 {
        (s / 60.0, "min")
    } else if a < 86_400.0 {
        (s / 3600.0, "h")
    } else {
        (s / 86_400.0, "d")
    }
}

/// A ratio to a baseline: `0.71×`, `1.02×`, `0.016×`, `12.3×`.
pub fn ratio(r: f64) -> String {
    if (0.1..10.0).contains(&r.abs()) {
        format!("{r:.2}×")
    } else if r.abs() >= 10.0 {
        format!("{}×", sig(r, 3))
    } else {
        format!("{}×", sig(r, 2))
    }
}
