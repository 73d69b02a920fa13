//! Describing traces before they run: the synthetic generator's trace, and a trace file
//! read and checked against the cluster exactly as a run would read it, so that a trace
//! that cannot run is refused when it is loaded, with the CLI's message.

use super::run::read_trace_source;
use crate::protocol::{FileData, Problem, TracePreview, TraceSource};
use proxima_core::error::SourcedError;
use proxima_core::inputs::{
    build_scenario, build_topology, build_trace, synthetic_trace, ScenarioInput, TopologyInput,
};
use proxima_core::trace::synthetic::DEFAULT_SEED;
use proxima_core::trace::Trace;
use proxima_core::workload::tenant_name;
use std::collections::{BTreeMap, BTreeSet};

/// What a trace looks like: its format, size, GPU counts, time span and tenants.
pub fn preview_of(trace: &Trace) -> TracePreview {
    let mut histogram: BTreeMap<u32, u32> = BTreeMap::new();
    let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut tenants = BTreeSet::new();
    for j in &trace.jobs {
        tenants.insert(tenant_name(j));
        *histogram.entry(j.gpus).or_default() += 1;
        first = first.min(j.submit_s);
        last = last.max(j.submit_s);
    }
    TracePreview {
        format: trace.format.label().to_string(),
        jobs: trace.jobs.len() as u32,
        gpu_histogram: histogram.into_iter().collect(),
        span_s: if trace.jobs.is_empty() { 0.0 } else { last - first },
        tenants: tenants.len() as u32,
        hash: None,
    }
}

/// The synthetic trace `spec` (`synthetic:jobs=N,...[,tenants=T]`) makes for a cluster of
/// `gpus` GPUs: the core's function, as a run makes it.
pub fn preview_synthetic(spec: &str, gpus: u32) -> Result<TracePreview, Problem> {
    let trace = synthetic_trace(spec, gpus, DEFAULT_SEED).map_err(|e| SourcedError::new("trace", e))?;
    Ok(preview_of(&trace))
}

/// The short hash a link gives a trace file: the first 32 bits of FNV-1a (64 bits, as the
/// event-log hash) in hex. Eight hex digits tell a different file with near certainty and
/// keep the link readable; it guards against a mistake, not against forgery.
pub fn trace_hash(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", hash >> 32)
}

/// Reads a trace file as the CLI would (UTF-8, format detected from the header) and
/// builds the scenario a run would, so that a trace that cannot run on the cluster is
/// refused now, with the CLI's message, rather than when the run starts.
pub fn check_trace(topology: &TopologyInput, name: &str, data: &FileData) -> Result<TracePreview, Problem> {
    // Read once here, to hash the bytes a link will name (the run reads the file again).
    let bytes = data.read().map_err(|e| Problem::Message(format!("{name}: {e}")))?;
    let hash = trace_hash(&bytes);
    let trace = read_trace_source(&TraceSource::File {
        name: name.to_string(),
        data: FileData::Bytes(bytes.into_owned().into()),
    })?;
    let input = ScenarioInput::new(topology.clone(), trace, 1);
    build_scenario(&input)?;
    // The scenario does not keep the trace's format, so the preview reads the trace again
    // (in this worker, off the page).
    let cluster = build_topology(topology, input.names)?;
    let parsed = build_trace(&input.trace, &cluster, input.seed, input.names)?;
    Ok(TracePreview { hash: Some(hash), ..preview_of(&parsed) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_file_is_described_or_refused_with_the_clis_message() {
        let teaching = TopologyInput::Argument("teaching".into());
        let good = b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,30,4,vgg16,1200\nc,90,2,bert,900\n";
        let file = |bytes: &[u8]| FileData::Bytes(bytes.to_vec().into());
        let p = check_trace(&teaching, "good.csv", &file(good)).unwrap();
        assert_eq!((p.format.as_str(), p.jobs, p.span_s), ("Proxima CSV", 3, 90.0));
        assert_eq!(p.gpu_histogram, vec![(1, 1), (2, 1), (4, 1)]);
        let latin1 = b"id,submit_s,gpus,model,duration_s\nj\xe9,0,1,resnet50,600\n";
        let e = check_trace(&teaching, "latin1.csv", &file(latin1)).unwrap_err();
        assert!(e.to_string().starts_with("latin1.csv:2: encoding: not valid UTF-8"), "{e}");
        let unknown = b"id,submit_s,gpus,model,duration_s\na,0,1,lenet9,600\n";
        let Problem::Input(e) = check_trace(&teaching, "model.csv", &file(unknown)).unwrap_err() else {
            panic!("an input's problem says where it is")
        };
        assert_eq!((e.source.as_str(), e.line, e.field.as_str()), ("model.csv", Some(2), "model"));
        assert!(e.message.starts_with("unknown model 'lenet9'"), "{e}");
    }

    #[test]
    fn the_synthetic_preview_is_the_generators_trace() {
        let p = preview_synthetic("synthetic:jobs=50,load=1.5,seed=1", 16).unwrap();
        assert_eq!(p.jobs, 50);
        assert_eq!(p.gpu_histogram.iter().map(|h| h.1).sum::<u32>(), 50);
        assert!(preview_synthetic("synthetic:jobs=0", 16).is_err());
        assert_eq!(p.tenants, 1);
        let three = preview_synthetic("synthetic:jobs=50,load=1.5,seed=1,tenants=3", 16).unwrap();
        assert_eq!((three.jobs, three.tenants), (50, 3));
        assert_eq!(
            (three.gpu_histogram.clone(), three.span_s),
            (p.gpu_histogram.clone(), p.span_s),
            "tenants change no other draw"
        );
        let e = preview_synthetic("synthetic:jobs=50,tenants=16", 16).unwrap_err();
        assert_eq!(e.to_string(), "trace: tenants: expected a whole number of tenants from 1 to 15, got '16'");
    }
}
