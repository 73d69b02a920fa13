//! `proxima calibrate`: fits the communication model to a measured placements table and
//! reports its error, or validates it model by model (`--loo`). The fitting lives in the
//! core (`proxima_lab::calibrate`); this file reads the files, times the fit and prints.

mod cluster;
mod loo;

use crate::inputs::UsageError;
use clap::Args;
use proxima_core::model::Catalog;
use proxima_host::inputs::placements;
use proxima_lab::calibrate::{
    calibrate_file, error_table, file_report, ErrorStats, FileFit, Prediction, Sample, TierReport,
};
use std::path::Path;
use std::time::Instant;

#[derive(Args)]
pub struct CalibrateArgs {
    /// Placements tables (`placement,local_bsz,step_time,sync_time`): one, or with --loo one per
    /// model; with --cluster, the folder of the Sia artifact's tables.
    #[arg(required = true, value_name = "FILE.csv")]
    files: Vec<String>,
    /// Calibrate one of the Sia artifact's clusters (aws, azure, dgx, dgx-ext, quad, rtx), or
    /// all of them: the one argument is a folder laid out as <model>/placements-<cluster>.csv
    /// (e.g. ../shared/data/sia), six models named by their folders; prints the fitted
    /// cluster and its leave-one-model-out error.
    #[arg(long, value_name = "CLUSTER")]
    cluster: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Leave-one-model-out validation over three or more files: fit the cluster on all but
    /// one, predict that one from its single-GPU rows and its size.
    #[arg(long)]
    loo: bool,
    /// Parameters of each file's model, in millions, comma-separated in file order (default:
    /// the catalogue entry named like the file, e.g. bert.csv -> bert).
    #[arg(long, value_delimiter = ',', value_name = "M")]
    params_millions: Vec<f64>,
    /// Also print per-class error tables across files and predicted against measured times
    /// of the uniform placements.
    #[arg(long)]
    detail: bool,
}

struct Table {
    path: String,
    name: String,
    samples: Vec<Sample>,
    /// Gradient bytes, when the model's size is known.
    grad_bytes: Option<f64>,
    /// Where the size came from, for the report.
    size_source: String,
}

fn load(args: &CalibrateArgs) -> Result<Vec<Table>, UsageError> {
    if !args.params_millions.is_empty() && args.params_millions.len() != args.files.len() {
        return Err(UsageError(format!(
            "--params-millions: {} values for {} files; give one per file, in file order",
            args.params_millions.len(),
            args.files.len()
        )));
    }
    if let Some(bad) = args.params_millions.iter().find(|m| !(m.is_finite() && **m > 0.0)) {
        return Err(UsageError(format!("--params-millions: must be positive numbers, got {bad}")));
    }
    let catalog = Catalog::built_in();
    let mut tables = Vec::new();
    for (i, path) in args.files.iter().enumerate() {
        let samples = placements(path)?;
        let name =
            Path::new(path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| path.clone());
        let (grad_bytes, size_source) = match args.params_millions.get(i) {
            Some(m) => (Some(m * 4.0e6), format!("--params-millions {m}")),
            None => match catalog.lookup(&name) {
                Some(id) => {
                    let m = catalog.get(id);
                    (Some(m.grad_bytes()), format!("catalogue '{}', {} M parameters", m.name, m.params_millions))
                }
                None => (None, String::new()),
            },
        };
        tables.push(Table { path: path.clone(), name, samples, grad_bytes, size_source });
    }
    Ok(tables)
}

pub fn run(args: &CalibrateArgs) -> Result<(), UsageError> {
    if let Some(name) = &args.cluster {
        if args.loo || !args.params_millions.is_empty() {
            return Err(UsageError(
                "--cluster: runs leave-one-model-out itself and takes sizes from the catalogue; drop --loo and --params-millions".into(),
            ));
        }
        return cluster::run(name, &args.files, args.json, args.detail);
    }
    if args.loo {
        if args.files.len() < 3 {
            return Err(UsageError("--loo: needs three or more files (one per model), to fit on all but one".into()));
        }
        return loo::run_loo(args, &load(args)?);
    }
    if args.files.len() != 1 {
        return Err(UsageError(format!(
            "calibrate: give one file to fit ({} given), or --loo with one file per model",
            args.files.len()
        )));
    }
    let tables = load(args)?;
    let t = &tables[0];
    let started = Instant::now();
    let fit = calibrate_file(&t.samples);
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let value = file_report(&t.path, &t.samples, &fit, t.grad_bytes);
        println!("{}", serde_json::to_string_pretty(&value).expect("plain data serialises"));
    } else {
        let predictions = fit.params.predict_all(&t.samples);
        let errors = error_table(&t.samples, &predictions);
        let median = errors[0].step_median_pct;
        print_file_fit(t, &fit);
        println!();
        print_errors(&errors);
        if args.detail {
            println!();
            print_predicted_vs_measured(&t.samples, &predictions);
        }
        println!("median_ape_step_time={median:.3}");
    }
    eprintln!("fitted {} rows in {seconds:.3} s ({} row evaluations)", t.samples.len(), fit.evaluations);
    Ok(())
}

fn describe(samples: &[Sample]) -> String {
    let mut placements: Vec<&str> = samples.iter().map(|s| s.placement.as_str()).collect();
    placements.sort_unstable();
    placements.dedup();
    let range = |f: &dyn Fn(&Sample) -> f64| {
        let lo = samples.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = samples.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let (b0, b1) = range(&|s| s.local_bsz);
    let (n0, n1) = range(&|s| s.gpus as f64);
    let (m0, m1) = range(&|s| s.nodes as f64);
    format!(
        "{} rows, {} placements, local batch {b0}-{b1}, {n0}-{n1} GPUs on {m0}-{m1} nodes",
        samples.len(),
        placements.len()
    )
}

fn tier_line(label: &str, tau: f64, r: &TierReport, rows_name: &str) -> String {
    let status = if r.rows == 0 {
        format!("not identified: no {rows_name} rows")
    } else if r.identified {
        format!("identified: exposed in {} of {} {rows_name} rows", r.exposed_rows, r.rows)
    } else {
        format!(
            "NOT identified: hidden in all {} {rows_name} rows; any value up to {:.4} s fits as well (use the cluster's)",
            r.rows,
            r.tau_upper_bound_s.unwrap_or(f64::NAN)
        )
    };
    format!("{label:<24}{} s   {status}", seconds(tau))
}

/// Seconds with four significant digits, so that 0.2037 and 1.000e-5 both read right.
fn seconds(x: f64) -> String {
    if x >= 0.01 {
        format!("{x:>10.4}")
    } else {
        format!("{x:>10.3e}")
    }
}

/// A tier's bandwidth `S / τ`, or its lower bound when the fit could not identify `τ`.
fn bandwidth(s: f64, tau: f64, r: &TierReport) -> String {
    match (r.identified, r.tau_upper_bound_s) {
        (false, Some(upper)) if upper > 0.0 => format!(">= {:.3} GB/s (not identified)", s / upper / 1e9),
        (false, _) => "not identified".into(),
        (true, _) => format!("{:.4} GB/s", s / tau / 1e9),
    }
}

fn print_file_fit(t: &Table, fit: &FileFit) {
    let p = &fit.params;
    println!("{}: {}", t.path, describe(&t.samples));
    let from = match fit.compute.from {
        proxima_lab::calibrate::ComputeRows::SingleGpu => "single-GPU rows",
        proxima_lab::calibrate::ComputeRows::StepMinusSync => {
            "step_time - sync_time of all rows (fewer than two batch sizes on one GPU)"
        }
    };
    println!(
        "{:<24}{:.5} s + {:.6} s/sample x b   (weighted least squares on {} {from})",
        "compute c(b)", p.compute.fixed_s, p.compute.per_sample_s, fit.compute.rows
    );
    println!("{}", tier_line("tau_intra = S/B_intra", p.tau_intra_s, &fit.intra, "single-node multi-GPU"));
    println!("{}", tier_line("tau_inter = S/B_inter", p.tau_inter_s, &fit.inter, "multi-node"));
    if fit.intra_slower_than_inter {
        println!("{:<24}tau_intra > tau_inter: the fit makes one node slower than the network, which is physically wrong; tau_intra absorbs a non-overlapped tail", "warning");
    }
    println!("{:<24}{:>10.3}", "overlap ov", p.overlap);
    println!("{:<24}{:>10.3}", "straggler sigma", p.straggler);
    println!(
        "{:<24}{:>10.3} ms / {:.3} ms (fixed)",
        "alpha intra / inter",
        p.alpha_intra_s * 1e3,
        p.alpha_inter_s * 1e3
    );
    println!("{:<24}{:>10.6}   (mean squared log error of step_time)", "loss", fit.loss);
    match t.grad_bytes {
        Some(s) => println!(
            "{:<24}S = {:.2} MB ({}): B_intra {}, B_inter {}",
            "bandwidths",
            s / 1e6,
            t.size_source,
            bandwidth(s, p.tau_intra_s, &fit.intra),
            bandwidth(s, p.tau_inter_s, &fit.inter)
        ),
        None => println!(
            "{:<24}unknown model size (no catalogue entry '{}'; give --params-millions for B = S/tau)",
            "bandwidths", t.name
        ),
    }
}

fn print_errors(errors: &[ErrorStats]) {
    println!("absolute percentage error   step_time          sync_time");
    println!(
        "{:<14}{:>6}   {:>7} {:>7}   {:>5} {:>7} {:>7}",
        "class", "rows", "median", "p90", "rows", "median", "p90"
    );
    for e in errors {
        println!(
            "{:<14}{:>6}   {:>7.1} {:>7.1}   {:>5} {:>7.1} {:>7.1}",
            e.class, e.rows, e.step_median_pct, e.step_p90_pct, e.sync_rows, e.sync_median_pct, e.sync_p90_pct
        );
    }
}

/// Measured against predicted times of the placements with the same GPU count on every node
/// (`2`, `22`, `4444` ...) at the smallest, a middle and the largest local batch.
fn print_predicted_vs_measured(samples: &[Sample], predictions: &[Prediction]) {
    let mut batches: Vec<f64> = samples.iter().map(|s| s.local_bsz).collect();
    batches.sort_by(f64::total_cmp);
    batches.dedup();
    let mut picked = vec![batches[0], batches[batches.len() / 2], batches[batches.len() - 1]];
    picked.dedup();
    println!("| placement | local batch | step measured (s) | step predicted (s) | error | sync measured (s) | sync predicted (s) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let uniform = |p: &str| p.bytes().all(|b| b == p.as_bytes()[0]);
    let mut rows: Vec<(&Sample, &Prediction)> = samples
        .iter()
        .zip(predictions)
        .filter(|(s, _)| uniform(&s.placement) && picked.contains(&s.local_bsz))
        .collect();
    rows.sort_by(|a, b| {
        (a.0.nodes, a.0.gpus).cmp(&(b.0.nodes, b.0.gpus)).then(a.0.local_bsz.total_cmp(&b.0.local_bsz))
    });
    for (s, p) in rows {
        println!(
            "| `{}` | {} | {:.3} | {:.3} | {:+.1}% | {:.3} | {:.3} |",
            s.placement,
            s.local_bsz,
            s.step_s,
            p.step_s,
            (p.step_s - s.step_s) / s.step_s * 100.0,
            s.sync_s,
            p.sync_s
        );
    }
}

/// A markdown table with one column per model: "median / p90" of step or sync APE per class.
fn print_class_table(title: &str, names: &[&str], tables: &[Vec<ErrorStats>], sync: bool) {
    println!("{title}\n");
    println!("| class | {} |", names.join(" | "));
    println!("|---|{}", "---|".repeat(names.len()));
    let mut classes: Vec<&str> = Vec::new();
    for t in tables {
        for e in t {
            if !classes.contains(&e.class.as_str()) {
                classes.push(&e.class);
            }
        }
    }
    for class in classes {
        let cells: Vec<String> = tables
            .iter()
            .map(|t| match t.iter().find(|e| e.class == class) {
                Some(e) if sync && e.sync_rows > 0 => format!("{:.1} / {:.1}", e.sync_median_pct, e.sync_p90_pct),
                Some(e) if !sync => format!("{:.1} / {:.1}", e.step_median_pct, e.step_p90_pct),
                _ => "-".into(),
            })
            .collect();
        println!("| {class} | {} |", cells.join(" | "));
    }
    println!();
}
