//! Calibrating one file on its own: the grid over overlap and straggler, the 1-D searches
//! of each tier's `τ`, and the Nelder–Mead polish.

use super::*;

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
        // One file is fitted with E1 alone: the node terms are the clusters' (`fit_shared_with`).
        server_compute: 0.0,
        server_ring: 0.0,
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
