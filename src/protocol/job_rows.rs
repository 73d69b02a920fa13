//! A run's per-job rows (the core's `JobRow`, the rows of `jobs.csv`) packed for the trip
//! to the page. A run can have 200,000 jobs: as one JavaScript object each, the page would
//! spend longer reading them back than the run took, so they cross as bytes (transferred)
//! and the page unpacks them only when it needs them: to export `jobs.csv`, or for the
//! tour's facts.

use super::Bytes;
use crate::codec::{put_opt_f64, put_opt_u64, put_str, put_u64, Reader};
use proxima_core::metrics::JobRow;
use proxima_core::scenario::JobStatus;
use proxima_core::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The encoding's version, the first byte.
const VERSION: u8 = 2;

/// Per-job rows, packed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobRows(pub Bytes);

const STATUSES: [JobStatus; 5] =
    [JobStatus::Future, JobStatus::Queued, JobStatus::Running, JobStatus::Completed, JobStatus::Rejected];

impl JobRows {
    /// Packs rows. Model and tier names, a handful per run, go once in a table.
    pub fn pack(rows: &[JobRow]) -> JobRows {
        let mut names: BTreeMap<&str, u64> = BTreeMap::new();
        for r in rows {
            for name in [r.model.as_str(), r.tenant.as_str()].into_iter().chain(r.tier.as_deref()) {
                let next = names.len() as u64;
                names.entry(name).or_insert(next);
            }
        }
        let mut table: Vec<(&str, u64)> = names.iter().map(|(n, i)| (*n, *i)).collect();
        table.sort_by_key(|e| e.1);
        let mut b = Vec::with_capacity(16 + rows.len() * 40);
        b.push(VERSION);
        put_u64(&mut b, table.len() as u64);
        for (name, _) in &table {
            put_str(&mut b, name);
        }
        put_u64(&mut b, rows.len() as u64);
        for r in rows {
            put_u64(&mut b, r.id as u64);
            put_str(&mut b, &r.name);
            b.push(STATUSES.iter().position(|s| *s == r.status).expect("every status is listed") as u8);
            put_u64(&mut b, r.submit.0);
            for t in [r.start, r.end, r.jct] {
                put_opt_u64(&mut b, t.map(|t| t.0));
            }
            put_u64(&mut b, r.queue.0);
            put_u64(&mut b, r.gpus as u64);
            put_u64(&mut b, names[r.model.as_str()]);
            put_opt_u64(&mut b, r.tier.as_deref().map(|t| names[t]));
            put_u64(&mut b, r.placements as u64);
            put_u64(&mut b, r.preemptions as u64);
            put_opt_f64(&mut b, r.ideal_s);
            put_u64(&mut b, r.run.0);
            put_opt_f64(&mut b, r.slowdown);
            put_u64(&mut b, names[r.tenant.as_str()]);
            put_opt_f64(&mut b, r.rho);
        }
        JobRows(b.into())
    }

    /// The rows; an error says what is wrong with damaged bytes.
    pub fn unpack(&self) -> Result<Vec<JobRow>, String> {
        let mut r = Reader::new(&self.0);
        let version = r.u8()?;
        if version != VERSION {
            return Err(format!("job rows version {version}, expected {VERSION}"));
        }
        let n = r.len(r.remaining())?;
        let table = (0..n).map(|_| r.str()).collect::<Result<Vec<String>, String>>()?;
        let name = |i: u64| table.get(i as usize).cloned().ok_or_else(|| format!("no name number {i}"));
        let count = r.len(r.remaining())?;
        let mut rows = Vec::with_capacity(count);
        for _ in 0..count {
            let id = r.u32()?;
            let job_name = r.str()?;
            let status = *STATUSES.get(r.u8()? as usize).ok_or("an unknown job status")?;
            let submit = SimTime(r.u64()?);
            let (start, end, jct) = (r.opt_u64()?, r.opt_u64()?, r.opt_u64()?);
            rows.push(JobRow {
                id,
                name: job_name,
                status,
                submit,
                start: start.map(SimTime),
                end: end.map(SimTime),
                jct: jct.map(SimTime),
                queue: SimTime(r.u64()?),
                gpus: r.u32()?,
                model: name(r.u64()?)?,
                tier: r.opt_u64()?.map(name).transpose()?,
                placements: r.u32()?,
                preemptions: r.u32()?,
                ideal_s: r.opt_f64()?,
                run: SimTime(r.u64()?),
                slowdown: r.opt_f64()?,
                tenant: name(r.u64()?)?,
                rho: r.opt_f64()?,
            });
        }
        if r.remaining() != 0 {
            return Err(format!("{} bytes left over after the job rows", r.remaining()));
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
    use proxima_core::metrics::job_rows;
    use proxima_core::policy::resolve_policy;
    use proxima_core::Simulation;

    #[test]
    fn rows_of_a_real_run_round_trip_and_damage_is_an_error() {
        let input = ScenarioInput::new(
            TopologyInput::Argument("teaching".into()),
            TraceInput::Synthetic("synthetic:jobs=300,load=1.6,seed=4".into()),
            2,
        );
        let mut sim = Simulation::new(build_scenario(&input).unwrap(), resolve_policy("dally").unwrap());
        sim.step_until(SimTime(40_000_000_000));
        // Mid-run: queued, running and completed jobs, with and without tiers and slowdowns.
        let rows = job_rows(sim.scenario(), sim.runs());
        let statuses: std::collections::BTreeSet<String> = rows.iter().map(|r| format!("{:?}", r.status)).collect();
        assert!(statuses.len() >= 3, "{statuses:?}");
        let packed = JobRows::pack(&rows);
        assert_eq!(packed.unpack().unwrap(), rows);
        // The point of the encoding is to move fewer bytes than the CSV the page used to
        // parse: less than half of jobs.csv for the same rows (44% on this run).
        let csv = proxima_core::metrics::jobs_csv_of(&rows).len();
        assert!(packed.0.len() * 2 < csv, "{} bytes for {} rows, jobs.csv {csv}", packed.0.len(), rows.len());
        for cut in [0, 1, 5, packed.0.len() / 2, packed.0.len() - 1] {
            assert!(JobRows(packed.0[..cut].to_vec().into()).unpack().is_err(), "cut at {cut}");
        }
    }
}
