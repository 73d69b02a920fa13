//! How a job looks, on the canvas and in the lists: a colour and a mark, so that colour
//! is never the only cue; and how busy a link looks.

/// A stable colour for a job, as HSL (hue 0..360, saturation and lightness in %): hues
/// spread by the golden angle so that neighbouring job numbers look different.
pub fn job_hsl(job: u32) -> (f64, f64, f64) {
    let hue = (job as f64 * 137.508) % 360.0;
    let light = [46.0, 60.0, 38.0][(job / 3 % 3) as usize];
    (hue, 62.0, light)
}

/// The pattern drawn over a job's GPUs, so that colour is not the only cue: none, a
/// diagonal stroke, a dot, or a bar, by job number.
pub fn job_pattern(job: u32) -> u8 {
    (job % 4) as u8
}

/// A job's colour as CSS.
pub fn job_css(job: u32) -> String {
    let (h, s, l) = job_hsl(job);
    format!("hsl({h:.0} {s:.0}% {l:.0}%)")
}

/// A link's tint by the rings crossing it: grey when idle, then warmer and darker.
pub fn load_colour(rings: u32) -> &'static str {
    match rings {
        0 => "#c8c8c8",
        1 => "#f2b64c",
        2 => "#e8772e",
        3 => "#d2452b",
        _ => "#9e1b1b",
    }
}
