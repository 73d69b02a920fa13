use super::*;

#[test]
fn the_timer_is_added_only_to_a_hard_constraint_without_one_and_eviction_where_it_is_off() {
    assert_eq!(
        policies("kueue-tas:required=rack", 300.0),
        [
            "kueue-tas:required=rack",
            "kueue-tas:required=rack,required_for_s=300",
            "kueue-tas:required=rack,required_for_s=auto",
            "kueue-tas:required=rack,evict=on",
            "dally",
            "dally:order=las"
        ]
    );
    assert_eq!(
        policies("kueue-tas:preferred=rack", 300.0),
        ["kueue-tas:preferred=rack", "kueue-tas:preferred=rack,evict=on", "dally", "dally:order=las"]
    );
    assert_eq!(policies("kueue-tas", 300.0)[1], "kueue-tas:evict=on");
    assert_eq!(
        policies("volcano:hard=2", 60.0)[1..3],
        ["volcano:hard=2,hard_for_s=60", "volcano:hard=2,hard_for_s=auto"]
    );
    assert_eq!(policies("slurm", 60.0)[..3], ["slurm", "slurm:wait_s=auto", "slurm:evict=on"]);
    assert_eq!(policies("slurm:block=on", 60.0)[1..3], ["slurm:block=on,wait_s=60", "slurm:block=on,wait_s=auto"]);
    assert_eq!(policies("dally", 60.0), ["dally", "dally:order=las"]);
    // Reclaim and eviction do not go together (the core refuses them).
    assert_eq!(
        policies("slurm:quota=on", 60.0),
        ["slurm:quota=on", "slurm:quota=on,wait_s=auto", "dally", "dally:order=las"]
    );
    let timed = "kueue-tas:required=rack,required_for_s=60,evict=on";
    assert_eq!(policies(timed, 300.0)[..2], [timed, "dally"]);
}

use proxima_core::cluster::JobId;
use proxima_core::event::{Observer, Reason, SimEvent};
use proxima_core::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
use proxima_core::time::SimTime;
use proxima_core::topology::{GpuId, Tier};

/// Two racks of four 8-GPU servers and a loaded synthetic trace of two tenants with equal
/// quotas: enough contention for preemptions, holds and quota waits.
fn scenario(seed: u64) -> Scenario {
    let mut input = ScenarioInput::new(
        TopologyInput::Argument("racks=2,servers=4,gpus=8,nic_gbps=100".into()),
        TraceInput::Synthetic("synthetic:jobs=80,load=2,tenants=2".into()),
        seed,
    );
    input.mix = Some("llm".into());
    input.tenants = Some("equal".into());
    build_scenario(&input).expect("a valid scenario")
}

fn plan(scheduler: &str, seeds: u64) -> WhatIfPlan {
    WhatIfPlan {
        scheduler: scheduler.into(),
        timer_s: 120.0,
        seeds,
        topology_label: "racks=2,servers=4,gpus=8".into(),
        trace_label: "synthetic:jobs=80,load=2,tenants=2".into(),
    }
}

fn report(scheduler: &str, seeds: u64) -> WhatIfReport {
    run_what_if(&plan(scheduler, seeds), &mut |s| Ok::<_, InputError>(scenario(s)), &|e| e).expect("runs")
}

#[test]
fn the_report_has_every_policy_each_tenant_and_the_same_figures_twice() {
    let r = report("kueue-tas:required=rack", 2);
    let specs: Vec<&str> = r.policies.iter().map(|p| p.spec.as_str()).collect();
    assert_eq!(specs, policies("kueue-tas:required=rack", 120.0));
    assert!(r.policies[0].jct_ratio.is_none(), "the configured scheduler is the unit");
    assert!(r.policies[1..].iter().all(|p| p.jct_ratio.is_some_and(|ci| ci.ratio.is_some())));
    assert_eq!(r.tenants.len(), 2);
    assert!(r.quotas);
    for p in &r.policies {
        assert_eq!(p.tenants.len(), 2, "{}", p.spec);
        assert!(p.jct.mean > 0.0 && p.tenants.iter().all(|t| t.jct.mean > 0.0), "{}", p.spec);
        let f = &p.fragmentation;
        assert!(f.freed_unused.mean <= f.preemptions.mean && f.beneficiary_waiting.mean <= f.with_beneficiary.mean);
        let h = &p.holding;
        let ended = h.got_level.mean + h.timer_out.mean + h.other.mean;
        assert!((ended - h.held_waits.mean).abs() < 1e-9, "every held wait ended one way: {}", p.spec);
    }
    // Eviction preempts: the figure counts what the events say.
    assert!(r.policies.iter().any(|p| p.fragmentation.preemptions.mean > 0.0), "some policy preempts here");
    assert_eq!(report("kueue-tas:required=rack", 2), r, "the same runs, the same report");
}

#[test]
fn a_bad_plan_is_refused_naming_its_field_before_any_run() {
    let mut runs = 0;
    let mut count = |s| {
        runs += 1;
        Ok::<_, InputError>(scenario(s))
    };
    let field = |p: &WhatIfPlan, count: &mut dyn FnMut(u64) -> Result<Scenario, InputError>| {
        run_what_if(p, count, &|e| e).expect_err("refused").field
    };
    assert_eq!(field(&plan("kueue-tas", 0), &mut count), "seeds");
    assert_eq!(field(&WhatIfPlan { timer_s: -1.0, ..plan("kueue-tas", 1) }, &mut count), "timer");
    assert_ne!(field(&plan("kueue-taz", 1), &mut count), "seeds");
    assert_eq!(runs, 0);
}

/// Tags the HTML opens and closes, in order; panics on a close that does not match.
fn check_balanced(html: &str) {
    const VOID: &[&str] = &["meta", "br", "!DOCTYPE"];
    let mut open: Vec<String> = Vec::new();
    for piece in html.split('<').skip(1) {
        let tag = piece.split(['>', ' ']).next().unwrap();
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop().as_deref(), Some(name), "</{name}> closes what was opened");
        } else if !VOID.contains(&tag) {
            open.push(tag.to_string());
        }
    }
    assert!(open.is_empty(), "left open: {open:?}");
}

#[test]
fn the_html_opens_offline_and_its_tags_balance() {
    let r = report("slurm:quota=on", 2);
    let page = html(&r);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("http://") && !page.contains("https://"), "no network reference");
    assert!(!page.contains("<script") && !page.contains("@import") && !page.contains("url("));
    for (i, _) in page.match_indices("src=") {
        assert!(page[i..].starts_with("src=\"data:"), "only data: sources");
    }
    check_balanced(&page);
    assert_eq!(page.matches("<svg").count(), 1 + r.tenants.len() + 2, "JCT, per tenant, preemptions, held time");
    let md = markdown(&r);
    for heading in ["## Mean JCT by policy", "## Per tenant", "## Preemptions", "## Jobs held", "## Jobs a quota"] {
        assert!(md.contains(heading) && page.contains(&heading[3..]), "{heading}");
    }
    assert!(screen(&r).starts_with("what if: racks=2,servers=4,gpus=8 (64 GPUs)"));
}

#[test]
fn escaping_keeps_a_hostile_name_text() {
    let mut r = report("slurm", 1);
    r.tenants[0] = "<script>alert(1)</script>".into();
    let page = html(&r);
    assert!(!page.contains("<script>") && page.contains("&lt;script&gt;"));
    check_balanced(&page);
}

/// Feeds a ledger the events of `script`, (seconds, event), and finishes it.
fn ledger(scenario: &Scenario, spec: &str, script: &[(f64, SimEvent)]) -> RunAnalysis {
    let mut ledger = RunLedger::new(scenario, WINDOW_S);
    for (at, event) in script {
        ledger.observe(SimTime::from_secs_f64(*at), event);
    }
    ledger.finish(spec)
}

fn placed(job: u32, gpus: std::ops::Range<u32>, reason: Reason) -> SimEvent {
    SimEvent::Placed { job: JobId(job), gpus: gpus.map(GpuId).collect(), tier: Tier(0), iter_s: 1.0, reason }
}

fn preempted_for(job: u32, for_job: u32) -> SimEvent {
    let reason = Reason::PreemptedFor { for_job: JobId(for_job), tier: Tier(0), gain_s: 0.0, cost_s: 10.0 };
    SimEvent::Preempted { job: JobId(job), done_iterations: 0.0, reason }
}

#[test]
fn a_preemption_counts_as_used_only_when_another_job_takes_a_freed_gpu_in_the_window() {
    let s = scenario(1);
    let arrive = |j: u32| SimEvent::Arrived { job: JobId(j) };
    let start = vec![(0.0, arrive(0)), (0.0, arrive(1)), (0.0, placed(0, 0..8, Reason::FirstFit))];
    let mut used = start.clone();
    used.extend([(10.0, preempted_for(0, 1)), (10.0, placed(1, 4..12, Reason::FirstFit))]);
    let a = ledger(&s, "fifo", &used);
    assert_eq!((a.preemptions, a.freed_unused, a.with_beneficiary, a.beneficiary_waiting), (1, 0, 1, 0));
    // The beneficiary placed elsewhere, too late: both count.
    let mut wasted = start.clone();
    wasted.extend([(10.0, preempted_for(0, 1)), (10.0 + WINDOW_S + 1.0, placed(1, 40..48, Reason::FirstFit))]);
    let a = ledger(&s, "fifo", &wasted);
    assert_eq!((a.preemptions, a.freed_unused, a.with_beneficiary, a.beneficiary_waiting), (1, 1, 1, 1));
    // The victim back on its own GPUs is not a use.
    let mut back = start;
    back.extend([(10.0, preempted_for(0, 1)), (20.0, placed(0, 0..8, Reason::FirstFit))]);
    assert_eq!(ledger(&s, "fifo", &back).freed_unused, 1);
}

#[test]
fn a_job_is_held_while_its_gpus_are_free_and_admitted_when_within_quota_too() {
    let s = scenario(1);
    let job = s.jobs.iter().find(|j| j.gpus <= 8).expect("a small job");
    let id = job.id.0;
    let waited = WINDOW_S + 100.0;
    let script = [
        (0.0, SimEvent::Arrived { job: JobId(id) }),
        (waited, placed(id, 0..job.gpus, Reason::GotWantedTier { tier: Tier(0), waited_s: waited })),
    ];
    let a = ledger(&s, "slurm:quota=on", &script);
    assert_eq!((a.held_waits, a.held_got_level, a.held_timer_out), (1, 1, 0));
    assert!((a.held_s - waited).abs() < 1e-6, "{}", a.held_s);
    assert!(a.admits_by_quota);
    assert_eq!(a.admitted_unplaced.len(), 1);
    let listed = &a.admitted_unplaced[0];
    assert_eq!((listed.job, listed.gpus, listed.placed), (id, job.gpus, true));
    // Not placed by the end: listed as never placed; the policy does not admit by quota.
    let a = ledger(&s, "dally", &script[..1]);
    assert!(!a.admits_by_quota && a.held_waits == 0);
    assert_eq!(a.admitted_unplaced.len(), 0, "no time passed");
    let other = s.jobs.iter().find(|j| j.id.0 != id).expect("another job").id;
    let never = [script[0].clone(), (waited, SimEvent::Arrived { job: other })];
    let a = ledger(&s, "dally", &never);
    assert_eq!((a.held_waits, a.held_at_end), (0, 1));
    assert!((a.held_at_end_s - waited).abs() < 1e-6);
    assert_eq!(a.admitted_unplaced.iter().map(|x| (x.job, x.placed)).collect::<Vec<_>>(), [(id, false)]);
}
