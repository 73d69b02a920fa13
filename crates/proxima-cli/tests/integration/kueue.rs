//! A Kueue cluster file (`tests/fixtures/kueue/cluster.yaml`: the Topology and the nodes of
//! Kueue's TAS guide, as `kubectl get nodes -o yaml` prints them) through the real
//! `proxima` binary: `topologies --json kueue:PATH` exports the cluster it describes, with
//! the file's warnings on stderr, and `run` runs on it.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/kueue/cluster.yaml");
    path.to_str().unwrap().to_string()
}

fn proxima(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).output().unwrap()
}

#[test]
fn topologies_exports_the_documented_kueue_cluster() {
    let file = fixture();
    let out = proxima(&["topologies", "--json", &format!("kueue:{file},nic_gbps=400,nics=8")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let spec: Value = serde_json::from_slice(&out.stdout).unwrap();
    let servers = spec["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 8);
    assert_eq!(servers.iter().map(|s| s["gpus"].as_u64().unwrap()).sum::<u64>(), 64);
    let racks =
        spec["switches"].as_array().unwrap().iter().filter(|s| s["role"] == "cloud.provider.com/topology-rack").count();
    assert_eq!(racks, 4);
    let node_link = spec["links"].as_array().unwrap().iter().find(|l| l["a"] == "kind-worker").unwrap();
    assert_eq!(node_link["bandwidth_gbps"].as_f64(), Some(3200.0));
    // The control plane (no GPU) is reported with file and line, and nothing else.
    assert!(
        stderr.contains(&format!("warning: {file}:29: status.allocatable: 1 node left out (kind-control-plane)")),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn run_takes_a_kueue_cluster_and_refuses_a_gpus_option() {
    let file = fixture();
    let topology = format!("kueue:{file}");
    let out = proxima(&["run", "--topology", &topology, "--trace", "synthetic:jobs=10", "--policy", "consolidate"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains(
            "(64 GPUs; tiers server < cloud.provider.com/topology-rack < cloud.provider.com/topology-block < cluster)"
        ),
        "{stdout}"
    );
    let out = proxima(&[
        "run",
        "--topology",
        &format!("{topology},gpus=4"),
        "--trace",
        "synthetic:jobs=10",
        "--policy",
        "fifo",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("error: --topology: gpus: a Kueue file gives each node's GPUs"));
}

#[test]
fn kueue_tas_runs_at_the_files_levels_and_refuses_a_level_the_cluster_lacks() {
    let topology = format!("kueue:{}", fixture());
    let policy = "kueue-tas:required=cloud.provider.com/topology-rack";
    let out = proxima(&["run", "--topology", &topology, "--trace", "synthetic:jobs=10", "--policy", policy]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The same level on a parametric cluster is refused before the run, naming its levels.
    let out =
        proxima(&["run", "--topology", "racks=2,servers=2,gpus=4", "--trace", "synthetic:jobs=10", "--policy", policy]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: --policy: required: unknown topology level 'cloud.provider.com/topology-rack'")
            && stderr.contains("server, rack, cluster"),
        "{stderr}"
    );
}
