//! Browser tests of the web app, run in headless Chromium by wasm-bindgen-test:
//! `cargo test --target wasm32-unknown-unknown -p proxima-web` (scripts/test.sh does).
//! On the native target this file compiles to nothing.
//!
//! They mount the app and drive the reducer action by action; the simulation itself runs
//! here too, in wasm, to check that it gives the CLI's numbers.
#![cfg(target_arch = "wasm32")]

use proxima_core::inputs::TopologyInput;
use proxima_core::share::{decode, encode, TopologyChoice, TraceChoice};
use proxima_web::protocol::{FileData, FromWorker, PolicyResult, RunRequest, ToWorker, TraceSource};
use proxima_web::state::{default_scenario, startup, Action, GenField, ParamField, RunState, State, TraceMode};
use proxima_web::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// The topology editor, playback and the guided introduction.
#[path = "browser/editor_playback_tour.rs"]
mod editor_playback_tour;

/// Mounts the app into a fresh `<div>` of the test page and lets yew render it.
async fn mount_app() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    root
}

fn by_test_id(root: &Element, id: &str) -> Option<Element> {
    root.query_selector(&format!("[data-testid='{id}']")).unwrap()
}

fn apply(state: State, actions: impl IntoIterator<Item = Action>) -> State {
    actions.into_iter().fold(state, State::apply)
}

/// Answers what the state asks of the checks worker (a trace file to check, the
/// generator's trace to describe) as the app does, with the worker's own code run here.
fn answer_checks(s: State) -> State {
    let mut requests = Vec::new();
    if let Some(c) = &s.trace.checking {
        requests.push(ToWorker::CheckTrace {
            id: c.id,
            topology: s.cluster.input(),
            name: c.name.clone(),
            data: c.data.clone(),
        });
    }
    if let Some(w) = &s.trace.synthetic_wanted {
        requests.push(ToWorker::PreviewSynthetic { id: w.id, spec: w.spec.clone(), gpus: w.gpus });
    }
    let mut answers = Vec::new();
    for r in requests {
        proxima_web::worker::handle(r, &|| 0.0, &mut |m| answers.push(m));
    }
    answers.into_iter().fold(s, |s, m| s.apply(Action::Worker(m)))
}

/// Loads a trace file as the app does: read, checked by the worker, answered.
fn load_trace(s: State, name: &str, bytes: &[u8]) -> State {
    answer_checks(s.apply(Action::TraceFileChosen { name: name.into(), data: FileData::Bytes(bytes.to_vec().into()) }))
}

#[wasm_bindgen_test]
async fn renders_the_three_panels_and_their_hooks() {
    let root = mount_app().await;
    let title = root.query_selector("h1").unwrap().expect("a heading");
    assert_eq!(title.text_content().as_deref(), Some("Proxima"));
    for id in [
        "topology-view",
        "trace-input",
        "policy-select",
        "run-button",
        "cancel-button",
        "progress",
        "export-button",
        "share-button",
    ] {
        assert!(by_test_id(&root, id).is_some(), "no {id}");
    }
    for panel in ["scenario-panel", "run-panel", "results-panel"] {
        assert!(root.query_selector(&format!("#{panel}")).unwrap().is_some(), "no {panel}");
    }
    let run = by_test_id(&root, "run-button").unwrap();
    assert!(!run.has_attribute("disabled"), "run is enabled");
    assert!(by_test_id(&root, "cancel-button").unwrap().has_attribute("disabled"), "nothing to cancel");
    // The first run's cluster: 32 GPUs drawn.
    assert_eq!(root.query_selector_all("[data-testid='topology-view'] [data-gpu]").unwrap().length(), 32);
}

#[wasm_bindgen_test]
fn topology_actions_build_the_cluster_and_keep_it_on_bad_input() {
    let s = State::default();
    assert_eq!(s.cluster.topology.gpu_count(), 32);
    let s = apply(s, [Action::SelectPreset("n32g4".into())]);
    assert_eq!(s.cluster.topology.gpu_count(), 128);
    assert_eq!(s.cluster.param.value.servers, "32");
    let s = apply(s, [Action::SetParam(ParamField::Racks, "3".into())]);
    assert_eq!(s.cluster.choice, TopologyChoice::from_argument("racks=3,servers=32,gpus=4,nic_gbps=100").unwrap());
    assert_eq!(s.cluster.topology.gpu_count(), 384);
    assert_eq!(s.cluster.preset, None);
    // A bad field is flagged, and the last good cluster stays.
    let s = apply(s, [Action::SetParam(ParamField::Gpus, "0".into())]);
    assert!(s.cluster.param.error.as_deref().unwrap().contains("gpus"), "{:?}", s.cluster.param.error);
    assert_eq!(s.cluster.topology.gpu_count(), 384);
    assert!(s.run_request(1).is_err(), "no run with a bad field");
    // Importing JSON: errors name the file and field, and change nothing.
    let before = s.cluster.topology.clone();
    let s = apply(
        s,
        [Action::ImportTopology {
            name: "lab.json".into(),
            text: r#"{"servers": [{"id": "a", "gpus": 0, "nvlink_gbps": 100}]}"#.into(),
        }],
    );
    assert!(s.errors.last().unwrap().to_string().starts_with("lab.json: servers[0].gpus:"), "{:?}", s.errors);
    assert!(s.cluster.topology == before, "the cluster is the very same");
    let spec = proxima_core::topology::preset("teaching").unwrap().spec();
    let mut unnamed = spec.clone();
    unnamed.name = String::new();
    let s = apply(s, [Action::ImportTopology { name: "lab.json".into(), text: unnamed.to_json() }]);
    assert_eq!(s.cluster.topology.name(), "lab.json", "an unnamed topology takes its file's name, as in the CLI");
    assert!(matches!(s.cluster.choice, TopologyChoice::Custom(_)));
}

// Models the default cluster's T4 catalogue has.
const GOOD_CSV: &str =
    "id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,30,4,deepspeech2,1200\nc,90,2,bert,900\n";

#[wasm_bindgen_test]
fn a_malformed_trace_keeps_the_previous_one() {
    let s = State::default().apply(Action::TraceFileChosen {
        name: "good.csv".into(),
        data: FileData::Bytes(GOOD_CSV.as_bytes().to_vec().into()),
    });
    assert!(s.trace.uploaded.is_none(), "the worker has not checked it yet");
    assert_eq!(s.trace.checking.as_ref().map(|c| c.name.as_str()), Some("good.csv"));
    let s = answer_checks(s);
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(s.trace.mode, TraceMode::File);
    assert!(s.trace.checking.is_none());
    let good = s.trace.uploaded.clone().unwrap();
    assert_eq!(good.preview.jobs, 3);
    assert_eq!(good.preview.gpu_histogram, vec![(1, 1), (2, 1), (4, 1)]);
    assert_eq!(good.preview.span_s, 90.0);
    let bad_rows = "id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,soon,4,vgg16,1200\n";
    let unknown_model = "id,submit_s,gpus,model,duration_s\na,0,1,lenet9,600\n";
    let cases: [(&str, &[u8], &str); 4] = [
        ("rows.csv", bad_rows.as_bytes(), "rows.csv:3: submit_s: "),
        ("model.csv", unknown_model.as_bytes(), "model.csv:2: model: unknown model 'lenet9'"),
        (
            "latin1.csv",
            b"id,submit_s,gpus,model,duration_s\nj\xe9,0,1,resnet50,600\n",
            "latin1.csv:2: encoding: not valid UTF-8",
        ),
        (
            "semi.csv",
            b"id;submit_s;gpus\n",
            "semi.csv:1: header: unrecognised trace format (the separator must be a comma)",
        ),
    ];
    let mut s = s;
    for (name, bytes, wanted) in cases {
        s = load_trace(s, name, bytes);
        // Said beside the drop zone, not in the banner.
        let said = s.trace.file_problem.as_ref().map(|p| p.to_string()).unwrap_or_default();
        assert!(said.starts_with(wanted), "{name}: {said:?}");
        assert!(s.errors.is_empty(), "{name}: {:?}", s.errors);
        assert!(s.trace.uploaded.as_ref() == Some(&good), "{name}: the previous trace stays");
        assert_eq!(s.trace.mode, TraceMode::File);
    }
    let big = vec![b'x'; (proxima_web::state::MAX_TRACE_BYTES + 1) as usize];
    s = s.apply(Action::TraceFileChosen { name: "huge.csv".into(), data: FileData::Bytes(big.into()) });
    let said = s.trace.file_problem.as_ref().map(|p| p.to_string()).unwrap_or_default();
    assert!(said.contains("up to 16 MiB"), "{said:?}");
    assert!(s.trace.checking.is_none(), "refused before the worker sees it");
    assert!(s.trace.uploaded.as_ref() == Some(&good));
}

#[wasm_bindgen_test]
fn generator_policy_and_seed_fields_are_checked() {
    let s = apply(State::default(), [Action::SetGenerator(GenField::Jobs, "0".into())]);
    assert!(s.trace.generator.error.is_some());
    assert!(s.trace.synthetic.is_none() && s.trace.synthetic_wanted.is_none(), "nothing to describe");
    assert!(s.run_request(1).is_err());
    let s = apply(
        s,
        [Action::SetGenerator(GenField::Jobs, "50".into()), Action::SetGenerator(GenField::Load, "1.5".into())],
    );
    assert_eq!(s.trace.generator.error, None);
    let wanted = s.trace.synthetic_wanted.clone().expect("a description is asked for");
    // The default cluster: 2 racks x 4 servers x 4 GPUs.
    assert_eq!((wanted.spec.as_str(), wanted.gpus), ("synthetic:jobs=50,load=1.5,seed=1", 32));
    let s = answer_checks(s);
    assert_eq!(s.trace.synthetic.as_ref().unwrap().jobs, 50);
    assert!(s.trace.synthetic_wanted.is_none());
    let s = apply(s, [Action::AddPolicy("dally:preempt=maybe".into())]);
    assert!(s.policies.error.as_deref().unwrap().contains("preempt"), "{:?}", s.policies.error);
    let s = apply(s, [Action::AddPolicy("dally:timers=60/30".into()), Action::TogglePolicy("fifo".into())]);
    assert_eq!(s.policies.value, ["consolidate", "dally", "dally:timers=60/30"]);
    let s = apply(s, [Action::SetSeed("-3".into())]);
    assert!(s.seed.error.is_some());
    let s = apply(s, [Action::SetSeed("12".into()), Action::SetMix("deepspeech2:2,bert".into())]);
    let (request, scenario) = s.run_request(7).unwrap();
    assert_eq!(request.run_id, 7);
    assert_eq!(request.trace, TraceSource::Synthetic("synthetic:jobs=50,load=1.5,seed=1".into()));
    assert_eq!(request.seed, 12);
    assert_eq!(request.mix.as_deref(), Some("deepspeech2:2,bert"));
    assert_eq!(scenario.trace, TraceChoice::Synthetic { jobs: 50, load: 1.5, seed: 1, tenants: None });
}

#[wasm_bindgen_test]
fn run_lifecycle_progress_results_cancel_and_crash() {
    let s = State::default();
    let (_, scenario) = s.run_request(s.next_id).unwrap();
    let s = apply(s, [Action::RunStarted { run_id: 1, scenario }]);
    assert!(s.is_running());
    let s = apply(s, [Action::Worker(FromWorker::Progress { run_id: 1, policy: 1, done: 5, total: 200 })]);
    assert!(matches!(s.run, RunState::Running { current: 1, done: 5, total: 200, .. }));
    // Messages of another run are ignored.
    let s = apply(s, [Action::Worker(FromWorker::Failed { run_id: 99, problem: "stale".into() })]);
    assert!(s.is_running() && s.errors.is_empty());
    let s = apply(s, [Action::Cancelled]);
    assert!(!s.is_running());
    assert!(s.results.cancelled);
    let s = apply(s, [Action::Worker(FromWorker::Finished { run_id: 1 })]);
    assert!(!s.results.finished, "a cancelled run's late answers are ignored");
    assert_eq!(s.results.compare_json(), None);
    // A crash during a run ends it with a visible error; the scenario is untouched.
    let (_, scenario) = s.run_request(s.next_id).unwrap();
    let before = s.shared_scenario();
    let s = apply(
        s,
        [
            Action::RunStarted { run_id: 2, scenario },
            Action::Worker(FromWorker::Panicked { message: "boom (at x.rs:1)".into() }),
        ],
    );
    assert!(!s.is_running());
    assert!(s.errors.last().unwrap().to_string().contains("The simulation crashed: boom"), "{:?}", s.errors);
    assert_eq!(s.shared_scenario(), before);
    let s = apply(s, [Action::WorkerCrashed("failed to load".into())]);
    assert!(s.errors.last().unwrap().to_string().contains("failed to load"));
}

#[wasm_bindgen_test]
fn share_codes_round_trip_and_restore_the_scenario() {
    let s = apply(
        State::default(),
        [
            Action::SelectPreset("oversub-2048".into()),
            Action::SetGenerator(GenField::Jobs, "1234".into()),
            Action::TogglePolicy("fifo".into()),
            Action::AddPolicy("dally:autotune=off,timers=10/5".into()),
            Action::SetSeed("42".into()),
        ],
    );
    let shared = s.shared_scenario().unwrap();
    let code = encode(&shared);
    assert_eq!(decode(&code), Ok(shared.clone()));
    let restored = startup(Some(&code), None);
    assert_eq!(restored.shared_scenario(), Some(shared.clone()));
    assert_eq!(restored.cluster.preset.as_deref(), Some("oversub-2048"));
    assert_eq!(restored.trace.generator.value.jobs, "1234");
    // Its notice (with "Run it") is the link's own.
    assert_eq!(restored.from_link.as_ref().map(|l| &l.scenario), Some(&shared));
    // A damaged link: an error, and the saved scenario (here none: the defaults) stands in.
    let damaged = startup(Some(&code[..code.len() - 4]), None);
    assert!(damaged.errors[0].to_string().contains("share link could not be read"), "{:?}", damaged.errors);
    assert_eq!(damaged.shared_scenario(), Some(default_scenario()));
}

#[wasm_bindgen_test]
fn corrupt_or_outdated_saved_state_falls_back_to_defaults_with_a_notice() {
    for saved in ["{not a code", "9.eyJ0cCI6InRlYWNoaW5nIn0", "1.AAAA"] {
        let s = startup(None, Some(Ok(saved.into())));
        assert_eq!(s.shared_scenario(), Some(default_scenario()), "{saved}");
        assert!(s.notices.iter().any(|n| n.contains("saved scenario could not be read")), "{saved}: {:?}", s.notices);
        assert!(s.errors.is_empty());
    }
    // The same through the real local storage, as the app reads it on start: what the app
    // saved comes back, and what it cannot read (here not even JSON) gives the notice.
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let code = encode(&default_scenario());
    proxima_web::browser::save_scenario(&code);
    assert_eq!(proxima_web::browser::saved_scenario(), Some(Ok(code)));
    storage.set_item(proxima_web::browser::STORAGE_KEY, "garbage").unwrap();
    let s = startup(None, proxima_web::browser::saved_scenario());
    assert!(s.notices[0].contains("saved scenario could not be read"), "{:?}", s.notices);
    // A code stored bare, as earlier versions did, still restores.
    let mut other = default_scenario();
    other.seed = 77;
    storage.set_item(proxima_web::browser::STORAGE_KEY, &encode(&other)).unwrap();
    assert_eq!(startup(None, proxima_web::browser::saved_scenario()).shared_scenario(), Some(other));
    storage.remove_item(proxima_web::browser::STORAGE_KEY).unwrap();
    assert_eq!(proxima_web::browser::saved_scenario(), None);
    // A saved scenario that used an uploaded file: the synthetic trace stands in, and the page
    // asks for the file by name (local storage keeps no hash of it).
    let mut with_file = default_scenario();
    with_file.trace = TraceChoice::Uploaded { name: "philly.csv".into() };
    let s = startup(None, Some(Ok(encode(&with_file))));
    assert_eq!(s.trace.mode, TraceMode::Synthetic);
    let pending = s.pending_trace.as_ref().expect("the file is asked for");
    assert_eq!((pending.name.as_str(), pending.hash.as_deref()), ("philly.csv", None));
}

/// The summary the CLI prints for `proxima run --topology teaching --trace
/// synthetic:jobs=100,load=0.8,seed=1 --seed 1 --policy dally`, computed natively: the
/// worker's code, compiled to wasm, must give the very same bytes, and they must cross to
/// the page unchanged.
#[wasm_bindgen_test]
async fn the_worker_code_gives_the_cores_results_in_wasm() {
    let request = RunRequest {
        run_id: 1,
        topology: TopologyInput::Argument("teaching".into()),
        trace: TraceSource::Synthetic("synthetic:jobs=100,load=0.8,seed=1".into()),
        seed: 1,
        mix: None,
        policies: vec!["dally".into()],
    };
    let mut messages = Vec::new();
    proxima_web::worker::run_request(&request, &|| 0.0, &mut |m| messages.push(m));
    let result = messages
        .iter()
        .find_map(|m| match m {
            FromWorker::PolicyDone { result, .. } => Some(result.clone()),
            _ => None,
        })
        .expect("a result");
    // Straight from the core, in this same wasm module.
    let scenario = proxima_web::worker::build_request_scenario(&request).unwrap();
    let mut sim = proxima_core::Simulation::new(scenario, proxima_core::policy::resolve_policy("dally").unwrap());
    sim.run();
    // The worker adds finish-time fairness from the core's isolated runs, as the CLI does.
    let mut record = proxima_core::run_files::RunRecord::of(&sim);
    let dally = proxima_core::policy::PolicySpec::parse("dally").unwrap();
    let sequential = proxima_core::fairness::isolated::OneAfterAnother;
    proxima_core::fairness::isolated::finish_time_fairness(sim.scenario(), &dally, sim.runs(), &sequential)
        .unwrap()
        .apply(&mut record);
    let summary = record.summary.clone();
    assert_eq!(summary.rho_max, Some(1.0), "one tenant alone on the whole cluster: its own run");
    assert_eq!(result.summary, summary);
    // The files, made on the page by the core from the result's data, are the core's of
    // the same run.
    assert_eq!(result.files().unwrap(), record.files());
    assert_eq!(result.files().unwrap().summary_json, summary.to_json() + "\n");
    assert!(summary.to_json().contains("\"jobs_completed\": 100"), "{}", summary.to_json());

    // Through the page's codec and a real message port: the same result comes out, every
    // number to the bit, and the byte buffers were moved, not copied.
    let message = FromWorker::PolicyDone { run_id: 1, policy: 0, result: result.clone() };
    let (value, transfer) = proxima_web::protocol::encode(&message);
    assert_eq!(transfer.length(), 2, "the playback log and the packed job rows");
    let buffers: Vec<js_sys::ArrayBuffer> = transfer.iter().map(|b| b.into()).collect();
    assert!(buffers.iter().all(|b| b.byte_length() > 0));
    let channel = web_sys::MessageChannel::new().unwrap();
    let received = js_sys::Promise::new(&mut |resolve, _| {
        let on_message = wasm_bindgen::closure::Closure::once_into_js(move |e: web_sys::MessageEvent| {
            resolve.call1(&wasm_bindgen::JsValue::NULL, &e.data()).unwrap();
        });
        channel.port2().set_onmessage(Some(on_message.unchecked_ref()));
    });
    channel.port1().post_message_with_transferable(&value, &transfer).unwrap();
    assert!(buffers.iter().all(|b| b.byte_length() == 0), "transferred buffers are detached from the sender");
    let data = wasm_bindgen_futures::JsFuture::from(received).await.unwrap();
    let back: FromWorker = proxima_web::protocol::decode(data).unwrap();
    let FromWorker::PolicyDone { result: back, .. } = back else { panic!("{back:?}") };
    assert_same_result(&back, &result);
}

/// Equal results, every number to the bit.
fn assert_same_result(a: &PolicyResult, b: &PolicyResult) {
    assert_eq!(a, b);
    assert_eq!(a.playback, b.playback);
    assert_eq!(a.jobs.unpack().unwrap(), b.jobs.unpack().unwrap());
    let bits = |r: &PolicyResult| {
        let s = &r.summary;
        [
            s.avg_jct_s,
            s.p50_jct_s,
            s.p95_jct_s,
            s.p99_jct_s,
            s.makespan_s,
            s.avg_queue_s,
            s.comm_overhead_s,
            s.comm_overhead_gpu_s,
            s.avg_gpu_util,
        ]
        .map(f64::to_bits)
    };
    assert_eq!(bits(a), bits(b));
}
