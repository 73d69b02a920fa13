//! Pollux workloads: `name,time,application,num_replicas,batch_size`.
//!
//! The 160-job workloads of the Pollux (OSDI'21) simulator study name each job, its
//! submission second, its application, a GPU count and a global batch size, but no
//! duration: in the Pollux simulator a job trains its application for a fixed number of
//! epochs of *statistical progress*, so a job at a batch size far above the application's
//! reference batch needs more samples than one at the reference batch. Proxima does the same
//! through the application's [`TrainingProfile`] (`crate::efficiency`, fitted to the
//! artifact's progress traces):
//!
//! ```text
//! batch      = num_replicas × ceil(batch_size / num_replicas)     every replica gets as many samples
//! iterations = P · M0 / (batch · E(batch))                         E from the gradient noise scale
//! ```
//!
//! As in the Pollux simulator (`simulator/simulator.py`, `Job.update_local_bsz`), a batch
//! above the largest the application's progress traces cover is cut to the largest multiple
//! of `num_replicas` within it. The application becomes the model (`imagenet` is ResNet-50,
//! `cifar10` ResNet-18 on CIFAR-10, ...; the model catalogue knows these names), `num_replicas`
//! the GPU count, and the batch the job's [`TraceJob::batch`], from which resolution derives
//! the per-GPU batch and its compute time.

use super::gpu_count;
use super::{Trace, TraceFormat, TraceJob, TraceWork};
use crate::csv::{self, SeenIds, Table};
use crate::efficiency::{training_profile, TrainingProfile, POLLUX_APPLICATIONS};
use crate::error::InputError;

const HEADER: &str = "name,time,application,num_replicas,batch_size";
const REQUIRED: &[&str] = &["name", "time", "application", "num_replicas", "batch_size"];

/// The global batch a job of `gpus` replicas asking for `requested` samples per iteration
/// runs at: every replica gets `ceil(requested / gpus)`, within the largest batch the
/// application's progress traces cover when that leaves each replica at least one sample.
pub fn effective_batch(profile: &TrainingProfile, requested: u32, gpus: u32) -> u32 {
    let mut local = requested.div_ceil(gpus) as u64;
    let max_local = (profile.max_batch / gpus) as u64;
    if local * gpus as u64 > profile.max_batch as u64 && max_local >= 1 {
        local = max_local;
    }
    (local * gpus as u64).min(u32::MAX as u64) as u32
}

/// Parses a Pollux workload CSV; see `docs/FORMATS.md`.
pub fn parse(text: &str) -> Result<Trace, InputError> {
    let mut table = Table::new(text)?;
    let col = table.locate(REQUIRED, &[], true, HEADER)?;
    let mut seen = SeenIds::default();
    let mut jobs = Vec::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let line = row.line;
        let get = |name: &str| &*row.fields[col[name]];
        let name = get("name");
        seen.check(name, line).map_err(csv::at(line, "name"))?;
        let submit_s = csv::submit_seconds(get("time")).map_err(csv::at(line, "time"))?;
        let application = get("application");
        let profile = training_profile(application).ok_or_else(|| {
            let known: Vec<&str> = POLLUX_APPLICATIONS.iter().map(|a| a.name).collect();
            InputError::at_line(
                line,
                "application",
                format!(
                    "unknown application '{application}': Proxima knows how much work the Pollux applications {} do; use the Proxima CSV format for other jobs",
                    known.join(", ")
                ),
            )
        })?;
        let gpus = gpu_count(get("num_replicas")).map_err(csv::at(line, "num_replicas"))?;
        let requested = csv::batch_size(get("batch_size")).map_err(csv::at(line, "batch_size"))?;
        if requested < gpus {
            return Err(InputError::at_line(
                line,
                "batch_size",
                format!(
                    "a global batch of {requested} cannot be split over {gpus} replicas (each needs at least one sample)"
                ),
            ));
        }
        let batch = effective_batch(profile, requested, gpus);
        let iterations = profile.iterations(batch as f64);
        jobs.push(TraceJob {
            name: name.to_string(),
            submit_s,
            gpus,
            model: Some(application.to_string()),
            work: TraceWork::Iterations(iterations),
            batch: Some(batch),
            tenant: None,
            line,
        });
    }
    super::from_rows(TraceFormat::Pollux, jobs, table.header_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: &str) -> InputError {
        parse(&format!("{HEADER}\ncifar10-0,107,cifar10,6,2048\n{line}\n")).unwrap_err()
    }

    #[test]
    fn work_is_epochs_of_progress_at_the_batch_efficiency() {
        let t = parse(&format!(
            "{HEADER}\ncifar10-0,107,cifar10,6,2048\nbert-1,5,bert,2,12\nimagenet-2,9,imagenet,32,6400\n"
        ))
        .unwrap();
        assert_eq!(t.format, TraceFormat::Pollux);
        let j = &t.jobs[0];
        assert_eq!((j.name.as_str(), j.submit_s, j.gpus), ("cifar10-0", 107.0, 6));
        assert_eq!(j.model.as_deref(), Some("cifar10"));
        // 2,048 over 6 replicas: 342 each, 2,052 in all. φ̄ between 2,048 (5,070.5) and
        // 4,096 (5,125.0): 5,070.5 + 54.5 · 4 / 2,048.
        assert_eq!(j.batch, Some(2052));
        let phi = 5070.5 + 54.5 * 4.0 / 2048.0;
        let expected = 39_062.908 * 128.0 * (phi + 2052.0) / ((phi + 128.0) * 2052.0);
        let TraceWork::Iterations(it) = j.work else { panic!("{:?}", j.work) };
        assert!((it - expected).abs() < 1e-9, "{it} {expected}");
        // The Pollux simulator sums the same over 100 epochs of per-epoch statistics: 3,338.4
        // iterations (measured with the artifact); 37% more than 100 plain epochs (2,436.7).
        assert!((it - 3338.4).abs() < 0.5, "{it}");
        // At the reference batch, exactly the progress: two epochs of SQuAD at 12.
        assert_eq!(t.jobs[1].work, TraceWork::Iterations(14_774.0));
        // ImageNet at 6,400 (φ̄ = 15,582): 25,094 iterations in the artifact, not 18,016.
        let TraceWork::Iterations(it) = t.jobs[2].work else { panic!() };
        let expected = 576_525.59 * 200.0 * (15_582.0 + 6400.0) / ((15_582.0 + 200.0) * 6400.0);
        assert!((it - expected).abs() < 1e-9 && (it - 25_094.3).abs() < 1.0, "{it}");
    }

    #[test]
    fn batches_beyond_the_traced_range_are_cut_to_fit() {
        let cifar = training_profile("cifar10").unwrap();
        // 4,096 over 12: 342 each would be 4,104 > 4,096, so 341 each (the artifact's 4,092).
        assert_eq!(effective_batch(cifar, 4096, 12), 4092);
        assert_eq!(effective_batch(cifar, 4096, 16), 4096);
        assert_eq!(effective_batch(cifar, 1000, 3), 1002);
        // More replicas than the largest batch has samples: nothing to cut to.
        assert_eq!(effective_batch(training_profile("bert").unwrap(), 500, 400), 800);
    }

    #[test]
    fn bad_rows_name_line_and_field() {
        let cases = [
            ("a,soon,cifar10,1,128", "time", "expected a number, got 'soon'"),
            ("a,-1,cifar10,1,128", "time", "0 seconds or more"),
            ("a,1,mnist,1,128", "application", "unknown application 'mnist'"),
            ("a,1,cifar10,0,128", "num_replicas", "positive whole number"),
            ("a,1,cifar10,2.5,128", "num_replicas", "positive whole number"),
            ("a,1,cifar10,2,0", "batch_size", "positive whole number"),
            ("a,1,cifar10,2,many", "batch_size", "positive whole number, got 'many'"),
            ("a,1,cifar10,4,2", "batch_size", "cannot be split"),
            ("a,1,cifar10,4", "batch_size", "missing value"),
            ("a,1,cifar10,4,128,x", "column 6", "extra value"),
            ("cifar10-0,1,cifar10,4,128", "name", "duplicate job id 'cifar10-0': line 2"),
        ];
        for (line, field, what) in cases {
            let e = row(line);
            assert_eq!(e.line, Some(3), "{line}: {e}");
            assert_eq!(e.field, field, "{line}: {e}");
            assert!(e.message.contains(what), "{line}: {e}");
        }
    }

    #[test]
    fn header_only_and_missing_columns() {
        assert!(parse(&format!("{HEADER}\n")).unwrap_err().message.contains("no jobs"));
        let e = parse("name,time,application,num_replicas\nx,1,ncf,1\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(1), "batch_size"));
    }

    #[test]
    fn bom_crlf_spaces_and_quotes() {
        let text = format!("\u{feff}{HEADER}\r\n\"job, one\" , 7 , NCF ,1, \"32768\"\r\n\r\n");
        let t = parse(&text).unwrap();
        assert_eq!(t.jobs[0].name, "job, one");
        assert_eq!(t.jobs[0].model.as_deref(), Some("NCF"));
        // 10 epochs of NCF at 32,768: NCF's gradients are so noisy that the efficiency is
        // within 3% of 1 (the artifact runs 1,552 iterations, plain epochs 1,517).
        let TraceWork::Iterations(it) = t.jobs[0].work else { panic!() };
        assert!((it - 1552.0).abs() < 1.0, "{it}");
    }
}
