//! Tenants for synthetic traces: `synthetic:...,tenants=N` gives every job one of `N`
//! tenants, drawn with the job shares of the Philly trace's `N` largest virtual clusters.
//!
//! The Philly-derived log names 15 virtual clusters; their job counts, largest first, are
//! [`PHILLY_TENANT_JOBS`]. Tenant `k` (named `t1`, `t2`, ... with zero padding so that names
//! sort in number order) has the weight of the `k`-th largest. The draw is independent of a
//! job's size and duration, so a synthetic tenant's jobs look like everyone's; in the real log
//! they do not (one virtual cluster runs 1.8% of the jobs and holds 26% of the GPU time).
//!
//! Each job draws from its own generator, `Rng::for_item(seed, stream, i)`, in a stream of
//! its own: adding tenants to a spec changes no other draw, and the first 100 jobs of
//! `jobs=1000` get the tenants of the 100 jobs of `jobs=100`.
//!
//! The key is read here, not by the generator's own spec, and removed from the spec text
//! before the generator sees it ([`split_spec`]).

use super::Trace;
use crate::error::InputError;
use crate::rng::Rng;

/// Jobs per virtual cluster of the Philly trace, largest first (petuum/adaptdl, branch
/// `osdi21-artifact`, `simulator/traces/philly.csv`, the `cluster` column; 82,247 jobs;
/// Philly traces are CC BY 4.0).
pub const PHILLY_TENANT_JOBS: [u32; 15] =
    [41_226, 16_091, 9_953, 7_423, 1_934, 1_511, 1_435, 1_137, 723, 422, 374, 8, 4, 3, 3];

/// The most tenants a synthetic trace may have: the Philly trace's virtual clusters.
pub const MAX_TENANTS: u32 = PHILLY_TENANT_JOBS.len() as u32;

/// The stream of the per-job tenant draws (`"TENANTS"` in ASCII).
const TENANT_STREAM: u64 = 0x54_454E_414E_5453;

/// The synthetic spec without its `tenants` key, and the number of tenants it asks for.
pub fn split_spec(text: &str) -> Result<(String, Option<u32>), InputError> {
    let (prefix, body) = match text.trim().strip_prefix("synthetic:") {
        Some(rest) => ("synthetic:", rest),
        None => ("", text.trim()),
    };
    let mut tenants = None;
    let mut kept = Vec::new();
    for part in body.split(',') {
        match part.split_once('=') {
            Some((key, value)) if key.trim() == "tenants" => {
                let value = value.trim();
                let n = value.parse::<u32>().ok().filter(|n| (1..=MAX_TENANTS).contains(n)).ok_or_else(|| {
                    InputError::new(
                        "tenants",
                        format!("expected a whole number of tenants from 1 to {MAX_TENANTS}, got '{value}'"),
                    )
                })?;
                if tenants.replace(n).is_some() {
                    return Err(InputError::new("tenants", "given twice"));
                }
            }
            _ => kept.push(part),
        }
    }
    Ok((format!("{prefix}{}", kept.join(",")), tenants))
}

/// The name of tenant `k` (from 1) of `n`: `t1` ... `t9`, or `t01` ... `t15`.
pub fn tenant_name(k: u32, n: u32) -> String {
    let width = n.to_string().len();
    format!("t{k:0width$}")
}

/// Gives every job of a generated trace one of `n` tenants, seeded.
pub fn assign(trace: &mut Trace, n: u32, seed: u64) {
    let n = n.clamp(1, MAX_TENANTS);
    let weights: Vec<f64> = PHILLY_TENANT_JOBS[..n as usize].iter().map(|&c| c as f64).collect();
    let names: Vec<String> = (1..=n).map(|k| tenant_name(k, n)).collect();
    for (i, job) in trace.jobs.iter_mut().enumerate() {
        let k = Rng::for_item(seed, TENANT_STREAM, i as u64).weighted_index(&weights);
        job.tenant = Some(names[k].clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::synthetic::{generate, SyntheticSpec};

    #[test]
    fn the_tenants_key_is_taken_out_of_the_spec() {
        assert_eq!(
            split_spec("synthetic:jobs=5,tenants=3,load=1").unwrap(),
            ("synthetic:jobs=5,load=1".into(), Some(3))
        );
        assert_eq!(split_spec("jobs=5").unwrap(), ("jobs=5".into(), None));
        assert_eq!(split_spec("synthetic: tenants = 15 ,jobs=5").unwrap().1, Some(15));
        for bad in ["synthetic:jobs=5,tenants=0", "synthetic:jobs=5,tenants=16", "synthetic:tenants=x"] {
            let e = split_spec(bad).unwrap_err();
            assert_eq!(e.field, "tenants", "{bad}");
            assert!(e.message.contains("from 1 to 15"), "{e}");
        }
        assert!(split_spec("tenants=2,tenants=3").unwrap_err().message.contains("twice"));
    }

    #[test]
    fn names_sort_in_number_order() {
        assert_eq!(tenant_name(3, 9), "t3");
        assert_eq!(tenant_name(3, 15), "t03");
        let mut names: Vec<String> = (1..=15).map(|k| tenant_name(k, 15)).collect();
        let before = names.clone();
        names.sort();
        assert_eq!(names, before);
    }

    #[test]
    fn tenants_follow_philly_shares_seeded_and_prefix_stable() {
        let spec = SyntheticSpec { jobs: 20_000, load: 0.8, seed: 4 };
        let mut trace = generate(&spec, 512);
        let untouched = trace.clone();
        assign(&mut trace, 4, spec.seed);
        // Nothing but the tenant changes.
        for (a, b) in trace.jobs.iter().zip(&untouched.jobs) {
            assert_eq!((a.submit_s, a.gpus, &a.work), (b.submit_s, b.gpus, &b.work));
        }
        let count = |name: &str| trace.jobs.iter().filter(|j| j.tenant.as_deref() == Some(name)).count() as f64;
        // Philly's four largest: 41,226, 16,091, 9,953, 7,423 of 74,693 jobs.
        for (name, jobs) in [("t1", 41_226.0), ("t2", 16_091.0), ("t3", 9_953.0), ("t4", 7_423.0)] {
            let share = count(name) / 20_000.0;
            let expected = jobs / 74_693.0;
            assert!((share - expected).abs() < 0.015, "{name}: {share} against {expected}");
        }
        let mut short = generate(&SyntheticSpec { jobs: 100, ..spec.clone() }, 512);
        assign(&mut short, 4, spec.seed);
        assert!(short.jobs.iter().zip(&trace.jobs).all(|(a, b)| a.tenant == b.tenant));
        let mut other = untouched;
        assign(&mut other, 4, 5);
        assert!(other.jobs.iter().zip(&trace.jobs).any(|(a, b)| a.tenant != b.tenant));
    }
}
