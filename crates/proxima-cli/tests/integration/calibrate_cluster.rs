//! `proxima calibrate --cluster NAME DIR`: on tables the model itself generated, laid out as
//! the Sia artifact lays them out, the fit recovers the cluster it was given; wrong
//! arguments are refused with what to write instead.

use proxima_core::model::{Catalog, ComputeCurve};
use proxima_lab::calibrate::{parse_placements, FileParams, ALPHA_INTER_S, ALPHA_INTRA_S, SIA_MODELS};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn proxima(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).current_dir(dir).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proxima-cli-calibrate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The true cluster: 2 GB/s inside a server, σ = 0.1, every model hiding half its compute's
/// worth of exchange.
const B_INTRA: f64 = 2.0e9;
const SIGMA: f64 = 0.1;

/// Writes `dir/<model>/placements-quad.csv` for the six models: one server of up to four GPUs
/// at three local batches, timed exactly by the model with each model's catalogue size.
fn write_quad_tables(dir: &Path) {
    let catalog = Catalog::built_in();
    for (i, m) in SIA_MODELS.iter().enumerate() {
        let grad_bytes = catalog.get(catalog.lookup(m).unwrap()).grad_bytes();
        let truth = FileParams {
            compute: ComputeCurve { fixed_s: 0.05 + 0.01 * i as f64, per_sample_s: 0.01 },
            tau_intra_s: grad_bytes / B_INTRA,
            tau_inter_s: 1.0,
            overlap: 0.5,
            straggler: SIGMA,
            server_compute: 0.0,
            server_ring: 0.0,
            alpha_intra_s: ALPHA_INTRA_S,
            alpha_inter_s: ALPHA_INTER_S,
        };
        let mut text = String::from("local_bsz,step_time,sync_time,placement\n");
        for p in ["1", "2", "3", "4"] {
            for b in [4.0, 8.0, 16.0] {
                let row = format!("placement,local_bsz,step_time,sync_time\n{p},{b},1,0\n");
                let predicted = truth.predict(&parse_placements(&row).unwrap()[0]);
                text.push_str(&format!("{b},{},{},{p}\n", predicted.step_s, predicted.sync_s));
            }
        }
        std::fs::create_dir_all(dir.join(m)).unwrap();
        std::fs::write(dir.join(m).join("placements-quad.csv"), text).unwrap();
    }
}

#[test]
fn a_cluster_of_generated_tables_gives_back_its_parameters() {
    let dir = scratch("quad");
    write_quad_tables(&dir);
    let out = proxima(&["calibrate", "--cluster", "quad", "--json", "."], &dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &value[0];
    assert_eq!((c["cluster"].as_str(), c["preset"].as_str()), (Some("quad"), Some("sia-quad")));
    let names: Vec<&str> = c["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, SIA_MODELS);
    // One server only: the network is not identified and says so.
    assert!(c["inter_bytes_per_s"].is_null());
    assert_eq!(c["multi_node_rows"], 0);
    let b_intra = c["intra_bytes_per_s"].as_f64().unwrap();
    assert!((b_intra / B_INTRA - 1.0).abs() < 0.02, "{b_intra}");
    assert!((c["straggler"].as_f64().unwrap() - SIGMA).abs() < 0.01, "{c}");
    // Exact tables: the held-out models are predicted within a percent.
    assert!(c["loo_pooled_median_pct"].as_f64().unwrap() < 1.0, "{c}");
    // The text report ends with the figures a script reads.
    let out = proxima(&["calibrate", "--cluster", "sia-quad", "."], &dir);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("B_inter   not identified"), "{text}");
    assert!(text.lines().last().unwrap().starts_with("sia_cluster=quad in_sample_median="), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn wrong_cluster_arguments_say_what_to_write() {
    let dir = scratch("usage");
    let err = |args: &[&str]| {
        let out = proxima(args, &dir);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = err(&["calibrate", "--cluster", "gcp", "."]);
    assert!(e.contains("unknown cluster 'gcp'") && e.contains("aws, azure, dgx, dgx-ext, quad, rtx, or all"), "{e}");
    let e = err(&["calibrate", "--cluster", "rtx", "a", "b"]);
    assert!(e.contains("give one folder") && e.contains("2 given"), "{e}");
    let e = err(&["calibrate", "--cluster", "rtx", "--loo", "."]);
    assert!(e.contains("drop --loo"), "{e}");
    // A folder without the cluster's tables names the file it looked for.
    let e = err(&["calibrate", "--cluster", "rtx", "."]);
    assert!(e.contains("placements-rtx.csv"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
