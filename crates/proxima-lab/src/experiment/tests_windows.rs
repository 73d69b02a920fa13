//! Trace windows: the paper plan's windows are disjoint and keep the development/held-out
//! split, and a plan of several windows aggregates, resamples and tests claims over them.

use super::claims::CLAIM_ALPHA;
use super::execute::metric_index;
use super::plan::{ClaimDef, TraceRef, Workload};
use super::tests_tenants::{run_all, tenant_plan};
use super::*;

/// Jobs `skip .. skip + limit` of a Philly window.
fn span(t: &TraceRef) -> (u32, u32) {
    match t {
        TraceRef::Philly { skip, limit } => (*skip, skip + limit),
        TraceRef::Synthetic { .. } => panic!("not a Philly window"),
    }
}

fn overlap(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

#[test]
fn philly_windows_are_disjoint_and_keep_the_split() {
    let p = paper_plan(false);
    let philly: Vec<&Workload> = p.workloads.iter().filter(|w| matches!(w.trace, TraceRef::Philly { .. })).collect();
    assert_eq!(philly.len(), 7, "two development, three held-out and two fresh held-out Philly workloads");
    for w in &philly {
        assert!(w.windows.len() >= 10, "{}: {} windows", w.name, w.windows.len());
        let spans: Vec<(u32, u32)> = w.windows.iter().map(span).collect();
        let whole = span(&w.trace);
        for (i, a) in spans.iter().enumerate() {
            assert!(a.0 < a.1 && whole.0 <= a.0 && a.1 <= whole.1, "{}: window {a:?} outside {whole:?}", w.name);
            for b in &spans[i + 1..] {
                assert!(!overlap(*a, *b), "{}: windows {a:?} and {b:?} overlap", w.name);
            }
        }
    }
    // The development windows hold the jobs `dally` was developed on (50,000-60,000), and
    // no held-out window shares a job with any development window.
    let windows_of = |set: ScenarioSet| -> Vec<(u32, u32)> {
        philly.iter().filter(|w| w.set == set).flat_map(|w| w.windows.iter().map(span)).collect()
    };
    let (dev, held) = (windows_of(ScenarioSet::Development), windows_of(ScenarioSet::HeldOut));
    let fresh = windows_of(ScenarioSet::FreshHeldOut);
    let developed_on: u32 = dev.iter().map(|d| d.1.min(60_000).saturating_sub(d.0.max(50_000))).sum::<u32>();
    assert_eq!(developed_on, 2 * 10_000, "both development clusters run all of 50,000-60,000");
    assert!(held.iter().chain(&fresh).all(|h| !overlap(*h, (50_000, 60_000))), "{held:?} {fresh:?}");
    // Nor does a fresh held-out window share a job with either set before it, and all of
    // them lie within the trace's 82,247 jobs.
    for (a, b, what) in [(&dev, &held, "held-out"), (&dev, &fresh, "fresh held-out"), (&held, &fresh, "fresh held-out")]
    {
        for d in a {
            for h in b {
                assert!(!overlap(*d, *h), "window {d:?} overlaps {what} window {h:?}");
            }
        }
    }
    assert!(fresh.len() == 20 && fresh.iter().all(|f| f.1 <= 82_247), "{fresh:?}");
    // Every main-grid scenario runs its workload's windows, each under every seed.
    for &s in &p.main {
        let def = &p.scenarios[s];
        assert_eq!(def.windows, p.workload(&def.workload).unwrap().windows, "{}", def.name);
    }
    let tasks = p.tasks();
    let s = p.main[0];
    let runs = tasks.iter().filter(|t| t.scenario == s && t.policy == p.subject).count();
    assert_eq!(runs, p.scenarios[s].window_count() * p.scenarios[s].seeds.len());
}

#[test]
fn the_claims_name_main_grid_scenarios_and_policies() {
    for quick in [false, true] {
        let p = paper_plan(quick);
        assert!((3..=6).contains(&p.claims.len()) || quick, "{} claims", p.claims.len());
        assert!(!p.claims.is_empty());
        for c in &p.claims {
            assert!(p.main.iter().any(|&s| p.scenarios[s].name == c.scenario), "{}", c.scenario);
            assert!(p.policies.contains(&c.policy) && p.policies.contains(&c.baseline));
            assert!(p.scenarios.iter().find(|s| s.name == c.scenario).unwrap().window_count() > 1);
        }
    }
}

/// [`tenant_plan`] with its 150 jobs cut into three windows of 50, and two claims.
fn windowed_plan() -> Plan {
    let mut plan = tenant_plan();
    let windows: Vec<TraceRef> = (0..3).map(|k| TraceRef::Philly { skip: 50 * k, limit: 50 }).collect();
    plan.workloads[0].windows = windows.clone();
    for s in &mut plan.scenarios {
        s.windows = windows.clone();
    }
    let scenario = plan.scenarios[plan.main[0]].name.clone();
    plan.claims = ["consolidate", "tiresias"]
        .map(|b| ClaimDef {
            policy: "dally".into(),
            baseline: b.into(),
            scenario: scenario.clone(),
            metric: "avg_jct_s".into(),
        })
        .to_vec();
    plan
}

#[test]
fn windows_are_run_apart_and_resampled_as_units() {
    let plan = windowed_plan();
    let (tasks, results) = run_all(&plan);
    let s = plan.main[0];
    // Each window is its own run of its own jobs.
    let jobs = |window: u32| {
        let i = tasks.iter().position(|t| t.scenario == s && t.policy == "dally" && t.window == window).unwrap();
        results[i].summary.jobs_total
    };
    assert_eq!((jobs(0), jobs(1), jobs(2)), (50, 50, 50));
    let report = aggregate(&plan, &results);
    assert_eq!(report, aggregate(&plan, &results), "a pure function of the runs");
    let sc = &report.scenarios[0];
    assert_eq!(sc.jobs, 150, "the jobs of all windows");
    // The row's mean is the mean over every run (windows × seeds, a balanced design), so
    // the window interval's ratio is the seed interval's.
    let jct = metric_index("avg_jct_s");
    let mean_of = |policy: &str| {
        let all: Vec<f64> = tasks
            .iter()
            .zip(&results)
            .filter(|(t, _)| t.scenario == s && t.policy == policy)
            .map(|(_, r)| r.values[jct])
            .collect();
        all.iter().sum::<f64>() / all.len() as f64
    };
    assert!((sc.row("dally").unwrap().values["avg_jct_s"].mean - mean_of("dally")).abs() < 1e-9);
    let c = sc.comparison("dally", "consolidate").unwrap();
    let (by_window, by_seed) = (c.windows["avg_jct_s"], c.ratios["avg_jct_s"]);
    assert!((by_window.ratio.unwrap() - mean_of("dally") / mean_of("consolidate")).abs() < 1e-12);
    assert!((by_window.ratio.unwrap() - by_seed.ratio.unwrap()).abs() < 1e-12);
    assert_eq!(c.window_jct_ratios.len(), 3);
    // The window interval lies within the single windows' ratios (a ratio of sums of
    // windows is between their lowest and highest ratio).
    let lowest = c.window_jct_ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = c.window_jct_ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!(lowest - 1e-12 <= by_window.low && by_window.high <= highest + 1e-12, "{by_window:?} {lowest} {highest}");
    // The claims: in plan order, Holm-adjusted upwards, holding only below 1 and at α.
    assert_eq!(report.claims.len(), 2);
    for claim in &report.claims {
        assert_eq!((claim.units.as_str(), claim.count), ("windows", 3));
        assert!(claim.holm_p >= claim.p && claim.holm_p <= 1.0);
        let ratio = claim.ci.ratio.unwrap();
        assert_eq!(claim.holds, ratio < 1.0 && claim.holm_p <= CLAIM_ALPHA);
    }
    // The tenant table is per run (a window under a seed), as the rows are: its
    // preemptions add up to the row's, and its jobs to a window's.
    let tenants = sc.tenants.as_ref().expect("three tenants");
    for (i, policy) in tenants.policies.iter().enumerate() {
        let summed: f64 = tenants.tenants.iter().map(|t| t.preemptions[i].mean).sum();
        let row = sc.row(policy).unwrap().values["preemptions"].mean;
        assert!((summed - row).abs() < 1e-9, "{policy}: {summed} against {row}");
    }
    let preempted: f64 = tenants.tenants.iter().flat_map(|t| t.preemptions.iter().map(|p| p.mean)).sum();
    assert!(preempted > 0.0, "the windows are dense enough to preempt");
    let jobs: f64 = tenants.tenants.iter().map(|t| t.jobs).sum();
    assert_eq!(jobs, 50.0);
    assert_eq!(report.claims[0].ci, by_window);
    let md = report.to_markdown();
    for part in ["## Primary claims", "**What each interval covers.**", "**Windows.**", "over trace windows"] {
        assert!(md.contains(part), "report.md lacks {part}");
    }
    assert!(md.contains("| `dally` beats `consolidate` on tenants/tcp/oversub=16, mean JCT |"), "{md}");
    // And the report reads back from its JSON as it was.
    assert_eq!(Report::from_json(&report.to_json()).unwrap().to_markdown(), md);
    // The report checks the split rather than assert it: a held-out workload sharing a
    // job with a development window is called out.
    assert!(md.contains("no development window shares a job with a held-out one"));
    let mut overlapping = report.clone();
    let mut held = overlapping.plan.workloads[0].clone();
    held.set = ScenarioSet::HeldOut;
    held.windows = vec![TraceRef::Philly { skip: 140, limit: 50 }];
    overlapping.plan.workloads.push(held);
    assert!(overlapping.to_markdown().contains("**some development and held-out windows share jobs**"));
    // A fresh held-out set is checked against both: apart from them it is said so, and a
    // fresh window sharing a job with a held-out one is called out.
    let mut with_fresh = report.clone();
    let mut fresh = with_fresh.plan.workloads[0].clone();
    fresh.set = ScenarioSet::FreshHeldOut;
    fresh.windows = vec![TraceRef::Philly { skip: 100_000, limit: 50 }];
    with_fresh.plan.workloads.push(fresh.clone());
    assert!(with_fresh.to_markdown().contains("and no fresh held-out window with either"));
    let mut held = fresh.clone();
    held.set = ScenarioSet::HeldOut;
    with_fresh.plan.workloads.push(held);
    assert!(with_fresh.to_markdown().contains("**some windows of different sets share jobs**"));
}
