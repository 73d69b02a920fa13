//! A Volcano cluster file (`tests/fixtures/volcano/hypernodes.yaml`: the HyperNode tree of
//! Volcano's network-topology-aware scheduling guide, with members selected by name,
//! pattern and label) through the real `proxima` binary.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/volcano/hypernodes.yaml");
    path.to_str().unwrap().to_string()
}

fn proxima(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).output().unwrap()
}

#[test]
fn topologies_exports_the_documented_hypernode_tree() {
    let out = proxima(&["topologies", "--json", &format!("volcano:{},gpus=4", fixture())]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let spec: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids = |key: &str| -> Vec<String> {
        spec[key].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(ids("switches"), ["s6", "s4", "s0", "s1", "s5", "s2", "s3"]);
    assert_eq!(ids("servers"), (0..8).map(|i| format!("node{i}")).collect::<Vec<_>>());
    assert!(spec["servers"].as_array().unwrap().iter().all(|s| s["gpus"] == 4));
}

#[test]
fn run_names_the_tiers_as_the_file_does() {
    let topology = format!("volcano:{}", fixture());
    let out = proxima(&["run", "--topology", &topology, "--trace", "synthetic:jobs=10", "--policy", "consolidate"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("(64 GPUs; tiers server < rack < zone < tier-3)"), "{stdout}");
}
