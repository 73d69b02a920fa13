//! `proxima calibrate --loo`: the cluster fitted on every model's table, then each model held
//! out in turn and predicted from the others, printed as text or JSON.

use super::{print_class_table, print_predicted_vs_measured, CalibrateArgs, Table};
use crate::inputs::UsageError;
use proxima_lab::calibrate::{
    error_table, fit_shared, leave_one_out, ErrorStats, HeldOut, ModelData, Overlap, SharedFit,
};
use serde_json::json;
use std::time::Instant;

pub(super) fn run_loo(args: &CalibrateArgs, tables: &[Table]) -> Result<(), UsageError> {
    let loo = LooResults::compute(tables)?;
    if args.json {
        print_loo_json(&loo);
    } else {
        print_loo_text(&loo, args.detail);
    }
    eprintln!(
        "all-fit in {:.3} s; leave-one-out ({} fits) in {:.3} s",
        loo.all_seconds,
        loo.held.len(),
        loo.loo_seconds
    );
    Ok(())
}

/// What `--loo` computes, for either printer: the fit on every model (an overlap each, and
/// one overlap shared), and each model held out in turn.
struct LooResults<'a> {
    models: Vec<ModelData<'a>>,
    names: Vec<&'a str>,
    all: SharedFit,
    one: SharedFit,
    all_errors: Vec<Vec<ErrorStats>>,
    held: Vec<HeldOut>,
    loo_errors: Vec<Vec<ErrorStats>>,
    /// Per held-out model, its step median APE at each default overlap (0.35, 0.6).
    loo_fixed: Vec<Vec<f64>>,
    all_seconds: f64,
    loo_seconds: f64,
}

impl<'a> LooResults<'a> {
    fn compute(tables: &'a [Table]) -> Result<LooResults<'a>, UsageError> {
        for t in tables {
            if t.grad_bytes.is_none() {
                return Err(UsageError(format!(
                    "{}: no catalogue model named '{}', and the held-out model's size is needed; give --params-millions (one value per file)",
                    t.path, t.name
                )));
            }
        }
        let models: Vec<ModelData> = tables
            .iter()
            .map(|t| ModelData { name: &t.name, samples: &t.samples, grad_bytes: t.grad_bytes.expect("checked above") })
            .collect();
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();

        let started = Instant::now();
        let all = fit_shared(&models, Overlap::PerModel);
        let all_seconds = started.elapsed().as_secs_f64();
        // The one overlap that suits all models at once: the default for a model of unknown kind.
        let one = fit_shared(&models, Overlap::Shared);
        let all_errors: Vec<Vec<ErrorStats>> = models
            .iter()
            .enumerate()
            .map(|(i, m)| error_table(m.samples, &all.params_of(i, m.grad_bytes).predict_all(m.samples)))
            .collect();
        let started = Instant::now();
        // Besides the shared-overlap protocol, the catalogue's defaults for a model never timed
        // on several GPUs: 0.35 for an unknown kind, 0.6 for a CNN or transformer.
        let held = leave_one_out(&models, &[0.35, 0.6]);
        let loo_seconds = started.elapsed().as_secs_f64();
        let loo_errors: Vec<Vec<ErrorStats>> =
            held.iter().zip(&models).map(|(h, m)| error_table(m.samples, &h.predictions)).collect();
        let loo_fixed: Vec<Vec<f64>> = held
            .iter()
            .zip(&models)
            .map(|(h, m)| h.with_overlap.iter().map(|(_, p)| error_table(m.samples, p)[0].step_median_pct).collect())
            .collect();
        Ok(LooResults { models, names, all, one, all_errors, held, loo_errors, loo_fixed, all_seconds, loo_seconds })
    }
}

fn print_loo_json(loo: &LooResults) {
    let value = json!({
        "all_fit": {
            "intra_bytes_per_s": loo.all.intra_bytes_per_s,
            "inter_bytes_per_s": loo.all.inter_bytes_per_s,
            "straggler": loo.all.straggler,
            "loss": loo.all.loss,
            "evaluations": loo.all.evaluations,
            "one_shared_overlap": {
                "intra_bytes_per_s": loo.one.intra_bytes_per_s,
                "inter_bytes_per_s": loo.one.inter_bytes_per_s,
                "straggler": loo.one.straggler,
                "overlap": loo.one.overlaps[0],
                "loss": loo.one.loss,
            },
            "models": loo.models.iter().enumerate().map(|(i, m)| json!({
                "name": m.name,
                "grad_bytes": m.grad_bytes,
                "overlap": loo.all.overlaps[i],
                "compute": loo.all.compute[i],
                "errors": loo.all_errors[i],
            })).collect::<Vec<_>>(),
        },
        "leave_one_out": loo.held.iter().zip(&loo.loo_errors).zip(&loo.loo_fixed).map(|((h, e), f)| json!({
            "held_out": h.name,
            "intra_bytes_per_s": h.fit.intra_bytes_per_s,
            "inter_bytes_per_s": h.fit.inter_bytes_per_s,
            "straggler": h.fit.straggler,
            "overlap": h.fit.overlaps[0],
            "params": h.params,
            "errors": e,
            "per_model_fit": {
                "intra_bytes_per_s": h.per_model_fit.intra_bytes_per_s,
                "inter_bytes_per_s": h.per_model_fit.inter_bytes_per_s,
                "straggler": h.per_model_fit.straggler,
            },
            "step_median_pct_with_overlap_0_35": f[0],
            "step_median_pct_with_overlap_0_6": f[1],
        })).collect::<Vec<_>>(),
    });
    println!("{}", serde_json::to_string_pretty(&value).expect("plain data serialises"));
}

fn print_loo_text(loo: &LooResults, detail: bool) {
    println!(
        "Cluster fitted on all {} files: shared B_intra, B_inter, sigma; overlap per model; compute per model from its single-GPU rows",
        loo.models.len()
    );
    println!(
        "B_intra = {:.4} GB/s, B_inter = {:.4} GB/s, sigma = {:.4}, loss = {:.6} ({} evaluations)\n",
        loo.all.intra_bytes_per_s / 1e9,
        loo.all.inter_bytes_per_s / 1e9,
        loo.all.straggler,
        loo.all.loss,
        loo.all.evaluations
    );
    println!(
        "{:<14}{:>10} {:>7} {:>9} {:>10}   {:>14} {:>14}",
        "model", "S (MB)", "ov", "c0 (s)", "c1 (s/b)", "step med/p90", "sync med/p90"
    );
    for (i, m) in loo.models.iter().enumerate() {
        let e = &loo.all_errors[i][0];
        println!(
            "{:<14}{:>10.2} {:>7.3} {:>9.5} {:>10.7}   {:>6.1} / {:<5.1} {:>6.1} / {:<5.1}",
            m.name,
            m.grad_bytes / 1e6,
            loo.all.overlaps[i],
            loo.all.compute[i].fixed_s,
            loo.all.compute[i].per_sample_s,
            e.step_median_pct,
            e.step_p90_pct,
            e.sync_median_pct,
            e.sync_p90_pct
        );
    }
    println!(
        "\nWith one overlap shared by all models: ov = {:.3} (B_intra = {:.4} GB/s, B_inter = {:.4} GB/s, sigma = {:.4}, loss = {:.6})",
        loo.one.overlaps[0],
        loo.one.intra_bytes_per_s / 1e9,
        loo.one.inter_bytes_per_s / 1e9,
        loo.one.straggler,
        loo.one.loss
    );
    println!("\nLeave one model out: shared B_intra, B_inter, sigma and ONE overlap fitted on the others;");
    println!("the held-out model predicted from its single-GPU rows and its size only. The last two");
    println!("columns: the cluster fitted on the others with an overlap per model, the held-out model");
    println!("at a default overlap (step median APE %)\n");
    println!(
        "{:<14}{:>9} {:>9} {:>7} {:>7}   {:>14} {:>14}   {:>12} {:>12}",
        "held out", "B_intra", "B_inter", "sigma", "ov", "step med/p90", "sync med/p90", "med ov=0.35", "med ov=0.6"
    );
    for ((h, e), f) in loo.held.iter().zip(&loo.loo_errors).zip(&loo.loo_fixed) {
        let e = &e[0];
        println!(
            "{:<14}{:>9.3} {:>9.4} {:>7.3} {:>7.3}   {:>6.1} / {:<5.1} {:>6.1} / {:<5.1}   {:>12.1} {:>12.1}",
            h.name,
            h.fit.intra_bytes_per_s / 1e9,
            h.fit.inter_bytes_per_s / 1e9,
            h.fit.straggler,
            h.fit.overlaps[0],
            e.step_median_pct,
            e.step_p90_pct,
            e.sync_median_pct,
            e.sync_p90_pct,
            f[0],
            f[1]
        );
    }
    if detail {
        println!();
        print_class_table("All-fit, step_time APE % (median / p90)", &loo.names, &loo.all_errors, false);
        print_class_table("All-fit, sync_time APE % (median / p90)", &loo.names, &loo.all_errors, true);
        print_class_table("Leave one model out, step_time APE % (median / p90)", &loo.names, &loo.loo_errors, false);
        print_class_table("Leave one model out, sync_time APE % (median / p90)", &loo.names, &loo.loo_errors, true);
        for (i, m) in loo.models.iter().enumerate() {
            println!("All-fit, {}: measured against predicted, uniform placements\n", m.name);
            print_predicted_vs_measured(m.samples, &loo.all.params_of(i, m.grad_bytes).predict_all(m.samples));
            println!();
        }
    }
    let worst = loo.loo_errors.iter().map(|e| e[0].step_median_pct).fold(0.0, f64::max);
    println!("\nworst_loo_median_ape_step_time={worst:.3}");
}
