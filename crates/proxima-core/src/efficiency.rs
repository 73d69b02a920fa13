//! Statistical efficiency: how much training progress a sample buys at a given batch size.
//!
//! Data-parallel SGD at a large global batch `M` averages more samples per step, so each
//! step makes more progress, but less than `M / M0` times as much as a step at a small
//! reference batch `M0`. Pollux (Qiao et al., *Pollux: Co-adaptive Cluster Scheduling for
//! Goodput-Optimized Deep Learning*, OSDI 2021, §3.1), after McCandlish et al. (*An Empirical
//! Model of Large-Batch Training*, 2018), measures this with the *gradient noise scale*
//! `φ = tr(Σ) / |g|²` (in samples, with `Σ` the per-sample gradient covariance and `g` the
//! true gradient) and defines the statistical efficiency of batch `M` relative to `M0` as
//!
//! ```text
//! E(M) = (φ + M0) / (φ + M)
//! ```
//!
//! the progress one sample makes at batch `M` as a fraction of what it makes at `M0`. A job
//! that must make `P` iterations' worth of progress at `M0` therefore runs
//! `P · M0 / (M · E(M))` iterations at batch `M`.
//!
//! **The effective noise scale.** `φ` changes during training (it grows as the gradient
//! shrinks). Progress traces record it per epoch (`grad_sqr` = |g|², `grad_var` = the
//! gradient variance at the reference batch, so `φ_e = M0 · grad_var / grad_sqr`). For a job
//! that keeps one batch size until it finishes, only one number matters: summing
//! `ΔP_e / E_e(M)` over the epochs gives exactly `P · (φ̄ + M) / (φ̄ + M0)` with
//!
//! ```text
//! 1 / (φ̄ + M0) = Σ_e w_e / (φ_e + M0),     w_e = ΔP_e / P (epoch e's share of the progress)
//! ```
//!
//! so a [`TrainingProfile`] stores `φ̄`, not the per-epoch series. The noise scale also
//! depends on the batch a run trained at (a larger batch follows another trajectory), so the
//! profile keeps one `φ̄` per batch size that was traced and interpolates linearly in batch
//! size between them, as the Pollux simulator interpolates its per-epoch statistics; outside
//! the traced range it holds the nearest value. [`fit_training`] derives a profile from
//! progress traces; `tests/efficiency.rs` re-derives the built-in ones from the data and
//! checks them.
//!
//! The built-in profiles ([`POLLUX_APPLICATIONS`]) are the six applications of the Pollux
//! artifact (petuum/adaptdl, branch `osdi21-artifact`, `simulator/traces/<app>/validation-*.csv`,
//! Apache-2.0), each trained for the artifact's `max_epochs` (`simulator/applications.py`).

use crate::csv::{self, Table};
use crate::error::InputError;
use serde::Serialize;

/// `E(M) = (φ + M0) / (φ + M)`: the progress per sample at batch `batch`, relative to the
/// progress per sample at `reference_batch`, for gradient noise scale `noise_scale` (samples).
pub fn efficiency(noise_scale: f64, reference_batch: f64, batch: f64) -> f64 {
    (noise_scale + reference_batch) / (noise_scale + batch)
}

/// How much training a task needs and how its progress per sample falls with the batch size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TrainingProfile {
    /// The task's name, e.g. `cifar10` (a Pollux application; the model catalogue knows it).
    pub name: &'static str,
    /// `M0`: the batch size progress is counted at (the smallest batch traced).
    pub reference_batch: u32,
    /// The largest batch size traced; larger batches extrapolate.
    pub max_batch: u32,
    /// Epochs of statistical progress the task trains for.
    pub epochs: u32,
    /// `P`: progress after `epochs` epochs, in iterations at the reference batch.
    pub progress: f64,
    /// `(batch size, φ̄)`: the effective gradient noise scale, in samples, of a run at each
    /// traced batch size, increasing in batch size.
    pub noise_scale: &'static [(u32, f64)],
}

impl TrainingProfile {
    /// `φ̄` at `batch`: linear between the traced batch sizes, the nearest value outside them.
    pub fn noise_scale_at(&self, batch: f64) -> f64 {
        let table = self.noise_scale;
        let (first, last) = (table[0], table[table.len() - 1]);
        if batch <= first.0 as f64 {
            return first.1;
        }
        for pair in table.windows(2) {
            let ((b0, p0), (b1, p1)) = ((pair[0].0 as f64, pair[0].1), (pair[1].0 as f64, pair[1].1));
            if batch <= b1 {
                return p0 + (p1 - p0) * (batch - b0) / (b1 - b0);
            }
        }
        last.1
    }

    /// `E(batch)` relative to the reference batch.
    pub fn efficiency_at(&self, batch: f64) -> f64 {
        efficiency(self.noise_scale_at(batch), self.reference_batch as f64, batch)
    }

    /// Samples the task processes at global batch `batch` to make its progress:
    /// `P · M0 / E(batch)`.
    pub fn samples(&self, batch: f64) -> f64 {
        self.progress * self.reference_batch as f64 / self.efficiency_at(batch)
    }

    /// Iterations (optimizer steps) at global batch `batch`.
    pub fn iterations(&self, batch: f64) -> f64 {
        self.samples(batch) / batch
    }
}

/// The six applications of the Pollux OSDI'21 artifact (petuum/adaptdl, branch
/// `osdi21-artifact`). `epochs` is `max_epochs` of `simulator/applications.py`; the
/// reference and largest batch sizes are the smallest and largest of
/// `simulator/traces/<app>/validation-<batch>.csv`; `progress` and the noise scales were
/// derived from those traces by [`fit_training`] (`docs/CALIBRATION.md`, "Statistical
/// efficiency"), rounded to five significant digits.
///
/// - `bert`: BERT-base fine-tuned on SQuAD v1.1 (7,387 iterations of 12 per epoch).
/// - `cifar10`: ResNet-18 on CIFAR-10's 50,000 images (390.6 iterations of 128 per epoch).
/// - `deepspeech2`: DeepSpeech2 on CMU-ARCTIC (about 357 iterations of 20 per epoch).
/// - `imagenet`: ResNet-50 on ImageNet-1k's 1,281,167 images (6,405.8 iterations of 200).
/// - `ncf`: NeuMF on MovieLens-1M with four sampled negatives per positive (19,417 of 256).
/// - `yolov3`: YOLOv3 on PASCAL VOC 2007+2012, 16,551 images (2,069 iterations of 8).
pub const POLLUX_APPLICATIONS: &[TrainingProfile] = &[
    TrainingProfile {
        name: "bert",
        reference_batch: 12,
        max_batch: 384,
        epochs: 2,
        progress: 14_774.0,
        noise_scale: &[(12, 617.11), (24, 1675.8), (48, 2429.2), (96, 3323.1), (192, 9276.4), (384, 11_954.0)],
    },
    TrainingProfile {
        name: "cifar10",
        reference_batch: 128,
        max_batch: 4096,
        epochs: 100,
        progress: 39_062.908,
        noise_scale: &[(128, 2039.1), (256, 2806.4), (512, 4198.6), (1024, 4663.7), (2048, 5070.5), (4096, 5125.0)],
    },
    TrainingProfile {
        name: "deepspeech2",
        reference_batch: 20,
        max_batch: 640,
        epochs: 80,
        progress: 28_536.0,
        noise_scale: &[(20, 465.92), (40, 624.9), (80, 756.28), (160, 1008.9), (320, 1068.9), (640, 1087.4)],
    },
    TrainingProfile {
        name: "imagenet",
        reference_batch: 200,
        max_batch: 12_800,
        epochs: 90,
        progress: 576_525.59,
        noise_scale: &[
            (200, 8156.8),
            (400, 11_732.0),
            (800, 13_070.0),
            (1600, 15_079.0),
            (3200, 15_658.0),
            (6400, 15_582.0),
            (12_800, 19_386.0),
        ],
    },
    // NCF's gradients are so noisy (φ̄ far above every batch size) that its efficiency stays
    // within 3% of 1 at every traced batch; the scatter of φ̄ between batches is noise.
    TrainingProfile {
        name: "ncf",
        reference_batch: 256,
        max_batch: 32_768,
        epochs: 10,
        progress: 194_174.0,
        noise_scale: &[
            (256, 174_980.0),
            (512, 5_174_600.0),
            (1024, 271_560.0),
            (2048, 1_188_500.0),
            (4096, 980_240.0),
            (8192, 355_760.0),
            (16_384, 860_190.0),
            (32_768, 1_410_000.0),
        ],
    },
    TrainingProfile {
        name: "yolov3",
        reference_batch: 8,
        max_batch: 512,
        epochs: 50,
        progress: 103_443.98,
        noise_scale: &[
            (8, 232.86),
            (16, 229.44),
            (32, 228.63),
            (64, 230.21),
            (128, 230.87),
            (256, 231.03),
            (512, 234.5),
        ],
    },
];

/// The built-in profile of `name` (case and surrounding spaces ignored).
pub fn training_profile(name: &str) -> Option<&'static TrainingProfile> {
    let wanted = name.trim().to_ascii_lowercase();
    POLLUX_APPLICATIONS.iter().find(|p| p.name == wanted)
}

// ---------------------------------------------------------------------------------------
// Deriving a profile from progress traces.
// ---------------------------------------------------------------------------------------

/// One epoch of a progress trace (`progress,iteration,metric,grad_sqr,grad_var`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EpochRow {
    /// Progress at the end of the epoch, in iterations at the reference batch.
    pub progress: f64,
    /// `|g|²` measured during the epoch.
    pub grad_sqr: f64,
    /// Gradient variance during the epoch, at the reference batch.
    pub grad_var: f64,
}

/// Reads a progress trace: one row per epoch with (at least) `progress`, `grad_sqr` and
/// `grad_var`. Errors name the line and the column.
pub fn parse_progress_trace(text: &str) -> Result<Vec<EpochRow>, InputError> {
    const HEADER: &str = "progress,iteration,metric,grad_sqr,grad_var";
    let mut table = Table::new(text)?;
    let col = table.locate(&["progress", "grad_sqr", "grad_var"], &[], true, HEADER)?;
    let mut rows = Vec::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let line = row.line;
        let number = |name: &'static str, zero_ok: bool| -> Result<f64, InputError> {
            let value = &*row.fields[col[name]];
            match csv::number(value) {
                Ok(x) if x > 0.0 || (zero_ok && x == 0.0) => Ok(x),
                Ok(_) => {
                    let what = if zero_ok { "zero or a positive number" } else { "a positive number" };
                    Err(InputError::at_line(line, name, format!("expected {what}, got '{value}'")))
                }
                Err(what) => Err(InputError::at_line(line, name, what)),
            }
        };
        let progress = number("progress", false)?;
        if rows.last().is_some_and(|prev: &EpochRow| progress < prev.progress) {
            return Err(InputError::at_line(line, "progress", "progress goes down from the previous epoch"));
        }
        // The estimator clamps |g|² at zero when the noise swamps it (DeepSpeech2 at batch 20
        // late in training): an infinite noise scale, efficiency 1 at every batch.
        let (grad_sqr, grad_var) = (number("grad_sqr", true)?, number("grad_var", true)?);
        if grad_sqr == 0.0 && grad_var == 0.0 {
            return Err(InputError::at_line(line, "grad_var", "grad_sqr and grad_var are both zero"));
        }
        rows.push(EpochRow { progress, grad_sqr, grad_var });
    }
    if rows.is_empty() {
        return Err(InputError::at_line(table.header_line, "header", "no epochs: the file has a header but no rows"));
    }
    Ok(rows)
}

/// A profile derived by [`fit_training`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FittedTraining {
    pub reference_batch: u32,
    pub max_batch: u32,
    pub epochs: u32,
    /// `P`, in iterations at the reference batch.
    pub progress: f64,
    /// `(batch size, φ̄)`, increasing in batch size.
    pub noise_scale: Vec<(u32, f64)>,
}

/// Derives a training profile from progress traces at several batch sizes, for `epochs`
/// epochs. As in the Pollux simulator, the reference batch is the smallest traced batch and
/// epoch `e` ends at the least progress any trace reports for it; each trace's per-epoch
/// noise scales then give its `φ̄` (see the module documentation). Fails, naming the
/// `field` as `batch <B>`, if a trace is shorter than `epochs`.
pub fn fit_training(traces: &[(u32, Vec<EpochRow>)], epochs: u32) -> Result<FittedTraining, InputError> {
    let mut traces: Vec<&(u32, Vec<EpochRow>)> = traces.iter().collect();
    traces.sort_by_key(|t| t.0);
    if traces.is_empty() || epochs == 0 {
        return Err(InputError::new("traces", "needs at least one progress trace and one epoch"));
    }
    if traces.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(InputError::new("traces", "two traces have the same batch size"));
    }
    for (batch, rows) in &traces {
        if rows.len() < epochs as usize {
            return Err(InputError::new(
                format!("batch {batch}"),
                format!("the trace has {} epochs, fewer than the {epochs} asked for", rows.len()),
            ));
        }
    }
    let reference = traces[0].0 as f64;
    // Epoch e (1-based) ends at the least progress any run reached by then.
    let milestones: Vec<f64> =
        (0..epochs as usize).map(|e| traces.iter().map(|t| t.1[e].progress).fold(f64::INFINITY, f64::min)).collect();
    let progress = milestones[epochs as usize - 1];
    let noise_scale = traces
        .iter()
        .map(|(batch, rows)| {
            let mut harmonic = 0.0;
            let mut before = 0.0;
            for (e, &end) in milestones.iter().enumerate() {
                let weight = (end - before) / progress;
                // 1 / (φ + M0) with φ = M0 · var / sqr, written so that sqr = 0 (φ infinite)
                // gives 0.
                let (sqr, var) = (rows[e].grad_sqr, rows[e].grad_var);
                harmonic += weight * sqr / (reference * (var + sqr));
                before = end;
            }
            (*batch, 1.0 / harmonic - reference)
        })
        .collect();
    Ok(FittedTraining {
        reference_batch: traces[0].0,
        max_batch: traces[traces.len() - 1].0,
        epochs,
        progress,
        noise_scale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efficiency_by_hand() {
        // φ = 1,000 samples, M0 = 100: at M = 100 every sample counts fully; at M = 1,900
        // a sample counts 1,100 / 2,900.
        assert_eq!(efficiency(1000.0, 100.0, 100.0), 1.0);
        assert_eq!(efficiency(1000.0, 100.0, 1900.0), 1100.0 / 2900.0);
        // A noise-free gradient (φ = 0) gains nothing from a larger batch: efficiency M0 / M.
        assert_eq!(efficiency(0.0, 100.0, 400.0), 0.25);
    }

    const TOY: TrainingProfile = TrainingProfile {
        name: "toy",
        reference_batch: 100,
        max_batch: 900,
        epochs: 1,
        progress: 1000.0,
        noise_scale: &[(100, 500.0), (900, 1300.0)],
    };

    #[test]
    fn iterations_grow_with_the_batch_size_as_efficiency_falls() {
        // At the reference batch: exactly the progress.
        assert_eq!(TOY.iterations(100.0), 1000.0);
        // At 900: φ̄ = 1,300, E = 1,400 / 2,200; samples = 1,000 · 100 · 2,200 / 1,400.
        let samples = 1000.0 * 100.0 * 2200.0 / 1400.0;
        assert!((TOY.samples(900.0) - samples).abs() < 1e-6);
        assert!((TOY.iterations(900.0) - samples / 900.0).abs() < 1e-9);
        // Halfway in batch size, halfway in noise scale; outside, the nearest value.
        assert_eq!(TOY.noise_scale_at(500.0), 900.0);
        assert_eq!(TOY.noise_scale_at(50.0), 500.0);
        assert_eq!(TOY.noise_scale_at(5000.0), 1300.0);
    }

    #[test]
    fn the_effective_noise_scale_reproduces_the_per_epoch_sum() {
        // Two epochs of 300 and 700 progress; noise scales 100 and 900 at M0 = 100 (so
        // grad_var / grad_sqr = 1 and 9). Summing epoch by epoch at M = 500:
        //   300 / E(100) + 700 / E(900) with E(φ) = (φ + 100) / (φ + 500), in M0-iterations,
        // must equal the one-number form 1,000 · (φ̄ + 500) / (φ̄ + 100).
        let rows = vec![
            EpochRow { progress: 300.0, grad_sqr: 2.0, grad_var: 2.0 },
            EpochRow { progress: 1000.0, grad_sqr: 1.0, grad_var: 9.0 },
        ];
        let fit = fit_training(&[(100, rows.clone()), (500, rows)], 2).unwrap();
        assert_eq!((fit.reference_batch, fit.max_batch, fit.progress), (100, 500, 1000.0));
        let phi = fit.noise_scale[1].1;
        let per_epoch = 300.0 * (100.0 + 500.0) / (100.0 + 100.0) + 700.0 * (900.0 + 500.0) / (900.0 + 100.0);
        let one_number = 1000.0 * (phi + 500.0) / (phi + 100.0);
        assert!((per_epoch - one_number).abs() < 1e-9, "{per_epoch} {one_number}");
        // 1 / (φ̄ + 100) = 0.3 / 200 + 0.7 / 1,000 = 0.0022.
        assert!((phi - (1.0 / 0.0022 - 100.0)).abs() < 1e-9);
    }

    #[test]
    fn a_gradient_lost_in_noise_counts_as_infinite_noise_scale() {
        // Epoch 2 has |g|² = 0: its samples count fully at any batch, so only epoch 1
        // (half the progress, φ = M0 = 10) lowers the efficiency: 1 / (φ̄ + 10) = 0.5 / 20.
        let rows = vec![
            EpochRow { progress: 5.0, grad_sqr: 1.0, grad_var: 1.0 },
            EpochRow { progress: 10.0, grad_sqr: 0.0, grad_var: 3.0 },
        ];
        let fit = fit_training(&[(10, rows)], 2).unwrap();
        assert_eq!(fit.noise_scale, vec![(10, 30.0)]);
        assert!(parse_progress_trace("progress,iteration,metric,grad_sqr,grad_var\n1,1,0,0.0,2\n").is_ok());
    }

    #[test]
    fn milestones_are_the_least_progress_of_any_trace() {
        let a = vec![EpochRow { progress: 10.0, grad_sqr: 1.0, grad_var: 1.0 }];
        let b = vec![EpochRow { progress: 8.0, grad_sqr: 1.0, grad_var: 1.0 }];
        let fit = fit_training(&[(64, a), (32, b)], 1).unwrap();
        assert_eq!((fit.reference_batch, fit.progress), (32, 8.0));
        // φ = M0 · 1 = 32 in every epoch of every trace: φ̄ = 32.
        assert_eq!(fit.noise_scale, vec![(32, 32.0), (64, 32.0)]);
    }

    #[test]
    fn bad_traces_name_line_and_field() {
        let e = parse_progress_trace("progress,iteration,metric,grad_sqr,grad_var\n1,1,0.5,-1,1\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "grad_sqr"));
        let e = parse_progress_trace("progress,iteration,metric,grad_sqr,grad_var\n1,1,0.5,0,0\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "grad_var"));
        let e =
            parse_progress_trace("progress,iteration,metric,grad_sqr,grad_var\n5,1,0,1,1\n4,2,0,1,1\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(3), "progress"));
        let e = parse_progress_trace("progress,grad_sqr\n1,1\n").unwrap_err();
        assert_eq!(e.field, "grad_var");
        let row = EpochRow { progress: 1.0, grad_sqr: 1.0, grad_var: 1.0 };
        let e = fit_training(&[(8, vec![row])], 2).unwrap_err();
        assert_eq!(e.field, "batch 8");
    }

    #[test]
    fn built_in_profiles_are_well_formed() {
        for p in POLLUX_APPLICATIONS {
            assert_eq!(p.noise_scale[0].0, p.reference_batch, "{}", p.name);
            assert_eq!(p.noise_scale[p.noise_scale.len() - 1].0, p.max_batch, "{}", p.name);
            assert!(p.noise_scale.windows(2).all(|w| w[0].0 < w[1].0), "{}", p.name);
            assert!(p.noise_scale.iter().all(|&(_, phi)| phi > 0.0) && p.progress > 0.0, "{}", p.name);
            // No batch above the reference makes more progress per sample. (A larger batch
            // may need fewer samples than a smaller one that is still above the reference:
            // BERT at 192 needs 0.6% fewer than at 96, as measured.)
            for &(b, _) in p.noise_scale {
                assert!(p.samples(b as f64) >= p.progress * p.reference_batch as f64, "{} at {b}", p.name);
            }
        }
        assert_eq!(training_profile(" CIFAR10 ").unwrap().epochs, 100);
        assert!(training_profile("mnist").is_none());
    }
}
