//! Issue 32: the large presets' default workloads (`Preset::workload`) part dally from
//! consolidate. Each is run as the page's default run is (its trace at seed 1, its mix) and
//! dally's mean JCT must be at most 0.97 of consolidate's on the five presets whose network
//! makes placement cost; on the two DGX pods, the controls, they must stay within 3%.

use proxima_core::topology::preset;
use proxima_host::inputs::{trace_input, Jobs, TopologyInput, WorkloadArgs};
use proxima_host::run::{execute, Want};

/// Mean JCT of `policy` on `name`'s default workload at seed 1.
fn mean_jct(name: &str, policy: &str) -> f64 {
    let workload = preset(name).and_then(|p| p.workload()).unwrap_or_else(|| panic!("{name} has no workload"));
    let trace = trace_input(&workload.trace(1)).unwrap();
    let args = WorkloadArgs { seed: 1, mix: Some(workload.mix.into()), ..WorkloadArgs::default() };
    let want = Want { record: false, event_hash: false, rho_threads: None };
    let out = execute(&TopologyInput::Argument(name.into()), Jobs::Input(&trace), &args, policy, want)
        .unwrap_or_else(|e| panic!("{name} {policy}: {e}"));
    let summary: serde_json::Value = serde_json::from_str(&out.summary_json).unwrap();
    summary["avg_jct_s"].as_f64().unwrap()
}

fn ratio(name: &str) -> f64 {
    mean_jct(name, "dally") / mean_jct(name, "consolidate")
}

#[test]
fn five_large_presets_part_dally_from_consolidate() {
    // Measured at seed 1: 0.937, 0.935, 0.965, 0.628, 0.932.
    for name in ["flat-2048", "oversub-2048", "rdma-2048", "a100-roce-2048", "fat-tree-k8"] {
        let r = ratio(name);
        assert!(r <= 0.97, "{name}: dally / consolidate mean JCT {r:.3}");
    }
}

#[test]
fn the_dgx_pods_are_controls() {
    // Measured at seed 1: 0.988 and 0.991.
    for name in ["dgx-a100-pod", "dgx-h100-pod"] {
        let r = ratio(name);
        assert!((0.97..=1.03).contains(&r), "{name}: dally / consolidate mean JCT {r:.3}");
    }
}
