//! The Sia artifact's six clusters (`../shared/data/sia/<model>/placements-<cluster>.csv`):
//! each cluster's calibration gives the figures `docs/CALIBRATION.md` reports ("Calibrated on
//! the Sia clusters") and the fitted values its preset carries (`topology/presets_sia.rs`).
//! Without the data folder the test says so and passes; with `PROXIMA_REQUIRE_DATA=1` it
//! fails instead.

use crate::common;

use proxima_core::model::Catalog;
use proxima_core::topology::{sia_cluster, SIA_CLUSTERS};
use proxima_lab::calibrate::{calibrate_cluster, parse_placements, ClusterCalibration, ModelData, Sample, SIA_MODELS};

/// The figures of one cluster as the doc's table gives them (percent, one decimal), with the
/// node terms where the fit keeps them (`azure`): the
/// pooled in-sample median, the pooled held-out median, and each model's held-out median in
/// [`SIA_MODELS`] order.
struct Reported {
    cluster: &'static str,
    in_sample: f64,
    held_out: f64,
    held_out_per_model: [f64; 6],
}

const REPORTED: &[Reported] = &[
    Reported {
        cluster: "aws",
        in_sample: 6.3,
        held_out: 12.9,
        held_out_per_model: [16.8, 10.3, 13.8, 18.6, 7.4, 16.8],
    },
    Reported {
        cluster: "azure",
        in_sample: 13.8,
        held_out: 26.3,
        held_out_per_model: [40.1, 51.8, 22.6, 13.7, 24.0, 18.0],
    },
    Reported {
        cluster: "dgx",
        in_sample: 12.2,
        held_out: 20.1,
        held_out_per_model: [17.2, 28.4, 11.6, 28.0, 15.9, 31.9],
    },
    Reported {
        cluster: "dgx-ext",
        in_sample: 14.4,
        held_out: 24.0,
        held_out_per_model: [24.2, 29.3, 9.6, 25.2, 20.2, 53.1],
    },
    Reported {
        cluster: "quad",
        in_sample: 4.5,
        held_out: 13.9,
        held_out_per_model: [19.8, 4.1, 11.5, 14.6, 19.6, 14.0],
    },
    Reported {
        cluster: "rtx",
        in_sample: 4.9,
        held_out: 14.3,
        held_out_per_model: [10.7, 14.7, 14.6, 21.0, 13.7, 10.4],
    },
];

/// Whether the Sia tables are there: the data folder may predate them, so their folder
/// missing skips the test (with a message) unless `PROXIMA_REQUIRE_DATA=1`.
fn sia_present() -> bool {
    let Some(dir) = common::data_dir() else { return false };
    if dir.join("sia").is_dir() {
        return true;
    }
    let missing = format!("{} has no sia/ folder (the Sia artifact's placement tables)", dir.display());
    assert!(
        !std::env::var(common::REQUIRE_DATA).is_ok_and(|v| v == "1"),
        "{missing}, and {} requires it",
        common::REQUIRE_DATA
    );
    eprintln!("skipping: {missing}");
    false
}

/// The six tables of a cluster, or `None` (after saying why) without the data.
fn tables(cluster: &str) -> Option<Vec<Vec<Sample>>> {
    if !sia_present() {
        return None;
    }
    SIA_MODELS
        .iter()
        .map(|m| {
            let text = common::read_data(&format!("sia/{m}/placements-{cluster}.csv"))?;
            Some(parse_placements(&text).unwrap())
        })
        .collect()
}

fn calibrate(tables: &[Vec<Sample>]) -> ClusterCalibration {
    let catalog = Catalog::built_in();
    let models: Vec<ModelData> = SIA_MODELS
        .iter()
        .zip(tables)
        .map(|(m, samples)| ModelData {
            name: m,
            samples,
            grad_bytes: catalog.get(catalog.lookup(m).unwrap()).grad_bytes(),
        })
        .collect();
    calibrate_cluster(&models).unwrap()
}

/// Agrees with a figure printed to one decimal.
fn as_printed(value: f64, printed: f64) -> bool {
    (value - printed).abs() <= 0.05 + 1e-9
}

// One test per cluster, so that the six fits (each a leave-one-model-out over six models)
// run side by side on the test threads instead of one after another in a single test.
#[test]
fn the_reported_figures_name_every_sia_cluster() {
    let reported: Vec<&str> = REPORTED.iter().map(|r| r.cluster).collect();
    let presets: Vec<&str> = SIA_CLUSTERS.iter().map(|c| c.name).collect();
    assert_eq!(reported, presets);
}

#[test]
fn sia_cluster_aws_reproduces_its_reported_figures_and_preset() {
    reproduces_its_reported_figures_and_preset("aws");
}

#[test]
fn sia_cluster_azure_reproduces_its_reported_figures_and_preset() {
    reproduces_its_reported_figures_and_preset("azure");
}

#[test]
fn sia_cluster_dgx_reproduces_its_reported_figures_and_preset() {
    reproduces_its_reported_figures_and_preset("dgx");
}

#[test]
fn sia_cluster_dgx_ext_reproduces_its_reported_figures_and_preset() {
    reproduces_its_reported_figures_and_preset("dgx-ext");
}

#[test]
fn sia_cluster_quad_reproduces_its_reported_figures_and_preset() {
    reproduces_its_reported_figures_and_preset("quad");
}

#[test]
fn sia_cluster_rtx_reproduces_its_reported_figures_and_preset() {
    reproduces_its_reported_figures_and_preset("rtx");
}

fn reproduces_its_reported_figures_and_preset(cluster: &str) {
    let reported = REPORTED.iter().find(|r| r.cluster == cluster).expect("a reported cluster");
    let Some(tables) = tables(reported.cluster) else { return };
    let fit = calibrate(&tables);
    let name = reported.cluster;
    assert!(
        as_printed(fit.in_sample_pooled_median_pct, reported.in_sample),
        "{name}: {}",
        fit.in_sample_pooled_median_pct
    );
    assert!(as_printed(fit.loo_pooled_median_pct, reported.held_out), "{name}: {}", fit.loo_pooled_median_pct);
    for (m, (&got, &printed)) in SIA_MODELS.iter().zip(fit.loo_median_pct.iter().zip(&reported.held_out_per_model)) {
        assert!(as_printed(got, printed), "{name} {m}: held out {got}, reported {printed}");
    }
    // The preset carries the fit, to the four digits it keeps.
    let c = sia_cluster(name).unwrap();
    let close = |a: f64, b: f64| (a / b - 1.0).abs() < 5e-4;
    assert!(close(fit.all.intra_bytes_per_s, c.intra_bytes_per_s), "{name}: B_intra {}", fit.all.intra_bytes_per_s);
    assert!(close(fit.all.straggler, c.straggler), "{name}: sigma {}", fit.all.straggler);
    // The node terms: zero where the fit did not keep them, the fitted values where it did.
    for (got, carried, what) in
        [(fit.all.server_compute, c.server_compute, "kappa"), (fit.all.server_ring, c.server_ring, "lambda")]
    {
        assert!(got == carried || close(got, carried), "{name}: {what} {got}, preset {carried}");
    }
    match c.inter_bytes_per_s {
        Some(b) => assert!(close(fit.all.inter_bytes_per_s, b), "{name}: B_inter {}", fit.all.inter_bytes_per_s),
        None => assert_eq!(fit.multi_node_rows, 0, "{name}: the preset says the network was never measured"),
    }
}

#[test]
fn the_aws_tables_are_the_pollux_testbeds() {
    // The Sia artifact's 'aws' cluster is the Pollux testbed (Sia paper Sec. 4.2: "a cluster
    // of 16 t4 instances [40]"), and its tables are Pollux's, row for row.
    if !sia_present() {
        return;
    }
    for m in ["bert", "imagenet", "cifar10", "deepspeech2"] {
        let Some(sia) = common::read_data(&format!("sia/{m}/placements-aws.csv")) else { return };
        let Some(pollux) = common::read_data(&format!("pollux/placements/{m}.csv")) else { return };
        let key = |s: &Sample| (s.placement.clone(), s.local_bsz.to_bits(), s.step_s.to_bits(), s.sync_s.to_bits());
        let mut a: Vec<_> = parse_placements(&sia).unwrap().iter().map(key).collect();
        let mut b: Vec<_> = parse_placements(&pollux).unwrap().iter().map(key).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{m}");
    }
}
