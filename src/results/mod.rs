//! A run in progress and the results of the last one (this file), and how the page shows
//! them: the metrics and their notes ([`summary`]), per tenant ([`tenants`]), the charts
//! ([`charts`]), and the views of them. The models (this file, [`summary`], [`tenants`])
//! are pure; the views (`*_view`, [`charts`], [`gain_source`], [`exports`], [`feedback`])
//! render them and never the other way round.

pub mod charts;
pub mod exports;
pub mod feedback;
pub mod gain_source;
pub mod summary;
pub mod summary_view;
pub mod tenants;
pub mod tenants_view;

use crate::protocol::{PolicyResult, RunRequest};
use crate::Shared;
use proxima_core::metrics::{result_dir_name, Summary};
use proxima_core::run_files::{compare_json, COMPARE_FILE};
use proxima_core::share::SharedScenario;
use proxima_core::topology::Topology;

/// Where a run is.
#[derive(Clone, Debug, PartialEq)]
pub enum RunState {
    Idle,
    Running { run_id: u32, policies: Vec<String>, current: u32, done: u32, total: u32 },
}

/// The results of the last run (complete or not).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub run_id: u32,
    /// The request the run was posted with: a what-if re-runs one of its policies.
    pub request: Option<RunRequest>,
    /// The policies asked for, in order.
    pub policies: Vec<String>,
    pub outcomes: Vec<Shared<PolicyResult>>,
    /// Every policy ran.
    pub finished: bool,
    /// The scenario the run used, for exports.
    pub scenario: Option<SharedScenario>,
    /// The cluster the run used, for playback.
    pub topology: Option<Shared<Topology>>,
    pub cancelled: bool,
    /// The lesson whose scenario the run used unchanged, if any (its id).
    pub lesson: Option<&'static str>,
    /// Where `dally`'s gain over `consolidate` comes from (the worker's ablation runs,
    /// after the results), for a run of both.
    pub gain_source: Option<Result<crate::protocol::GainSource, String>>,
    /// The run's notes and warnings (`worker::run_notes`), shown with the results.
    pub notes: Vec<String>,
}

impl Results {
    /// `compare.json` as the CLI writes it (the core's function), once every policy ran.
    pub fn compare_json(&self) -> Option<String> {
        if !self.finished {
            return None;
        }
        let summaries: Vec<Summary> = self.outcomes.iter().map(|o| o.summary.clone()).collect();
        Some(compare_json(&summaries))
    }
}

/// The folder the zip's files sit in, as `proxima compare --out results` would write them.
pub const ARCHIVE_DIR: &str = "results";

/// The name "Download all" saves the zip under.
pub const ARCHIVE_FILE: &str = "proxima-results.zip";

impl Results {
    /// The names and texts of every file of the run, as `proxima compare --out results`
    /// writes them (`compare.json` once every policy ran; each policy's folder), with each
    /// run's `event-hash.json` and, if given, `scenario.json`.
    pub fn files(&self, scenario_json: Option<String>) -> Result<Vec<(String, String)>, String> {
        let mut files = Vec::new();
        if let Some(compare) = self.compare_json() {
            files.push((format!("{ARCHIVE_DIR}/{COMPARE_FILE}"), compare));
        }
        for o in &self.outcomes {
            let dir = result_dir_name(&o.policy);
            let run = o.files()?;
            for (name, text) in run.named() {
                files.push((format!("{ARCHIVE_DIR}/{dir}/{name}"), text.to_string()));
            }
            files.push((format!("{ARCHIVE_DIR}/{dir}/event-hash.json"), event_hash_json(o)));
        }
        if let Some(text) = scenario_json {
            files.push((format!("{ARCHIVE_DIR}/scenario.json"), text));
        }
        Ok(files)
    }

    /// Every file of [`Results::files`] in one zip, stored uncompressed (the zip crate
    /// built without its compressors keeps the page's WebAssembly small; the browser's
    /// download is local, so size on the wire does not matter). Entries carry the zip
    /// format's earliest date, so the same results make the same bytes.
    pub fn archive(&self, scenario_json: Option<String>) -> Result<Vec<u8>, String> {
        use std::io::Write;
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .unix_permissions(0o644);
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, text) in self.files(scenario_json)? {
            zip.start_file(name.as_str(), options).map_err(|e| format!("{name}: {e}"))?;
            zip.write_all(text.as_bytes()).map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(zip.finish().map_err(|e| e.to_string())?.into_inner())
    }
}

/// `event-hash.json`: a run's event count and event-log hash, to compare with
/// `proxima run --events FILE` (which prints them) or another machine's run.
pub fn event_hash_json(r: &PolicyResult) -> String {
    let doc = serde_json::json!({
        "policy": r.policy,
        "events": r.event_count,
        "event_log_fnv1a64": r.event_hash,
        "definition": "FNV-1a (64 bits) over the lines \"TIME_US EVENT_JSON\\n\" of every event, in order",
    });
    serde_json::to_string_pretty(&doc).expect("serialises") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FromWorker;
    use std::io::Read;

    /// The introduction's runs, as the worker sends them.
    fn results() -> Results {
        let mut r = Results { finished: true, ..Results::default() };
        crate::worker::run_request(&crate::tour::request(1), &|| 0.0, &mut |m| {
            if let FromWorker::PolicyDone { result, .. } = m {
                r.policies.push(result.policy.clone());
                r.outcomes.push(Shared::new(*result));
            }
        });
        r
    }

    #[test]
    fn the_archive_holds_every_file_byte_for_byte_and_reads_back() {
        let r = results();
        let files = r.files(Some("{}\n".into())).unwrap();
        assert_eq!(files.len(), 1 + 4 * r.outcomes.len() + 1);
        let bytes = r.archive(Some("{}\n".into())).unwrap();
        assert_eq!(&bytes[..2], b"PK");
        assert_eq!(bytes, r.archive(Some("{}\n".into())).unwrap(), "the same results make the same zip");
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        assert_eq!(zip.len(), files.len());
        for (name, text) in &files {
            let mut entry = zip.by_name(name).unwrap();
            assert_eq!(entry.compression(), zip::CompressionMethod::Stored);
            let mut read = String::new();
            entry.read_to_string(&mut read).unwrap();
            assert!(read == *text, "{name} differs");
        }
        let first = result_dir_name(&r.outcomes[0].policy);
        assert!(files.iter().any(|f| f.0 == format!("results/{first}/jobs.csv")));
        assert!(files.iter().any(|f| f.0 == "results/compare.json"));
    }
}
