//! The page's state and the one reducer that changes it.
//!
//! Everything the page shows is derived from [`State`]; every change is an [`Action`]
//! applied by [`State::apply`], a pure function (no web API, no clock), so tests can drive
//! the page's logic action by action. Effects (the worker, local storage, the URL, files,
//! downloads) live at the edge, in `app.rs`, and report back with actions.

use crate::editor::{EditAction, Editor};
use crate::protocol::{FromWorker, PolicyResult, RunRequest, TopologyInput, TraceInput};
use proxima_core::model::Catalog;
use proxima_core::policy::resolve_policy;
use proxima_core::share::{SharedScenario, TopologyChoice, TraceChoice};
use proxima_core::topology::{preset, ParametricSpec, Topology, TopologySpec, DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS};
use proxima_core::trace::synthetic::{self, SyntheticSpec, MAX_LOAD};
use proxima_core::trace::{parse_trace, Trace};
use proxima_core::workload::{build_scenario, ModelMix, WorkloadOptions};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The largest trace file the page reads. Traces are parsed on the page's thread, and
/// this much text (about 400,000 Philly rows) parses in well under a second; a larger file
/// is refused before it is read, so a huge file never freezes the tab. The CLI has no
/// such limit.
pub const MAX_TRACE_BYTES: u64 = 16 << 20;

/// The most jobs the page's generator makes: the results of a larger run would not fit a
/// browser tab comfortably (the CLI takes up to 10 million).
pub const MAX_APP_JOBS: u32 = 200_000;

/// The policies offered with a checkbox: the baselines, Dally, and its ablations.
pub const STANDARD_POLICIES: &[(&str, &str)] = &[
    ("fifo", "first come, first served; first free GPUs, whatever the topology"),
    ("consolidate", "first come, first served; tightest placement free now, never waits"),
    ("dally", "network-sensitive: delay timers, preemption, auto-tuned timers"),
    ("dally:preempt=off", "Dally without preemption"),
    ("dally:autotune=off", "Dally with static timers (300 s server, 150 s rack)"),
    ("dally:preempt=off,autotune=off", "Dally with delay timers only"),
];

/// What the page starts with: the small teaching cluster, a short synthetic trace, and
/// the two policies whose difference the page is about.
pub fn default_scenario() -> SharedScenario {
    SharedScenario {
        topology: TopologyChoice::Preset("teaching".into()),
        trace: TraceChoice::Synthetic { jobs: 200, load: 0.8, seed: 1 },
        mix: None,
        policies: vec!["fifo".into(), "consolidate".into(), "dally".into()],
        seed: 1,
    }
}

/// The fields of the parametric topology form, as typed.
#[derive(Clone, Debug, PartialEq)]
pub struct ParametricFields {
    pub racks: String,
    pub servers: String,
    pub gpus: String,
    pub oversub: String,
    pub nic_gbps: String,
    pub nvlink_gbps: String,
}

impl ParametricFields {
    fn from_spec(p: &ParametricSpec) -> ParametricFields {
        ParametricFields {
            racks: p.racks.to_string(),
            servers: p.servers_per_rack.to_string(),
            gpus: p.gpus_per_server.to_string(),
            oversub: p.oversub.to_string(),
            nic_gbps: p.nic_gbps.to_string(),
            nvlink_gbps: p.nvlink_gbps.to_string(),
        }
    }

    /// The `racks=R,...` text these fields stand for (checked by the core's parser).
    fn to_arg(&self) -> Result<String, String> {
        let text = format!(
            "racks={},servers={},gpus={},oversub={},nic_gbps={},nvlink_gbps={}",
            self.racks.trim(),
            self.servers.trim(),
            self.gpus.trim(),
            self.oversub.trim(),
            self.nic_gbps.trim(),
            self.nvlink_gbps.trim()
        );
        // The canonical form leaves defaults out, as `proxima` would print it.
        ParametricSpec::parse(&text).map(|p| p.to_string()).map_err(|e| e.to_string())
    }
}

/// Which field of the parametric form changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamField {
    Racks,
    Servers,
    Gpus,
    Oversub,
    NicGbps,
    NvlinkGbps,
}

/// The synthetic generator's fields, as typed.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorFields {
    pub jobs: String,
    pub load: String,
    pub seed: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenField {
    Jobs,
    Load,
    Seed,
}

impl GeneratorFields {
    /// The generator's spec, checked, e.g. `synthetic:jobs=200,load=0.8,seed=1`.
    pub fn spec(&self) -> Result<SyntheticSpec, String> {
        let text = format!("synthetic:jobs={},load={},seed={}", self.jobs.trim(), self.load.trim(), self.seed.trim());
        let spec = synthetic::parse(&text).map_err(|e| e.to_string())?;
        if spec.jobs > MAX_APP_JOBS {
            return Err(format!("jobs: at most {MAX_APP_JOBS} in the browser (the CLI takes more)"));
        }
        Ok(spec)
    }
}

/// What a trace looks like before it runs: the preview under the trace controls.
#[derive(Clone, Debug, PartialEq)]
pub struct TracePreview {
    pub format: &'static str,
    pub jobs: usize,
    /// Jobs per GPU count, smallest first.
    pub gpu_histogram: Vec<(u32, usize)>,
    /// Seconds from the first submission to the last.
    pub span_s: f64,
}

impl TracePreview {
    pub fn of(trace: &Trace) -> TracePreview {
        let mut histogram: BTreeMap<u32, usize> = BTreeMap::new();
        let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
        for j in &trace.jobs {
            *histogram.entry(j.gpus).or_default() += 1;
            first = first.min(j.submit_s);
            last = last.max(j.submit_s);
        }
        TracePreview {
            format: trace.format.label(),
            jobs: trace.jobs.len(),
            gpu_histogram: histogram.into_iter().collect(),
            span_s: if trace.jobs.is_empty() { 0.0 } else { last - first },
        }
    }
}

/// A trace file the user loaded, already checked against the cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedTrace {
    pub name: String,
    pub text: Rc<str>,
    pub preview: TracePreview,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceMode {
    Synthetic,
    File,
}

/// One policy's results as the page shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyOutcome {
    pub result: PolicyResult,
    /// `summary.json` read back, by key, for the table and the charts.
    pub summary: BTreeMap<String, serde_json::Value>,
    /// The top-level numbers of `summary.json` as written there. serde_json's default
    /// float parser may land one unit in the last place off, so the table shows these
    /// texts rather than re-printed values.
    pub raw: BTreeMap<String, String>,
}

impl PolicyOutcome {
    pub fn new(result: PolicyResult) -> PolicyOutcome {
        let summary = serde_json::from_str(&result.summary_json).unwrap_or_default();
        let raw = raw_numbers(&result.summary_json);
        PolicyOutcome { result, summary, raw }
    }

    pub fn number(&self, key: &str) -> Option<f64> {
        self.raw.get(key).and_then(|v| v.parse().ok())
    }
}

/// The top-level scalar values of a pretty-printed JSON object (`  "key": value,` lines),
/// as written.
pub fn raw_numbers(pretty: &str) -> BTreeMap<String, String> {
    pretty
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("  \"")?;
            if rest.starts_with(' ') {
                return None;
            }
            let (key, value) = rest.split_once("\": ")?;
            let value = value.trim_end_matches(',');
            value.parse::<f64>().ok().map(|_| (key.to_string(), value.to_string()))
        })
        .collect()
}

/// The results of the last run (complete or not).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub run_id: u32,
    /// The policies asked for, in order.
    pub policies: Vec<String>,
    pub outcomes: Vec<PolicyOutcome>,
    /// `compare.json`, once every policy ran.
    pub compare_json: Option<String>,
    /// The scenario the run used, for exports.
    pub scenario: Option<SharedScenario>,
    pub cancelled: bool,
}

/// The guided introduction: its runs (in the worker) and the step shown.
#[derive(Clone, Debug, PartialEq)]
pub struct IntroState {
    pub run_id: u32,
    pub step: usize,
    pub outcomes: Vec<PolicyOutcome>,
    /// What the runs did, once they all finished.
    pub facts: Option<Rc<Vec<crate::intro::PolicyFacts>>>,
    pub error: Option<String>,
}

impl IntroState {
    pub fn is_ready(&self) -> bool {
        self.facts.is_some()
    }
}

/// Where a run is.
#[derive(Clone, Debug, PartialEq)]
pub enum RunState {
    Idle,
    Running { run_id: u32, policies: Vec<String>, current: u32, done: u32, total: u32 },
}

/// Everything the page shows.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The cluster the next run uses.
    pub topology_choice: TopologyChoice,
    /// Its checked form, for the view and for checking traces against it. While the
    /// editor's cluster has problems, this is the last cluster without any.
    pub topology: Rc<Topology>,
    /// The topology editor: the cluster being drawn, its history and its problems.
    pub editor: Rc<Editor>,
    /// The preset selected in the form (`None` for the parametric form or an import).
    pub preset: Option<String>,
    pub param: ParametricFields,
    /// Why the parametric fields do not make a cluster; the previous cluster stays.
    pub param_error: Option<String>,
    pub generator: GeneratorFields,
    pub generator_error: Option<String>,
    pub synthetic_preview: Option<Rc<TracePreview>>,
    pub trace_mode: TraceMode,
    pub uploaded: Option<Rc<LoadedTrace>>,
    /// The model mix as typed; empty for the default.
    pub mix: String,
    pub mix_error: Option<String>,
    pub policies: Vec<String>,
    pub policy_error: Option<String>,
    pub seed: String,
    pub seed_error: Option<String>,
    /// Problems to fix, shown in the error banner (file, line and field when they have
    /// them).
    pub errors: Vec<String>,
    /// Things worth knowing that are not errors (a link restored, saved state unreadable).
    pub notices: Vec<String>,
    pub run: RunState,
    pub results: Rc<Results>,
    pub next_run_id: u32,
    /// The last share link made, shown for copying.
    pub share_link: Option<String>,
    /// The guided introduction, while it is open.
    pub intro: Option<Rc<IntroState>>,
}

/// Everything that can happen to the state.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    SelectPreset(String),
    /// An edit in the topology editor.
    Edit(EditAction),
    SetParam(ParamField, String),
    /// The text of a topology JSON file and its name.
    ImportTopology {
        name: String,
        text: String,
    },
    SetGenerator(GenField, String),
    SetTraceMode(TraceMode),
    /// A trace file's bytes and its name. Parsed and checked here; on any error the
    /// previous trace stays.
    TraceFileRead {
        name: String,
        bytes: Rc<Vec<u8>>,
    },
    /// A trace file refused before reading (too large, unreadable).
    TraceFileRefused {
        message: String,
    },
    SetMix(String),
    TogglePolicy(String),
    AddPolicy(String),
    RemovePolicy(usize),
    SetSeed(String),
    /// The page posted a run request with this id.
    RunStarted {
        run_id: u32,
        scenario: SharedScenario,
    },
    Worker(FromWorker),
    /// The worker died without a message (it failed to load, or trapped).
    WorkerCrashed(String),
    Cancelled,
    /// Replace the scenario, e.g. from a share link or local storage, with a notice.
    Restore {
        scenario: SharedScenario,
        notice: Option<String>,
    },
    /// The page asked the worker for the introduction's runs with this id.
    IntroStarted {
        run_id: u32,
    },
    IntroStep(usize),
    IntroClosed,
    /// The share button made this link.
    ShareLinkMade(String),
    Notice(String),
    Error(String),
    DismissErrors,
    DismissNotices,
}

impl Default for State {
    fn default() -> Self {
        State::from_scenario(&default_scenario())
    }
}

impl State {
    /// The state for a scenario, with nothing run yet. The scenario must be one that
    /// [`proxima_core::share::decode`] accepts (a checked one); the defaults stand in
    /// for anything that does not build.
    pub fn from_scenario(scenario: &SharedScenario) -> State {
        let default_topology =
            Rc::new(Topology::from_spec(&preset("teaching").expect("a preset").spec()).expect("presets build"));
        let mut state = State {
            topology_choice: TopologyChoice::Preset("teaching".into()),
            topology: default_topology.clone(),
            editor: Rc::new(Editor::new(TopologyChoice::Preset("teaching".into()), default_topology)),
            preset: Some("teaching".into()),
            param: ParametricFields::from_spec(
                &ParametricSpec::parse("racks=2,servers=2,gpus=4,oversub=2").expect("valid"),
            ),
            param_error: None,
            generator: GeneratorFields { jobs: "200".into(), load: "0.8".into(), seed: "1".into() },
            generator_error: None,
            synthetic_preview: None,
            trace_mode: TraceMode::Synthetic,
            uploaded: None,
            mix: String::new(),
            mix_error: None,
            policies: Vec::new(),
            policy_error: None,
            seed: "1".into(),
            seed_error: None,
            errors: Vec::new(),
            notices: Vec::new(),
            run: RunState::Idle,
            results: Rc::new(Results::default()),
            next_run_id: 1,
            share_link: None,
            intro: None,
        };
        state.restore(scenario);
        // A fresh page has nothing to undo.
        Rc::make_mut(&mut state.editor).clear_history();
        state
    }

    /// Applies an action: the reducer.
    pub fn apply(mut self, action: Action) -> State {
        match action {
            Action::SelectPreset(name) => self.select_preset(&name),
            Action::Edit(edit) => {
                let editor = (*self.editor).clone().apply(edit);
                self.editor = Rc::new(editor);
                self.follow_editor();
            }
            Action::SetParam(field, value) => {
                let slot = match field {
                    ParamField::Racks => &mut self.param.racks,
                    ParamField::Servers => &mut self.param.servers,
                    ParamField::Gpus => &mut self.param.gpus,
                    ParamField::Oversub => &mut self.param.oversub,
                    ParamField::NicGbps => &mut self.param.nic_gbps,
                    ParamField::NvlinkGbps => &mut self.param.nvlink_gbps,
                };
                *slot = value;
                match self.param.to_arg() {
                    Ok(arg) => {
                        self.param_error = None;
                        self.preset = None;
                        self.set_topology(TopologyChoice::Parametric(arg));
                    }
                    Err(e) => self.param_error = Some(e),
                }
            }
            Action::ImportTopology { name, text } => {
                match TopologySpec::from_json(&text).and_then(|mut spec| {
                    // As the CLI does: an unnamed topology takes its file's name.
                    if spec.name.is_empty() {
                        spec.name = name.clone();
                    }
                    Topology::from_spec(&spec).map(|_| spec)
                }) {
                    Ok(spec) => {
                        self.preset = None;
                        self.param_error = None;
                        self.set_topology(TopologyChoice::Custom(spec));
                        self.notices.push(format!("Imported the topology in {name}."));
                    }
                    Err(e) => self.errors.push(e.with_source(&name)),
                }
            }
            Action::SetGenerator(field, value) => {
                match field {
                    GenField::Jobs => self.generator.jobs = value,
                    GenField::Load => self.generator.load = value,
                    GenField::Seed => self.generator.seed = value,
                }
                self.refresh_synthetic_preview();
            }
            Action::SetTraceMode(mode) => {
                if mode == TraceMode::File && self.uploaded.is_none() {
                    self.errors.push("No trace file loaded yet: choose or drop a CSV or JSON file first.".into());
                } else {
                    self.trace_mode = mode;
                }
            }
            Action::TraceFileRead { name, bytes } => match self.check_trace_file(&name, &bytes) {
                Ok(loaded) => {
                    self.uploaded = Some(Rc::new(loaded));
                    self.trace_mode = TraceMode::File;
                }
                Err(message) => self.errors.push(message),
            },
            Action::TraceFileRefused { message } => self.errors.push(message),
            Action::SetMix(text) => {
                self.mix_error = check_mix(&text).err();
                self.mix = text;
            }
            Action::TogglePolicy(spec) => {
                if let Some(i) = self.policies.iter().position(|p| *p == spec) {
                    self.policies.remove(i);
                } else {
                    self.policies.push(spec);
                }
                self.policy_error = None;
            }
            Action::AddPolicy(spec) => {
                let spec = spec.trim().to_string();
                match resolve_policy(&spec) {
                    Ok(_) if self.policies.contains(&spec) => {
                        self.policy_error = Some(format!("{spec} is already in the list"))
                    }
                    Ok(_) => {
                        self.policies.push(spec);
                        self.policy_error = None;
                    }
                    Err(e) => self.policy_error = Some(format!("{spec}: {e}")),
                }
            }
            Action::RemovePolicy(i) => {
                if i < self.policies.len() {
                    self.policies.remove(i);
                }
            }
            Action::SetSeed(text) => {
                self.seed_error = text
                    .trim()
                    .parse::<u64>()
                    .err()
                    .map(|_| format!("seed: expected a whole number from 0 to {}", u64::MAX));
                self.seed = text;
            }
            Action::RunStarted { run_id, scenario } => {
                let policies = scenario.policies.clone();
                self.run = RunState::Running { run_id, policies: policies.clone(), current: 0, done: 0, total: 0 };
                self.next_run_id = run_id + 1;
                self.errors.clear();
                self.results = Rc::new(Results { run_id, policies, scenario: Some(scenario), ..Results::default() });
            }
            Action::Worker(message) => self.on_worker(message),
            Action::WorkerCrashed(message) => {
                self.intro_interrupted();
                if let RunState::Running { .. } = self.run {
                    self.run = RunState::Idle;
                }
                self.errors.push(format!(
                    "The simulation worker stopped: {message}. A fresh worker was started; run again to retry."
                ));
            }
            Action::Cancelled => {
                if let RunState::Running { .. } = self.run {
                    self.intro_interrupted();
                    self.run = RunState::Idle;
                    let mut results = (*self.results).clone();
                    results.cancelled = true;
                    self.results = Rc::new(results);
                    self.notices.push("Run cancelled; results of the policies that finished are kept.".into());
                }
            }
            Action::Restore { scenario, notice } => {
                self.restore(&scenario);
                self.notices.extend(notice);
            }
            Action::IntroStarted { run_id } => {
                self.next_run_id = self.next_run_id.max(run_id + 1);
                self.intro =
                    Some(Rc::new(IntroState { run_id, step: 0, outcomes: Vec::new(), facts: None, error: None }));
            }
            Action::IntroStep(step) => {
                if let Some(intro) = &mut self.intro {
                    let max = crate::intro::STEPS - 1;
                    Rc::make_mut(intro).step = step.min(max);
                }
            }
            Action::IntroClosed => self.intro = None,
            Action::ShareLinkMade(url) => self.share_link = Some(url),
            Action::Notice(text) => self.notices.push(text),
            Action::Error(text) => self.errors.push(text),
            Action::DismissErrors => self.errors.clear(),
            Action::DismissNotices => self.notices.clear(),
        }
        self
    }

    fn set_topology(&mut self, choice: TopologyChoice) {
        let built = match &choice {
            TopologyChoice::Preset(name) => proxima_core::topology::resolve_topology_arg(name),
            TopologyChoice::Parametric(text) => proxima_core::topology::resolve_topology_arg(text),
            TopologyChoice::Custom(spec) => Topology::from_spec(spec),
        };
        match built {
            Ok(topology) => {
                let gpus = self.topology.gpu_count();
                self.topology = Rc::new(topology);
                Rc::make_mut(&mut self.editor).load_checked(choice.clone(), self.topology.clone());
                self.topology_choice = choice;
                if self.topology.gpu_count() != gpus || self.synthetic_preview.is_none() {
                    self.refresh_synthetic_preview();
                }
            }
            Err(e) => self.errors.push(format!("topology: {e}")),
        }
    }

    /// After an edit: a cluster without problems becomes the one runs use (a preset again
    /// after undoing every edit); with problems, the last good one stays for the previews.
    fn follow_editor(&mut self) {
        let doc = &self.editor.doc;
        if let Some(topology) = &self.editor.topology {
            if self.topology_choice != doc.choice || !Rc::ptr_eq(&self.topology, topology) {
                let gpus = self.topology.gpu_count();
                self.topology = topology.clone();
                self.topology_choice = doc.choice.clone();
                self.preset = match &doc.choice {
                    TopologyChoice::Preset(name) => Some(name.clone()),
                    _ => None,
                };
                if let TopologyChoice::Parametric(text) = &doc.choice {
                    if let Ok(p) = ParametricSpec::parse(text) {
                        self.param = ParametricFields::from_spec(&p);
                    }
                }
                if self.topology.gpu_count() != gpus {
                    self.refresh_synthetic_preview();
                }
            }
        }
    }

    fn refresh_synthetic_preview(&mut self) {
        match self.generator.spec() {
            Ok(spec) => {
                self.generator_error = None;
                let trace = synthetic::generate(&spec, self.topology.gpu_count());
                self.synthetic_preview = Some(Rc::new(TracePreview::of(&trace)));
            }
            Err(e) => {
                self.generator_error = Some(e);
                self.synthetic_preview = None;
            }
        }
    }

    /// Reads a trace file as the CLI would (UTF-8, format detected from the header) and
    /// resolves it against the current cluster, so that a trace that cannot run is refused
    /// now, with the CLI's message, rather than when the run starts.
    fn check_trace_file(&self, name: &str, bytes: &[u8]) -> Result<LoadedTrace, String> {
        if bytes.len() as u64 > MAX_TRACE_BYTES {
            return Err(too_large(name, bytes.len() as u64));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            format!("{name}:{line}: encoding: not valid UTF-8 (byte {at}); save the file as UTF-8")
        })?;
        let trace = parse_trace(text).map_err(|e| e.with_source(name))?;
        let catalog = Catalog::built_in();
        let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
        build_scenario((*self.topology).clone(), &trace, &options, name).map_err(|e| e.with_source(name))?;
        Ok(LoadedTrace { name: name.to_string(), text: Rc::from(text), preview: TracePreview::of(&trace) })
    }

    /// Messages about the introduction's runs; true if `message` was one.
    fn on_intro_message(&mut self, message: &FromWorker) -> bool {
        let Some(intro) = &mut self.intro else { return false };
        let id = intro.run_id;
        let intro = Rc::make_mut(intro);
        match message {
            FromWorker::Progress { run_id, .. } => *run_id == id,
            FromWorker::PolicyDone { run_id, result, .. } if *run_id == id => {
                intro.outcomes.push(PolicyOutcome::new((**result).clone()));
                true
            }
            FromWorker::Finished { run_id, .. } if *run_id == id => {
                let results: Vec<PolicyResult> = intro.outcomes.iter().map(|o| o.result.clone()).collect();
                match crate::intro::facts(&results) {
                    Ok(f) => intro.facts = Some(Rc::new(f)),
                    Err(e) => intro.error = Some(format!("The introduction's runs did not come out as expected: {e}")),
                }
                true
            }
            FromWorker::Failed { run_id, message } if *run_id == id => {
                intro.error = Some(format!("The introduction could not run: {message}"));
                true
            }
            _ => false,
        }
    }

    /// The worker was stopped or crashed: an introduction still running is lost.
    fn intro_interrupted(&mut self) {
        if let Some(intro) = &mut self.intro {
            if intro.facts.is_none() && intro.error.is_none() {
                Rc::make_mut(intro).error = Some(
                    "The introduction was interrupted (the simulation worker was stopped); start it again.".into(),
                );
            }
        }
    }

    fn on_worker(&mut self, message: FromWorker) {
        if self.on_intro_message(&message) {
            return;
        }
        if matches!(message, FromWorker::Panicked { .. }) {
            self.intro_interrupted();
        }
        let current = match &self.run {
            RunState::Running { run_id, .. } => Some(*run_id),
            RunState::Idle => None,
        };
        match message {
            FromWorker::Ready => {}
            FromWorker::Progress { run_id, policy, done, total } => {
                if let RunState::Running { run_id: id, current, done: d, total: t, .. } = &mut self.run {
                    if *id == run_id {
                        (*current, *d, *t) = (policy, done, total);
                    }
                }
            }
            FromWorker::PolicyDone { run_id, result, .. } if Some(run_id) == current => {
                let mut results = (*self.results).clone();
                results.outcomes.push(PolicyOutcome::new(*result));
                self.results = Rc::new(results);
            }
            FromWorker::Finished { run_id, compare_json } if Some(run_id) == current => {
                let mut results = (*self.results).clone();
                results.compare_json = Some(compare_json);
                self.results = Rc::new(results);
                self.run = RunState::Idle;
            }
            FromWorker::Failed { run_id, message } if Some(run_id) == current => {
                self.run = RunState::Idle;
                self.errors.push(message);
            }
            FromWorker::Panicked { message } => {
                if current.is_some() {
                    self.run = RunState::Idle;
                }
                self.errors.push(format!(
                    "The simulation crashed: {message}. Your scenario is intact and a fresh worker was started; please report this with the share link."
                ));
            }
            // Answers to a run the page gave up on.
            FromWorker::PolicyDone { .. } | FromWorker::Finished { .. } | FromWorker::Failed { .. } => {}
        }
    }

    fn restore(&mut self, scenario: &SharedScenario) {
        match &scenario.topology {
            TopologyChoice::Preset(name) => self.select_preset(name),
            TopologyChoice::Parametric(text) => {
                if let Ok(spec) = ParametricSpec::parse(text) {
                    self.param = ParametricFields::from_spec(&spec);
                }
                self.preset = None;
                self.set_topology(TopologyChoice::Parametric(text.clone()));
            }
            TopologyChoice::Custom(spec) => {
                self.preset = None;
                self.set_topology(TopologyChoice::Custom(spec.clone()));
            }
        }
        match &scenario.trace {
            TraceChoice::Synthetic { jobs, load, seed } => {
                self.generator =
                    GeneratorFields { jobs: jobs.to_string(), load: load.to_string(), seed: seed.to_string() };
                self.trace_mode = TraceMode::Synthetic;
            }
            TraceChoice::Uploaded { name } => {
                let loaded_here = self.uploaded.as_ref().is_some_and(|u| u.name == *name);
                if loaded_here {
                    self.trace_mode = TraceMode::File;
                } else {
                    self.trace_mode = TraceMode::Synthetic;
                    self.notices.push(format!(
                        "This scenario used the trace file {name}, which links and saved scenarios do not carry; load it again to use it. The synthetic trace stands in."
                    ));
                }
            }
        }
        self.refresh_synthetic_preview();
        self.mix = scenario.mix.clone().unwrap_or_default();
        self.mix_error = check_mix(&self.mix).err();
        self.policies = scenario.policies.clone();
        self.policy_error = None;
        self.seed = scenario.seed.to_string();
        self.seed_error = None;
    }

    fn select_preset(&mut self, name: &str) {
        if let Some(p) = preset(name) {
            if let Some(text) = p.parametric() {
                if let Ok(spec) = ParametricSpec::parse(text) {
                    self.param = ParametricFields::from_spec(&spec);
                }
            }
            self.preset = Some(name.to_string());
            self.param_error = None;
            self.set_topology(TopologyChoice::Preset(name.to_string()));
        }
    }

    /// The scenario as a share link or local storage keeps it; `None` while a field is
    /// invalid.
    pub fn shared_scenario(&self) -> Option<SharedScenario> {
        let trace = match self.trace_mode {
            TraceMode::File => TraceChoice::Uploaded { name: self.uploaded.as_ref()?.name.clone() },
            TraceMode::Synthetic => {
                let spec = self.generator.spec().ok()?;
                TraceChoice::Synthetic { jobs: spec.jobs, load: spec.load, seed: spec.seed }
            }
        };
        if self.mix_error.is_some() || self.policies.is_empty() || !self.editor.problems.is_empty() {
            return None;
        }
        Some(SharedScenario {
            topology: self.topology_choice.clone(),
            trace,
            mix: (!self.mix.trim().is_empty()).then(|| self.mix.trim().to_string()),
            policies: self.policies.clone(),
            seed: self.seed.trim().parse().ok()?,
        })
    }

    /// The request for a run of the current scenario, or what must be fixed first.
    pub fn run_request(&self, run_id: u32) -> Result<(RunRequest, SharedScenario), Vec<String>> {
        let mut problems = Vec::new();
        problems.extend(self.param_error.iter().map(|e| format!("topology: {e}")));
        problems.extend(self.editor.refusal());
        if self.trace_mode == TraceMode::Synthetic {
            problems.extend(self.generator_error.iter().map(|e| format!("trace: {e}")));
        }
        problems.extend(self.mix_error.iter().map(|e| format!("model mix: {e}")));
        problems.extend(self.seed_error.iter().cloned());
        if self.policies.is_empty() {
            problems.push("policies: choose at least one policy to run".into());
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let scenario = self.shared_scenario().ok_or_else(|| vec!["the scenario is incomplete".to_string()])?;
        let topology = match &self.topology_choice {
            TopologyChoice::Preset(name) => TopologyInput::Arg(name.clone()),
            TopologyChoice::Parametric(text) => TopologyInput::Arg(text.clone()),
            TopologyChoice::Custom(spec) => TopologyInput::Spec(spec.clone()),
        };
        let trace = match (&self.trace_mode, &self.uploaded) {
            (TraceMode::File, Some(u)) => TraceInput::File { name: u.name.clone(), text: u.text.to_string() },
            _ => TraceInput::Synthetic(self.generator.spec().map_err(|e| vec![e])?.to_string()),
        };
        let request = RunRequest {
            run_id,
            topology,
            trace,
            seed: scenario.seed,
            mix: scenario.mix.clone(),
            policies: scenario.policies.clone(),
        };
        Ok((request, scenario))
    }

    /// The `proxima compare` command that computes the same results (for a synthetic trace;
    /// with a file, its name stands for its path).
    pub fn cli_command(&self) -> Option<String> {
        let (request, _) = self.run_request(0).ok()?;
        let topology = match &request.topology {
            TopologyInput::Arg(a) => a.clone(),
            TopologyInput::Spec(spec) => format!("{}.json", if spec.name.is_empty() { "topology" } else { &spec.name }),
        };
        let trace = match &request.trace {
            TraceInput::Synthetic(t) => t.clone(),
            TraceInput::File { name, .. } => name.clone(),
        };
        let mut cmd = format!(
            "proxima compare --topology {} --trace {} --seed {}",
            shell_word(&topology),
            shell_word(&trace),
            request.seed
        );
        if let Some(mix) = &request.mix {
            cmd += &format!(" --mix {}", shell_word(mix));
        }
        for p in &request.policies {
            cmd += &format!(" --policy {}", shell_word(p));
        }
        Some(cmd + " --out results")
    }

    pub fn is_running(&self) -> bool {
        matches!(self.run, RunState::Running { .. })
    }
}

fn check_mix(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Ok(());
    }
    ModelMix::parse(text, &Catalog::built_in()).map(|_| ()).map_err(|e| e.to_string())
}

/// The message for a trace file above [`MAX_TRACE_BYTES`].
pub fn too_large(name: &str, bytes: u64) -> String {
    format!(
        "{name}: the file is {:.1} MiB; the browser reads traces of up to {} MiB (use `proxima` on the command line for larger ones, or cut the trace)",
        bytes as f64 / (1024.0 * 1024.0),
        MAX_TRACE_BYTES >> 20
    )
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:,=/+@".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The offered load's upper bound, for the form's `max`.
pub const LOAD_MAX: f64 = MAX_LOAD;

/// Default link speeds of the parametric form, for its placeholders.
pub const NIC_DEFAULT: f64 = DEFAULT_NIC_GBPS;
pub const NVLINK_DEFAULT: f64 = DEFAULT_NVLINK_GBPS;

impl State {
    /// `scenario.json`: the scenario in full (the topology as its JSON description, so it
    /// can be fed to `proxima --topology`), with its share code and the equivalent command.
    pub fn scenario_json(&self) -> Option<String> {
        let scenario = self.shared_scenario()?;
        let trace = match &scenario.trace {
            TraceChoice::Synthetic { jobs, load, seed } => {
                serde_json::json!(SyntheticSpec { jobs: *jobs, load: *load, seed: *seed }.to_string())
            }
            TraceChoice::Uploaded { name } => serde_json::json!({ "file": name }),
        };
        let doc = serde_json::json!({
            "version": 1,
            "topology_name": self.topology.name(),
            "topology": serde_json::to_value(self.topology.spec()).ok()?,
            "trace": trace,
            "mix": scenario.mix,
            "policies": scenario.policies,
            "seed": scenario.seed,
            "share": proxima_core::share::encode(&scenario),
            "cli": self.cli_command(),
        });
        Some(serde_json::to_string_pretty(&doc).ok()? + "\n")
    }
}

/// The state to start with: the scenario of a share link if the URL has one, else the one
/// saved in local storage, else the defaults; with a notice or an error when a link or the
/// saved state could not be read.
pub fn startup(link: Option<&str>, saved: Option<&str>) -> State {
    use proxima_core::share::decode;
    let from_saved = |state_notice: Option<String>| -> State {
        let mut state = match saved.map(decode) {
            Some(Ok(s)) => State::from_scenario(&s),
            Some(Err(e)) => {
                let mut st = State::default();
                st.notices
                    .push(format!("Your saved scenario could not be read ({e}); Proxima started from the defaults."));
                st
            }
            None => State::default(),
        };
        state.notices.extend(state_notice);
        state
    };
    match link.map(decode) {
        Some(Ok(s)) => {
            let mut state = State::from_scenario(&s);
            state.notices.insert(0, "Restored the scenario from the link.".into());
            state
        }
        Some(Err(e)) => {
            let mut state = from_saved(None);
            state.errors.push(format!("This share link could not be read: {e}. Showing your last scenario instead."));
            state
        }
        None => from_saved(None),
    }
}

/// A file-name-safe form of a policy spec (or a cluster's name), as the CLI names its
/// result directories.
pub use proxima_core::metrics::result_dir_name as slug;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_numbers_keep_the_texts_of_top_level_numbers() {
        let text = "{\n  \"policy\": \"fifo\",\n  \"avg_jct_s\": 14619.289512946667,\n  \"gpus\": 16,\n  \"tier_counts\": {\n    \"server\": 3\n  }\n}\n";
        let raw = raw_numbers(text);
        assert_eq!(raw.get("avg_jct_s").map(String::as_str), Some("14619.289512946667"));
        assert_eq!(raw.get("gpus").map(String::as_str), Some("16"));
        assert_eq!(raw.len(), 2);
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("dally:preempt=off,autotune=off"), "dally:preempt=off,autotune=off");
        assert_eq!(shell_word("my trace.csv"), "'my trace.csv'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
