//! Tests of the results summary the page shows, and the sample summary the per-tenant table's tests share.

use super::*;

/// A summary of 10 jobs on 16 GPUs with these figures (the others zero), for the tests
/// of this table and of the per-tenant one.
pub(in crate::results) fn summary(avg_jct_s: f64, comm_overhead_s: f64, preemptions: u64) -> Summary {
    let mut s: Summary = serde_json::from_value(serde_json::json!({
        "policy": "p", "seed": 1, "topology": "t", "trace": "t", "gpus": 16, "jobs_total": 10,
        "jobs_completed": 10, "jobs_rejected": 0, "jobs_unfinished": 0, "avg_jct_s": 0.0, "p50_jct_s": 0.0,
        "p95_jct_s": 0.0, "p99_jct_s": 0.0, "makespan_s": 0.0, "avg_queue_s": 0.0, "comm_overhead_s": 0.0,
        "comm_overhead_gpu_s": 0.0, "avg_gpu_util": 0.5, "preemptions": 0, "tier_counts": {}
    }))
    .expect("a summary");
    (s.avg_jct_s, s.comm_overhead_s, s.preemptions) = (avg_jct_s, comm_overhead_s, preemptions);
    s
}

#[test]
fn numbers_have_three_significant_figures_and_units() {
    assert_eq!(sig3(118360.33891432192), "118,000");
    assert_eq!(sig3(7.106), "7.11");
    assert_eq!(sig3(0.016298), "0.0163");
    assert_eq!(sig3(9.996), "10");
    assert_eq!(sig3(999.6), "1000");
    assert_eq!(sig3(-0.5), "-0.5");
    assert_eq!(duration(45.21), "45.2 s");
    assert_eq!(duration(1000.0), "16.7 min");
    assert_eq!(duration(36_245.0), "10.1 h");
    assert_eq!(duration(1_045_285.0), "12.1 d");
    assert_eq!(metric_of("comm_overhead_gpu_s").format(4_181_140.0), "48.4 GPU-d");
    assert_eq!(metric_of("comm_overhead_gpu_s").format(45.21), "45.2 GPU-s");
    assert_eq!(metric_of("avg_gpu_util").format(0.7386050594705211), "73.9%");
    assert_eq!(metric_of("jobs_completed").format(12345.0), "12,345");
    assert_eq!(ratio(25_581.0 / 36_245.0), "0.71×");
    assert_eq!(ratio(170_378.0 / 1_045_285.0), "0.16×");
    assert_eq!(ratio(0.0163), "0.016×");
    assert_eq!(ratio(12.34), "12.3×");
}

#[test]
fn comparisons_follow_each_metric_direction() {
    let jct = metric_of("avg_jct_s");
    assert_eq!(jct.compare(71.0, 100.0).verdict, Verdict::Better);
    assert_eq!(jct.compare(101.0, 100.0).verdict, Verdict::Same);
    assert_eq!(jct.compare(130.0, 100.0).verdict, Verdict::Worse);
    assert_eq!(metric_of("jobs_completed").compare(90.0, 100.0).verdict, Verdict::Worse);
    assert_eq!(metric_of("avg_gpu_util").compare(0.9, 0.5).verdict, Verdict::Same);
    let none = metric_of("preemptions").compare(36.0, 0.0);
    assert_eq!((none.ratio, none.verdict), (None, Verdict::Worse));
    // The light-load lesson: 1.29 d of overhead against consolidate's 0.000153 s is
    // worse, but not "726,000,000×".
    let tiny = metric_of("comm_overhead_s").compare(111_456.0, 0.000153);
    assert_eq!((tiny.ratio, tiny.verdict), (None, Verdict::Worse));
    assert_eq!(metric_of("comm_overhead_s").compare(30.0, 10.0).ratio, Some(3.0));
    assert_eq!(metric_of("comm_overhead_s").compare(0.0002, 0.0001).verdict, Verdict::Same, "both none");
    // GPU-time is timed alike: no ratio to a negligible baseline.
    assert_eq!(metric_of("comm_overhead_gpu_s").compare(445_824.0, 0.000612).ratio, None);
    assert_eq!(metric_of("comm_overhead_gpu_s").compare(120.0, 40.0).ratio, Some(3.0));
}

#[test]
fn the_headline_names_the_best_policy_against_the_baseline_and_every_winner() {
    let (c, d, t) =
        (summary(36_245.0, 1_045_285.0, 0), summary(25_581.0, 170_378.0, 36), summary(19_634.0, 900_000.0, 400));
    let h = headline(&[("consolidate", &c), ("dally", &d)], "consolidate", None).unwrap();
    assert_eq!(
        h.text,
        "dally finished jobs 29% sooner than consolidate: 7.11 h against 10.1 h mean JCT; communication overhead 1.97 d against 12.1 d; 36 preemptions."
    );
    assert_eq!(h.subject.as_deref(), Some("dally"));
    // The subject is dally whenever it ran, even when another policy does better.
    let h = headline(&[("consolidate", &c), ("dally", &d), ("tiresias", &t)], "consolidate", None).unwrap();
    assert_eq!(h.subject.as_deref(), Some("dally"));
    assert!(h.wins.contains(&"lowest mean JCT: tiresias".to_string()), "{:?}", h.wins);
    assert!(h.wins.contains(&"lowest communication overhead: dally".to_string()), "{:?}", h.wins);
    // Without dally, the best policy one could run; the clairvoyant srtf is a reference.
    let oracle = summary(10_000.0, 0.0, 0);
    let h = headline(&[("consolidate", &c), ("srtf", &oracle), ("tiresias", &t)], "consolidate", None).unwrap();
    assert_eq!(h.subject.as_deref(), Some("tiresias"));
    assert!(h.text.starts_with("tiresias finished jobs 46% sooner than consolidate"), "{}", h.text);
}

#[test]
fn placements_across_racks_are_counted_from_the_tiers_above_the_rack() {
    use proxima_core::tier_counts::TierCounts;
    let tiers =
        |s: u64, r: u64, c: u64| TierCounts::new([("server".into(), s), ("rack".into(), r), ("cluster".into(), c)]);
    let (mut c, mut d) = (summary(36_245.0, 100.0, 0), summary(25_581.0, 50.0, 3));
    (c.tier_counts, d.tier_counts) = (tiers(50, 10, 24), tiers(60, 15, 9));
    let h = headline(&[("consolidate", &c), ("dally", &d)], "consolidate", None).unwrap();
    assert!(h.text.contains("; 9 against 24 placements across racks;"), "{}", h.text);
}

#[test]
fn a_baseline_without_overhead_gives_figures_not_a_ratio() {
    // Against a baseline with next to no overhead a ratio would read 66,800,000x.
    let (c, f) = (summary(36_245.0, 0.015, 0), summary(40_000.0, 1_002_000.0, 0));
    let h = headline(&[("consolidate", &c), ("fifo", &f)], "consolidate", None).unwrap();
    assert_eq!(
        h.text,
        "fifo took 10% longer than consolidate to finish jobs: 11.1 h against 10.1 h mean JCT; communication overhead 11.6 d against none; 0 preemptions."
    );
    assert!(!h.text.contains('×'));
}

#[test]
fn equal_policies_are_called_equal_with_what_to_change() {
    // Jobs waited (a queue a tenth of the JCT): the network is what to change.
    let (mut a, mut b) = (summary(10_645.0, 5.0, 0), summary(10_660.0, 5.0, 0));
    (a.avg_queue_s, b.avg_queue_s) = (1_064.0, 1_066.0);
    let h = headline(&[("fifo", &b), ("consolidate", &a), ("dally", &a)], "consolidate", None).unwrap();
    assert!(h.all_equal);
    assert!(h.text.starts_with("fifo, consolidate and dally come out equal on mean JCT"), "{}", h.text);
    assert!(
        h.text.ends_with(
            "To see a difference, oversubscribe the uplinks, give the servers slower NICs, or use fabric=tcp."
        ),
        "{}",
        h.text
    );
    // On a cluster whose uplinks are already oversubscribed the advice does not ask for it.
    let h = headline(&[("fifo", &b), ("consolidate", &a), ("dally", &a)], "consolidate", Some(4.0)).unwrap();
    assert!(h.text.contains("its uplinks are already 4:1 oversubscribed, yet a scattered job loses little. To see a difference, thin the uplinks further"), "{}", h.text);
    assert!(!h.text.contains("oversubscribe the uplinks"), "{}", h.text);
    // When jobs hardly waited (1,000 jobs arriving at once on 2,048 GPUs) the network is
    // not the reason: the advice is more work.
    let (mut idle_a, mut idle_b) = (a.clone(), b.clone());
    (idle_a.avg_queue_s, idle_b.avg_queue_s) = (0.0, 0.0);
    (idle_a.trace, idle_b.trace) = ("synthetic:jobs=1000,load=0.9".into(), "synthetic:jobs=1000,load=0.9".into());
    let h = headline(&[("fifo", &idle_b), ("consolidate", &idle_a)], "consolidate", Some(4.0)).unwrap();
    assert!(
        h.text.contains("Jobs hardly waited for GPUs (mean queueing 0 s against a mean JCT of 2.96 h)"),
        "{}",
        h.text
    );
    assert!(h.text.ends_with("give the generator more jobs or a higher offered load."), "{}", h.text);
    assert!(!h.text.contains("oversubscri"), "{}", h.text);
    // An uploaded trace has no generator to give more jobs to.
    (idle_a.trace, idle_b.trace) = ("philly.csv".into(), "philly.csv".into());
    let h = headline(&[("fifo", &idle_b), ("consolidate", &idle_a)], "consolidate", Some(4.0)).unwrap();
    assert!(!h.text.contains("generator"), "{}", h.text);
    assert!(h.text.ends_with("run this trace on a cluster with fewer GPUs."), "{}", h.text);
    assert_eq!(headline(&[("fifo", &a)], "consolidate", None), None);
    assert_eq!(default_baseline(["fifo", "dally"]), Some("fifo"));
    assert_eq!(default_baseline(["fifo", "consolidate"]), Some("consolidate"));
}

#[test]
fn noise_reads_as_zero_and_arrows_point_the_way_the_value_moved() {
    use crate::results::summary::notes::moved;
    // A summary's overhead of 7.11e-15 s is float noise: the headline calls it none.
    assert_eq!(metric_of("comm_overhead_s").format(0.00000000000000711), "≈0 s");
    assert_eq!(metric_of("comm_overhead_gpu_s").format(-2e-12), "≈0 GPU-s");
    assert_eq!(metric_of("comm_overhead_s").format(0.0), "0 s");
    assert_eq!(metric_of("comm_overhead_s").format(0.000153), "0.000153 s");
    // A falling Jain's index: worse (it is higher-is-better) and down, not "▲ 0.97×".
    let jain = metric_of("jain_slowdown");
    assert_eq!(jain.compare(0.80, 0.825).verdict, Verdict::Worse);
    assert_eq!(moved(0.80, 0.825), "▼ ");
    assert_eq!(moved(130.0, 100.0), "▲ ");
    assert_eq!(moved(101.0, 100.0), "");
}

#[test]
fn utilisation_states_its_span_and_unfinished_jobs_are_flagged() {
    use crate::results::summary::notes::{partial, span_of};
    let mut s = summary(100.0, 0.0, 0);
    s.makespan_s = 1e9;
    assert_eq!(span_of("avg_gpu_util", &s).as_deref(), Some("over a makespan of 11,600 d"));
    assert_eq!(span_of("avg_jct_s", &s), None);
    // A baseline that left jobs unfinished: its means cover fewer jobs, and say so.
    let (mut base, other) = (summary(100.0, 0.0, 0), summary(150.0, 0.0, 0));
    (base.jobs_unfinished, base.jobs_completed) = (3, 7);
    assert!(partial("avg_jct_s", &other, &base) && !partial("jobs_completed", &other, &base));
    assert!(!partial("avg_jct_s", &other, &other));
    let h = headline(&[("consolidate", &base), ("dally", &other)], "consolidate", None).unwrap();
    assert_eq!(
        h.caveat.as_deref(),
        Some("consolidate left 3 of 10 jobs unfinished: JCT, queueing and overhead cover completed jobs only, so those comparisons (marked *) are between different sets of jobs. Compare jobs completed first.")
    );
    assert_eq!(headline(&[("consolidate", &other), ("dally", &other)], "consolidate", None).unwrap().caveat, None);
}

#[test]
fn variants_of_one_policy_that_come_out_equal_say_nothing_of_placement() {
    let (a, b) = (summary(10_000.0, 5.0, 0), summary(10_050.0, 5.0, 0));
    let h = headline(
        &[("dally:timers=5/5,autotune=off", &a), ("dally:timers=5/5", &b)],
        "dally:timers=5/5,autotune=off",
        None,
    )
    .unwrap();
    assert!(h.all_equal);
    assert!(!h.text.contains("placement hardly matters"), "{}", h.text);
    assert!(h.text.contains("the options that set these dally variants apart hardly change it"), "{}", h.text);
    // Different policies that come out equal still get the placement verdict.
    let h = headline(&[("fifo", &a), ("consolidate", &b)], "consolidate", None).unwrap();
    assert!(h.text.contains("placement hardly matters here"), "{}", h.text);
}
