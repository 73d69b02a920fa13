//! A run's notes: what `proxima` prints before the results (`proxima_host::inputs::
//! trace_notices`, which the page cannot link), sent to the page ahead of the policies'
//! results so that it shows them with the run: trace rows left out, models whose compute
//! time on the cluster's GPU is an estimate scaled from another GPU, and submit times far
//! beyond the rest of the trace (`workload::submit_outliers`), whose gap the makespan, and
//! so the utilisation, then covers.

use proxima_core::error::SourcedError;
use proxima_core::scenario::Scenario;
use proxima_core::workload::submit_outliers;
use std::collections::BTreeSet;

/// The run's notes, each starting `note: ` or `warning: ` as the CLI's do.
pub fn run_notes(scenario: &Scenario) -> Vec<String> {
    let skipped = scenario.trace_skipped.iter().map(|s| {
        format!(
            "note: {}: {} left out (the first on line {})",
            scenario.trace_label,
            s.reason.count(s.rows),
            s.first_line
        )
    });
    let estimated: BTreeSet<String> = scenario
        .jobs
        .iter()
        .map(|j| scenario.catalog.get(j.model))
        .filter_map(|m| {
            m.estimate.as_ref().map(|e| format!("note: {} on {}: compute time {}", m.name, m.gpu, e.label()))
        })
        .collect();
    let outliers = submit_outliers(&scenario.jobs)
        .into_iter()
        .map(|w| format!("warning: {}", SourcedError::new(scenario.trace_label.as_str(), w)));
    skipped.chain(estimated).chain(outliers).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{RunRequest, TraceSource};
    use crate::worker::build_request_scenario;
    use proxima_core::inputs::TopologyInput;

    fn notes(topology: &str, trace: TraceSource) -> Vec<String> {
        let request = RunRequest {
            run_id: 1,
            topology: TopologyInput::Argument(topology.into()),
            trace,
            seed: 1,
            mix: None,
            policies: vec!["fifo".into()],
        };
        run_notes(&build_request_scenario(&request).unwrap())
    }

    #[test]
    fn a_submit_time_far_beyond_the_rest_is_warned_with_its_job_and_line() {
        let mut csv = String::from("id,submit_s,gpus,model,duration_s\n");
        for i in 0..20 {
            let submit = if i == 17 { 1e9 } else { 600.0 * i as f64 };
            csv.push_str(&format!("{i},{submit},2,resnet50,3600\n"));
        }
        let file = TraceSource::File {
            name: "jobs.csv".into(),
            data: crate::protocol::FileData::Bytes(csv.into_bytes().into()),
        };
        let notes = notes("racks=2,servers=2,gpus=4", file);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("warning: jobs.csv:19: submit: job 17 is submitted at 1000000000 s"),
            "{}",
            notes[0]
        );
        // Nothing to say of the generator's trace on the page's first cluster.
        let synthetic = TraceSource::Synthetic("synthetic:jobs=50,load=0.8".into());
        assert_eq!(self::notes("racks=2,servers=2,gpus=4", synthetic), Vec::<String>::new());
    }

    #[test]
    fn models_whose_compute_time_is_estimated_are_noted_once_each() {
        let mix = "synthetic:jobs=40,load=0.8".to_string();
        let mut request = RunRequest {
            run_id: 1,
            topology: TopologyInput::Argument("racks=2,servers=2,gpus=4,gpu=t4".into()),
            trace: TraceSource::Synthetic(mix),
            seed: 1,
            mix: Some("vgg16,resnet50".into()),
            policies: vec!["fifo".into()],
        };
        let notes = run_notes(&build_request_scenario(&request).unwrap());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("note: vgg16 on T4: compute time estimated from A100 x "), "{}", notes[0]);
        request.mix = Some("resnet50".into());
        assert!(run_notes(&build_request_scenario(&request).unwrap()).is_empty(), "resnet50 is measured on T4");
    }
}
