//! The topology readers on the real topology in `../shared/data` (skipped, with a message,
//! when the folder is absent). The expected numbers were counted with `cut | sort -u` on
//! the file, independently of Proxima.

use crate::common;

use proxima_core::inputs::read_lingjun_file;
use proxima_core::topology::formats::LingjunOptions;
use proxima_core::topology::Topology;

#[test]
fn lingjun_builds_the_production_clos() {
    let Some(text) = common::read_data("lingjun/topo.csv") else { return };
    let spec = read_lingjun_file("topo.csv", &text, &LingjunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let count = |role: &str| spec.switches.iter().filter(|s| s.role.as_deref() == Some(role)).count();
    // 847 hosts under 119 ToRs (the distinct PSW,ASW pairs; 48 distinct ASW names), 3
    // aggregation switches (P8, P10, P12) and one core switch (G6).
    assert_eq!((spec.servers.len(), count("tor"), count("agg"), count("core")), (847, 119, 3, 1));
    let topo = Topology::from_spec(&spec).unwrap();
    assert_eq!(topo.gpu_count(), 6_776);
    assert_eq!(topo.tier_names(), ["server", "rack", "pod", "cluster"]);
    // Full bisection at the default 200 Gbit/s host link: an aggregation switch's uplink
    // carries its hosts' links (P10 has 362 hosts, P12 306, P8 179).
    let uplink = |id: &str| spec.links.iter().find(|l| l.a == id).map(|l| l.bandwidth_gbps);
    assert_eq!(
        (uplink("G6/P10"), uplink("G6/P12"), uplink("G6/P8")),
        (Some(362.0 * 200.0), Some(306.0 * 200.0), Some(179.0 * 200.0))
    );
}
