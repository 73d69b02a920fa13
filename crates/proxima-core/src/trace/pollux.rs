//! Pollux workloads: `name,time,application,num_replicas,batch_size`.
//!
//! The 160-job workloads of the Pollux (OSDI'21) simulator study name each job, its
//! submission second, its application, a GPU count and a global batch size, but no
//! duration: in the Pollux simulator a job runs until it has trained its application for
//! a fixed number of epochs. Proxima turns that into a number of iterations:
//!
//! ```text
//! iterations = ceil(epochs × samples per epoch ÷ batch_size)
//! ```
//!
//! with the per-application figures of [`APPLICATIONS`], taken from the Pollux artifact
//! (see there). The application becomes the model (`imagenet` is ResNet-50, `cifar10`
//! ResNet-18 on CIFAR-10, ...; the model catalogue knows these names) and `num_replicas`
//! the GPU count.
//!
//! The Pollux simulator also models *statistical efficiency*: a larger batch makes less
//! progress per sample, so its jobs at large batch sizes need somewhat more than `epochs`
//! passes. Proxima does not model that; at the batch sizes the workloads fix, its jobs do
//! exactly `epochs` passes over the data.

use super::csv::{self, SeenIds, Table};
use super::{Trace, TraceFormat, TraceJob, TraceWork};
use crate::error::InputError;

const HEADER: &str = "name,time,application,num_replicas,batch_size";
const REQUIRED: &[&str] = &["name", "time", "application", "num_replicas", "batch_size"];

/// How much training each Pollux application does: (application, epochs, samples per epoch).
///
/// Epochs are `max_epochs` of `simulator/applications.py` in petuum/adaptdl, branch
/// `osdi21-artifact`, where a job completes after that many epochs. Samples per epoch are
/// the training-set sizes behind the artifact's validation traces
/// (`simulator/traces/<app>/validation-<batch>.csv`, whose `progress` column counts
/// iterations at a reference batch size: progress per epoch × that batch = samples):
///
/// - `bert`: SQuAD v1.1 fine-tuning, 88,641 sequences of 384 tokens (7,387 iterations per
///   epoch at batch 12 in `validation-12.csv`); 2 epochs.
/// - `cifar10`: CIFAR-10's 50,000 training images (390.6 progress per epoch at the
///   reference batch 128 in `validation-256.csv`); 100 epochs.
/// - `deepspeech2`: CMU-ARCTIC utterances; the artifact does not state the count. About
///   7,135 per epoch: progress 28,538.6 after 80 epochs at the reference batch of 20
///   (`validation-160.csv`), consistent with its ~45 iterations per epoch at batch 160.
///   This one figure is an estimate, good to about 1%; 80 epochs.
/// - `imagenet`: ImageNet-1k's 1,281,167 training images (6,405.8 iterations per epoch at
///   batch 200 in `validation-200.csv`); 90 epochs.
/// - `ncf`: MovieLens-1M as NeuMF trains on it, 994,169 positive pairs with 4 sampled
///   negatives each = 4,970,845 pairs (19,418 iterations per epoch at batch 256 in
///   `validation-256.csv`); 10 epochs.
/// - `yolov3`: PASCAL VOC 2007+2012 trainval, 16,551 images (2,069 iterations per epoch at
///   batch 8 in `validation-8.csv`); 50 epochs.
pub const APPLICATIONS: &[(&str, u32, u64)] = &[
    ("bert", 2, 88_641),
    ("cifar10", 100, 50_000),
    ("deepspeech2", 80, 7_135),
    ("imagenet", 90, 1_281_167),
    ("ncf", 10, 4_970_845),
    ("yolov3", 50, 16_551),
];

/// The samples a job of `application` processes in all, or `None` for an application the
/// Pollux artifact does not have.
pub fn samples_to_train(application: &str) -> Option<u64> {
    let wanted = application.trim().to_ascii_lowercase();
    APPLICATIONS.iter().find(|(name, _, _)| *name == wanted).map(|&(_, epochs, per_epoch)| epochs as u64 * per_epoch)
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
        let samples = samples_to_train(application).ok_or_else(|| {
            let known: Vec<&str> = APPLICATIONS.iter().map(|a| a.0).collect();
            InputError::at_line(
                line,
                "application",
                format!(
                    "unknown application '{application}': Proxima knows how much work the Pollux applications {} do; use the Proxima CSV format for other jobs",
                    known.join(", ")
                ),
            )
        })?;
        let gpus = csv::gpu_count(get("num_replicas")).map_err(csv::at(line, "num_replicas"))?;
        let batch = csv::positive_whole(get("batch_size"), csv::MAX_COUNT).map_err(csv::at(line, "batch_size"))?;
        if batch < gpus as f64 {
            return Err(InputError::at_line(
                line,
                "batch_size",
                format!(
                    "a global batch of {batch} cannot be split over {gpus} replicas (each needs at least one sample)"
                ),
            ));
        }
        let iterations = libm::ceil(samples as f64 / batch);
        jobs.push(TraceJob {
            name: name.to_string(),
            submit_s,
            gpus,
            model: Some(application.to_string()),
            work: TraceWork::Iterations(iterations),
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
    fn work_is_epochs_of_samples_over_the_batch() {
        let t = parse(&format!(
            "{HEADER}\ncifar10-0,107,cifar10,6,2048\nbert-1,5,bert,2,12\nimagenet-2,9,imagenet,16,6400\n"
        ))
        .unwrap();
        assert_eq!(t.format, TraceFormat::Pollux);
        let j = &t.jobs[0];
        assert_eq!((j.name.as_str(), j.submit_s, j.gpus), ("cifar10-0", 107.0, 6));
        assert_eq!(j.model.as_deref(), Some("cifar10"));
        // 100 epochs of 50,000 images in batches of 2,048: 2,441.4 -> 2,442 iterations.
        assert_eq!(j.work, TraceWork::Iterations(2442.0));
        // Two epochs of SQuAD at batch 12: the artifact's own count is 14,774.
        assert_eq!(t.jobs[1].work, TraceWork::Iterations(14_774.0));
        // 90 epochs of ImageNet at 6,400: 18,016.4 -> 18,017.
        assert_eq!(t.jobs[2].work, TraceWork::Iterations(18_017.0));
    }

    #[test]
    fn every_application_has_work() {
        for (name, epochs, per_epoch) in APPLICATIONS {
            assert!(*epochs > 0 && *per_epoch > 0, "{name}");
            assert_eq!(samples_to_train(&name.to_uppercase()), Some(*epochs as u64 * per_epoch));
        }
        assert_eq!(samples_to_train("mnist"), None);
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
        // 10 epochs of 4,970,845 pairs at 32,768: 1,516.98 -> 1,517.
        assert_eq!(t.jobs[0].work, TraceWork::Iterations(1517.0));
    }
}
