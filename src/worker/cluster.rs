//! The "your cluster" what-if in the worker: the lab's `run_what_if` on the operator's
//! cluster and history, one scenario per seed built through the core's one path from
//! inputs to a scenario (as `proxima what-if` builds them), then the report's table for
//! the page and its Markdown and self-contained HTML, rendered here, off the page.

use super::history_text;
use crate::protocol::{ClusterReport, ClusterWhatIf, FromWorker, Problem, ReportRow};
use proxima_core::error::SourcedError;
use proxima_core::inputs::{build_scenario, ScenarioInput, TraceInput};
use proxima_lab::what_if::{html, incomplete_caution, markdown, run_what_if, WhatIfPlan, WhatIfReport};

/// Seconds a required topology level holds in the scheduler's fixed timed variant: the
/// default of `proxima what-if --timer` (Slurm's `max_switch_wait` default).
pub const TIMER_S: f64 = 300.0;

/// Runs the what-if, telling the page as each seed's runs begin.
pub fn cluster_what_if(request: &ClusterWhatIf, send: &mut dyn FnMut(FromWorker)) -> Result<ClusterReport, Problem> {
    let plan = WhatIfPlan {
        scheduler: request.scheduler.clone(),
        timer_s: TIMER_S,
        seeds: request.seeds,
        topology_label: request.topology_label(),
        trace_label: request.history_name.clone(),
    };
    let text = history_text(&request.history_name, &request.history)?;
    let (id, total) = (request.id, request.seeds as u32);
    let mut scenario_of = |seed: u64| {
        send(FromWorker::ClusterProgress { id, done: seed as u32 - 1, total });
        let trace = TraceInput::File { name: request.history_name.clone(), text: text.clone() };
        build_scenario(&ScenarioInput::new(request.topology.clone(), trace, seed)).map_err(Problem::from)
    };
    let policy_error = |e| Problem::from(SourcedError::new("scheduler", e));
    let report = run_what_if(&plan, &mut scenario_of, &policy_error)?;
    Ok(ClusterReport {
        topology: plan.topology_label,
        history: plan.trace_label,
        scheduler: report.scheduler.clone(),
        seeds: report.seeds as u32,
        rows: rows(&report),
        caution: incomplete_caution(&report),
        markdown: markdown(&report),
        html: html(&report),
    })
}

/// The page's table: each policy's mean JCT and its ratio to the configured scheduler's.
fn rows(report: &WhatIfReport) -> Vec<ReportRow> {
    report
        .policies
        .iter()
        .map(|p| ReportRow {
            policy: p.spec.clone(),
            mean_jct_s: p.jct.mean,
            ratio: p.jct_ratio.as_ref().and_then(|r| r.ratio),
            ratio_low: p.jct_ratio.as_ref().map_or(f64::NAN, |r| r.low),
            ratio_high: p.jct_ratio.as_ref().map_or(f64::NAN, |r| r.high),
            mean_queue_s: p.queue.mean,
            preemptions: p.fragmentation.preemptions.mean,
            unplaced: p.unplaced.mean,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FileData;
    use proxima_core::inputs::TopologyInput;

    /// Kueue's documented TAS cluster: 8 workers of 8 GPUs, 4 racks in 2 blocks.
    const KUEUE: &str = include_str!("../../tests/fixtures/kueue/cluster.yaml");

    const HISTORY: &str = "id,submit_s,gpus,model,duration_s,tenant
j1,0,8,resnet50,1800,vision
j2,60,16,bert,3600,nlp
j3,120,1,resnet50,600,vision
j4,300,4,vgg16,1200,vision
j5,420,8,bert,2400,nlp
j6,600,2,resnet50,900,speech
";

    fn request(history: &str, scheduler: &str) -> ClusterWhatIf {
        ClusterWhatIf {
            id: 7,
            topology: TopologyInput::Kueue {
                name: "cluster.yaml".into(),
                text: KUEUE.into(),
                options: Default::default(),
            },
            history_name: "jobs.csv".into(),
            history: FileData::Bytes(history.as_bytes().to_vec().into()),
            scheduler: scheduler.into(),
            seeds: 2,
        }
    }

    #[test]
    fn the_what_if_reports_the_scheduler_against_its_variants_and_dally() {
        let mut sent = Vec::new();
        let report = cluster_what_if(&request(HISTORY, "kueue-tas"), &mut |m| sent.push(m)).unwrap();
        let progress = [
            FromWorker::ClusterProgress { id: 7, done: 0, total: 2 },
            FromWorker::ClusterProgress { id: 7, done: 1, total: 2 },
        ];
        assert_eq!(sent, progress, "one message as each seed's runs begin");
        let policies: Vec<&str> = report.rows.iter().map(|r| r.policy.as_str()).collect();
        assert_eq!(policies, ["kueue-tas", "kueue-tas:evict=on", "dally", "dally:order=las"]);
        assert_eq!(report.rows[0].ratio, None, "the configured scheduler is the baseline");
        assert!(report.rows[1..].iter().all(|r| r.ratio.is_some_and(|x| x > 0.0)), "{:?}", report.rows);
        assert!(report.rows.iter().all(|r| r.mean_jct_s > 0.0), "{:?}", report.rows);
        assert_eq!((report.topology.as_str(), report.history.as_str(), report.seeds), ("cluster.yaml", "jobs.csv", 2));
        assert!(report.html.contains("<table") && report.html.contains("dally:order=las"));
        assert!(report.markdown.contains("kueue-tas:evict=on"));
    }

    #[test]
    fn a_scheduler_option_the_cluster_lacks_is_named() {
        let e = cluster_what_if(&request(HISTORY, "kueue-tas:preferred=nowhere"), &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("nowhere"), "{e}");
    }
}
