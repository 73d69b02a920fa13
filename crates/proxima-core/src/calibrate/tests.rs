//! Tests of the calibration on small hand-made tables (the real tables are in
//! `tests/integration/calibration.rs`).

use super::*;

#[test]
fn placements_parse_with_errors_that_name_line_and_column() {
    let s = parse_placements("placement,local_bsz,step_time,sync_time\n1,4,0.5,0.01\n\n1303,8,1.0,0.4\n").unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!((s[1].line, s[1].nodes, s[1].gpus, s[1].max_per_node), (4, 3, 7, 3));
    // Columns in any order, extra columns ignored.
    let s = parse_placements("sync_time,step_time,note,local_bsz,placement\n0.1,1.0,x,8,22\n").unwrap();
    assert_eq!((s[0].placement.as_str(), s[0].local_bsz, s[0].step_s), ("22", 8.0, 1.0));
    let err = |body: &str| {
        parse_placements(&format!("placement,local_bsz,step_time,sync_time\n1,4,0.5,0.01\n{body}\n")).unwrap_err()
    };
    let e = err("2x,4,0.5,0.01");
    assert_eq!((e.line, e.field.as_str()), (Some(3), "placement"));
    let e = err("00,4,0.5,0.01");
    assert_eq!(e.field, "placement");
    let e = err("2,0,0.5,0.01");
    assert_eq!((e.line, e.field.as_str()), (Some(3), "local_bsz"));
    let e = err("2,4,abc,0.01");
    assert_eq!(e.to_string(), "line 3: step_time: expected a number, got 'abc'");
    let e = err("2,4,0.5,-1");
    assert_eq!(e.field, "sync_time");
    let e = err("2,4,0.5");
    assert_eq!(e.field, "sync_time");
    let e = parse_placements("placement,local_bsz,step_time\n1,4,0.5\n").unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(1), "sync_time"));
    let e = parse_placements("placement,local_bsz,step_time,sync_time\n").unwrap_err();
    assert_eq!(e.field, "header");
}

#[test]
fn the_compute_fit_is_exact_on_a_line_and_never_negative() {
    let row = |p: &str, b: f64, t: f64| Sample {
        line: 0,
        placement: p.into(),
        nodes: 1,
        gpus: p.parse().unwrap(),
        max_per_node: p.parse().unwrap(),
        local_bsz: b,
        step_s: t,
        sync_s: 0.0,
    };
    let f = fit_compute(&[row("1", 2.0, 0.3), row("1", 4.0, 0.5), row("1", 8.0, 0.9), row("2", 8.0, 5.0)]);
    assert_eq!(f.from, ComputeRows::SingleGpu);
    assert!((f.curve.fixed_s - 0.1).abs() < 1e-12 && (f.curve.per_sample_s - 0.1).abs() < 1e-12, "{f:?}");
    // Time falling with the batch would be a negative slope: the curve goes flat.
    let f = fit_compute(&[row("1", 2.0, 0.5), row("1", 4.0, 0.4)]);
    assert_eq!(f.curve.per_sample_s, 0.0);
    assert!(f.curve.fixed_s > 0.4 && f.curve.fixed_s < 0.5);
}

#[test]
fn percentiles_interpolate_like_numpy() {
    let mut v = vec![4.0, 1.0, 3.0, 2.0];
    assert_eq!(interpolated_percentile(&mut v, 50.0), 2.5);
    assert!((interpolated_percentile(&mut v, 90.0) - 3.7).abs() < 1e-12);
    assert!(interpolated_percentile(&mut [], 50.0).is_nan());
}

#[test]
fn nelder_mead_finds_a_quadratic_minimum() {
    let (x, f, _) = nelder_mead(
        |x| (x[0] - 1.0) * (x[0] - 1.0) + 10.0 * (x[1] + 2.0) * (x[1] + 2.0),
        &[0.0, 0.0],
        &[0.5, 0.5],
        2000,
        2,
    );
    assert!((x[0] - 1.0).abs() < 1e-4 && (x[1] + 2.0).abs() < 1e-4 && f < 1e-8, "{x:?} {f}");
}

#[test]
fn a_cluster_needs_three_models_to_leave_one_out() {
    let samples =
        parse_placements("placement,local_bsz,step_time,sync_time\n1,4,0.5,0.01\n1,8,0.9,0.01\n2,8,1.0,0.1\n").unwrap();
    let model = |name| ModelData { name, samples: &samples, grad_bytes: 1e8 };
    let e = calibrate_cluster(&[model("a"), model("b")]).unwrap_err();
    assert_eq!(e.field, "models");
    // With three, every held-out fit sees two; one table has no multi-node row.
    let fit = calibrate_cluster(&[model("a"), model("b"), model("c")]).unwrap();
    assert_eq!((fit.models.len(), fit.held_out.len(), fit.multi_node_rows, fit.single_node_rows), (3, 3, 0, 3));
    assert!(!fit.inter_identified());
    assert_eq!(fit.worst_loo_median_pct(), fit.loo_median_pct.iter().copied().fold(0.0, f64::max));
}
