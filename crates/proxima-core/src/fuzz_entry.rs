//! Entry points for the fuzzers (`fuzz/`) and for the replay of their corpus as ordinary
//! tests (`tests/integration/fuzz_corpus.rs`): each takes arbitrary bytes and must never panic, hang or
//! allocate without bound, whatever the bytes are. Errors are fine; they are the point.

use crate::model::Catalog;
use crate::policy::resolve_policy;
use crate::scenario::Scenario;
use crate::topology::formats::{read_slurm_topology, SlurmOptions};
use crate::topology::{resolve_topology_arg, Topology, TopologySpec};
use crate::trace::parse_trace;
use crate::workload::{ModelMix, WorkloadOptions};

/// Traces small enough to simulate in a fuzzing iteration.
const SIMULATE_UP_TO_JOBS: usize = 64;

/// A trace in any format; when it parses and is small, it is also resolved on a small
/// cluster and simulated under two policies.
pub fn trace(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(trace) = parse_trace(text) else { return };
    if trace.jobs.len() > SIMULATE_UP_TO_JOBS {
        return;
    }
    let topology = resolve_topology_arg("teaching").expect("a preset");
    let catalog = Catalog::built_in();
    let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let Ok(scenario) = Scenario::from_trace(topology, &trace, &options, "fuzz") else { return };
    // Durations from a fuzzer can be astronomically long; the engine must still finish, in
    // as many steps as there are events, not as much simulated time.
    for policy in ["consolidate", "dally"] {
        let mut sim = crate::engine::Simulation::new(scenario.clone(), resolve_policy(policy).expect("known"));
        let summary = sim.run();
        assert_eq!(summary.jobs_completed + summary.jobs_rejected, summary.jobs_total, "{policy}");
    }
}

/// A topology JSON file; when it is valid, its export must read back to the same cluster.
pub fn topology_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(spec) = TopologySpec::from_json(text) else { return };
    let Ok(topo) = Topology::from_spec(&spec) else { return };
    let again = Topology::from_spec(&TopologySpec::from_json(&topo.spec().to_json()).expect("exports parse"))
        .expect("exports are valid");
    assert_eq!(again.gpu_count(), topo.gpu_count());
    assert_eq!(again.tier_names(), topo.tier_names());
}

/// A Slurm `topology.conf`. Whatever the reader accepts must be a valid cluster, since its
/// own checks (with lines) are meant to leave nothing for [`Topology::from_spec`] to refuse
/// (without one); and its export must read back to the same cluster. The file is read with
/// 256 GPUs per node, which limits it to 4,096 nodes (larger ones are refused before their
/// ranges are expanded, and expanding them would only slow the fuzzer down), and built with
/// one GPU per node, which keeps building cheap.
pub fn slurm(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let options = SlurmOptions { gpus: 256, ..SlurmOptions::default() };
    let Ok(read) = read_slurm_topology(text, &options) else { return };
    let mut spec = read.spec;
    assert!(spec.servers.len() <= 4096);
    spec.servers.iter_mut().for_each(|s| s.gpus = 1);
    let topo =
        Topology::from_spec(&spec).unwrap_or_else(|e| panic!("the Slurm reader accepted an invalid cluster: {e}"));
    assert_eq!(topo.gpu_count() as usize, spec.servers.len());
    let again = Topology::from_spec(&TopologySpec::from_json(&topo.spec().to_json()).expect("exports parse"))
        .expect("exports are valid");
    assert_eq!(again, topo);
}

/// A topology argument: a preset name or a parametric spec.
pub fn topology_arg(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = resolve_topology_arg(text);
}

/// A policy spec `NAME[:key=value,...]`; when it resolves, its canonical spec must resolve
/// to the same policy.
pub fn policy(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(p) = resolve_policy(text) else { return };
    let canonical = p.spec();
    let again = resolve_policy(&canonical).expect("canonical specs resolve");
    assert_eq!(again.spec(), canonical);
}

/// A share link's code. Decoding must never panic, and whatever decodes must encode to a
/// code that decodes to the same scenario. The bytes are also tried as the JSON inside a
/// code with a correct checksum, which the fuzzer could hardly forge on its own, so that
/// the checks behind the checksum are fuzzed too.
pub fn share(data: &[u8]) {
    use crate::share::{base64url_encode, decode, encode};
    let mut codes = Vec::new();
    if let Ok(text) = std::str::from_utf8(data) {
        codes.push(text.to_string());
    }
    let mut forged = data.to_vec();
    let mut sum: u32 = 0x811c_9dc5;
    for &b in data {
        sum = (sum ^ b as u32).wrapping_mul(0x0100_0193);
    }
    forged.extend_from_slice(&sum.to_be_bytes());
    codes.push(format!("1.{}", base64url_encode(&forged)));
    for code in codes {
        if let Ok(scenario) = decode(&code) {
            let again = encode(&scenario);
            assert_eq!(decode(&again).as_ref(), Ok(&scenario), "{again}");
        }
    }
}
