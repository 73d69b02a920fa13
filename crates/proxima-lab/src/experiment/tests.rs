use super::execute::metric_index;
use super::plan::{with_restore, BootstrapSettings, Network, OracleDef, Sweep, SweepPoint, Workload};
use super::stats::Stat;
use super::*;
use std::collections::BTreeSet;

#[test]
fn paper_plan_has_every_part() {
    let p = paper_plan(false);
    for s in &p.scenarios {
        // Ten seeds where each draws a whole trace; five per window where windows vary
        // the jobs and seeds only the models, with ten windows or more.
        let enough =
            if s.window_count() > 1 { s.seeds.len() >= 5 && s.window_count() >= 10 } else { s.seeds.len() >= 10 };
        assert!(enough, "{}: {} seeds, {} windows", s.name, s.seeds.len(), s.window_count());
    }
    let dev: BTreeSet<u64> =
        p.workloads.iter().filter(|w| w.set == ScenarioSet::Development).flat_map(|w| w.seeds.clone()).collect();
    let held: BTreeSet<u64> =
        p.workloads.iter().filter(|w| w.set == ScenarioSet::HeldOut).flat_map(|w| w.seeds.clone()).collect();
    assert!(!dev.is_empty() && !held.is_empty() && dev.is_disjoint(&held));
    // Every workload on every network it runs on, and on no other.
    for n in &p.networks {
        for w in &p.workloads {
            for oversub in [1.0, 16.0] {
                let found = p.main.iter().any(|&s| {
                    let d = &p.scenarios[s];
                    d.network == n.name && d.workload == w.name && d.oversub == oversub
                });
                assert_eq!(found, w.runs_on(&n.name), "{} on {} at {oversub}:1", w.name, n.name);
            }
        }
    }
    // The 2016-2019 workloads on the paper's two networks; the LLM-era ones, with the `llm`
    // mix, on one 100 Gbit/s NIC per server and on a NIC per GPU.
    for w in &p.workloads {
        let (networks, mix): (&[&str], Option<&str>) =
            if w.name.starts_with("llm") { (&["roce-1nic", "rdma"], Some("llm")) } else { (&["tcp", "rdma"], None) };
        assert_eq!(w.networks, networks, "{}", w.name);
        assert_eq!(w.mix.as_deref(), mix, "{}", w.name);
    }
    let llm: BTreeSet<&str> = p.workloads.iter().filter(|w| w.mix.is_some()).map(|w| w.name.as_str()).collect();
    assert_eq!(llm, BTreeSet::from(["llm-kalos-256gpus", "llm-seren-512gpus", "llm-seren-1024gpus"]));
    for b in &p.fair_baselines {
        assert!(p.policies.contains(b), "{b}");
    }
    let networks: Vec<&str> = p.networks.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(networks, ["tcp", "rdma", "roce-1nic"]);
    let thin = p.scenarios.iter().find(|s| s.network == "roce-1nic" && s.oversub == 16.0).unwrap();
    assert_eq!(thin.topology, "racks=4,servers=8,gpus=8,oversub=16,fabric=roce,nic_gbps=100");
    // The RDMA fabric gives each GPU its own NIC, whatever the server's size.
    let eight = p.scenarios.iter().find(|s| s.network == "rdma" && s.workload.ends_with("8gpu-servers")).unwrap();
    assert!(eight.topology.ends_with(",fabric=rdma,nics=8"), "{}", eight.topology);
    let four = p.scenarios.iter().find(|s| s.network == "rdma" && s.workload == "philly-384gpus").unwrap();
    assert_eq!(four.topology, "racks=6,servers=16,gpus=4,oversub=16,fabric=rdma,nics=4");
    let tcp = p.scenarios.iter().find(|s| s.network == "tcp" && s.workload == "philly-384gpus").unwrap();
    assert_eq!(tcp.topology, "racks=6,servers=16,gpus=4,oversub=16,fabric=tcp");
    for want in [
        "tiresias",
        "consolidate:migrate=on",
        "strict",
        "slurm",
        "srtf",
        "random",
        "dally:preempt=off",
        "dally:delay=off",
        "dally:delay=all",
        "dally:order=las",
        "tiresias:place=tightest,queues=3600/57600",
    ] {
        assert!(p.policies.iter().any(|q| q == want), "{want}");
    }
    let xs = |param: &str| -> Vec<f64> {
        p.sweeps.iter().find(|s| s.parameter == param).expect(param).points.iter().map(|pt| pt.x).collect()
    };
    assert_eq!(xs("oversub"), [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
    assert_eq!(xs("restore_s"), [30.0, 60.0, 120.0, 300.0, 600.0]);
    // The sweeps run on the development Philly workload, on the networks it runs on.
    assert_eq!(p.sweeps.len(), 2 * 2);
    let tasks = p.tasks();
    let unique: BTreeSet<&Task> = tasks.iter().collect();
    assert_eq!(unique.len(), tasks.len(), "each run once");
    // The restore sweep's default point and the oversubscription sweep's 1:1 and 16:1
    // points are main-grid runs, not new ones.
    let main_runs = p
        .main
        .iter()
        .map(|&s| p.policies.len() * p.scenarios[s].seeds.len() * p.scenarios[s].window_count())
        .sum::<usize>();
    // The sweeps run on a Philly workload of ten windows and five seeds: four new
    // oversubscriptions for the subject, the candidate and the seven fair baselines, four
    // new restore costs for the six policies that preempt.
    let oversub_new = 2 * 4 * 9 * 10 * 5;
    let restore_new = 2 * 4 * 6 * 10 * 5;
    let oracle_runs: usize = p
        .oracles
        .iter()
        .map(|o| o.statics.len() * p.scenarios[o.scenario].seeds.len() * p.scenarios[o.scenario].window_count())
        .sum();
    assert_eq!(tasks.len(), main_runs + oversub_new + restore_new + oracle_runs);
}

/// The held-out set, fixed before any further change to the policies. A change here is a
/// change of the experiment and must be said in `docs/EXPERIMENTS.md` (issue 21 replaced
/// the held-out spans 20,000-30,000, 60,000-70,000 and 70,000-80,000 of 10,000 jobs each
/// by ten windows of 3,000 from jobs 0-30,000 that every held-out cluster runs, and added
/// the LLM-era `llm-seren-512gpus`, fixed before its first run).
#[test]
fn held_out_set_is_fixed() {
    let p = paper_plan(false);
    type Held = (String, u32, u32, u32, TraceRef, Vec<TraceRef>, Vec<u64>);
    let held: Vec<Held> = p
        .workloads
        .iter()
        .filter(|w| w.set == ScenarioSet::HeldOut)
        .map(|w| {
            let shape = (w.racks, w.servers_per_rack, w.gpus_per_server);
            (w.name.clone(), shape.0, shape.1, shape.2, w.trace.clone(), w.windows.clone(), w.seeds.clone())
        })
        .collect();
    let span = TraceRef::Philly { skip: 0, limit: 30_000 };
    let windows: Vec<TraceRef> = (0..10).map(|k| TraceRef::Philly { skip: 3_000 * k, limit: 3_000 }).collect();
    let philly_seeds: Vec<u64> = (1001..=1005).collect();
    let synthetic = TraceRef::Synthetic { jobs: 20_000, load: 1.0, shape: None };
    let seren = TraceRef::Synthetic { jobs: 5_000, load: 2.5, shape: Some("seren".into()) };
    let philly = |name: &str, shape: (u32, u32, u32)| -> Held {
        (name.into(), shape.0, shape.1, shape.2, span.clone(), windows.clone(), philly_seeds.clone())
    };
    assert_eq!(
        held,
        vec![
            philly("philly-256gpus", (4, 16, 4)),
            philly("philly-320gpus", (5, 16, 4)),
            philly("philly-512gpus-8gpu-servers", (8, 8, 8)),
            ("synthetic-1024gpus-load1.0".into(), 16, 16, 4, synthetic, Vec::new(), (1001..=1010).collect()),
            ("llm-seren-512gpus".into(), 8, 8, 8, seren, Vec::new(), (1001..=1010).collect()),
        ]
    );
}

#[test]
fn restore_option_is_added_only_off_the_default() {
    assert_eq!(with_restore("dally", 30.0, 30.0), "dally");
    assert_eq!(with_restore("dally", 120.0, 30.0), "dally:restore_s=120");
    assert_eq!(with_restore("consolidate:migrate=on", 600.0, 30.0), "consolidate:migrate=on,restore_s=600");
    for spec in ["dally:restore_s=120", "consolidate:migrate=on,restore_s=600", "tiresias:restore_s=60"] {
        proxima_core::policy::resolve_policy(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    }
}

#[test]
fn every_spec_of_the_plan_resolves() {
    let p = paper_plan(false);
    let specs: BTreeSet<String> = p.tasks().into_iter().map(|t| t.policy).collect();
    for spec in specs {
        proxima_core::policy::resolve_policy(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    }
    for s in &p.scenarios {
        proxima_core::topology::resolve_topology_arg(&s.topology).unwrap_or_else(|e| panic!("{}: {e}", s.topology));
    }
}

/// A plan small enough to run here: two synthetic workloads (one per set), one network at
/// two oversubscriptions, three policies, a restore sweep and a two-setting oracle.
pub(super) fn tiny_plan() -> Plan {
    let workload = |name: &str, set, seeds: Vec<u64>| Workload {
        name: name.into(),
        set,
        racks: 2,
        servers_per_rack: 4,
        gpus_per_server: 4,
        trace: TraceRef::Synthetic { jobs: 120, load: 1.2, shape: None },
        windows: Vec::new(),
        load: "synthetic".into(),
        seeds,
        mix: None,
        networks: Vec::new(),
    };
    let mut plan = Plan {
        name: "tiny".into(),
        networks: vec![Network {
            name: "tcp".into(),
            description: "test".into(),
            topology_options: "fabric=tcp".into(),
        }],
        workloads: vec![
            workload("dev", ScenarioSet::Development, vec![1, 2, 3]),
            workload("held", ScenarioSet::HeldOut, vec![11, 12, 13]),
        ],
        scenarios: Vec::new(),
        main: Vec::new(),
        policies: vec!["consolidate".into(), "tiresias".into(), "dally".into()],
        reference: "consolidate".into(),
        subject: "dally".into(),
        fair_baselines: vec!["consolidate".into(), "tiresias".into()],
        sweeps: Vec::new(),
        oracles: Vec::new(),
        cdf_scenarios: Vec::new(),
        cdf_policies: vec!["consolidate".into(), "dally".into()],
        bootstrap: BootstrapSettings { resamples: 500, window_resamples: 1000, seed: 9, confidence: 0.95 },
        rho_seeds: 2,
        claims: Vec::new(),
        candidate: None,
    };
    for w in ["dev", "held"] {
        for o in [16.0, 1.0] {
            let s = plan.scenario_for(w, "tcp", o);
            plan.main.push(s);
        }
    }
    let s = plan.scenario_for("dev", "tcp", 16.0);
    let policies: Vec<String> = vec!["dally".into(), "consolidate".into()];
    plan.sweeps.push(Sweep {
        parameter: "restore_s".into(),
        label: "restore".into(),
        network: "tcp".into(),
        workload: "dev".into(),
        policies: policies.clone(),
        points: [30.0, 300.0]
            .iter()
            .map(|&x| SweepPoint { x, scenario: s, specs: vec![with_restore("dally", x, 30.0), "consolidate".into()] })
            .collect(),
    });
    plan.oracles.push(OracleDef {
        scenario: s,
        statics: vec![
            ("0/0".into(), "dally:autotune=off,timers=0/0".into()),
            ("600/150".into(), "dally:autotune=off,timers=600/150".into()),
        ],
        tuned: "dally".into(),
    });
    plan.cdf_scenarios.push(s);
    plan
}

#[test]
fn a_tiny_plan_runs_and_reports() {
    let plan = tiny_plan();
    let tasks = plan.tasks();
    // Main: 4 scenarios × 3 policies × 3 seeds; restore sweep: one new spec (dally at
    // 300 s) × 3 seeds; oracle: 2 settings × 3 seeds (the tuned run is the main grid's).
    assert_eq!(tasks.len(), 36 + 3 + 6);
    let results: Vec<TaskResult> = tasks.iter().map(|t| run_task(&plan, t, None).expect("runs")).collect();
    assert!(results.iter().all(|r| r.values.len() == METRICS.len()));
    let kept = tasks.iter().zip(&results).filter(|(_, r)| !r.jcts.is_empty()).count();
    assert_eq!(kept, 2 * 3, "JCTs kept for the CDF's scenario and policies only");
    // One tenant in a synthetic trace: the plan asks for ρ on two seeds, none is computed.
    assert!(tasks.iter().any(|t| plan.computes_rho(t)));
    assert!(results.iter().all(|r| r.summary.rho_max.is_none() && r.summary.rho_over_1.is_none()));
    let report = aggregate(&plan, &results);
    assert_eq!(report, aggregate(&plan, &results), "a pure function of the runs");
    for sc in &report.scenarios {
        assert!(sc.tenants.is_none(), "{}: one tenant, no tenant table", sc.scenario.name);
        assert!(sc.rows.iter().all(|r| r.rho_seeds == 0 && !r.values.contains_key("rho_max")));
    }
    assert_eq!(report.scenarios.len(), 4);
    assert_eq!(report.runs, 45);
    let sc = &report.scenarios[0];
    // A makespan never beats its lower bound.
    for row in &sc.rows {
        assert!(row.values["makespan_s"].min >= sc.bounds.makespan_s.min - 1e-6, "{}", row.policy);
    }
    // Comparisons: each policy with the reference, and the subject with each other fair
    // baseline; the ratio is the ratio of means.
    assert!(sc.comparison("dally", "consolidate").is_some() && sc.comparison("dally", "tiresias").is_some());
    let c = sc.comparison("tiresias", "consolidate").unwrap();
    let want =
        sc.row("tiresias").unwrap().values["avg_jct_s"].mean / sc.row("consolidate").unwrap().values["avg_jct_s"].mean;
    assert!((c.ratios["avg_jct_s"].ratio.unwrap() - want).abs() < 1e-12);
    let ci = c.ratios["avg_jct_s"];
    assert!(ci.low <= ci.ratio.unwrap() && ci.ratio.unwrap() <= ci.high, "{ci:?}");
    assert_eq!(report.sweeps[0].points.len(), 2);
    assert_eq!(report.sweeps[0].points[1].rows[0].spec, "dally:restore_s=300");
    assert_eq!(report.oracles[0].grid.len(), 2);
    assert_eq!(report.cdfs[0].series.len(), 2);
    let cdf = &report.cdfs[0].series[0].1;
    assert_eq!(cdf.len(), 200);
    assert!(cdf.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1) && cdf[199].1 == 1.0);
    let md = report.to_markdown();
    for part in [
        "## Summary",
        "### development workloads, `tcp` network",
        "### held-out workloads",
        "## Sweeps",
        "## Oracle check",
        "## Full tables",
        "makespan lower bound",
        "Network: 4 × T4 per server (PCIe, 128 Gbit/s per GPU), 1 × 50 Gbit/s Ethernet (NCCL over TCP) NIC per server",
    ] {
        assert!(md.contains(part), "report.md lacks {part}");
    }
    let figures = report.figures();
    let files: Vec<&str> = figures.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(
        files,
        ["ratios-development-tcp.svg", "ratios-held-out-tcp.svg", "cdf-dev-tcp.svg", "sweep-restore-tcp.svg"]
    );
    for f in &files {
        assert!(md.contains(&format!("]({f})")), "report.md embeds {f}");
    }
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("valid JSON");
    assert_eq!(json["scenarios"].as_array().unwrap().len(), 4);
}

/// The candidate's section: every main-grid scenario, a ratio per rival from the rows'
/// means, and verdicts that follow from them; a plan without a candidate has no section.
#[test]
fn the_candidate_is_held_against_the_subject_and_every_fair_baseline() {
    let mut plan = tiny_plan();
    plan.candidate = Some(CandidateDef {
        policy: "tiresias".into(),
        frozen_at: "abc1234".into(),
        held_out_read_at: None,
        tails_against: "consolidate".into(),
        held_out_rivals: vec!["consolidate".into(), "dally".into()],
        held_out_margin: 0.95,
        no_worse_high: 1.02,
        tails_within: 1.10,
    });
    let tasks = plan.tasks();
    assert_eq!(tasks.len(), 45, "the candidate is a main-grid policy: no new runs");
    let results: Vec<TaskResult> = tasks.iter().map(|t| run_task(&plan, t, None).expect("runs")).collect();
    let report = aggregate(&plan, &results);
    for set in [ScenarioSet::Development, ScenarioSet::HeldOut] {
        let rows = report.candidate_rows(set);
        assert_eq!(rows.len(), 2, "{set:?}: both oversubscriptions");
        for row in &rows {
            let sc = row.scenario;
            let jct = |p: &str| sc.row(p).unwrap().values["avg_jct_s"].mean;
            let rivals: Vec<&str> = row.jct.iter().map(|(b, _)| *b).collect();
            assert_eq!(rivals, ["dally", "consolidate"], "the subject, then the fair baselines but itself");
            for (b, ci) in &row.jct {
                assert!((ci.ratio.unwrap() - jct("tiresias") / jct(b)).abs() < 1e-12, "{b}");
            }
            let p99 = |p: &str| sc.row(p).unwrap().values["p99_jct_s"].mean;
            assert!((row.p99.unwrap() - p99("tiresias") / p99("consolidate")).abs() < 1e-12);
            assert!(!row.over_windows && row.rho_over_1.is_none(), "synthetic, one tenant");
            let below = |b: &str, by: f64| jct("tiresias") <= by * jct(b);
            assert_eq!(
                row.beats_by(&plan.candidate.as_ref().unwrap().held_out_rivals, 0.95),
                below("consolidate", 0.95) && below("dally", 0.95)
            );
            let highs = row.jct.iter().all(|(_, ci)| ci.high <= 1.02);
            assert_eq!(row.no_worse(1.02), below("consolidate", 1.0) && below("dally", 1.0) && highs);
        }
    }
    let md = report.to_markdown();
    assert!(md.contains("## `tiresias`, the recommended policy, against `dally` and every fair baseline"));
    assert!(
        md.contains("frozen at commit `abc1234`") && md.contains("**Development:**") && md.contains("**Held-out:**")
    );
    let json = report.to_json();
    let back: Report = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back, report);
    assert!(!tiny_plan_report_markdown().contains("the recommended policy"));
}

/// A candidate changed after its first held-out run is judged on a fresh held-out set: its
/// own table and verdict, and the protocol names both commits and says the held-out rows
/// have been read.
#[test]
fn a_fresh_held_out_set_has_its_own_table_and_the_protocol_says_what_was_read() {
    let mut plan = tiny_plan();
    for w in plan.workloads.iter_mut().filter(|w| w.set == ScenarioSet::HeldOut) {
        w.set = ScenarioSet::FreshHeldOut;
    }
    for s in plan.scenarios.iter_mut().filter(|s| s.set == ScenarioSet::HeldOut) {
        s.set = ScenarioSet::FreshHeldOut;
    }
    plan.candidate = Some(CandidateDef {
        policy: "tiresias".into(),
        frozen_at: "def5678".into(),
        held_out_read_at: Some("abc1234".into()),
        tails_against: "consolidate".into(),
        held_out_rivals: vec!["consolidate".into(), "dally".into()],
        held_out_margin: 0.95,
        no_worse_high: 1.02,
        tails_within: 1.10,
    });
    let results: Vec<TaskResult> = plan.tasks().iter().map(|t| run_task(&plan, t, None).expect("runs")).collect();
    let report = aggregate(&plan, &results);
    assert_eq!(report.candidate_rows(ScenarioSet::FreshHeldOut).len(), 2);
    assert!(report.candidate_rows(ScenarioSet::HeldOut).is_empty());
    let md = report.to_markdown();
    assert!(md.contains("### fresh held-out workloads") && md.contains("**Fresh held-out:**"), "{md}");
    assert!(!md.contains("### held-out workloads") && !md.contains("**Held-out:**"));
    assert!(md.contains("frozen at commit `def5678` before its first run on the fresh held-out workloads"));
    assert!(md.contains("(frozen at `abc1234`) ran on the held-out workloads first"));
    assert!(report.figures().iter().any(|f| f.file.starts_with("ratios-fresh-held-out-")));
    let back: Report = serde_json::from_str(&report.to_json()).expect("reads back");
    assert_eq!(back, report);
}

fn tiny_plan_report_markdown() -> String {
    let plan = tiny_plan();
    let results: Vec<TaskResult> = plan.tasks().iter().map(|t| run_task(&plan, t, None).expect("runs")).collect();
    aggregate(&plan, &results).to_markdown()
}

/// The fairness columns are the summaries' figures, spread over seeds; a `report.json`
/// written before they existed still reads and renders, with a dash for them.
#[test]
fn fairness_columns_come_from_the_summaries_and_older_reports_still_render() {
    let plan = tiny_plan();
    let tasks = plan.tasks();
    let results: Vec<TaskResult> = tasks.iter().map(|t| run_task(&plan, t, None).expect("runs")).collect();
    let (jain, most) = (metric_index("jain_slowdown"), metric_index("job_preemptions_max"));
    for r in &results {
        assert_eq!(r.values[jain], r.summary.jain_slowdown);
        assert_eq!(r.values[most], r.summary.job_preemptions_max as f64);
    }
    let report = aggregate(&plan, &results);
    let sc = &report.scenarios[0];
    for row in &sc.rows {
        let of = |m: usize| -> Vec<f64> {
            tasks
                .iter()
                .zip(&results)
                .filter(|(t, _)| t.scenario == plan.main[0] && t.policy == row.spec)
                .map(|(_, r)| r.values[m])
                .collect()
        };
        assert_eq!(row.values["jain_slowdown"], Stat::of(&of(jain)), "{}", row.policy);
        assert_eq!(row.values["job_preemptions_max"], Stat::of(&of(most)), "{}", row.policy);
    }
    let md = report.to_markdown();
    let table_header = md.lines().find(|l| l.starts_with("| policy | mean JCT |")).expect("a full table");
    assert!(
        table_header
            .ends_with("| Jain (tenants' slowdowns) | most preemptions of a job | max ρ | share of jobs with ρ > 1 |"),
        "{table_header}"
    );
    let first = &sc.rows[0];
    // The synthetic workloads have one tenant: no ρ, a dash.
    let want = format!(
        "| {:.3} ± {:.3} | {:.0} ± {:.0} | — | — |",
        first.values["jain_slowdown"].mean,
        first.values["jain_slowdown"].sd,
        first.values["job_preemptions_max"].mean,
        first.values["job_preemptions_max"].sd
    );
    let line = md.lines().find(|l| l.starts_with(&format!("| `{}` |", first.policy))).unwrap();
    assert!(line.ends_with(&want), "{line} should end with {want}");

    // The same report as an older `report.json`: no fairness keys in any row.
    let mut json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let mut stripped = 0;
    let mut strip = |rows: &mut serde_json::Value| {
        for row in rows.as_array_mut().unwrap() {
            let values = row["values"].as_object_mut().unwrap();
            stripped += values.remove("jain_slowdown").is_some() as u32;
            stripped += values.remove("job_preemptions_max").is_some() as u32;
        }
    };
    for sc in json["scenarios"].as_array_mut().unwrap() {
        strip(&mut sc["rows"]);
    }
    for sw in json["sweeps"].as_array_mut().unwrap() {
        for point in sw["points"].as_array_mut().unwrap() {
            strip(&mut point["rows"]);
        }
    }
    assert!(stripped > 0);
    let old = Report::from_json(&json.to_string()).expect("an older report reads");
    let md = old.to_markdown();
    let line = md.lines().find(|l| l.starts_with(&format!("| `{}` |", first.policy))).unwrap();
    assert!(line.ends_with("| — | — | — | — |"), "{line}");
}

/// The parts a sweep spec can express run exactly the plan's runs, no more.
#[test]
fn grid_parts_cover_exactly_the_tasks() {
    for plan in [paper_plan(false), paper_plan(true), tiny_plan()] {
        let tasks: BTreeSet<Task> = plan.tasks().into_iter().collect();
        let mut covered = BTreeSet::new();
        for part in plan.grid_parts() {
            for &s in &part.scenarios {
                assert_eq!(plan.scenarios[s].seeds, part.seeds, "{}: one seed list per part", part.name);
                for p in &part.policies {
                    for window in 0..plan.scenarios[s].window_count() as u32 {
                        for &seed in &part.seeds {
                            covered.insert(Task { scenario: s, policy: p.clone(), window, seed });
                        }
                    }
                }
            }
        }
        assert_eq!(covered, tasks, "{}", plan.name);
    }
    let names: Vec<String> = paper_plan(false).grid_parts().into_iter().map(|p| p.name).collect();
    // Philly workloads have five seeds and synthetic ones ten: a part per seed list.
    assert_eq!(
        names,
        [
            "development-1",
            "development-2",
            "held-out-1",
            "held-out-2",
            "fresh-held-out-1",
            "fresh-held-out-2",
            "oversub",
            "restore",
            "oracle-1",
            "oracle-2"
        ]
    );
}

/// Fewer seeds keep every scenario, policy and sweep and drop exactly the later seeds.
#[test]
fn fewer_seeds_drop_only_runs_of_the_later_seeds() {
    let full = paper_plan(false);
    let three = paper_plan(false).with_seed_count(3);
    assert_eq!(three.scenarios.len(), full.scenarios.len());
    assert!(three.scenarios.iter().all(|s| s.seeds.len() == 3));
    let kept: BTreeSet<Task> = three.tasks().into_iter().collect();
    let want: BTreeSet<Task> =
        full.tasks().into_iter().filter(|t| full.scenarios[t.scenario].seeds[..3].contains(&t.seed)).collect();
    assert_eq!(kept, want);
    assert!(kept.len() < full.tasks().len());
}
