//! A Slurm `topology.yaml` (`tests/fixtures/slurm/topology.yaml`: a tree as the cluster
//! default, a block topology and a flat one) through the real `proxima` binary, as a
//! `slurm:PATH` topology like a `topology.conf`: `run` runs on the default tree, and the
//! note that the other topologies are not simulated goes to stderr.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/slurm/topology.yaml");
    path.to_str().unwrap().to_string()
}

fn proxima(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).output().unwrap()
}

#[test]
fn run_takes_a_topology_yaml_and_simulates_its_default_tree() {
    let file = fixture();
    let topology = format!("slurm:{file},gpus=8");
    let out = proxima(&["run", "--topology", &topology, "--trace", "synthetic:jobs=50", "--policy", "consolidate"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("(128 GPUs; tiers server < rack < cluster)"), "{stdout}");
    assert!(
        stderr.contains(&format!(
            "warning: {file}:7: topology: simulating topology 'racks' (the cluster default); the file's other topologies (nvlink-domains, anywhere) are not read further"
        )),
        "{stderr}"
    );
    let out = proxima(&["topologies", "--json", &topology]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let spec: Value = serde_json::from_slice(&out.stdout).unwrap();
    let switches: Vec<&str> = spec["switches"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(switches, ["spine", "rack1", "rack2", "rack3", "rack4"]);
    assert_eq!(spec["servers"].as_array().unwrap().len(), 16);
}
