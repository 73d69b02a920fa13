//! The robustness experiment's sizes against the data they were derived from: each Philly
//! family's cluster per load, recomputed from `philly.csv`, and the Lingjun slices of the
//! grid, cut from `topo.csv`.

use crate::common::read_data;
use proxima_lab::experiment::robust::grid::{families, Jobs};
use proxima_lab::experiment::robust::lingjun_slice::{slice_text, slice_topology, tor_sizes};
use proxima_lab::experiment::robust::sizing::{offered_gpus, servers_for_load};
use proxima_lab::experiment::robust::{robust_plan, RobustPlan};
use proxima_lab::experiment::ScenarioSet;
use std::collections::BTreeSet;

#[test]
fn philly_clusters_are_sized_from_the_trace() {
    let Some(text) = read_data("philly/philly.csv") else { return };
    let trace = proxima_core::trace::parse_trace(&text).unwrap();
    let mut checked = 0;
    for f in families() {
        let Jobs::Philly { first_job, window_jobs, windows } = f.jobs else { continue };
        let spans: Vec<(u32, u32)> = (0..windows).map(|k| (first_job + k * window_jobs, window_jobs)).collect();
        let offered = offered_gpus(&trace, &spans);
        for &(load, servers) in &f.servers {
            assert_eq!(servers, servers_for_load(offered, load), "{} at {load} ({offered:.1} GPUs offered)", f.name);
            // The load the size gives is within half a rack of the one asked for.
            let actual = offered / (servers * 8) as f64;
            assert!((actual - load).abs() / load < 0.1, "{} at {load}: {actual:.2}", f.name);
            checked += 1;
        }
    }
    assert_eq!(checked, 6, "two Philly families, three loads each");
}

#[test]
fn lingjun_slices_keep_the_production_shape() {
    let Some(text) = read_data("lingjun/topo.csv") else { return };
    let plans: [RobustPlan; 2] =
        [robust_plan(ScenarioSet::Development, false), robust_plan(ScenarioSet::HeldOut, false)];
    let hosts: BTreeSet<u32> = plans
        .iter()
        .flat_map(|p| p.cells.iter())
        .filter_map(|c| match c.cluster {
            proxima_lab::experiment::robust::grid::Cluster::Lingjun { hosts, .. } => Some(hosts),
            _ => None,
        })
        .collect();
    assert!(hosts.len() >= 3, "{hosts:?}");
    for h in hosts {
        let sliced = slice_text(&text, h).unwrap();
        let sizes = tor_sizes(&sliced).unwrap();
        let pods: BTreeSet<&str> = sizes.keys().map(|k| k.split('/').next().unwrap()).collect();
        assert_eq!(pods.len(), 3, "{h} hosts: ToRs from each pod");
        assert_eq!(sizes.values().sum::<u32>(), h);
        let (small, large) = (sizes.values().min().unwrap(), sizes.values().max().unwrap());
        assert!(small < large, "{h} hosts: ToRs of different sizes ({sizes:?})");
        let topology = slice_topology("topo.csv", &text, h, "fabric=roce").unwrap();
        assert_eq!(topology.gpu_count(), h * 8);
    }
}
