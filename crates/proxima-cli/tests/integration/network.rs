//! `run` and `compare` name the network they ran on, in the core's one-line description
//! (`Topology::describe_network`), for a parametric spec, a preset and a JSON file alike;
//! `topologies` lists the large presets' default workloads.

use std::process::Command;

fn stdout_of(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).output().unwrap();
    assert!(out.status.success(), "proxima {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The line after `prefix` at the start of a line of `text`.
fn line_after<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines().find_map(|l| l.strip_prefix(prefix)).unwrap_or_else(|| panic!("no '{prefix}' line in:\n{text}"))
}

#[test]
fn run_and_compare_print_the_network_line() {
    let trace = ["--trace", "synthetic:jobs=20"];
    let run = |topology: &str| {
        let args: Vec<&str> =
            ["run", "--topology", topology].iter().chain(&trace).chain(&["--policy", "fifo"]).copied().collect();
        line_after(&stdout_of(&args), "network     ").to_string()
    };
    assert_eq!(
        run("racks=2,servers=2,gpus=8,oversub=16,fabric=rdma"),
        "8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 1 × 200 Gbit/s InfiniBand NIC per server, racks 16:1 oversubscribed (fabric=ib)"
    );
    assert_eq!(
        run("a100-roce-2048"),
        "8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 1 × 100 Gbit/s RoCE NIC per server, racks 16:1 oversubscribed (fabric=roce)"
    );
    // A JSON file exported from a preset keeps its fabric's name.
    let dir = std::env::temp_dir().join(format!("proxima-network-line-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pod.json");
    std::fs::write(&file, stdout_of(&["topologies", "--json", "rail-pod-oversub"])).unwrap();
    assert_eq!(
        run(file.to_str().unwrap()),
        "8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 8 × 200 Gbit/s InfiniBand NICs per server, racks rail-optimised (8 rails each), 4:1 oversubscribed (fabric=ib)"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let compare: Vec<&str> = ["compare", "--topology", "teaching"]
        .iter()
        .chain(&trace)
        .chain(&["--policy", "fifo", "--policy", "random"])
        .copied()
        .collect();
    assert_eq!(
        line_after(&stdout_of(&compare), "network "),
        "4 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 1 × 200 Gbit/s InfiniBand NIC per server, racks 2:1 oversubscribed (fabric=ib)"
    );
}

#[test]
fn topologies_lists_the_large_presets_default_workloads() {
    let text = stdout_of(&["topologies"]);
    let workloads: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Default workloads"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(workloads.len(), 7, "{text}");
    assert!(
        workloads.contains(&"  rdma-2048        --trace synthetic:jobs=10000,load=0.9,seed=1 --mix llama-13b"),
        "{workloads:?}"
    );
    assert!(
        workloads.contains(&"  fat-tree-k8      --trace synthetic:jobs=5000,load=0.9,seed=1 --mix llm"),
        "{workloads:?}"
    );
    // The descriptions say what each preset shows.
    assert!(line_after(&text, "dgx-h100-pod").contains("a control: non-blocking"), "{text}");
}
