//! Tests of the synthetic trace generator: its spec, its shapes and its offered load.

use super::*;

#[test]
fn parse_defaults_and_keys() {
    assert_eq!(parse("synthetic:jobs=10").unwrap(), SyntheticSpec { jobs: 10, load: 0.8, seed: 1 });
    assert_eq!(parse("synthetic: jobs=5 , load=1.5, seed=42").unwrap(), SyntheticSpec { jobs: 5, load: 1.5, seed: 42 });
    assert_eq!(parse("seed=3,jobs=7").unwrap(), SyntheticSpec { jobs: 7, load: 0.8, seed: 3 });
    assert_eq!(SyntheticSpec::parse_with_seed("jobs=7", 9).unwrap().seed, 9);
    assert_eq!(SyntheticSpec::parse_with_seed("jobs=7, seed = 3", 9).unwrap().seed, 3);
    assert_eq!(parse("synthetic:jobs=10000000").unwrap().jobs, MAX_JOBS);
    let spec = parse("synthetic:jobs=5,load=0.5,seed=9").unwrap();
    assert_eq!(parse(&spec.to_string()).unwrap(), spec);
}

#[test]
fn parse_errors_name_the_key() {
    let cases = [
        ("synthetic:load=0.5", "jobs", "missing"),
        ("synthetic", "jobs", "missing"),
        ("synthetic:jobs=0", "jobs", "positive whole number"),
        ("synthetic:jobs=many", "jobs", "got 'many'"),
        ("synthetic:jobs=10000001", "jobs", "more than"),
        ("synthetic:jobs=5,load=0", "load", "positive number"),
        ("synthetic:jobs=5,load=NaN", "load", "positive number"),
        ("synthetic:jobs=5,load=inf", "load", "positive number"),
        ("synthetic:jobs=5,load=80", "load", "fraction"),
        ("synthetic:jobs=5,seed=-1", "seed", "whole number"),
        ("synthetic:jobs=5,rate=3", "rate", "unknown key"),
        ("synthetic:jobs=5,fast", "fast", "key=value"),
    ];
    for (text, field, what) in cases {
        let e = parse(text).unwrap_err();
        assert_eq!(e.field, field, "{text}: {e}");
        assert!(e.message.contains(what), "{text}: {e}");
        assert_eq!(e.line, None);
    }
}

#[test]
fn quantile_tables_are_sorted_and_interpolate() {
    for q in &DURATION_QUANTILES {
        assert!(q.windows(2).all(|w| w[0] <= w[1]), "{q:?}");
        assert!(q[0] >= 1.0);
    }
    assert!(QUANTILE_P.windows(2).all(|w| w[0] < w[1]));
    // At a tabulated probability the duration is the quantile; between two it is their
    // geometric interpolation.
    assert!((duration_at(0, 0.5) - 1117.0).abs() < 1e-6);
    assert!((duration_at(0, 0.0) - 1.0).abs() < 1e-9);
    let mid = duration_at(0, 0.475);
    assert!((mid - (855.0f64 * 1117.0).sqrt()).abs() < 1e-6, "{mid}");
    assert!(duration_at(0, 0.999_999_999) <= 3.25604e6 * (1.0 + 1e-12));
}

#[test]
fn means_of_the_tables_are_close_to_the_trace() {
    // Empirical means of the Philly trace per class; the tables reproduce them within a
    // few percent (the 1-GPU tail above the 99.95th percentile is interpolated).
    let empirical = [8301.0, 30942.0, 78762.0, 129775.0, 95326.0];
    for (class, want) in empirical.iter().enumerate() {
        let got = mean_duration(class);
        assert!((got / want - 1.0).abs() < 0.05, "class {class}: {got} vs {want}");
    }
    // The whole trace: 42,811 GPU-seconds per job.
    let e = expected_gpu_seconds(2048);
    assert!((e / 42_811.0 - 1.0).abs() < 0.05, "{e}");
}

#[test]
fn jobs_do_not_depend_on_how_many_are_generated() {
    let short = generate(&SyntheticSpec { jobs: 100, load: 0.8, seed: 7 }, 64);
    let long = generate(&SyntheticSpec { jobs: 1000, load: 0.8, seed: 7 }, 64);
    assert_eq!(short.format, TraceFormat::Synthetic);
    assert_eq!(short.jobs[0].submit_s, 0.0);
    assert!(long.jobs.windows(2).all(|w| w[0].submit_s <= w[1].submit_s));
    assert!(long.jobs.iter().all(|j| j.model.is_none() && j.line == 0));
    assert!(short.jobs[99].submit_s > 0.0);
    // The same sizes, durations and names; the arrival times scaled by one factor.
    let factor = long.jobs[99].submit_s / short.jobs[99].submit_s;
    for (a, b) in short.jobs.iter().zip(&long.jobs) {
        assert_eq!((&a.name, a.gpus, a.work), (&b.name, b.gpus, b.work));
        assert!((a.submit_s * factor - b.submit_s).abs() <= 1e-9 * b.submit_s, "{a:?} {b:?}");
    }
    let other = generate(&SyntheticSpec { jobs: 100, load: 0.8, seed: 8 }, 64);
    assert_ne!(short.jobs, other.jobs);
    assert_eq!(generate(&SyntheticSpec { jobs: 100, load: 0.8, seed: 7 }, 64), short);
}

#[test]
fn gpu_counts_follow_philly() {
    let n = 100_000u32;
    let t = generate(&SyntheticSpec { jobs: n, load: 0.8, seed: 1 }, 2048);
    for (g, share) in gpu_shares(2048) {
        let count = t.jobs.iter().filter(|j| j.gpus == g).count() as f64;
        let expected = n as f64 * share;
        let sd = (n as f64 * share * (1.0 - share)).sqrt();
        assert!((count - expected).abs() <= 4.0 * sd + 2.0, "{g} GPUs: {count} jobs, expected {expected:.1}");
    }
    // The median 1-GPU job runs about as long as Philly's (1,117 s).
    let mut ones: Vec<f64> = t
        .jobs
        .iter()
        .filter(|j| j.gpus == 1)
        .map(|j| match j.work {
            TraceWork::DurationS(d) => d,
            TraceWork::Iterations(_) => unreachable!(),
        })
        .collect();
    ones.sort_by(f64::total_cmp);
    let median = ones[ones.len() / 2];
    assert!((median / 1117.0 - 1.0).abs() < 0.05, "{median}");
}

#[test]
fn sizes_above_the_cluster_are_dropped() {
    let shares = gpu_shares(16);
    assert_eq!(shares.iter().map(|s| s.0).collect::<Vec<_>>(), [1, 2, 4, 8, 12, 16]);
    let kept: u32 = 76_627 + 1_818 + 1_870 + 1_643 + 7 + 199;
    assert!((shares[0].1 - 76_627.0 / kept as f64).abs() < 1e-12);
    let t = generate(&SyntheticSpec { jobs: 20_000, load: 0.8, seed: 3 }, 16);
    assert!(t.jobs.iter().all(|j| j.gpus <= 16));
    assert!(t.jobs.iter().any(|j| j.gpus == 16));
    let one = generate(&SyntheticSpec { jobs: 100, load: 0.8, seed: 3 }, 0);
    assert!(one.jobs.iter().all(|j| j.gpus == 1));
}

fn drawn(gpus: u32, duration: f64) -> DrawnJob {
    DrawnJob { gap: 1.0, gpus, duration }
}

#[test]
fn the_window_of_two_jobs_by_hand() {
    // Two 1-GPU jobs of 100 s, arriving at the start and the middle of the window.
    let jobs = [drawn(1, 100.0), drawn(1, 100.0)];
    let shares = [0.0, 0.5];
    // One GPU busy: 100 + min(100, W / 2) = W only at W = 200, where both fit whole.
    assert_eq!(arrival_window(&jobs, &shares, 1.0), 200.0);
    // 0.75 GPUs: both whole, 200 = 0.75 W.
    assert!((arrival_window(&jobs, &shares, 0.75) - 200.0 / 0.75).abs() < 1e-9);
    // 1.5 GPUs: up to W = 100 both are cut (W + W / 2 = 1.5 W); the longest such window.
    assert_eq!(arrival_window(&jobs, &shares, 1.5), 100.0);
    // 2 GPUs: even arriving together they could not keep two GPUs busy for the window.
    assert_eq!(arrival_window(&jobs, &shares, 2.0), 0.0);
}

/// The GPU-time the jobs offer inside the window, if each starts on arrival, over the
/// cluster's GPU-time in it.
fn offered_load(t: &Trace, total_gpus: u32, window: f64) -> f64 {
    let inside: f64 = t
        .jobs
        .iter()
        .map(|j| match j.work {
            TraceWork::DurationS(d) => j.gpus as f64 * d.min(window - j.submit_s),
            TraceWork::Iterations(_) => unreachable!(),
        })
        .sum();
    inside / (total_gpus as f64 * window)
}

#[test]
fn the_jobs_offer_the_load_the_spec_asks_for() {
    // Exactly, for every sample: the window is solved, not expected.
    for (jobs, load, total_gpus, seed) in
        [(300, 0.5, 16, 1), (300, 1.2, 16, 2), (2000, 1.0, 512, 3), (2000, 1.2, 512, 4), (20_000, 0.8, 2048, 5)]
    {
        let spec = SyntheticSpec { jobs, load, seed };
        let drawn = draw_jobs(&spec, total_gpus);
        let window = arrival_window(&drawn, &arrival_shares(&drawn), load * total_gpus as f64);
        let t = generate(&spec, total_gpus);
        assert!(window > t.jobs.last().unwrap().submit_s, "the window ends after the last arrival");
        let got = offered_load(&t, total_gpus, window);
        assert!((got / load - 1.0).abs() < 1e-9, "{jobs} jobs, load {load}, {total_gpus} GPUs: offered {got}");
    }
}

#[test]
fn too_few_jobs_to_load_the_cluster_arrive_at_once() {
    // 20 jobs of about 1.3 GPUs cannot keep 512 GPUs busy at any arrival rate.
    let t = generate(&SyntheticSpec { jobs: 20, load: 0.8, seed: 1 }, 512);
    assert!(t.jobs.iter().all(|j| j.submit_s == 0.0));
    // One job: time 0, whatever the load.
    assert_eq!(generate(&SyntheticSpec { jobs: 1, load: 0.1, seed: 1 }, 1).jobs[0].submit_s, 0.0);
}

#[test]
fn a_higher_load_means_a_shorter_window() {
    let at = |load| generate(&SyntheticSpec { jobs: 2000, load, seed: 9 }, 512).jobs[1999].submit_s;
    assert!(at(0.5) > at(0.8) && at(0.8) > at(1.0) && at(1.0) > at(1.2), "{} {} {}", at(0.5), at(1.0), at(1.2));
}
