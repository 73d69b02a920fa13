//! How a job looks, on the canvas and in the lists: a colour and a mark, so that colour
//! is never the only cue; and how busy a link looks.
//!
//! A job is coloured either by its own number ([`ColourBy::Job`]) or by its tenant
//! ([`ColourBy::Tenant`]): then every job of a tenant has the tenant's colour from the
//! per-tenant table's palette ([`tenant_rgb`]), so that a tenant looks the same everywhere
//! on the page, and the tenant's mark.
//!
//! Free GPUs are white and busy ones dark enough for white job numbers: every job colour
//! has a relative luminance of at most [`MAX_JOB_LUMINANCE`], which gives it a contrast
//! of at least 4.5:1 with white (WCAG 2's ratio), so a projector's washed-out picture
//! still tells free from busy.

use crate::results::tenants::{tenant_rgb, TENANT_COLOURS};

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

/// What a job's colour and mark stand for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColourBy {
    /// Each job its own colour and mark.
    #[default]
    Job,
    /// Each tenant its colour and mark, shared by its jobs.
    Tenant,
}

/// How a job is drawn: its fill, as sRGB bytes, and its mark (see [`job_pattern`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    pub rgb: [u8; 3],
    pub pattern: u8,
}

impl Look {
    /// The fill as CSS.
    pub fn css(&self) -> String {
        let [r, g, b] = self.rgb;
        format!("rgb({r} {g} {b})")
    }
}

/// How job `job` of tenant `tenant` (its index in the summary's `tenants`) is drawn.
pub fn job_look(job: u32, tenant: u32, by: ColourBy) -> Look {
    match by {
        ColourBy::Job => Look { rgb: job_rgb(job), pattern: job_pattern(job) },
        ColourBy::Tenant => tenant_look(tenant),
    }
}

/// A tenant's look: its colour in the per-tenant table and a mark. Past the palette's
/// colours the marks shift by one, so that two tenants sharing a colour differ by mark.
pub fn tenant_look(tenant: u32) -> Look {
    let round = tenant / TENANT_COLOURS as u32;
    Look { rgb: tenant_rgb(tenant as usize), pattern: ((tenant + round) % 4) as u8 }
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
    fn every_tenant_colour_keeps_white_numbers_readable() {
        for tenant in 0..TENANT_COLOURS as u32 {
            let look = tenant_look(tenant);
            let l = luminance(look.rgb);
            assert!(l <= MAX_JOB_LUMINANCE, "tenant {tenant}: luminance {l:.3}");
            assert!(contrast(l, luminance([255, 255, 255])) >= 4.5, "tenant {tenant}");
        }
    }

    #[test]
    fn by_tenant_a_tenants_jobs_look_alike_and_tenants_differ() {
        // Jobs 3 and 40 of tenant 2 look alike, as the tenant; by job they differ.
        assert_eq!(job_look(3, 2, ColourBy::Tenant), job_look(40, 2, ColourBy::Tenant));
        assert_eq!(job_look(3, 2, ColourBy::Tenant).css(), "rgb(0 132 96)");
        assert_ne!(job_look(3, 2, ColourBy::Job), job_look(40, 2, ColourBy::Job));
        assert_eq!(job_look(3, 2, ColourBy::Job), Look { rgb: job_rgb(3), pattern: job_pattern(3) });
        // The table's colour is the canvas's.
        let [r, g, b] = tenant_look(5).rgb;
        assert_eq!(format!("#{r:02x}{g:02x}{b:02x}"), crate::results::tenants::tenant_colour(5));
        // Fifteen tenants (the most a synthetic trace has): no two share colour and mark.
        let looks: Vec<Look> = (0..15).map(tenant_look).collect();
        for (i, a) in looks.iter().enumerate() {
            for b in &looks[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_ne!(tenant_look(0).pattern, tenant_look(8).pattern, "same colour, another mark");
    }

    #[test]
    fn neighbouring_jobs_differ() {
        for job in 0..100 {
            assert_ne!(job_rgb(job), job_rgb(job + 1));
        }
    }
}
