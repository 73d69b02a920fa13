//! Tests of the native trace format: rows read, and every refusal naming its line and field.

use super::*;

fn job(name: &str, submit_s: f64, gpus: u32, model: Option<&str>, work: TraceWork, line: u32) -> TraceJob {
    TraceJob {
        name: name.into(),
        submit_s,
        gpus,
        model: model.map(str::to_string),
        work,
        batch: None,
        tenant: None,
        line,
    }
}

#[test]
fn csv_reads_durations_and_iterations() {
    let t = parse_csv("id,submit_s,gpus,model,duration_s\na,0,4,resnet50,3600\nb,10.5,1,,60\n").unwrap();
    assert_eq!(t.format, TraceFormat::ProximaCsv);
    assert_eq!(t.jobs[0], job("a", 0.0, 4, Some("resnet50"), TraceWork::DurationS(3600.0), 2));
    assert_eq!(t.jobs[1], job("b", 10.5, 1, None, TraceWork::DurationS(60.0), 3));
    let t = parse_csv("id,gpus,iterations,submit_s\nx,2,1000,5\n").unwrap();
    assert_eq!(t.jobs[0], job("x", 5.0, 2, None, TraceWork::Iterations(1000.0), 2));
}

#[test]
fn csv_bad_rows_name_line_and_field() {
    let head = "id,submit_s,gpus,model,duration_s\na,0,1,,1\n";
    let cases = [
        ("b,0,abc,,1", "gpus", "expected a positive whole number, got 'abc'"),
        ("b,0,0,,1", "gpus", "positive whole number"),
        ("b,0,4294967296,,1", "gpus", "more than"),
        ("b,-1,1,,1", "submit_s", "0 seconds or more"),
        ("b,inf,1,,1", "submit_s", "finite"),
        ("b,0,1,,0", "duration_s", "positive number of seconds"),
        ("b,0,1,,NaN", "duration_s", "expected a number"),
        ("b,0,1,,", "duration_s", "work is empty"),
        ("b,0,1,vgg16", "duration_s", "missing value"),
        ("b,0,1,vgg16,1,2", "column 6", "extra value '2'"),
        ("a,0,1,,1", "id", "duplicate job id 'a': line 2 already uses it"),
        (",0,1,,1", "id", "must not be empty"),
        ("\"b,0,1,,1", "row", "not closed"),
    ];
    for (line, field, what) in cases {
        let e = parse_csv(&format!("{head}{line}\n")).unwrap_err();
        assert_eq!(e.line, Some(3), "{line}: {e}");
        assert_eq!(e.field, field, "{line}: {e}");
        assert!(e.message.contains(what), "{line}: {e}");
    }
    let both = parse_csv("id,submit_s,gpus,duration_s,iterations\na,0,1,5,5\n").unwrap_err();
    assert_eq!((both.line, both.field.as_str()), (Some(2), "iterations"));
    let it = parse_csv("id,submit_s,gpus,iterations\na,0,1,-5\n").unwrap_err();
    assert_eq!(it.field, "iterations");
}

#[test]
fn csv_header_checks() {
    let e = parse_csv("id,submit_s,gpus,modle,duration_s\na,0,1,x,1\n").unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(1), "modle"));
    assert!(e.message.contains("unknown column"), "{e}");
    let e = parse_csv("id,submit_s,gpus,model\na,0,1,x\n").unwrap_err();
    assert_eq!(e.field, "duration_s");
    let e = parse_csv("id,submit_s,gpus,gpus,duration_s\na,0,1,1,1\n").unwrap_err();
    assert!(e.message.contains("twice"), "{e}");
    let e = parse_csv("id,submit_s,gpus,duration_s\r\n").unwrap_err();
    assert!(e.message.contains("no jobs"), "{e}");
}

#[test]
fn csv_bom_crlf_spaces_quotes() {
    let t = parse_csv("\u{feff}id , submit_s,gpus,model,duration_s\r\n \"job, 1\" , 3 , 2 , \"bert\" , 7 \r\n\r\n")
        .unwrap();
    assert_eq!(t.jobs[0], job("job, 1", 3.0, 2, Some("bert"), TraceWork::DurationS(7.0), 2));
}

fn sample() -> Trace {
    Trace {
        format: TraceFormat::ProximaCsv,
        skipped: Vec::new(),
        jobs: vec![
            job("a", 0.0, 4, Some("resnet50"), TraceWork::DurationS(3600.0), 2),
            job("b, \"quoted\"", 0.1 + 0.2, 1, None, TraceWork::Iterations(1234.5), 3),
            job(" spaced ", 1.0e11, 1 << 20, Some("vgg, 16"), TraceWork::DurationS(1.0 / 3.0), 4),
        ],
    }
}

#[test]
fn csv_round_trip_is_exact() {
    let t = sample();
    let text = to_csv(&t);
    assert!(text.starts_with("id,submit_s,gpus,model,duration_s,iterations\n"), "{text}");
    assert_eq!(parse_csv(&text).unwrap(), t);
    // A single kind of work writes a single work column.
    let only = Trace::new(TraceFormat::ProximaCsv, vec![t.jobs[0].clone()]);
    assert_eq!(to_csv(&only), "id,submit_s,gpus,model,duration_s\na,0,4,resnet50,3600\n");
    assert_eq!(parse_csv(&to_csv(&only)).unwrap(), only);
}

#[test]
fn a_stated_batch_survives_both_formats() {
    let mut t = sample();
    t.jobs[1].batch = Some(2052);
    let text = to_csv(&t);
    assert!(text.starts_with("id,submit_s,gpus,model,duration_s,iterations,batch\n"), "{text}");
    // Jobs without a batch leave the column blank.
    assert!(text.contains("\na,0,4,resnet50,3600,,\n") && text.contains(",,1234.5,2052\n"), "{text}");
    assert_eq!(parse_csv(&text).unwrap(), t);
    let back = parse_json(&to_json(&t)).unwrap();
    assert_eq!(back.jobs.iter().map(|j| j.batch).collect::<Vec<_>>(), [None, Some(2052), None]);
    let e = parse_csv("id,submit_s,gpus,iterations,batch\na,0,4,10,0\n").unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(2), "batch"));
    let e = parse_json(r#"[{"id": "a", "submit_s": 0, "gpus": 4, "iterations": 10, "batch": 2.5}]"#).unwrap_err();
    assert_eq!(e.field, "jobs[0].batch");
}

#[test]
fn a_tenant_survives_both_formats() {
    let mut t = sample();
    t.jobs[0].tenant = Some("team, a".into());
    t.jobs[2].tenant = Some("b".into());
    let text = to_csv(&t);
    assert!(text.starts_with("id,submit_s,gpus,model,duration_s,iterations,tenant\n"), "{text}");
    // A job without a tenant leaves the column blank; a name with a comma is quoted.
    assert!(text.contains(",3600,,\"team, a\"\n") && text.contains(",1234.5,\n"), "{text}");
    assert_eq!(parse_csv(&text).unwrap(), t);
    let back = parse_json(&to_json(&t)).unwrap();
    assert_eq!(
        back.jobs.iter().map(|j| j.tenant.clone()).collect::<Vec<_>>(),
        [t.jobs[0].tenant.clone(), None, Some("b".into())]
    );
    let e = parse_json(r#"[{"id": "a", "submit_s": 0, "gpus": 4, "iterations": 10, "tenant": 7}]"#).unwrap_err();
    assert_eq!(e.field, "jobs[0].tenant");
    assert!(e.message.contains("tenant name or null"), "{e}");
    let t = parse_json(r#"[{"id": "a", "submit_s": 0, "gpus": 4, "iterations": 10, "tenant": ""}]"#).unwrap();
    assert_eq!(t.jobs[0].tenant, None);
}

#[test]
fn json_round_trip_is_exact() {
    let mut t = sample();
    t.format = TraceFormat::ProximaJson;
    for (i, j) in t.jobs.iter_mut().enumerate() {
        j.line = 4 + i as u32;
    }
    let text = to_json(&t);
    assert!(
        text.contains(r#"{"id": "a", "submit_s": 0, "gpus": 4, "model": "resnet50", "duration_s": 3600},"#),
        "{text}"
    );
    assert_eq!(parse_json(&text).unwrap(), t);
    assert_eq!(parse(&text).unwrap(), t);
}

#[test]
fn every_f64_survives_both_formats() {
    // serde_json alone may read a long decimal one unit in the last place off; the
    // readers parse the number's text themselves so that no value drifts.
    let mut rng = crate::rng::Rng::new(5);
    let jobs: Vec<TraceJob> = (0..5000)
        .map(|i| {
            let x = libm::exp(rng.next_f64() * 30.0 - 5.0);
            let work = if i % 2 == 0 { TraceWork::DurationS(x) } else { TraceWork::Iterations(x) };
            job(&format!("j{i}"), rng.next_f64() * 1.0e7, 1, None, work, 0)
        })
        .collect();
    let t = Trace::new(TraceFormat::ProximaCsv, jobs);
    let unlined = |t: Trace| t.jobs.into_iter().map(|j| TraceJob { line: 0, ..j }).collect::<Vec<_>>();
    assert_eq!(unlined(parse_csv(&to_csv(&t)).unwrap()), t.jobs);
    assert_eq!(unlined(parse_json(&to_json(&t)).unwrap()), t.jobs);
}

#[test]
fn json_reads_documents_and_bare_arrays() {
    let doc =
        r#"{"version": 1, "jobs": [{"id": "j", "submit_s": 0, "gpus": 4, "model": "resnet50", "duration_s": 3600}]}"#;
    let t = parse_json(doc).unwrap();
    assert_eq!(t.jobs[0], job("j", 0.0, 4, Some("resnet50"), TraceWork::DurationS(3600.0), 1));
    let bare = "[\n  {\"id\": 7, \"submit_s\": 1.5, \"gpus\": 2.0, \"iterations\": 10},\n  {\"id\": \"8\", \"submit_s\": 2, \"gpus\": 1, \"model\": null, \"duration_s\": 1}\n]";
    let t = parse_json(bare).unwrap();
    assert_eq!(t.jobs[0], job("7", 1.5, 2, None, TraceWork::Iterations(10.0), 2));
    assert_eq!(t.jobs[1].line, 3);
    assert_eq!(t.jobs[1].model, None);
    let e = parse_json(&bare.replace("\"8\"", "7")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(3), "jobs[1].id"));
    assert!(e.message.contains("line 2"), "{e}");
}

#[test]
fn json_errors_name_the_key_and_line() {
    let text = "{\n  \"version\": 1,\n  \"jobs\": [\n    {\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"duration_s\": 5},\n    {\"id\": \"b\",\n     \"submit_s\": 0,\n     \"gpus\": GPUS,\n     \"duration_s\": 5}\n  ]\n}\n";
    let e = parse_json(&text.replace("GPUS", "0")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(7), "jobs[1].gpus"));
    assert!(e.message.contains("positive whole number"), "{e}");
    let e = parse_json(&text.replace("GPUS", "\"many\"")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(7), "jobs[1].gpus"));
    let e = parse_json(&text.replace("GPUS", "true")).unwrap_err();
    assert!(e.message.contains("expected a number, got true"), "{e}");
    let e = parse_json(&text.replace("GPUS", "1, \"colour\": \"red\"")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(7), "jobs[1].colour"));
    assert!(e.message.contains("unknown key"), "{e}");
    let e = parse_json(&text.replace("GPUS", "1, \"gpus\": 2")).unwrap_err();
    assert!(e.message.contains("twice"), "{e}");
    let e = parse_json(&text.replace("GPUS", "1e999")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(7), "json"));
    let e = parse_json(&text.replace("GPUS", "")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(7), "json"));
    let text = text.replace("GPUS", "1");
    let e = parse_json(&text.replace("\"version\": 1", "\"version\": 2")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(2), "version"));
    let e = parse_json(&text.replace("\"version\": 1", "\"verison\": 1")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(2), "verison"));
    let e = parse_json(&text.replace("\"duration_s\": 5}\n  ]", "\"iterations\": -1}\n  ]")).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(8), "jobs[1].iterations"));
    let e = parse_json(&text.replace("\"duration_s\": 5}\n  ]", "\"model\": \"x\"}\n  ]")).unwrap_err();
    assert_eq!(e.field, "jobs[1].duration_s");
    let e = parse_json(r#"{"version": 1, "jobs": []}"#).unwrap_err();
    assert!(e.message.contains("no jobs"), "{e}");
    let e = parse_json(r#"[1, {"id": "x"}]"#).unwrap_err();
    assert_eq!(e.field, "jobs[0]");
    let e = parse_json(r#"[{"id": "x", "submit_s": 0, "gpus": 1}]"#).unwrap_err();
    assert_eq!(e.field, "jobs[0].duration_s");
    let e = parse_json("{\"jobs\": [\n{\"id\": \"x\", \"gpus\": 1, \"duration_s\": 1}]}").unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(2), "jobs[0].submit_s"));
}

#[test]
fn json_accepts_a_bom_and_crlf() {
    let t = parse_json(
        "\u{feff}{\"jobs\": [\r\n{\"id\": \"x\", \"submit_s\": 0, \"gpus\": 1, \"duration_s\": 1}\r\n]}\r\n",
    )
    .unwrap();
    assert_eq!(t.jobs[0].line, 2);
}
