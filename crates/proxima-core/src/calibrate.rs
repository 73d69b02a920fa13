//! Calibrating the communication model against measured step times, and measuring its error.
//!
//! The input is a placements table in the format the Pollux artifact records (petuum/adaptdl
//! `osdi21-artifact`, `simulator/traces/<model>/placements.csv`): one row per measured
//! configuration of one model,
//!
//! ```text
//! placement,local_bsz,step_time,sync_time
//! 1,4,0.455,0.0137          one GPU, local batch 4
//! 22,8,1.98,1.21            two GPUs on each of two nodes
//! ```
//!
//! where `placement` lists the GPUs used on each node, `step_time` is the wall time of one
//! optimizer step and `sync_time` the part of it spent waiting for the gradient all-reduce
//! after the local backward pass ended (the exposed exchange plus any wait for slower
//! replicas).
//!
//! The model is the one the simulator runs ([`crate::comm`]), per row:
//!
//! ```text
//! c     = c0 + c1 · b                                  compute on one GPU, local batch b
//! T     = 2(N−1)/N · τ_t + 2(N−1) · α_t                 t = intra if one node, else inter
//! step  = c(1 + σ(N^¼ − 1)) + max(0, T − ov · c(1 + σ(N^¼ − 1)))
//! sync  = step − c                                     comparable to the table's sync_time
//! ```
//!
//! `τ_t = S / B_t` is the time to push the gradient once through tier `t`'s ring bottleneck,
//! so a file calibrates without knowing the model's size `S`; with `S` the bandwidths follow.
//! The latencies `α` are fixed (0.01 ms and 0.05 ms): with gradients of tens of megabytes
//! and at most 16 GPUs the data cannot tell them from zero.
//!
//! Three fits, all minimising the mean squared log error `mean(ln²(pred / measured))` of
//! `step_time` (relative, symmetric, scale-free):
//! - [`calibrate_file`]: one file on its own ("Mode B" of the calibration study): compute
//!   curve by closed-form weighted least squares on the single-GPU rows, then a grid over
//!   `ov` and `σ`; for each grid point the loss separates into single-node rows (which see
//!   only `τ_intra`) and multi-node rows (only `τ_inter`), each a 1-D search (scan plus
//!   golden section), robust to the flat regions where all exchange is hidden; then a
//!   Nelder–Mead polish. A tier whose exchange the fit hides in every row is reported as
//!   not identified, with the largest `τ` that stays hidden.
//! - [`fit_shared`]: several models on one cluster: shared bandwidths and `σ`, overlap per
//!   model or shared, by Nelder–Mead; each model weighs the same.
//! - [`leave_one_out`]: for each model, [`fit_shared`] with one shared overlap on the others,
//!   then a prediction of it from only its single-GPU rows and its gradient size.
//!
//! Everything here is deterministic: rows are used in file order, sums run in that order,
//! grid points are exact multiples, ties go to the smaller parameter, and the only
//! transcendental functions are `libm`'s.

use crate::comm::{ring_time, step_time, straggler_growth};
use crate::error::InputError;
use crate::model::ComputeCurve;
use crate::trace::csv::{self, Table};
use serde::Serialize;

/// Latency of one ring step inside a node, seconds (fixed, see the module comment).
pub const ALPHA_INTRA_S: f64 = 1.0e-5;
/// Latency of one ring step between nodes, seconds (fixed).
pub const ALPHA_INTER_S: f64 = 5.0e-5;

const HEADER: &str = "placement,local_bsz,step_time,sync_time";

/// One measured row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    /// 1-based line in the input.
    pub line: u32,
    /// The placement as written, e.g. `1133`.
    pub placement: String,
    /// `m`: nodes with at least one GPU.
    pub nodes: u32,
    /// `N`: GPUs in all.
    pub gpus: u32,
    /// The most GPUs on one node.
    pub max_per_node: u32,
    pub local_bsz: f64,
    pub step_s: f64,
    pub sync_s: f64,
}

/// Reads a placements table. Columns may come in any order and extra columns are ignored;
/// every problem is an error naming its line and column.
pub fn parse_placements(text: &str) -> Result<Vec<Sample>, InputError> {
    let mut table = Table::new(text)?;
    let col = table.locate(&["placement", "local_bsz", "step_time", "sync_time"], &[], true, HEADER)?;
    let mut samples = Vec::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let line = row.line;
        let get = |name: &str| &*row.fields[col[name]];
        let placement = get("placement");
        let (nodes, gpus, max_per_node) = parse_placement(placement).map_err(csv::at(line, "placement"))?;
        let local_bsz = positive(get("local_bsz"), "a local batch size").map_err(csv::at(line, "local_bsz"))?;
        let step_s = positive(get("step_time"), "seconds").map_err(csv::at(line, "step_time"))?;
        let sync_s = csv::number(get("sync_time")).map_err(csv::at(line, "sync_time"))?;
        if sync_s < 0.0 {
            return Err(InputError::at_line(
                line,
                "sync_time",
                format!("expected 0 seconds or more, got '{}'", get("sync_time")),
            ));
        }
        samples.push(Sample {
            line,
            placement: placement.to_string(),
            nodes,
            gpus,
            max_per_node,
            local_bsz,
            step_s,
            sync_s,
        });
    }
    if samples.is_empty() {
        return Err(InputError::at_line(
            table.header_line,
            "header",
            "no rows: the file has a header but no measurements",
        ));
    }
    Ok(samples)
}

fn positive(value: &str, what: &str) -> Result<f64, String> {
    let x = csv::number(value)?;
    if x > 0.0 {
        Ok(x)
    } else {
        Err(format!("expected a positive number ({what}), got '{value}'"))
    }
}

/// `(nodes, gpus, most per node)` of a placement string: one digit per node, its GPU count.
/// Zeros are nodes without GPUs and do not count.
fn parse_placement(p: &str) -> Result<(u32, u32, u32), String> {
    if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "expected one digit per node giving its GPU count, e.g. '4' (four GPUs on one node) or '1111' (one on each of four nodes), got '{p}'"
        ));
    }
    let counts = p.bytes().map(|b| (b - b'0') as u32).filter(|&k| k > 0);
    let (mut nodes, mut gpus, mut most) = (0, 0, 0);
    for k in counts {
        nodes += 1;
        gpus += k;
        most = most.max(k);
    }
    if gpus == 0 {
        return Err(format!("'{p}' places no GPU"));
    }
    Ok((nodes, gpus, most))
}

// ---------------------------------------------------------------------------------------
// Compute curve.
// ---------------------------------------------------------------------------------------

/// Which rows a compute curve was fitted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ComputeRows {
    /// The single-GPU rows' step times (the normal case).
    SingleGpu,
    /// Fewer than two batch sizes on one GPU: every row's `step_time − sync_time`, the
    /// time outside the exchange.
    StepMinusSync,
}

/// The compute curve of a file and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ComputeFit {
    pub curve: ComputeCurve,
    pub from: ComputeRows,
    pub rows: u32,
}

/// `c(b) = c0 + c1·b` by least squares on relative errors (weights `1/t²`), in closed form.
/// A negative intercept is forced to zero and a negative slope to a flat curve, so the
/// curve never predicts negative or shrinking compute.
pub fn fit_compute(samples: &[Sample]) -> ComputeFit {
    let single: Vec<(f64, f64)> = samples.iter().filter(|s| s.gpus == 1).map(|s| (s.local_bsz, s.step_s)).collect();
    let distinct = |pts: &[(f64, f64)]| pts.iter().any(|p| p.0 != pts[0].0);
    let (points, from) = if !single.is_empty() && distinct(&single) {
        (single, ComputeRows::SingleGpu)
    } else {
        let all: Vec<(f64, f64)> =
            samples.iter().map(|s| (s.local_bsz, s.step_s - s.sync_s)).filter(|p| p.1 > 0.0).collect();
        (all, ComputeRows::StepMinusSync)
    };
    let (mut sw, mut sb, mut sbb, mut st, mut sbt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(b, t) in &points {
        let w = 1.0 / (t * t);
        sw += w;
        sb += w * b;
        sbb += w * b * b;
        st += w * t;
        sbt += w * b * t;
    }
    let det = sw * sbb - sb * sb;
    let (mut c0, mut c1) = if det > 0.0 && det.is_finite() {
        let c1 = (sw * sbt - sb * st) / det;
        ((st - c1 * sb) / sw, c1)
    } else {
        // One batch size only: the best flat curve.
        (if sw > 0.0 { st / sw } else { 0.0 }, 0.0)
    };
    if c0 < 0.0 {
        c0 = 0.0;
        c1 = sbt / sbb;
    }
    if c1 < 0.0 {
        c1 = 0.0;
        c0 = st / sw;
    }
    ComputeFit { curve: ComputeCurve { fixed_s: c0, per_sample_s: c1 }, from, rows: points.len() as u32 }
}

// ---------------------------------------------------------------------------------------
// The model on a table's rows.
// ---------------------------------------------------------------------------------------

/// Everything needed to predict one model's rows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FileParams {
    pub compute: ComputeCurve,
    /// `τ_intra = S / B_intra`, seconds.
    pub tau_intra_s: f64,
    /// `τ_inter = S / B_inter`, seconds.
    pub tau_inter_s: f64,
    /// `ov`, in [0, 1].
    pub overlap: f64,
    /// `σ`.
    pub straggler: f64,
    pub alpha_intra_s: f64,
    pub alpha_inter_s: f64,
}

/// The model's step and sync times for one row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prediction {
    pub step_s: f64,
    /// `step − c(b)`: what the table's `sync_time` measures, exposed exchange plus straggler
    /// wait.
    pub sync_s: f64,
}

impl FileParams {
    pub fn predict(&self, s: &Sample) -> Prediction {
        let c = self.compute.at(s.local_bsz);
        let (tau, alpha) =
            if s.nodes > 1 { (self.tau_inter_s, self.alpha_inter_s) } else { (self.tau_intra_s, self.alpha_intra_s) };
        let step = step_time(c, straggler_growth(s.gpus), self.straggler, ring_time(s.gpus, tau, alpha), self.overlap);
        Prediction { step_s: step, sync_s: (step - c).max(0.0) }
    }

    pub fn predict_all(&self, samples: &[Sample]) -> Vec<Prediction> {
        samples.iter().map(|s| self.predict(s)).collect()
    }
}

/// A row with what the fits need precomputed.
struct Row {
    gpus: u32,
    inter: bool,
    /// Compute at the row's batch.
    c: f64,
    /// `N^¼ − 1`.
    growth: f64,
    step: f64,
}

impl Row {
    fn of(samples: &[Sample], compute: &ComputeCurve) -> Vec<Row> {
        samples
            .iter()
            .map(|s| Row {
                gpus: s.gpus,
                inter: s.nodes > 1,
                c: compute.at(s.local_bsz),
                growth: straggler_growth(s.gpus),
                step: s.step_s,
            })
            .collect()
    }

    fn alpha(&self) -> f64 {
        if self.inter {
            ALPHA_INTER_S
        } else {
            ALPHA_INTRA_S
        }
    }

    /// `ln²(pred / measured)` for this row.
    fn sq_log_error(&self, tau: f64, overlap: f64, straggler: f64) -> f64 {
        let pred = step_time(self.c, self.growth, straggler, ring_time(self.gpus, tau, self.alpha()), overlap);
        let d = libm::log(pred / self.step);
        d * d
    }
}

fn sum_sq(rows: &[&Row], tau: f64, overlap: f64, straggler: f64) -> f64 {
    let mut s = 0.0;
    for r in rows {
        s += r.sq_log_error(tau, overlap, straggler);
    }
    s
}

// ---------------------------------------------------------------------------------------
// Per-file calibration.
// ---------------------------------------------------------------------------------------

/// What a fit says about one tier's `τ`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TierReport {
    /// Rows whose ring runs on this tier.
    pub rows: u32,
    /// Rows whose fitted exchange is longer than what compute hides.
    pub exposed_rows: u32,
    /// `τ` is identified when at least one row exposes it; otherwise any `τ` up to this bound
    /// fits as well (`None` when the tier has no rows).
    pub identified: bool,
    pub tau_upper_bound_s: Option<f64>,
}

/// The result of [`calibrate_file`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileFit {
    pub params: FileParams,
    pub compute: ComputeFit,
    /// Mean squared log error of `step_time` at the optimum.
    pub loss: f64,
    pub intra: TierReport,
    pub inter: TierReport,
    /// The fitted intra-node ring is slower than the inter-node one: physically wrong, so
    /// `τ_intra` is absorbing something else (a non-overlapped tail on one node).
    pub intra_slower_than_inter: bool,
    /// Whether the Nelder–Mead polish improved on the grid.
    pub polished: bool,
    /// Loss evaluations over rows (a measure of the work done).
    pub evaluations: u64,
}

/// The grids of the per-file fit: `ov` in 0, 0.05, ..., 1 and `σ` in 0, 0.025, ..., 1.
const OV_STEPS: u32 = 20;
const OV_STEP: f64 = 0.05;
const SIGMA_STEPS: u32 = 40;
const SIGMA_STEP: f64 = 0.025;
/// The range of `ln τ` the 1-D searches cover: 10 µs to 100 s.
const LN_TAU_LO: f64 = -11.512925464970229; // ln 1e-5
const LN_TAU_HI: f64 = 4.605170185988092; // ln 1e2

/// Fits one model's file on its own ("Mode B"): compute curve, `τ_intra`, `τ_inter`, `ov`,
/// `σ`. Works for any model; the gradient size is not needed.
pub fn calibrate_file(samples: &[Sample]) -> FileFit {
    let compute = fit_compute(samples);
    let rows = Row::of(samples, &compute.curve);
    let n = rows.len() as f64;
    let single: Vec<&Row> = rows.iter().filter(|r| r.gpus == 1).collect();
    let intra: Vec<&Row> = rows.iter().filter(|r| r.gpus > 1 && !r.inter).collect();
    let inter: Vec<&Row> = rows.iter().filter(|r| r.inter).collect();
    let mut evaluations: u64 = 0;

    // Single-GPU rows neither exchange nor straggle: their loss is the same everywhere.
    let l1 = sum_sq(&single, 1.0, 0.0, 0.0);
    evaluations += single.len() as u64;
    let mut best = (f64::INFINITY, 0.0, 0.0, 0.0, 0.0);
    for io in 0..=OV_STEPS {
        let ov = io as f64 * OV_STEP;
        for js in 0..=SIGMA_STEPS {
            let sg = js as f64 * SIGMA_STEP;
            let (ui, li) = if intra.is_empty() {
                (libm::log(1e-3), 0.0)
            } else {
                let (u, l, e) = search_ln_tau(|u| sum_sq(&intra, libm::exp(u), ov, sg));
                evaluations += e * intra.len() as u64;
                (u, l)
            };
            let (ue, le) = if inter.is_empty() {
                (ui + libm::log(10.0), 0.0)
            } else {
                let (u, l, e) = search_ln_tau(|u| sum_sq(&inter, libm::exp(u), ov, sg));
                evaluations += e * inter.len() as u64;
                (u, l)
            };
            let total = (l1 + li + le) / n;
            // Strictly better only: ties keep the smaller (ov, σ) met first.
            if total < best.0 {
                best = (total, ui, ue, ov, sg);
            }
        }
    }
    let (mut loss, mut ui, mut ue, mut ov, mut sg) = best;

    // Polish all four together: the grid's resolution limits ov and σ.
    let clamp01 = |v: f64| v.clamp(0.0, 1.0);
    let mut polish_evals: u64 = 0;
    let (x, fx, _) = nelder_mead(
        |x| {
            polish_evals += 1;
            let (ti, te, o, s) = (libm::exp(x[0]), libm::exp(x[1]), clamp01(x[2]), clamp01(x[3]));
            let mut sum = 0.0;
            for r in &rows {
                sum += r.sq_log_error(if r.inter { te } else { ti }, o, s);
            }
            sum / n
        },
        &[ui, ue, ov, sg],
        &[0.1, 0.1, OV_STEP, SIGMA_STEP],
        4000,
        2,
    );
    evaluations += polish_evals * rows.len() as u64;
    let polished = fx < loss;
    if polished {
        (loss, ui, ue, ov, sg) = (fx, x[0], x[1], clamp01(x[2]), clamp01(x[3]));
    }
    let params = FileParams {
        compute: compute.curve,
        tau_intra_s: libm::exp(ui),
        tau_inter_s: libm::exp(ue),
        overlap: ov,
        straggler: sg,
        alpha_intra_s: ALPHA_INTRA_S,
        alpha_inter_s: ALPHA_INTER_S,
    };
    let intra_report = tier_report(&intra, params.tau_intra_s, &params);
    let inter_report = tier_report(&inter, params.tau_inter_s, &params);
    FileFit {
        params,
        compute,
        loss,
        intra: intra_report,
        inter: inter_report,
        intra_slower_than_inter: intra_report.identified
            && inter_report.identified
            && params.tau_intra_s > params.tau_inter_s,
        polished,
        evaluations,
    }
}

/// Whether the fitted exchange of a tier shows in any row, and if not, the largest `τ`
/// that would stay hidden in every row.
fn tier_report(rows: &[&Row], tau: f64, p: &FileParams) -> TierReport {
    let mut exposed = 0;
    let mut upper = f64::INFINITY;
    for r in rows {
        let c_eff = r.c * (1.0 + p.straggler * r.growth);
        let n = r.gpus as f64;
        if ring_time(r.gpus, tau, r.alpha()) > p.overlap * c_eff {
            exposed += 1;
        }
        upper = upper.min((p.overlap * c_eff - 2.0 * (n - 1.0) * r.alpha()) / (2.0 * (n - 1.0) / n));
    }
    TierReport {
        rows: rows.len() as u32,
        exposed_rows: exposed,
        identified: exposed > 0,
        tau_upper_bound_s: (!rows.is_empty() && exposed == 0).then_some(upper.max(0.0)),
    }
}

/// Minimises `f` over `u = ln τ` in [ln 10 µs, ln 100 s]: a scan of 49 points, then 40
/// golden-section steps between the best point's neighbours. The scan finds the right
/// valley even where the loss is flat (exchange hidden for every `τ` below some bound);
/// ties go to the smaller `τ`. Returns `(u, f(u), evaluations)`.
fn search_ln_tau(mut f: impl FnMut(f64) -> f64) -> (f64, f64, u64) {
    const SCAN: usize = 49;
    const GOLDEN: usize = 40;
    let xs: Vec<f64> = (0..SCAN).map(|i| LN_TAU_LO + (LN_TAU_HI - LN_TAU_LO) * i as f64 / (SCAN - 1) as f64).collect();
    let fs: Vec<f64> = xs.iter().map(|&x| f(x)).collect();
    let mut i = 0;
    for j in 1..SCAN {
        if fs[j] < fs[i] {
            i = j;
        }
    }
    let (mut a, mut b) = (xs[i.saturating_sub(1)], xs[(i + 1).min(SCAN - 1)]);
    let g = (libm::sqrt(5.0) - 1.0) / 2.0;
    let (mut x1, mut x2) = (b - g * (b - a), a + g * (b - a));
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..GOLDEN {
        if f1 <= f2 {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = f(x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = f(x2);
        }
    }
    let (mut xb, mut fb) = if f1 <= f2 { (x1, f1) } else { (x2, f2) };
    if fs[i] < fb {
        (xb, fb) = (xs[i], fs[i]);
    }
    (xb, fb, (SCAN + 2 + GOLDEN) as u64)
}

/// Nelder–Mead with reflection 1, expansion 2, contraction ½ and shrink ½, started from the
/// simplex `x0, x0 + steps[j]·e_j`, stopping when the simplex's values agree to 1e-10
/// (relative) or after `max_eval` evaluations, then restarted around the best point up to
/// `restarts` times while that still helps. Returns `(x, f(x), evaluations)`.
pub fn nelder_mead(
    mut f: impl FnMut(&[f64]) -> f64,
    x0: &[f64],
    steps: &[f64],
    max_eval: u32,
    restarts: u32,
) -> (Vec<f64>, f64, u32) {
    let n = x0.len();
    let mut best_x = x0.to_vec();
    let mut best_f = f(&best_x);
    let mut evals = 1u32;
    for round in 0..=restarts {
        let mut simplex: Vec<Vec<f64>> = vec![best_x.clone()];
        for j in 0..n {
            let mut x = best_x.clone();
            x[j] += steps[j];
            simplex.push(x);
        }
        let mut fs: Vec<f64> = simplex.iter().map(|x| f(x)).collect();
        evals += n as u32 + 1;
        while evals < max_eval {
            // Sort by value; the sort is stable, so equal values keep their order.
            let mut order: Vec<usize> = (0..=n).collect();
            order.sort_by(|&a, &b| fs[a].total_cmp(&fs[b]));
            simplex = order.iter().map(|&i| simplex[i].clone()).collect();
            fs = order.iter().map(|&i| fs[i]).collect();
            if (fs[n] - fs[0]).abs() <= 1e-10 * (fs[0].abs() + 1e-30) {
                break;
            }
            let mut centre = vec![0.0; n];
            for x in &simplex[..n] {
                for j in 0..n {
                    centre[j] += x[j];
                }
            }
            for c in &mut centre {
                *c /= n as f64;
            }
            let towards =
                |from: &[f64], t: f64| -> Vec<f64> { (0..n).map(|j| centre[j] + t * (from[j] - centre[j])).collect() };
            let xr = towards(&simplex[n], -1.0);
            let fr = f(&xr);
            evals += 1;
            if fr < fs[0] {
                let xe = towards(&xr, 2.0);
                let fe = f(&xe);
                evals += 1;
                if fe < fr {
                    (simplex[n], fs[n]) = (xe, fe);
                } else {
                    (simplex[n], fs[n]) = (xr, fr);
                }
            } else if fr < fs[n - 1] {
                (simplex[n], fs[n]) = (xr, fr);
            } else {
                let (xc, accept) = if fr < fs[n] {
                    let xc = towards(&xr, 0.5);
                    let fc = f(&xc);
                    (xc, (fc <= fr).then_some(fc))
                } else {
                    let xc = towards(&simplex[n], 0.5);
                    let fc = f(&xc);
                    (xc, (fc < fs[n]).then_some(fc))
                };
                evals += 1;
                match accept {
                    Some(fc) => (simplex[n], fs[n]) = (xc, fc),
                    None => {
                        for i in 1..=n {
                            let shrunk: Vec<f64> =
                                (0..n).map(|j| simplex[0][j] + 0.5 * (simplex[i][j] - simplex[0][j])).collect();
                            fs[i] = f(&shrunk);
                            simplex[i] = shrunk;
                            evals += 1;
                        }
                    }
                }
            }
        }
        let mut i0 = 0;
        for i in 1..=n {
            if fs[i] < fs[i0] {
                i0 = i;
            }
        }
        let improved = fs[i0] < best_f * (1.0 - 1e-9);
        if fs[i0] <= best_f {
            best_x = simplex[i0].clone();
            best_f = fs[i0];
        }
        if round > 0 && !improved {
            break;
        }
    }
    (best_x, best_f, evals)
}

// ---------------------------------------------------------------------------------------
// Several models on one cluster.
// ---------------------------------------------------------------------------------------

/// One model's measurements and gradient size, for the fits across models.
#[derive(Clone, Copy, Debug)]
pub struct ModelData<'a> {
    pub name: &'a str,
    pub samples: &'a [Sample],
    /// `S`: bytes all-reduced per step (4 × parameters for fp32 gradients).
    pub grad_bytes: f64,
}

/// Whether every model gets its own overlap or all share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlap {
    PerModel,
    Shared,
}

/// The result of [`fit_shared`]: one cluster's tiers and straggler coefficient.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SharedFit {
    /// `B_intra`, bytes/s.
    pub intra_bytes_per_s: f64,
    /// `B_inter`, bytes/s.
    pub inter_bytes_per_s: f64,
    pub straggler: f64,
    /// Per model in the order given; with [`Overlap::Shared`] all equal.
    pub overlaps: Vec<f64>,
    /// Per model, from its single-GPU rows.
    pub compute: Vec<ComputeCurve>,
    /// Mean over models of each model's mean squared log error.
    pub loss: f64,
    pub evaluations: u32,
}

impl SharedFit {
    /// The parameters that predict a model of `grad_bytes` with this compute curve and
    /// overlap on the fitted cluster.
    pub fn params(&self, compute: ComputeCurve, grad_bytes: f64, overlap: f64) -> FileParams {
        FileParams {
            compute,
            tau_intra_s: grad_bytes / self.intra_bytes_per_s,
            tau_inter_s: grad_bytes / self.inter_bytes_per_s,
            overlap,
            straggler: self.straggler,
            alpha_intra_s: ALPHA_INTRA_S,
            alpha_inter_s: ALPHA_INTER_S,
        }
    }

    /// The parameters of model `i` of the fit.
    pub fn params_of(&self, i: usize, grad_bytes: f64) -> FileParams {
        self.params(self.compute[i], grad_bytes, self.overlaps[i])
    }
}

/// Fits `B_intra`, `B_inter` and `σ` shared by several models of one cluster, with an
/// overlap per model or one shared, by Nelder–Mead on `(ln B_intra, ln B_inter, σ, ov...)`
/// (bandwidths in GB/s). Each model's compute curve comes from its own single-GPU rows; each
/// model weighs the same whatever its row count. Runs from two starts, `B_intra` = 2 and
/// 20 GB/s, because intra-node exchange is mostly hidden and the loss has a plateau at high
/// `B_intra`; the better result is kept.
pub fn fit_shared(models: &[ModelData], overlap: Overlap) -> SharedFit {
    let compute: Vec<ComputeCurve> = models.iter().map(|m| fit_compute(m.samples).curve).collect();
    let rows: Vec<Vec<Row>> = models.iter().zip(&compute).map(|(m, c)| Row::of(m.samples, c)).collect();
    let n_ov = if overlap == Overlap::PerModel { models.len() } else { 1 };
    let unpack = |x: &[f64]| -> (f64, f64, f64) { (libm::exp(x[0]) * 1e9, libm::exp(x[1]) * 1e9, x[2].abs()) };
    let ov_of = |x: &[f64], i: usize| -> f64 { x[3 + if n_ov == 1 { 0 } else { i }].abs().min(1.0) };
    let loss = |x: &[f64]| -> f64 {
        let (bi, be, sg) = unpack(x);
        let mut total = 0.0;
        for (i, m) in models.iter().enumerate() {
            let (ti, te, ov) = (m.grad_bytes / bi, m.grad_bytes / be, ov_of(x, i));
            let mut s = 0.0;
            for r in &rows[i] {
                s += r.sq_log_error(if r.inter { te } else { ti }, ov, sg);
            }
            total += s / rows[i].len() as f64;
        }
        total / models.len() as f64
    };
    let mut steps = vec![0.5, 0.5, 0.1];
    steps.extend(std::iter::repeat_n(0.2, n_ov));
    let mut best: Option<(Vec<f64>, f64, u32)> = None;
    let mut evaluations = 0;
    for b_intra_start in [2.0, 20.0] {
        let mut x0 = vec![libm::log(b_intra_start), libm::log(0.5), 0.1];
        x0.extend(std::iter::repeat_n(0.5, n_ov));
        let (x, fx, e) = nelder_mead(&loss, &x0, &steps, 6000, 3);
        evaluations += e;
        if best.as_ref().is_none_or(|b| fx < b.1) {
            best = Some((x, fx, e));
        }
    }
    let (x, fx, _) = best.expect("two starts ran");
    let (bi, be, sg) = unpack(&x);
    SharedFit {
        intra_bytes_per_s: bi,
        inter_bytes_per_s: be,
        straggler: sg,
        overlaps: (0..models.len()).map(|i| ov_of(&x, i)).collect(),
        compute,
        loss: fx,
        evaluations,
    }
}

/// One held-out model of [`leave_one_out`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeldOut {
    pub name: String,
    /// The cluster fitted on the other models, with one shared overlap.
    pub fit: SharedFit,
    /// The held-out model's parameters: its own compute curve and gradient size, the rest
    /// from `fit`.
    pub params: FileParams,
    pub predictions: Vec<Prediction>,
    /// The cluster fitted on the other models with an overlap per model, and the held-out
    /// model predicted with each of the `fixed_overlaps` asked for: how the catalogue treats
    /// a model it has not timed on several GPUs (a calibrated cluster, a default overlap).
    pub per_model_fit: SharedFit,
    pub with_overlap: Vec<(f64, Vec<Prediction>)>,
}

/// For each model: fit the cluster (shared tiers, `σ`, one shared overlap) on the others,
/// then predict it from only its single-GPU rows and its gradient size. This is how well
/// the simulator can predict a model it has only timed on one GPU. Each held-out model is
/// also predicted with every overlap of `fixed_overlaps` on the cluster fitted to the
/// others with an overlap per model.
pub fn leave_one_out(models: &[ModelData], fixed_overlaps: &[f64]) -> Vec<HeldOut> {
    (0..models.len())
        .map(|held| {
            let others: Vec<ModelData> =
                models.iter().enumerate().filter(|&(i, _)| i != held).map(|(_, m)| *m).collect();
            let fit = fit_shared(&others, Overlap::Shared);
            let m = &models[held];
            let compute = fit_compute(m.samples).curve;
            let params = fit.params(compute, m.grad_bytes, fit.overlaps[0]);
            let per_model_fit = fit_shared(&others, Overlap::PerModel);
            let with_overlap = fixed_overlaps
                .iter()
                .map(|&ov| (ov, per_model_fit.params(compute, m.grad_bytes, ov).predict_all(m.samples)))
                .collect();
            HeldOut {
                name: m.name.to_string(),
                predictions: params.predict_all(m.samples),
                params,
                fit,
                per_model_fit,
                with_overlap,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Error tables.
// ---------------------------------------------------------------------------------------

/// Absolute percentage errors of one class of rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorStats {
    /// `all`, `1 node`, `2 nodes`, `3+ nodes`, `kmax=K` (most GPUs on one node),
    /// `multi-node`.
    pub class: String,
    pub rows: u32,
    pub step_median_pct: f64,
    pub step_p90_pct: f64,
    /// Rows with a positive measured `sync_time` (the others have no percentage error).
    pub sync_rows: u32,
    pub sync_median_pct: f64,
    pub sync_p90_pct: f64,
}

/// The classes of rows errors are reported for, in report order.
fn classes_of(s: &Sample) -> [String; 4] {
    [
        "all".to_string(),
        match s.nodes {
            1 => "1 node".to_string(),
            2 => "2 nodes".to_string(),
            _ => "3+ nodes".to_string(),
        },
        format!("kmax={}", s.max_per_node),
        if s.nodes > 1 { "multi-node".to_string() } else { String::new() },
    ]
}

/// Median and 90th percentile of the absolute percentage errors of `step_time` and
/// `sync_time`, over all rows and per class of placement.
pub fn error_table(samples: &[Sample], predictions: &[Prediction]) -> Vec<ErrorStats> {
    let mut names: Vec<String> = vec!["all".into(), "1 node".into(), "2 nodes".into(), "3+ nodes".into()];
    let mut kmax: Vec<u32> = samples.iter().map(|s| s.max_per_node).collect();
    kmax.sort_unstable();
    kmax.dedup();
    names.extend(kmax.iter().map(|k| format!("kmax={k}")));
    names.push("multi-node".into());
    names
        .into_iter()
        .filter_map(|class| {
            let mut step = Vec::new();
            let mut sync = Vec::new();
            for (s, p) in samples.iter().zip(predictions) {
                if classes_of(s).contains(&class) {
                    step.push(ape(p.step_s, s.step_s));
                    if s.sync_s > 0.0 {
                        sync.push(ape(p.sync_s, s.sync_s));
                    }
                }
            }
            (!step.is_empty()).then(|| ErrorStats {
                class,
                rows: step.len() as u32,
                step_median_pct: interpolated_percentile(&mut step, 50.0),
                step_p90_pct: interpolated_percentile(&mut step, 90.0),
                sync_rows: sync.len() as u32,
                sync_median_pct: interpolated_percentile(&mut sync, 50.0),
                sync_p90_pct: interpolated_percentile(&mut sync, 90.0),
            })
        })
        .collect()
}

/// `|pred − obs| / obs` in percent.
pub fn ape(pred: f64, obs: f64) -> f64 {
    (pred - obs).abs() / obs * 100.0
}

/// The `p`-th percentile with linear interpolation between order statistics (numpy's
/// default, so error figures compare with published ones), NaN for no values. Sorts
/// `values`. (Run metrics use `metrics::nearest_rank_percentile`.)
pub fn interpolated_percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let pos = p / 100.0 * (values.len() - 1) as f64;
    let lo = libm::floor(pos) as usize;
    let hi = (lo + 1).min(values.len() - 1);
    values[lo] + (pos - lo as f64) * (values[hi] - values[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_parse_with_errors_that_name_line_and_column() {
        let s = parse_placements("placement,local_bsz,step_time,sync_time\n1,4,0.5,0.01\n\n1303,8,1.0,0.4\n").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!((s[1].line, s[1].nodes, s[1].gpus, s[1].max_per_node), (4, 3, 7, 3));
        // Columns in any order, extra columns ignored.
        let s = parse_placements("sync_time,step_time,note,local_bsz,placement\n0.1,1.0,x,8,22\n").unwrap();
        assert_eq!((s[0].placement.as_str(), s[0].local_bsz, s[0].step_s), ("22", 8.0, 1.0));
        let err = |body: &str| {
            parse_placements(&format!("placement,local_bsz,step_time,sync_time\n1,4,0.5,0.01\n{body}\n")).unwrap_err()
        };
        let e = err("2x,4,0.5,0.01");
        assert_eq!((e.line, e.field.as_str()), (Some(3), "placement"));
        let e = err("00,4,0.5,0.01");
        assert_eq!(e.field, "placement");
        let e = err("2,0,0.5,0.01");
        assert_eq!((e.line, e.field.as_str()), (Some(3), "local_bsz"));
        let e = err("2,4,abc,0.01");
        assert_eq!(e.to_string(), "line 3: step_time: expected a number, got 'abc'");
        let e = err("2,4,0.5,-1");
        assert_eq!(e.field, "sync_time");
        let e = err("2,4,0.5");
        assert_eq!(e.field, "sync_time");
        let e = parse_placements("placement,local_bsz,step_time\n1,4,0.5\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(1), "sync_time"));
        let e = parse_placements("placement,local_bsz,step_time,sync_time\n").unwrap_err();
        assert_eq!(e.field, "header");
    }

    #[test]
    fn the_compute_fit_is_exact_on_a_line_and_never_negative() {
        let row = |p: &str, b: f64, t: f64| Sample {
            line: 0,
            placement: p.into(),
            nodes: 1,
            gpus: p.parse().unwrap(),
            max_per_node: p.parse().unwrap(),
            local_bsz: b,
            step_s: t,
            sync_s: 0.0,
        };
        let f = fit_compute(&[row("1", 2.0, 0.3), row("1", 4.0, 0.5), row("1", 8.0, 0.9), row("2", 8.0, 5.0)]);
        assert_eq!(f.from, ComputeRows::SingleGpu);
        assert!((f.curve.fixed_s - 0.1).abs() < 1e-12 && (f.curve.per_sample_s - 0.1).abs() < 1e-12, "{f:?}");
        // Time falling with the batch would be a negative slope: the curve goes flat.
        let f = fit_compute(&[row("1", 2.0, 0.5), row("1", 4.0, 0.4)]);
        assert_eq!(f.curve.per_sample_s, 0.0);
        assert!(f.curve.fixed_s > 0.4 && f.curve.fixed_s < 0.5);
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let mut v = vec![4.0, 1.0, 3.0, 2.0];
        assert_eq!(interpolated_percentile(&mut v, 50.0), 2.5);
        assert!((interpolated_percentile(&mut v, 90.0) - 3.7).abs() < 1e-12);
        assert!(interpolated_percentile(&mut [], 50.0).is_nan());
    }

    #[test]
    fn nelder_mead_finds_a_quadratic_minimum() {
        let (x, f, _) = nelder_mead(
            |x| (x[0] - 1.0) * (x[0] - 1.0) + 10.0 * (x[1] + 2.0) * (x[1] + 2.0),
            &[0.0, 0.0],
            &[0.5, 0.5],
            2000,
            2,
        );
        assert!((x[0] - 1.0).abs() < 1e-4 && (x[1] + 2.0).abs() < 1e-4 && f < 1e-8, "{x:?} {f}");
    }
}
