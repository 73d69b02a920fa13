//! `proxima calibrate --cluster NAME DIR`: one of the Sia artifact's clusters calibrated from
//! its six models' tables (`DIR/<model>/placements-NAME.csv`), or `--cluster all` for every
//! cluster in one summary table. The fit is the core's (`calibrate_cluster`); this file
//! finds the files, names each model by its folder, and prints.

use crate::inputs::UsageError;
use proxima_core::model::Catalog;
use proxima_core::topology::{sia_cluster, SiaCluster, SIA_CLUSTERS};
use proxima_host::inputs::placements;
use proxima_lab::calibrate::{
    calibrate_cluster, error_table, ClusterCalibration, ErrorStats, ModelData, Sample, SIA_MODELS,
};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// One model's table of a cluster.
struct ModelTable {
    name: &'static str,
    path: String,
    samples: Vec<Sample>,
    grad_bytes: f64,
}

/// Reads the six tables of `cluster` under `dir`. Each model's size is the catalogue's entry
/// of its folder's name (`imagenet` is ResNet-50's alias).
fn load(dir: &str, cluster: &SiaCluster) -> Result<Vec<ModelTable>, UsageError> {
    let catalog = Catalog::built_in();
    let mut tables = Vec::new();
    for &name in SIA_MODELS {
        let path = Path::new(dir).join(name).join(format!("placements-{}.csv", cluster.name));
        let path = path.to_string_lossy().into_owned();
        let samples = placements(&path)?;
        let id = catalog
            .lookup(name)
            .ok_or_else(|| UsageError(format!("{path}: no catalogue model named '{name}' to give its size")))?;
        tables.push(ModelTable { name, path, samples, grad_bytes: catalog.get(id).grad_bytes() });
    }
    Ok(tables)
}

/// The figures of one cluster and the tables they came from.
struct Calibrated {
    cluster: &'static SiaCluster,
    tables: Vec<ModelTable>,
    fit: ClusterCalibration,
    seconds: f64,
}

fn calibrate(dir: &str, cluster: &'static SiaCluster) -> Result<Calibrated, UsageError> {
    let tables = load(dir, cluster)?;
    let models: Vec<ModelData> =
        tables.iter().map(|t| ModelData { name: t.name, samples: &t.samples, grad_bytes: t.grad_bytes }).collect();
    let started = Instant::now();
    let fit = calibrate_cluster(&models).map_err(|e| UsageError(e.to_string()))?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(Calibrated { cluster, tables, fit, seconds })
}

pub fn run(name: &str, files: &[String], as_json: bool, detail: bool) -> Result<(), UsageError> {
    let [dir] = files else {
        return Err(UsageError(format!(
            "--cluster: give one folder laid out as <model>/placements-<cluster>.csv (the Sia artifact's traces, e.g. ../shared/data/sia), {} given",
            files.len()
        )));
    };
    let clusters: Vec<&'static SiaCluster> = if name == "all" {
        SIA_CLUSTERS.iter().collect()
    } else {
        vec![sia_cluster(name).ok_or_else(|| {
            let names: Vec<&str> = SIA_CLUSTERS.iter().map(|c| c.name).collect();
            UsageError(format!("--cluster: unknown cluster '{name}'; one of {}, or all", names.join(", ")))
        })?]
    };
    let mut results = Vec::new();
    for c in clusters {
        results.push(calibrate(dir, c)?);
    }
    if as_json {
        let value: Vec<Value> = results.iter().map(to_json).collect();
        println!("{}", serde_json::to_string_pretty(&value).expect("plain data serialises"));
    } else if results.len() == 1 {
        print_cluster(&results[0], detail);
    } else {
        print_summary(&results);
    }
    for r in &results {
        eprintln!(
            "{}: all-fit, one-overlap fit and {} held-out fits in {:.3} s",
            r.cluster.name,
            r.tables.len(),
            r.seconds
        );
    }
    Ok(())
}

fn gbps(bytes_per_s: f64) -> f64 {
    bytes_per_s / 1e9
}

fn to_json(r: &Calibrated) -> Value {
    let (c, f) = (r.cluster, &r.fit);
    json!({
        "cluster": c.name,
        "preset": c.preset,
        "hardware": c.hardware,
        "gpu": c.gpu,
        "intra_bytes_per_s": f.all.intra_bytes_per_s,
        "inter_bytes_per_s": f.inter_identified().then_some(f.all.inter_bytes_per_s),
        "straggler": f.all.straggler,
        "server_compute": f.all.server_compute,
        "server_ring": f.all.server_ring,
        "loss": f.all.loss,
        "one_shared_overlap": f.one_overlap.overlaps[0],
        "multi_node_rows": f.multi_node_rows,
        "single_node_rows": f.single_node_rows,
        "in_sample_pooled_median_pct": f.in_sample_pooled_median_pct,
        "loo_pooled_median_pct": f.loo_pooled_median_pct,
        "worst_loo_median_pct": f.worst_loo_median_pct(),
        "models": r.tables.iter().enumerate().map(|(i, t)| json!({
            "name": t.name,
            "file": t.path,
            "rows": t.samples.len(),
            "grad_bytes": t.grad_bytes,
            "overlap": f.all.overlaps[i],
            "compute": f.all.compute[i],
            "in_sample_median_pct": f.in_sample_median_pct[i],
            "loo_median_pct": f.loo_median_pct[i],
        })).collect::<Vec<_>>(),
    })
}

fn print_cluster(r: &Calibrated, detail: bool) {
    let (c, f) = (r.cluster, &r.fit);
    println!("Cluster '{}' (preset {}): {}", c.name, c.preset, c.hardware);
    let rows: usize = r.tables.iter().map(|t| t.samples.len()).sum();
    println!(
        "{} tables, {rows} rows: {} on one node with 2+ GPUs, {} on 2+ nodes\n",
        r.tables.len(),
        f.single_node_rows,
        f.multi_node_rows
    );
    let nominal = |link_gbps: f64| link_gbps / 8.0;
    println!(
        "All-fit (shared B_intra, B_inter, sigma, kappa, lambda; overlap per model; compute per model from its single-GPU rows):"
    );
    println!(
        "  B_intra = {:.4} GB/s ({:.4} of the {:.0} GB/s GPU link)",
        gbps(f.all.intra_bytes_per_s),
        f.all.intra_bytes_per_s / (nominal(c.gpu_link_gbps) * 1e9),
        nominal(c.gpu_link_gbps)
    );
    if f.inter_identified() {
        println!(
            "  B_inter = {:.4} GB/s ({:.4} of one {:.1} GB/s NIC)",
            gbps(f.all.inter_bytes_per_s),
            f.all.inter_bytes_per_s / (nominal(c.nic_gbps) * 1e9),
            nominal(c.nic_gbps)
        );
    } else {
        println!("  B_inter   not identified: no table has a row on more than one node");
    }
    println!("  sigma = {:.4}, loss = {:.6} ({} evaluations)", f.all.straggler, f.all.loss, f.all.evaluations);
    println!(
        "  per extra GPU on the busiest server: compute x(1 + {:.4}(k-1)) (kappa), GPU-link ring /(1 + {:.4}(k-1)) (lambda)",
        f.all.server_compute, f.all.server_ring
    );
    println!("  one overlap for all models: ov = {:.3} (loss {:.6})\n", f.one_overlap.overlaps[0], f.one_overlap.loss);
    println!(
        "{:<13}{:>6} {:>9} {:>7} {:>9} {:>11}   {:>9} {:>9}",
        "model", "rows", "S (MB)", "ov", "c0 (s)", "c1 (s/b)", "in-sample", "held out"
    );
    for (i, t) in r.tables.iter().enumerate() {
        println!(
            "{:<13}{:>6} {:>9.2} {:>7.3} {:>9.5} {:>11.3e}   {:>8.1}% {:>8.1}%",
            t.name,
            t.samples.len(),
            t.grad_bytes / 1e6,
            f.all.overlaps[i],
            f.all.compute[i].fixed_s,
            f.all.compute[i].per_sample_s,
            f.in_sample_median_pct[i],
            f.loo_median_pct[i]
        );
    }
    println!(
        "{:<13}{:>6} {:>46.1}% {:>8.1}%",
        "all rows", rows, f.in_sample_pooled_median_pct, f.loo_pooled_median_pct
    );
    println!("(median APE of step_time; held out: the cluster and one overlap fitted on the other models)");
    if detail {
        println!();
        print_classes(r);
    }
    println!(
        "\nsia_cluster={} in_sample_median={:.3} loo_median={:.3} worst_model_loo_median={:.3}",
        c.name,
        f.in_sample_pooled_median_pct,
        f.loo_pooled_median_pct,
        f.worst_loo_median_pct()
    );
}

/// Held-out step_time APE per class of placement and model: where the form misses.
fn print_classes(r: &Calibrated) {
    let tables: Vec<Vec<ErrorStats>> =
        r.tables.iter().zip(&r.fit.held_out).map(|(t, h)| error_table(&t.samples, &h.predictions)).collect();
    let names: Vec<&str> = r.tables.iter().map(|t| t.name).collect();
    super::print_class_table("Held out, step_time APE % (median / p90) by class", &names, &tables, false);
}

/// One line per cluster: the table `docs/CALIBRATION.md` shows.
fn print_summary(results: &[Calibrated]) {
    println!("| cluster | GPU | B_intra (GB/s) | B_inter (GB/s) | sigma | kappa | lambda | in-sample median | held-out median (all rows) | worst model held out |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in results {
        let f = &r.fit;
        let worst = (0..r.tables.len())
            .max_by(|&a, &b| f.loo_median_pct[a].total_cmp(&f.loo_median_pct[b]))
            .expect("six models");
        println!(
            "| {} | {} x {} | {:.3} | {} | {:.3} | {:.4} | {:.4} | {:.1}% | {:.1}% | {} {:.1}% |",
            r.cluster.name,
            r.cluster.gpus_per_server,
            r.cluster.gpu,
            gbps(f.all.intra_bytes_per_s),
            if f.inter_identified() { format!("{:.3}", gbps(f.all.inter_bytes_per_s)) } else { "-".into() },
            f.all.straggler,
            f.all.server_compute,
            f.all.server_ring,
            f.in_sample_pooled_median_pct,
            f.loo_pooled_median_pct,
            r.tables[worst].name,
            f.loo_median_pct[worst]
        );
    }
}
