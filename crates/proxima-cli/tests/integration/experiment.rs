//! `proxima experiment paper --quick` through the real binary: the report's structure
//! (both scenario sets, sweeps, oracle, bounds, intervals), the figures it embeds (SVG files
//! beside it), and that report.md and the figures are a function of report.json (redrawn
//! from it, they are the same bytes). The full experiment is not run here (minutes of
//! CPU); `docs/EXPERIMENTS.md` is.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Philly trace under `$PROXIMA_DATA` or `../shared/data`, or `None` after saying why
/// the test is skipped; with `PROXIMA_REQUIRE_DATA=1` a missing folder fails the test.
fn philly() -> Option<PathBuf> {
    let dir = std::env::var_os("PROXIMA_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    if dir.is_dir() {
        return Some(dir.join("philly/philly.csv"));
    }
    let missing = format!("../shared/data not found (looked in {}; set PROXIMA_DATA to its path)", dir.display());
    if std::env::var("PROXIMA_REQUIRE_DATA").is_ok_and(|v| v == "1") {
        panic!("{missing}, and PROXIMA_REQUIRE_DATA=1 requires it");
    }
    eprintln!("skipping: {missing}");
    None
}

fn proxima(args: &[&std::ffi::OsStr]) {
    let result = Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).output().expect("proxima runs");
    assert!(result.status.success(), "stderr: {}", String::from_utf8_lossy(&result.stderr));
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    all.sort();
    all
}

#[test]
fn quick_paper_experiment_writes_report_and_figures_and_redraws_them_from_its_json() {
    let Some(philly) = philly() else { return };
    let base = std::env::temp_dir().join(format!("proxima-experiment-test-{}", std::process::id()));
    let (two, redrawn) = (base.join("run"), base.join("redrawn"));
    let _ = std::fs::remove_dir_all(&base);
    let os = |s: &str| std::ffi::OsString::from(s);
    proxima(&[
        &os("experiment"),
        &os("paper"),
        &os("--quick"),
        &os("--threads"),
        &os("2"),
        &os("--out"),
        two.as_os_str(),
        &os("--philly"),
        philly.as_os_str(),
    ]);

    let md = std::fs::read_to_string(two.join("report.md")).unwrap();
    for part in [
        "## Summary: `dally` against each baseline",
        "### development workloads, `tcp` network",
        "### held-out workloads, `tcp` network",
        "### development workloads, `rdma` network",
        "### held-out workloads, `rdma` network",
        "## JCT distributions",
        "## Sweeps",
        "### rack-uplink oversubscription",
        "### checkpoint and restore cost",
        "## Oracle check of the auto-tuner",
        "## Who pays: fairness per policy and per tenant",
        "## Full tables",
        "makespan lower bound",
        "makespan ÷ bound",
        "bootstrap interval from 2000 paired resamples",
    ] {
        assert!(md.contains(part), "report.md lacks {part:?}");
    }

    let report: Value = serde_json::from_str(&std::fs::read_to_string(two.join("report.json")).unwrap()).unwrap();
    let scenarios = report["scenarios"].as_array().unwrap();
    let sets: Vec<&str> = scenarios.iter().map(|s| s["scenario"]["set"].as_str().unwrap()).collect();
    assert!(sets.contains(&"development") && sets.contains(&"held_out"));
    for s in scenarios {
        assert_eq!(s["scenario"]["seeds"].as_array().unwrap().len(), 3);
        let bound = s["bounds"]["makespan_s"]["min"].as_f64().unwrap();
        assert!(bound > 0.0);
        for row in s["rows"].as_array().unwrap() {
            assert!(row["values"]["makespan_s"]["min"].as_f64().unwrap() >= bound - 1e-6, "makespan beats its bound");
        }
        for c in s["comparisons"].as_array().unwrap() {
            let ci = &c["ratios"]["avg_jct_s"];
            let (r, lo, hi) =
                (ci["ratio"].as_f64().unwrap(), ci["low"].as_f64().unwrap(), ci["high"].as_f64().unwrap());
            assert!(lo <= r + 1e-12 && r <= hi + 1e-12, "{c}");
        }
    }
    // Finish-time fairness on every seed of the quick plan's Philly scenarios (several
    // tenants), none on the synthetic ones (one tenant); per tenant, preemptions that add up
    // to the runs'.
    for s in scenarios {
        let philly = s["scenario"]["trace"]["kind"] == "philly";
        for row in s["rows"].as_array().unwrap() {
            assert_eq!(row["rho_seeds"], if philly { 3 } else { 0 }, "{}", s["scenario"]["name"]);
            assert_eq!(row["values"].get("rho_max").is_some(), philly);
        }
        let Some(table) = s.get("tenants") else {
            assert!(!philly, "{}: a Philly scenario has a tenant table", s["scenario"]["name"]);
            continue;
        };
        assert!(philly);
        let tenants = table["tenants"].as_array().unwrap();
        assert!(tenants.len() > 1);
        for (k, policy) in table["policies"].as_array().unwrap().iter().enumerate() {
            let sum: f64 = tenants.iter().map(|t| t["preemptions"][k]["mean"].as_f64().unwrap()).sum();
            let row = s["rows"].as_array().unwrap().iter().find(|r| r["policy"] == *policy).unwrap();
            let total = row["values"]["preemptions"]["mean"].as_f64().unwrap();
            assert!((sum - total).abs() < 1e-6 * total.max(1.0), "{policy}: {sum} vs {total}");
        }
    }
    let parameters: Vec<&str> =
        report["sweeps"].as_array().unwrap().iter().map(|s| s["sweep"]["parameter"].as_str().unwrap()).collect();
    // Each sweep on each network.
    assert_eq!(parameters, ["oversub", "oversub", "restore_s", "restore_s"]);
    assert!(!report["oracles"].as_array().unwrap().is_empty());

    // Every embedded figure is an SVG beside the report, and every SVG is embedded.
    let svgs: Vec<(String, Vec<u8>)> = files(&two).into_iter().filter(|(name, _)| name.ends_with(".svg")).collect();
    assert_eq!(
        svgs.len(),
        14,
        "ratios per set and network (2 × 3), a CDF per chosen scenario (4), one per sweep (4): {:?}",
        svgs.iter().map(|s| &s.0).collect::<Vec<_>>()
    );
    for (name, bytes) in &svgs {
        assert!(md.contains(&format!("]({name})")), "report.md embeds {name}");
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"), "{name} is an SVG document");
        assert!(
            text.contains("<text") && text.contains("<polyline") || text.contains("<circle"),
            "{name} draws something"
        );
    }

    // The text and the figures are a function of report.json: redrawn from it, the same
    // files, byte for byte (and report.json itself reads back unchanged).
    let json = two.join("report.json");
    proxima(&[&os("experiment"), &os("paper"), &os("--from"), json.as_os_str(), &os("--out"), redrawn.as_os_str()]);
    assert_eq!(files(&redrawn), files(&two));

    // Gzipped, as docs/experiment keeps it in git, it redraws the same files (report.json
    // among them, unpacked byte for byte).
    let gz = base.join("report.json.gz");
    let mut packer = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut packer, &std::fs::read(&json).unwrap()).unwrap();
    std::fs::write(&gz, packer.finish().unwrap()).unwrap();
    let from_gz = base.join("from-gz");
    proxima(&[&os("experiment"), &os("paper"), &os("--from"), gz.as_os_str(), &os("--out"), from_gz.as_os_str()]);
    assert_eq!(files(&from_gz), files(&two));
    let _ = std::fs::remove_dir_all(&base);
}
