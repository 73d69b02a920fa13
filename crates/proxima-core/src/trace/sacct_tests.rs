//! The sacct reader on small hand-made histories in `sacct --parsable2` output.

use super::*;
use crate::trace::parse_trace;

const HEADER: &str = "JobID|Submit|Start|End|State|NNodes|AllocTRES|Account|User";

/// A history with one row of each kind the rules tell apart (lines in the comments).
fn history() -> String {
    [
        HEADER,
        // 2: a 16-GPU job with its steps (lines 3-5), which make no jobs.
        "4101|2026-03-01T08:00:12|2026-03-01T08:00:14|2026-03-01T11:12:40|COMPLETED|2|billing=128,cpu=128,gres/gpu=16,mem=1000G,node=2|vision|alice",
        "4101.batch|2026-03-01T08:00:14|2026-03-01T08:00:14|2026-03-01T11:12:40|COMPLETED|1|cpu=64,gres/gpu=8,mem=500G,node=1|vision|",
        "4101.extern|2026-03-01T08:00:14|2026-03-01T08:00:14|2026-03-01T11:12:40|COMPLETED|2|billing=128,cpu=128,gres/gpu=16,mem=1000G,node=2|vision|",
        "4101.0|2026-03-01T08:00:20|2026-03-01T08:00:20|2026-03-01T11:12:39|COMPLETED|2|cpu=128,gres/gpu=16,mem=1000G,node=2|vision|",
        // 6-7: two array tasks, typed GPUs, no account (the user is the tenant).
        "4102_1|2026-03-01T09:00:00|2026-03-01T09:00:05|2026-03-01T09:30:05|FAILED|1|cpu=8,gres/gpu:a100=1,mem=64G,node=1||bob",
        "4102_2|2026-03-01T09:00:00|2026-03-01T09:00:05|2026-03-01T10:00:05|TIMEOUT|1|cpu=8,gres/gpu=2,gres/gpu:a100=2,mem=64G,node=1||bob",
        // 8: the array's tasks still waiting.
        "4102_[3-8%2]|2026-03-01T09:00:00|Unknown|Unknown|PENDING|1||nlp|bob",
        // 9: a CPU-only job.
        "4103|2026-03-01T09:10:00|2026-03-01T09:10:01|2026-03-01T09:20:01|COMPLETED|1|billing=4,cpu=4,mem=16G,node=1|nlp|carol",
        // 10: cancelled while queued.
        "4104|2026-03-01T09:20:00|None|2026-03-01T09:25:00|CANCELLED by 1234|1||nlp|carol",
        // 11: cancelled while running (kept).
        "4105|2026-03-01T09:30:00|2026-03-01T09:31:00|2026-03-01T09:41:00|CANCELLED by 1234|1|cpu=8,gres/gpu=4,node=1|nlp|carol",
        // 12: still running.
        "4106|2026-03-01T09:40:00|2026-03-01T09:40:02|Unknown|RUNNING|1|cpu=8,gres/gpu=8,node=1|nlp|carol",
        // 13-15: a heterogeneous job, a CPU launcher and 8 GPUs, and a step of it.
        "4107+0|2026-03-01T10:00:00|2026-03-01T10:00:03|2026-03-01T10:40:03|OUT_OF_MEMORY|1|cpu=2,mem=8G,node=1|vision|dave",
        "4107+1|2026-03-01T10:00:00|2026-03-01T10:00:03|2026-03-01T10:50:03|OUT_OF_MEMORY|1|cpu=64,gres/gpu=8,node=1|vision|dave",
        "4107+1.0|2026-03-01T10:00:04|2026-03-01T10:00:04|2026-03-01T10:50:03|OUT_OF_MEMORY|1|cpu=64,gres/gpu=8,node=1|vision|",
    ]
    .join("\n")
}

fn job(name: &str, submit_s: f64, gpus: u32, run_s: f64, tenant: &str, line: u32) -> TraceJob {
    TraceJob {
        name: name.into(),
        submit_s,
        gpus,
        model: None,
        work: TraceWork::DurationS(run_s),
        batch: None,
        tenant: Some(tenant.into()),
        line,
    }
}

/// 2026-03-01T00:00:00 read as UTC.
const MARCH_1: f64 = 1_772_323_200.0;

#[test]
fn allocations_become_jobs_and_steps_fold_into_them() {
    let t = parse_trace(&history()).unwrap();
    assert_eq!(t.format, TraceFormat::Sacct);
    let at = |h: f64, m: f64, s: f64| MARCH_1 + h * 3600.0 + m * 60.0 + s;
    assert_eq!(
        t.jobs,
        [
            job("4101", at(8.0, 0.0, 12.0), 16, 3.0 * 3600.0 + 12.0 * 60.0 + 26.0, "vision", 2),
            job("4102_1", at(9.0, 0.0, 0.0), 1, 1800.0, "bob", 6),
            job("4102_2", at(9.0, 0.0, 0.0), 2, 3600.0, "bob", 7),
            job("4105", at(9.0, 30.0, 0.0), 4, 600.0, "nlp", 11),
            job("4107", at(10.0, 0.0, 0.0), 8, 3000.0, "vision", 13),
        ]
    );
    assert_eq!(
        t.skipped,
        [
            Skipped { reason: SkipReason::Pending, rows: 1, first_line: 8 },
            Skipped { reason: SkipReason::CpuOnly, rows: 1, first_line: 9 },
            Skipped { reason: SkipReason::NeverRan, rows: 1, first_line: 10 },
            Skipped { reason: SkipReason::StillRunning, rows: 1, first_line: 12 },
        ]
    );
}

#[test]
fn allocations_only_output_gives_the_same_jobs() {
    // `sacct -X` prints no steps.
    let with_steps = parse_trace(&history()).unwrap();
    let text: String =
        history().lines().filter(|l| !l.split('|').next().unwrap().contains('.')).collect::<Vec<_>>().join("\n");
    let without = parse_trace(&text).unwrap();
    let names = |t: &Trace| t.jobs.iter().map(|j| (j.name.clone(), j.gpus, j.work)).collect::<Vec<_>>();
    assert_eq!(names(&without), names(&with_steps));
    assert_eq!(without.skipped.iter().map(|s| s.rows).sum::<u32>(), 4);
}

#[test]
fn columns_may_come_in_any_order_and_case_with_extra_ones() {
    let text = "state|ALLOCTRES|jobid|JobName|End|Start|Submit|User\n\
                COMPLETED|gres/gpu=4|7|train|2026-03-01T01:00:00|2026-03-01T00:00:00|2026-03-01T00:00:00|erin\n";
    let t = parse_trace(text).unwrap();
    assert_eq!(t.jobs, [job("7", MARCH_1, 4, 3600.0, "erin", 2)]);
    // sacct --parsable ends every line with '|'.
    let t = parse_trace(&text.replace('\n', "|\n")).unwrap();
    assert_eq!(t.jobs.len(), 1);
}

#[test]
fn every_end_state_that_used_gpus_is_kept() {
    for state in [
        "COMPLETED",
        "FAILED",
        "TIMEOUT",
        "CANCELLED",
        "CANCELLED by 0",
        "OUT_OF_MEMORY",
        "NODE_FAIL",
        "PREEMPTED",
        "DEADLINE",
        "BOOT_FAIL",
    ] {
        let text = format!(
            "{HEADER}\n1|2026-03-01T00:00:00|2026-03-01T00:00:10|2026-03-01T00:01:10|{state}|1|gres/gpu=1|a|u\n"
        );
        let t = parse_trace(&text).unwrap();
        assert_eq!((t.jobs.len(), t.jobs[0].work), (1, TraceWork::DurationS(60.0)), "{state}");
    }
}

#[test]
fn tenants_are_accounts_else_users_else_none() {
    let row = |account: &str, user: &str| {
        format!("{HEADER}\n1|2026-03-01T00:00:00|2026-03-01T00:00:10|2026-03-01T00:01:10|COMPLETED|1|gres/gpu=1|{account}|{user}\n")
    };
    let tenant = |text: String| parse_trace(&text).unwrap().jobs[0].tenant.clone();
    assert_eq!(tenant(row("ml", "alice")), Some("ml".into()));
    assert_eq!(tenant(row("", "alice")), Some("alice".into()));
    assert_eq!(tenant(row("", "")), None);
    let no_account = "JobID|Submit|Start|End|State|AllocTRES|User\n1|2026-03-01T00:00:00|2026-03-01T00:00:10|2026-03-01T00:01:10|COMPLETED|gres/gpu=1|alice\n";
    assert_eq!(tenant(no_account.into()), Some("alice".into()));
}

#[test]
fn gpu_counts_come_from_the_untyped_total_else_the_typed_sum() {
    assert_eq!(gpus_allocated("billing=8,cpu=8,gres/gpu=8,mem=64G,node=1"), Ok(8));
    assert_eq!(gpus_allocated("gres/gpu:a100=4,gres/gpu:h100=2"), Ok(6));
    assert_eq!(gpus_allocated("gres/gpu=6,gres/gpu:a100=4,gres/gpu:h100=2"), Ok(6));
    assert_eq!(gpus_allocated("cpu=4,gres/gpumem=40G,mem=1G"), Ok(0));
    assert_eq!(gpus_allocated(""), Ok(0));
    assert!(gpus_allocated("gres/gpu=eight").unwrap_err().contains("expected gres/gpu=N"));
    assert!(gpus_allocated("cpu").unwrap_err().contains("expected TRES"));
}

#[test]
fn job_ids_are_allocations_steps_arrays_or_components() {
    assert_eq!(allocation_of("123"), Ok(Some("123")));
    assert_eq!(allocation_of("123_4"), Ok(Some("123_4")));
    assert_eq!(allocation_of("123_[4-9]"), Ok(Some("123_[4-9]")));
    assert_eq!(allocation_of("123+1"), Ok(Some("123+1")));
    for step in ["123.batch", "123.extern", "123.0", "123_4.batch", "123+1.0", "123.interactive"] {
        assert_eq!(allocation_of(step), Ok(None), "{step}");
    }
    for bad in ["", "abc", "123_", "123+", "12a", "123.", "_4", "123_[]"] {
        assert!(allocation_of(bad).is_err(), "{bad}");
    }
}

#[test]
fn bad_rows_name_the_line_and_the_field() {
    let good = history();
    for (replace, with, line, field) in [
        ("gres/gpu=16,mem=1000G,node=2|vision|alice", "gres/gpu=lots,mem=1000G,node=2|vision|alice", 2, "AllocTRES"),
        ("4102_1|2026-03-01T09:00:00", "4102_1|yesterday", 6, "Submit"),
        ("4102_1|2026-03-01T09:00:00|2026", "4102_1|Unknown|2026", 6, "Submit"),
        ("|2026-03-01T09:30:05|FAILED", "|2026-03-01T09:30:65|FAILED", 6, "End"),
        ("|2026-03-01T09:30:05|FAILED", "|2026-03-01T08:30:05|FAILED", 6, "End"),
        ("|FAILED|", "|EXPLODED|", 6, "State"),
        ("4102_1|", "4102-1|", 6, "JobID"),
        ("4102_2|", "4102_1|", 7, "JobID"),
        ("|FAILED|1|", "|FAILED|1|x|", 6, "row"),
    ] {
        let text = good.replacen(replace, with, 1);
        assert_ne!(text, good, "{replace}");
        let e = parse_trace(&text).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(line), field), "{with}: {e}");
    }
    let e = parse_trace(&good.replace(HEADER, &HEADER.replace("|AllocTRES", "|ReqTRES"))).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(1), "AllocTRES"));
    assert!(e.message.contains("--format=JobID,Submit,Start,End,State,NNodes,AllocTRES,Account,User"), "{e}");
}

#[test]
fn a_header_alone_or_only_skipped_rows_say_so() {
    let e = parse_trace(&format!("{HEADER}\n")).unwrap_err();
    assert!(e.message.contains("no jobs"), "{e}");
    let steps_only: String =
        history().lines().filter(|l| *l == HEADER || l.starts_with("4101.")).collect::<Vec<_>>().join("\n");
    let e = parse_trace(&steps_only).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(1), "JobID"));
    assert!(e.message.starts_with("no jobs: all 3 rows are job steps"), "{e}");
    let skipped_only: String = history()
        .lines()
        .filter(|l| [HEADER, "4102_[", "4103|", "4104|"].iter().any(|p| l.starts_with(p)))
        .collect::<Vec<_>>()
        .join("\n");
    let e = parse_trace(&skipped_only).unwrap_err();
    assert_eq!(
        e.message,
        "no GPU jobs: all 3 allocations were left out: 1 pending jobs (never started), 1 CPU-only jobs (no GPU asked for), 1 jobs that never ran (duration 0)"
    );
}

#[test]
fn waiting_active_and_zero_length_rows_are_told_apart() {
    let row = |id: &str, start: &str, end: &str, state: &str| {
        format!("{id}|2026-03-01T00:00:00|{start}|{end}|{state}|1|gres/gpu=2|a|u")
    };
    let t = "2026-03-01T00:00:10";
    let text = [
        HEADER.to_string(),
        row("1", t, "2026-03-01T01:00:10", "COMPLETED"),
        row("2", "Unknown", "Unknown", "REQUEUE_HOLD"),
        row("3", t, "Unknown", "SUSPENDED"),
        row("4", t, t, "FAILED"),
        // A heterogeneous job with one component still running is still running.
        row("5+0", t, "2026-03-01T00:30:00", "COMPLETED"),
        row("5+1", t, "Unknown", "RUNNING"),
    ]
    .join("\n");
    let trace = parse_trace(&text).unwrap();
    assert_eq!(trace.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(), ["1"]);
    let reasons: Vec<(SkipReason, u32, u32)> = trace.skipped.iter().map(|s| (s.reason, s.rows, s.first_line)).collect();
    assert_eq!(reasons, [(SkipReason::Pending, 1, 3), (SkipReason::StillRunning, 2, 4), (SkipReason::NeverRan, 1, 5)]);
}
