//! `proxima what-if` through the real binary, on the Kueue cluster of Kueue's TAS guide
//! (`tests/fixtures/kueue/cluster.yaml`): one screen with the scheduler as configured, its
//! timed (fixed and tuned) and evicting variants, and Proxima's policies; the file read once (its warning printed once);
//! the same screen twice; bad arguments exit 2 before any run.

use std::path::PathBuf;
use std::process::{Command, Output};

fn topology() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/kueue/cluster.yaml");
    format!("kueue:{},nic_gbps=100", path.to_str().unwrap())
}

fn what_if(scheduler: &str, extra: &[&str]) -> Output {
    let topology = topology();
    let mut args = vec!["what-if", "--topology", &topology, "--trace", "synthetic:jobs=120,load=1.2", "--mix", "llm"];
    args.extend(["--scheduler", scheduler]);
    if !extra.contains(&"--seeds") {
        args.extend(["--seeds", "3"]);
    }
    args.extend(extra);
    Command::new(env!("CARGO_BIN_EXE_proxima")).args(&args).output().unwrap()
}

const RACK: &str = "kueue-tas:required=cloud.provider.com/topology-rack";

#[test]
fn one_screen_with_the_scheduler_its_timed_variant_and_proxima_policies() {
    let out = what_if(RACK, &["--timer", "120"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("kueue-tas") || l.starts_with("dally")).collect();
    let names: Vec<&str> = rows.iter().map(|l| l.split_whitespace().next().unwrap()).collect();
    let (fixed, tuned, evict) =
        (format!("{RACK},required_for_s=120"), format!("{RACK},required_for_s=auto"), format!("{RACK},evict=on"));
    assert_eq!(names, [RACK, &fixed, &tuned, &evict, "dally", "dally:order=las"]);
    assert!(rows[0].contains(" 1 "), "the configured scheduler is the unit: {}", rows[0]);
    for row in &rows[1..] {
        assert!(row.contains('[') && row.contains('–'), "a ratio with its interval: {row}");
    }
    assert!(stdout.starts_with("what if: kueue:") && stdout.contains("(64 GPUs)") && stdout.contains("seeds 1-3"));
    // The cluster file is read once, whatever the number of seeds.
    assert_eq!(stderr.matches("1 node left out").count(), 1, "{stderr}");
    assert_eq!(what_if(RACK, &["--timer", "120"]).stdout, out.stdout, "the same runs print the same screen");
}

#[test]
fn bad_arguments_exit_2_naming_them() {
    let unknown = what_if("kueue-tas:required=aisle", &[]);
    assert_eq!(unknown.status.code(), Some(2));
    let message = String::from_utf8_lossy(&unknown.stderr);
    assert!(message.contains("error: --policy: required: unknown topology level 'aisle'"), "{message}");
    let seeds = what_if(RACK, &["--seeds", "0"]);
    assert_eq!(seeds.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&seeds.stderr).contains("--seeds: at least 1"));
    let typo = what_if("kueue-taz", &[]);
    assert_eq!(typo.status.code(), Some(2));
}

/// `--out DIR` writes the Markdown and the HTML of the same report, and the HTML stands alone:
/// no network reference, no script, every source inline, one figure per tenant.
#[test]
fn out_writes_a_markdown_and_a_self_contained_html_report() {
    let dir = std::env::temp_dir().join(format!("proxima-what-if-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let topology = topology();
    let out = Command::new(env!("CARGO_BIN_EXE_proxima"))
        .args(["what-if", "--topology", &topology, "--trace", "synthetic:jobs=120,load=1.5,tenants=2", "--mix", "llm"])
        .args(["--tenants", "equal", "--scheduler", RACK, "--seeds", "2", "--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = std::fs::read_to_string(dir.join("what-if.md")).unwrap();
    let html = std::fs::read_to_string(dir.join("what-if.html")).unwrap();
    assert!(md.starts_with(&format!("# What if: {RACK}")), "{md}");
    for section in
        ["Mean JCT by policy", "Per tenant", "freed GPUs nobody used", "held for their topology", "quota admitted"]
    {
        assert!(md.contains(section) && html.contains(section), "{section}");
    }
    assert!(md.contains("| t1: mean JCT, ÷ configured | t2: mean JCT, ÷ configured |"), "{md}");
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("<script"));
    assert!(html.match_indices("src=").all(|(i, _)| html[i..].starts_with("src=\"data:")));
    assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
    assert_eq!(html.matches("<svg").count(), 1 + 2 + 2, "JCT, one per tenant, preemptions, held time");
    assert!(html.trim_end().ends_with("</html>"));
    // The screen is printed as without --out.
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("what if: kueue:"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same report from a Slurm block topology with tenants' quotas: the scheduler admits by
/// quota, and the report says so.
#[test]
fn out_writes_the_report_from_a_slurm_cluster_with_quotas() {
    let dir = std::env::temp_dir().join(format!("proxima-what-if-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let conf = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/slurm/topology-block.conf");
    let topology = format!("slurm:{}", conf.to_str().unwrap());
    let out = Command::new(env!("CARGO_BIN_EXE_proxima"))
        .args(["what-if", "--topology", &topology, "--trace", "synthetic:jobs=100,load=2,tenants=2", "--mix", "llm"])
        .args(["--tenants", "equal", "--scheduler", "slurm:block=on,quota=on", "--seeds", "2"])
        .args(["--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = std::fs::read_to_string(dir.join("what-if.md")).unwrap();
    let html = std::fs::read_to_string(dir.join("what-if.html")).unwrap();
    assert!(md.contains("| `slurm:block=on,quota=on` | yes |"), "the scheduler admits by quota: {md}");
    assert!(md.contains("| `dally` | no |"), "{md}");
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("<script"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The operators' examples (`examples/your-cluster/`): their cluster file and their job
/// history as Kueue and Slurm print them, each turned into the report they hand on.
#[test]
fn out_writes_the_report_from_the_kueue_and_the_slurm_examples() {
    let example = |name: &str| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/your-cluster").join(name).display().to_string()
    };
    let cases = [
        (
            format!("kueue:{},nic_gbps=100", example("kueue-cluster.yaml")),
            example("kueue-workloads.json"),
            "kueue-tas:required=cloud.provider.com/topology-rack",
        ),
        (format!("slurm:{},gpus=8,nics=1,nic_gbps=100", example("topology.conf")), example("sacct.txt"), "slurm"),
    ];
    for (k, (topology, history, scheduler)) in cases.iter().enumerate() {
        let dir = std::env::temp_dir().join(format!("proxima-what-if-example-{k}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = Command::new(env!("CARGO_BIN_EXE_proxima"))
            .args(["what-if", "--topology", topology, "--trace", history, "--mix", "llm", "--scheduler", scheduler])
            .args(["--seeds", "2", "--out", dir.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{scheduler}: {stderr}");
        // The history's left-out rows are noted once, not once per seed.
        let notes: Vec<&str> = stderr.lines().filter(|l| l.contains("left out")).collect();
        assert!(!notes.is_empty(), "{scheduler}: the examples leave pending jobs out: {stderr}");
        let unique: std::collections::BTreeSet<&&str> = notes.iter().collect();
        assert_eq!(unique.len(), notes.len(), "{stderr}");
        let md = std::fs::read_to_string(dir.join("what-if.md")).unwrap();
        let html = std::fs::read_to_string(dir.join("what-if.html")).unwrap();
        assert!(md.starts_with(&format!("# What if: {scheduler}")), "{md}");
        assert!(md.contains("| `dally:order=las` |"), "{md}");
        // Kueue's required rack level never places the example's jobs larger than a rack
        // (32 GPUs): their means are over different jobs, and the report says so.
        let incomplete = scheduler.starts_with("kueue");
        assert_eq!(md.contains("† Not like for like"), incomplete, "{md}");
        assert_eq!(md.contains("] †"), incomplete, "{md}");
        assert!(html.contains("Per tenant") && html.contains("<svg"));
        assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("<script"));
        assert!(html.match_indices("src=").all(|(i, _)| html[i..].starts_with("src=\"data:")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
