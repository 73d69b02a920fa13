//! The files of a run — `summary.json`, `jobs.csv`, `timeseries.csv` — and `compare.json`
//! over several runs, made in one place so that the CLI, the web app and the Python package
//! write the same bytes by construction.
//!
//! A finished run is first taken down as data ([`RunRecord`]: the summary, one row a job,
//! the time series), which can cross a worker boundary or be kept; the files are made from
//! that record only when someone exports them.

use crate::engine::Simulation;
use crate::metrics::{job_rows, jobs_csv_of, timeseries_csv_of, Bucket, JobRow, Summary};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Buckets in `timeseries.csv`: enough for a smooth chart, small enough to open anywhere.
pub const TIMESERIES_BUCKETS: u32 = 500;

/// The file names, as a run's result directory holds them.
pub const SUMMARY_FILE: &str = "summary.json";
pub const JOBS_FILE: &str = "jobs.csv";
pub const TIMESERIES_FILE: &str = "timeseries.csv";
/// The comparison of several runs, in the directory above theirs.
pub const COMPARE_FILE: &str = "compare.json";

/// What a run's files hold, as data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub summary: Summary,
    /// One row a job, in job order.
    pub jobs: Vec<JobRow>,
    /// [`TIMESERIES_BUCKETS`] equal intervals of the makespan (fewer for a makespan of fewer
    /// microseconds).
    pub timeseries: Vec<Bucket>,
}

impl RunRecord {
    /// The record of a run, with its summary computed here.
    pub fn of(sim: &Simulation) -> RunRecord {
        RunRecord::with_summary(sim, sim.summary())
    }

    /// The record of a run whose summary the caller already has (from
    /// [`Simulation::run`]).
    pub fn with_summary(sim: &Simulation, summary: Summary) -> RunRecord {
        let end = SimTime::from_secs_f64(summary.makespan_s);
        RunRecord {
            jobs: job_rows(sim.scenario(), sim.runs()),
            timeseries: sim.timeline().bucketed(end, TIMESERIES_BUCKETS),
            summary,
        }
    }

    /// The three files.
    pub fn files(&self) -> RunFiles {
        RunFiles {
            summary_json: summary_json(&self.summary),
            jobs_csv: jobs_csv_of(&self.jobs),
            timeseries_csv: timeseries_csv_of(&self.timeseries, self.summary.gpus),
        }
    }
}

/// The text of a run's three files, exactly as `proxima run --out` writes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunFiles {
    pub summary_json: String,
    pub jobs_csv: String,
    pub timeseries_csv: String,
}

impl RunFiles {
    /// The files of a run, with its summary computed here.
    pub fn of(sim: &Simulation) -> RunFiles {
        RunRecord::of(sim).files()
    }

    /// The files of a run whose summary the caller already has.
    pub fn with_summary(sim: &Simulation, summary: &Summary) -> RunFiles {
        RunRecord::with_summary(sim, summary.clone()).files()
    }

    /// Each file's name and text, in the order the CLI lists them.
    pub fn named(&self) -> [(&'static str, &str); 3] {
        [
            (SUMMARY_FILE, self.summary_json.as_str()),
            (JOBS_FILE, self.jobs_csv.as_str()),
            (TIMESERIES_FILE, self.timeseries_csv.as_str()),
        ]
    }
}

/// `summary.json`: the summary as pretty JSON, with a final newline.
pub fn summary_json(summary: &Summary) -> String {
    summary.to_json() + "\n"
}

/// `compare.json`: the summaries of several runs on one scenario, in the order run.
pub fn compare_json(summaries: &[Summary]) -> String {
    serde_json::to_string_pretty(summaries).expect("summaries serialise") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
    use crate::metrics::{jobs_csv, timeseries_csv};
    use crate::policy::resolve_policy;

    fn finished(policy: &str) -> Simulation {
        let input = ScenarioInput::new(
            TopologyInput::Argument("teaching".into()),
            TraceInput::Synthetic("synthetic:jobs=60,load=1.2".into()),
            3,
        );
        let mut sim = Simulation::new(build_scenario(&input).unwrap(), resolve_policy(policy).unwrap());
        sim.run();
        sim
    }

    #[test]
    fn the_files_are_those_of_the_metrics_functions() {
        let sim = finished("dally");
        let files = RunFiles::of(&sim);
        let summary = sim.summary();
        assert_eq!(files.summary_json, summary.to_json() + "\n");
        assert_eq!(files.jobs_csv, jobs_csv(sim.scenario(), sim.runs()));
        let end = SimTime::from_secs_f64(summary.makespan_s);
        assert_eq!(files.timeseries_csv, timeseries_csv(sim.timeline(), end, summary.gpus, TIMESERIES_BUCKETS));
        assert_eq!(files.timeseries_csv.lines().count(), 1 + TIMESERIES_BUCKETS as usize);
        assert_eq!(files.jobs_csv.lines().count(), 61);
        assert_eq!(files.named().map(|(name, _)| name), ["summary.json", "jobs.csv", "timeseries.csv"]);
    }

    #[test]
    fn a_record_crosses_a_serde_boundary_and_gives_the_same_bytes() {
        let sim = finished("consolidate");
        let record = RunRecord::of(&sim);
        let json = serde_json::to_string(&record).unwrap();
        let back: RunRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.files(), RunFiles::of(&sim));
        let summaries = vec![record.summary.clone(), finished("fifo").summary()];
        let compare = compare_json(&summaries);
        assert_eq!(serde_json::from_str::<Vec<Summary>>(&compare).unwrap(), summaries);
        assert!(compare.starts_with("[\n  {\n    \"policy\": \"consolidate"), "{compare}");
    }
}
