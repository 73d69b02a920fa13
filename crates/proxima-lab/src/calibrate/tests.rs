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

/// Tables timed exactly by `truth` (with each model's own compute curve and overlap) for
/// three models of 100, 200 and 400 MB on up to two nodes of eight GPUs.
fn generated_tables(truth: FileParams) -> Vec<Vec<Sample>> {
    let placements = ["1", "2", "4", "8", "11", "22", "44", "88", "84"];
    (0..3)
        .map(|m| {
            let grad_bytes = 1e8 * (1 << m) as f64;
            let params = FileParams {
                compute: ComputeCurve { fixed_s: 0.05 + 0.02 * m as f64, per_sample_s: 0.004 },
                tau_intra_s: grad_bytes / 2e9,
                tau_inter_s: grad_bytes / 1e9,
                overlap: 0.2 + 0.2 * m as f64,
                ..truth
            };
            let mut text = String::from("placement,local_bsz,step_time,sync_time\n");
            for p in placements {
                for b in [8.0, 16.0, 32.0] {
                    let row =
                        parse_placements(&format!("placement,local_bsz,step_time,sync_time\n{p},{b},1,0\n")).unwrap();
                    let predicted = params.predict(&row[0]);
                    text.push_str(&format!("{p},{b},{},{}\n", predicted.step_s, predicted.sync_s));
                }
            }
            parse_placements(&text).unwrap()
        })
        .collect()
}

fn generated_truth(server_compute: f64, server_ring: f64) -> FileParams {
    FileParams {
        compute: ComputeCurve { fixed_s: 0.0, per_sample_s: 0.0 },
        tau_intra_s: 0.0,
        tau_inter_s: 0.0,
        overlap: 0.0,
        straggler: 0.1,
        server_compute,
        server_ring,
        alpha_intra_s: ALPHA_INTRA_S,
        alpha_inter_s: ALPHA_INTER_S,
    }
}

fn model_data(tables: &[Vec<Sample>]) -> Vec<ModelData<'_>> {
    const NAMES: [&str; 3] = ["a", "b", "c"];
    tables
        .iter()
        .enumerate()
        .map(|(m, samples)| ModelData { name: NAMES[m], samples, grad_bytes: 1e8 * (1 << m) as f64 })
        .collect()
}

#[test]
fn the_node_terms_are_recovered_from_tables_that_have_them() {
    // Compute 5% slower and the ring inside a node 30% slower per extra GPU on a node.
    let tables = generated_tables(generated_truth(0.05, 0.3));
    let models = model_data(&tables);
    let e1 = fit_shared(&models, Overlap::PerModel);
    let fit = fit_shared_with(&models, Overlap::PerModel, ServerTerms::Selected);
    assert!(e1.loss > 1e-3, "E1 cannot express them: {}", e1.loss);
    assert!(fit.loss < 1e-6, "{fit:?}");
    assert!((fit.server_compute - 0.05).abs() < 2e-3 && (fit.server_ring - 0.3).abs() < 1e-2, "{fit:?}");
    assert!((fit.intra_bytes_per_s / 2e9 - 1.0).abs() < 0.02 && (fit.straggler - 0.1).abs() < 0.01, "{fit:?}");
}

#[test]
fn tables_without_node_contention_keep_e1_bit_for_bit() {
    let tables = generated_tables(generated_truth(0.0, 0.0));
    let models = model_data(&tables);
    let e1 = fit_shared(&models, Overlap::Shared);
    let selected = fit_shared_with(&models, Overlap::Shared, ServerTerms::Selected);
    assert_eq!((selected.server_compute, selected.server_ring), (0.0, 0.0));
    assert_eq!(selected, e1, "E1 is kept as it was fitted");
    // Fitting the terms anyway never does worse than E1: the fit starts from it.
    assert!(fit_shared_with(&models, Overlap::Shared, ServerTerms::Both).loss <= e1.loss);
}
