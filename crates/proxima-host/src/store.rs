//! A sweep's output folder:
//!
//! ```text
//! DIR/runs/<run_id>/params.json      the run's inputs
//! DIR/runs/<run_id>/summary.json     written last: its presence means the run is done
//! DIR/runs/<run_id>/jobs.csv, timeseries.csv   on request
//! DIR/runs.csv, DIR/runs.parquet     the table, once every run is done
//! ```
//!
//! Every file is written to a temporary name and renamed, so an interrupted sweep leaves
//! either a finished run or none, and starting it again runs only what is missing. Two
//! writers of the same run (a task retried on another node) write the same bytes.

use crate::plan::{Plan, PlannedRun};
use crate::table::Table;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Store {
    dir: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes a file through a temporary name in the same folder, then renames it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()));
    std::fs::write(&temp, bytes).map_err(|e| format!("{}: cannot write: {e}", temp.display()))?;
    std::fs::rename(&temp, path).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

impl Store {
    pub fn open(dir: &Path) -> Result<Store, String> {
        let runs = dir.join("runs");
        std::fs::create_dir_all(&runs).map_err(|e| format!("{}: cannot create directory: {e}", runs.display()))?;
        Ok(Store { dir: dir.to_path_buf() })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn run_dir(&self, id: &str) -> PathBuf {
        self.dir.join("runs").join(id)
    }

    fn summary_path(&self, id: &str) -> PathBuf {
        self.run_dir(id).join("summary.json")
    }

    /// The summaries of the plan's runs that are done, by id.
    pub fn done(&self, plan: &Plan) -> Result<BTreeMap<String, String>, String> {
        let mut out = BTreeMap::new();
        for run in &plan.runs {
            let path = self.summary_path(&run.id);
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    out.insert(run.id.clone(), text);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
            }
        }
        Ok(out)
    }

    /// The runs still to do, in id order.
    pub fn pending<'p>(&self, plan: &'p Plan) -> Vec<&'p PlannedRun> {
        plan.runs.iter().filter(|r| !self.summary_path(&r.id).is_file()).collect()
    }

    /// Records a finished run: its inputs and files, the summary last.
    pub fn record(
        &self,
        run: &PlannedRun,
        summary_json: &str,
        jobs_csv: Option<&str>,
        timeseries_csv: Option<&str>,
    ) -> Result<(), String> {
        let dir = self.run_dir(&run.id);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot create directory: {e}", dir.display()))?;
        let i = &run.inputs;
        let params = serde_json::json!({
            "run_id": run.id,
            "topology": i.topology,
            "trace": i.trace,
            "policy": i.policy,
            "seed": i.seed,
            "skip": i.skip,
            "limit": i.limit,
            "mix": i.mix,
            "tenants": i.tenants,
            "rho": i.rho,
        });
        write_atomic(
            &dir.join("params.json"),
            (serde_json::to_string_pretty(&params).expect("json") + "\n").as_bytes(),
        )?;
        if let Some(jobs) = jobs_csv {
            write_atomic(&dir.join("jobs.csv"), jobs.as_bytes())?;
        }
        if let Some(ts) = timeseries_csv {
            write_atomic(&dir.join("timeseries.csv"), ts.as_bytes())?;
        }
        write_atomic(&dir.join("summary.json"), summary_json.as_bytes())
    }

    /// Writes `runs.csv` and `runs.parquet` from the recorded summaries; every run of the
    /// plan must be done.
    pub fn write_table(&self, plan: &Plan) -> Result<Table, String> {
        let done = self.done(plan)?;
        let table = Table::build(plan, &done)?;
        write_atomic(&self.dir.join("runs.csv"), table.to_csv().as_bytes())?;
        write_atomic(&self.dir.join("runs.parquet"), &crate::parquet_out::to_parquet(&table)?)?;
        Ok(table)
    }
}
