//! Tenants in the experiment: a plan whose jobs belong to several tenants, its finish-time
//! fairness ρ on the first seeds of the main grid, and the per-tenant preemption table.

use super::plan::Workload;
use super::stats::Stat;
use super::tests::tiny_plan;
use super::*;

/// A trace of three tenants with known demand order (`big` asks for most GPU-time, then
/// `mid`, then `small`), dense enough on 32 GPUs that preempting policies preempt.
pub(super) fn tenant_trace() -> proxima_core::trace::Trace {
    let mut csv = String::from("id,submit_s,gpus,duration_s,tenant\n");
    let mut rng = proxima_core::rng::Rng::new(7);
    for i in 0..150u32 {
        let (tenant, gpus) = match i % 5 {
            0 | 1 => ("big", [4, 8, 8][rng.below(3) as usize]),
            2 | 3 => ("mid", [1, 2, 4][rng.below(3) as usize]),
            _ => ("small", 1),
        };
        let duration = 600 + rng.below(7200);
        let _ = std::fmt::Write::write_fmt(&mut csv, format_args!("j{i},{},{gpus},{duration},{tenant}\n", i * 90));
    }
    proxima_core::trace::parse_trace(&csv).expect("the test trace parses")
}

/// A plan on [`tenant_trace`] (given where the Philly trace would be): one scenario, three
/// policies, three seeds, ρ on the first two, and a restore sweep that never gets ρ.
pub(super) fn tenant_plan() -> Plan {
    let mut plan = tiny_plan();
    plan.workloads = vec![Workload {
        name: "tenants".into(),
        set: ScenarioSet::Development,
        racks: 2,
        servers_per_rack: 4,
        gpus_per_server: 4,
        trace: TraceRef::Philly { skip: 0, limit: 150 },
        windows: Vec::new(),
        load: "three tenants".into(),
        seeds: vec![1, 2, 3],
        mix: None,
        networks: Vec::new(),
    }];
    plan.scenarios.clear();
    plan.main.clear();
    plan.oracles.clear();
    plan.cdf_scenarios.clear();
    let s = plan.scenario_for("tenants", "tcp", 16.0);
    plan.main.push(s);
    plan.sweeps[0].workload = "tenants".into();
    for point in &mut plan.sweeps[0].points {
        point.scenario = s;
    }
    plan
}

pub(super) fn run_all(plan: &Plan) -> (Vec<Task>, Vec<TaskResult>) {
    let trace = tenant_trace();
    let tasks = plan.tasks();
    let results = tasks.iter().map(|t| run_task(plan, t, Some(&trace)).expect("runs")).collect();
    (tasks, results)
}

/// The paper plan's ρ subset: main-grid policies on main-grid scenarios with the first
/// seeds; never a sweep's own spec, an oversubscription only a sweep runs, or an oracle.
#[test]
fn the_rho_subset_is_the_main_grid_on_its_first_seeds() {
    let p = paper_plan(false);
    assert_eq!(p.rho_seeds, 5);
    let tasks = p.tasks();
    let chosen: Vec<&Task> = tasks.iter().filter(|t| p.computes_rho(t)).collect();
    let per_policy: usize =
        p.main.iter().map(|&s| p.scenarios[s].window_count() * p.scenarios[s].seeds.len().min(5)).sum();
    assert_eq!(chosen.len(), per_policy * p.policies.len());
    for t in &chosen {
        let seeds = &p.scenarios[t.scenario].seeds;
        assert!(seeds[..5].contains(&t.seed) && p.main.contains(&t.scenario) && p.policies.contains(&t.policy));
    }
    let sweep_only = p.scenarios.iter().position(|s| s.oversub == 2.0).expect("a sweep point");
    assert!(!p.computes_rho(&Task { scenario: sweep_only, policy: "dally".into(), window: 0, seed: 1 }));
    // A synthetic scenario: ten seeds, five with ρ (a Philly scenario has five in all).
    let main = p.main.iter().copied().find(|&s| p.scenarios[s].seeds.len() == 10).expect("a synthetic scenario");
    let first = p.scenarios[main].seeds[0];
    let sixth = p.scenarios[main].seeds[5];
    assert!(p.computes_rho(&Task { scenario: main, policy: "dally".into(), window: 0, seed: first }));
    assert!(!p.computes_rho(&Task { scenario: main, policy: "dally".into(), window: 0, seed: sixth }));
    assert!(!p.computes_rho(&Task { scenario: main, policy: "dally:restore_s=600".into(), window: 0, seed: first }));
    assert!(!p.computes_rho(&Task {
        scenario: main,
        policy: "dally:autotune=off,timers=0/0".into(),
        window: 0,
        seed: first
    }));
}

/// End to end on three tenants: ρ where the plan asks for it and nowhere else, rows
/// averaging it over the seeds that have it, and a tenant table whose preemptions add up
/// to each run's.
#[test]
fn tenants_get_rho_and_a_preemption_table_that_adds_up() {
    let plan = tenant_plan();
    let (tasks, results) = run_all(&plan);
    for (t, r) in tasks.iter().zip(&results) {
        assert_eq!(r.summary.rho_max.is_some(), plan.computes_rho(t), "{t:?}");
        assert_eq!(r.summary.tenants.iter().any(|x| x.rho.is_some()), plan.computes_rho(t), "{t:?}");
        // Per run: the tenants' preemptions are the run's.
        assert_eq!(r.summary.tenants.iter().map(|x| x.preemptions).sum::<u64>(), r.summary.preemptions);
    }
    assert!(tasks.iter().any(|t| t.seed == 3 && t.scenario == plan.main[0]), "a seed without ρ");
    let report = aggregate(&plan, &results);
    let sc = &report.scenarios[0];
    for row in &sc.rows {
        assert_eq!(row.rho_seeds, 2, "{}", row.policy);
        let of = |seed: u64| {
            let i = tasks.iter().position(|t| t.scenario == plan.main[0] && t.policy == row.spec && t.seed == seed);
            results[i.unwrap()].summary.clone()
        };
        let want = Stat::of(&[of(1).rho_max.unwrap(), of(2).rho_max.unwrap()]);
        assert_eq!(row.values["rho_max"], want, "{}", row.policy);
        let want = Stat::of(&[of(1).rho_over_1.unwrap(), of(2).rho_over_1.unwrap()]);
        assert_eq!(row.values["rho_over_1"], want, "{}", row.policy);
    }
    // Sweep rows never carry ρ.
    assert!(report.sweeps[0].points.iter().flat_map(|p| &p.rows).all(|r| r.rho_seeds == 0));
    let table = sc.tenants.as_ref().expect("three tenants, a table");
    assert_eq!(table.policies, ["dally", "consolidate", "tiresias"]);
    assert_eq!(table.rho_policies, ["dally", "consolidate"]);
    let names: Vec<&str> = table.tenants.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["big", "mid", "small"], "by GPU-time asked for");
    assert_eq!(table.tenants.iter().map(|t| t.jobs).sum::<f64>(), 150.0);
    let mut preempted = 0.0;
    for (k, policy) in table.policies.iter().enumerate() {
        let sum: f64 = table.tenants.iter().map(|t| t.preemptions[k].mean).sum();
        let total = sc.row(policy).unwrap().values["preemptions"].mean;
        assert!((sum - total).abs() < 1e-9, "{policy}: tenants {sum}, run {total}");
        preempted += total;
    }
    assert!(preempted > 0.0, "the trace makes some policy preempt, or the sum checks nothing");
    for t in &table.tenants {
        for rho in &t.rho {
            let rho = rho.expect("every tenant completes jobs");
            assert_eq!(rho.seeds, 2);
            assert!(rho.rho.mean > 0.0);
        }
    }
    let md = report.to_markdown();
    assert!(md.contains("## Who pays"), "the fairness section");
    assert!(md.contains("| big | 60 |"), "a tenant row");
}

/// Hand-computed: ρ over the seeds that have it; a policy with none gets no key and a dash,
/// never a NaN in a mean or a 0.
#[test]
fn rho_is_averaged_over_the_seeds_that_have_it() {
    let plan = tenant_plan();
    let (tasks, mut results) = run_all(&plan);
    let main = plan.main[0];
    for (t, r) in tasks.iter().zip(results.iter_mut()) {
        if t.scenario != main {
            continue;
        }
        let s = &mut r.summary;
        match (t.policy.as_str(), t.seed) {
            ("dally", 1) => (s.rho_max, s.rho_over_1) = (Some(4.0), Some(0.5)),
            ("dally", 2) => (s.rho_max, s.rho_over_1) = (None, None),
            ("dally", 3) => (s.rho_max, s.rho_over_1) = (Some(2.0), Some(0.25)),
            ("tiresias", _) => (s.rho_max, s.rho_over_1) = (None, None),
            _ => {}
        }
    }
    let report = aggregate(&plan, &results);
    let sc = &report.scenarios[0];
    let dally = sc.row("dally").unwrap();
    assert_eq!(dally.rho_seeds, 2);
    // Seeds 1 and 3: mean (4 + 2) / 2 = 3, sample sd √((1 + 1) / 1) = √2.
    let rho = dally.values["rho_max"];
    assert_eq!((rho.mean, rho.min, rho.max), (3.0, 2.0, 4.0));
    assert!((rho.sd - 2f64.sqrt()).abs() < 1e-12);
    assert_eq!(dally.values["rho_over_1"].mean, 0.375);
    let tiresias = sc.row("tiresias").unwrap();
    assert_eq!(tiresias.rho_seeds, 0);
    assert!(!tiresias.values.contains_key("rho_max") && !tiresias.values.contains_key("rho_over_1"));
    let md = report.to_markdown();
    let line = md.lines().find(|l| l.starts_with("| `tiresias` |") && l.ends_with("| — | — |"));
    assert!(line.is_some(), "tiresias' ρ cells are dashes");
    let line = md.lines().find(|l| l.starts_with("| `dally` |") && l.ends_with("| 3.00 ± 1.41 | 37.5% ± 17.7 |"));
    assert!(line.is_some(), "dally's ρ cells: mean ± sd over its two seeds");
    // And the report survives its JSON.
    assert_eq!(Report::from_json(&report.to_json()).unwrap().to_markdown(), md);
}
