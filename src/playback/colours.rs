//! How a job looks, on the canvas and in the lists: a colour and a mark, so that colour
//! is never the only cue; and how busy a link looks.
//!
//! Free GPUs are white and busy ones dark enough for white job numbers: every job colour
//! has a relative luminance of at most [`MAX_JOB_LUMINANCE`], which gives it a contrast
//! of at least 4.5:1 with white (WCAG 2's ratio), so a projector's washed-out picture
//! still tells free from busy.

/// The colour of a free GPU.
pub const FREE_GPU: &str = "#ffffff";
/// The outline of a GPU cell, so that a free GPU shows on a white background.
pub const GPU_OUTLINE: &str = "#6b6b6b";
/// The darkest a job colour may be made lighter than: relative luminance.
pub const MAX_JOB_LUMINANCE: f64 = 0.18;

/// A stable colour for a job, as sRGB bytes: hues spread by the golden angle so that
/// neighbouring job numbers look different, darkened until white reads on it.
pub fn job_rgb(job: u32) -> [u8; 3] {
    let hue = (job as f64 * 137.508) % 360.0;
    let mut light = [44.0, 34.0, 26.0][(job / 3 % 3) as usize];
    loop {
        let rgb = hsl_to_rgb(hue, 0.7, light / 100.0);
        if luminance(rgb) <= MAX_JOB_LUMINANCE || light <= 5.0 {
            return rgb;
        }
        light -= 2.0;
    }
}

/// The pattern drawn over a job's GPUs, so that colour is not the only cue: none, a
/// diagonal stroke, a dot, or a bar, by job number.
pub fn job_pattern(job: u32) -> u8 {
    (job % 4) as u8
}

/// A job's colour as CSS.
pub fn job_css(job: u32) -> String {
    let [r, g, b] = job_rgb(job);
    format!("rgb({r} {g} {b})")
}

/// A link's tint by the rings crossing it: grey when idle, then warmer and darker.
pub fn load_colour(rings: u32) -> &'static str {
    match rings {
        0 => "#b4b4b4",
        1 => "#e0a030",
        2 => "#e06a1e",
        3 => "#c8341e",
        _ => "#8e1010",
    }
}

/// A link's width in CSS pixels by the rings crossing it: thicker with more.
pub fn load_width(rings: u32) -> f64 {
    if rings == 0 {
        1.5
    } else {
        2.5 + 1.5 * rings.min(6) as f64
    }
}

fn hsl_to_rgb(h: f64, s: f64, l: f64) -> [u8; 3] {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [byte(r), byte(g), byte(b)]
}

/// WCAG 2's relative luminance of an sRGB colour.
pub fn luminance(rgb: [u8; 3]) -> f64 {
    let lin = |c: u8| {
        let c = c as f64 / 255.0;
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2])
}

/// WCAG 2's contrast ratio of two luminances.
pub fn contrast(a: f64, b: f64) -> f64 {
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_colour_contrasts_with_free_gpus_and_white_numbers() {
        let white = luminance([255, 255, 255]);
        let mut worst = f64::INFINITY;
        for job in 0..5000 {
            worst = worst.min(contrast(luminance(job_rgb(job)), white));
        }
        // Free (white) against busy: at least 3:1 is asked; white numbers on the job's
        // colour want 4.5:1.
        assert!(worst >= 4.5, "worst contrast {worst:.2}");
    }

    #[test]
    fn neighbouring_jobs_differ() {
        for job in 0..100 {
            assert_ne!(job_rgb(job), job_rgb(job + 1));
        }
    }
}
