//! The Acme reader on small hand-made files in Seren's and Kalos's columns.

use super::*;
use crate::trace::{acme, parse_trace};

const SEREN: &str =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time";
const KALOS: &str = "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time";

/// Two GPU jobs (the README's example rows), a CPU-only job, a job cancelled while queued,
/// and a second CPU-only job.
fn seren() -> String {
    [
        SEREN,
        "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0",
        "5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0",
        "c1,u1,1,0,16,Other,COMPLETED,2023-03-01 00:30:00+08:00,2023-03-01 00:30:01+08:00,2023-03-01 00:31:01+08:00,60,1,0.0",
        "q1,u2,2,16,256,Pretrain,CANCELLED,2023-03-01 00:40:00+08:00,,,0,,0.0",
        "c2,u1,1,0,16,Other,COMPLETED,2023-03-01 00:50:00+08:00,2023-03-01 00:50:01+08:00,2023-03-01 00:51:01+08:00,60,1,0.0",
    ]
    .join("\n")
}

#[test]
fn seren_rows_become_jobs_with_utc_submissions_and_users_as_tenants() {
    let t = parse_trace(&seren()).unwrap();
    assert_eq!(t.format, TraceFormat::Acme);
    // 2023-03-01 00:18:22+08:00 is 2023-02-28 16:18:22 UTC: 1,677,601,102 s after 1970.
    let expected = |name: &str, submit_s: f64, duration: f64, line: u32| TraceJob {
        name: name.into(),
        submit_s,
        gpus: 8,
        model: None,
        work: TraceWork::DurationS(duration),
        batch: None,
        tenant: Some("u5907".into()),
        line,
    };
    assert_eq!(
        t.jobs,
        [expected("5778432", 1_677_601_102.0, 117.0, 2), expected("5778469", 1_677_601_438.0, 2693.0, 3)]
    );
    assert_eq!(
        t.skipped,
        [
            Skipped { reason: SkipReason::CpuOnly, rows: 2, first_line: 4 },
            Skipped { reason: SkipReason::NeverRan, rows: 1, first_line: 5 },
        ]
    );
}

#[test]
fn kalos_columns_and_offsets_are_read_too() {
    let text = format!(
        "{KALOS}\ndlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0\n"
    );
    let t = parse_trace(&text).unwrap();
    assert_eq!((t.format, t.jobs.len(), t.skipped.len()), (TraceFormat::Acme, 1, 0));
    let j = &t.jobs[0];
    assert_eq!(
        (j.submit_s, j.gpus, j.work, j.tenant.as_deref()),
        (1_684_321_258.0, 64, TraceWork::DurationS(18.0), Some("uf794"))
    );
}

#[test]
fn zones_are_applied_and_bad_times_are_named() {
    assert_eq!(parse_zoned("2023-03-01 08:00:00+08:00"), parse_zoned("2023-03-01 00:00:00Z"));
    assert_eq!(parse_zoned("2023-03-01 00:00:00-01:30"), Ok(1_677_628_800.0 + 5_400.0));
    assert_eq!(parse_zoned("2023-03-01 00:00:00"), Ok(1_677_628_800.0));
    for bad in ["2023-03-01", "2023-03-01 00:00:00+8", "2023-03-01 00:00:00+08:60", "2023-02-30 00:00:00+08:00"] {
        assert!(parse_zoned(bad).is_err(), "{bad}");
    }
}

#[test]
fn bad_rows_name_the_line_and_the_column() {
    let good = seren();
    for (replace, with, line, field) in [
        ("5778469,u5907,1,8,", "5778469,u5907,1,eight,", 3, "gpu_num"),
        ("5778469,u5907,1,8,", "5778469,u5907,1,-8,", 3, "gpu_num"),
        ("2023-03-01 00:23:58+08:00,2023", "yesterday,2023", 3, "submit_time"),
        (",2693,", ",-5,", 3, "duration"),
        (",2693,", ",long,", 3, "duration"),
        ("5778469,", "5778432,", 3, "job_id"),
        ("5778469,", ",", 3, "job_id"),
    ] {
        let e = parse_trace(&good.replacen(replace, with, 1)).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(line), field), "{with}: {e}");
    }
    let e = parse_trace(&good.replace(SEREN, &SEREN.replace(",duration,", ",runtime,"))).unwrap_err();
    assert!(e.message.contains("unrecognised trace format"), "without duration it is no Acme header: {e}");
    let e = acme::parse(&good.replace(SEREN, &SEREN.replace(",user,", ",owner,"))).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(1), "user"));
}

#[test]
fn a_trace_of_only_cpu_jobs_is_refused_with_the_count() {
    let text = [SEREN, "c1,u1,1,0,16,Other,COMPLETED,2023-03-01 00:30:00+08:00,,,60,1,0.0"].join("\n");
    let e = parse_trace(&text).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(1), "gpu_num"));
    assert_eq!(e.message, "no GPU jobs: all 1 rows are CPU-only (gpu_num 0) or never ran (duration 0)");
}
