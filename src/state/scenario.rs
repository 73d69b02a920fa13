//! The scenario as the page's state holds it, and as others describe it: a share code
//! (links and local storage), a run request for the worker, the equivalent `proxima`
//! command, and `scenario.json`.

use super::link::{parse_fragment, FromLink, Link, PendingTrace};
use super::{Action, State, TraceMode};
use crate::protocol::{Problem, RunRequest, TraceSource};
use crate::scenario::fields::{check_mix, check_seed, Field, GeneratorFields, GeneratorSpec};
use crate::scenario::trace::{suggested_jobs, DEFAULT_LOAD};
use proxima_core::share::{decode, encode, SharedScenario, TopologyChoice, TraceChoice};

impl State {
    /// Replaces the scenario (a link, local storage), keeping what it does not carry.
    pub(super) fn restore(&mut self, scenario: &SharedScenario) {
        let result = self.cluster.make_mut().restore(&scenario.topology);
        self.errors.extend(result.err().map(Problem::from));
        self.pending_trace = None;
        match &scenario.trace {
            TraceChoice::Synthetic { jobs, load, seed, tenants } => {
                self.trace.generator.value = GeneratorFields::of(&GeneratorSpec::new(*jobs, *load, *seed, *tenants));
                self.trace.mode = TraceMode::Synthetic;
            }
            TraceChoice::Uploaded { name } => {
                if self.trace.uploaded.as_ref().is_some_and(|u| u.name == *name) {
                    self.trace.mode = TraceMode::File;
                } else {
                    // The page asks for the file by name (and the link's hash, which the
                    // link adds after this); the generator stands in until it is opened.
                    self.trace.mode = TraceMode::Synthetic;
                    self.pending_trace = Some(PendingTrace { name: name.clone(), hash: None });
                }
            }
        }
        self.refresh_synthetic();
        let gpu = self.cluster.topology.gpu().map(str::to_string);
        self.mix = Field::checked(scenario.mix.clone().unwrap_or_default(), |t| check_mix(t, gpu.as_deref()));
        self.policies = Field::new(scenario.policies.clone());
        self.seed = Field::new(scenario.seed.to_string());
    }

    /// A preset chosen in the form: the generator and the mix take the workload the preset
    /// runs by default (`Preset::workload`: LLM-era jobs on the large A100 and H100
    /// presets), or the general default (the jobs suggested for the cluster's size, load
    /// 0.9, the default mix) for a preset without one, so that its first run shows what the
    /// preset is there to show. A trace file in use stays, with the mix it was run with.
    pub(super) fn take_preset_workload(&mut self, name: &str) {
        if self.trace.mode == TraceMode::File {
            return;
        }
        let generator = &mut self.trace.generator.value;
        let mix = match proxima_core::topology::preset(name).and_then(|p| p.workload()) {
            Some(w) => {
                generator.jobs = w.jobs.to_string();
                generator.load = w.load.to_string();
                w.mix
            }
            None => {
                generator.jobs = suggested_jobs(self.cluster.gpu_count()).to_string();
                generator.load = DEFAULT_LOAD.to_string();
                ""
            }
        };
        self.set_mix(mix.to_string());
        self.refresh_synthetic();
    }

    /// The scenario as a share link or local storage keeps it; `None` while a field is
    /// invalid.
    pub fn shared_scenario(&self) -> Option<SharedScenario> {
        let trace = match self.trace.mode {
            TraceMode::File => TraceChoice::Uploaded { name: self.trace.uploaded.as_ref()?.name.clone() },
            TraceMode::Synthetic => self.trace.generator.value.spec().ok()?.choice(),
        };
        let policies = &self.policies.value;
        if !self.mix.is_valid() || policies.is_empty() || !self.cluster.editor.problems.is_empty() {
            return None;
        }
        let mix = self.mix.value.trim();
        Some(SharedScenario {
            topology: self.cluster.choice.clone(),
            trace,
            mix: (!mix.is_empty()).then(|| mix.to_string()),
            policies: policies.clone(),
            seed: check_seed(&self.seed.value).ok()?,
        })
    }

    /// What must be fixed before the scenario can run.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        problems.extend(self.cluster.param.error.iter().map(|e| format!("topology: {e}")));
        problems.extend(self.cluster.editor.refusal());
        match self.trace.mode {
            TraceMode::Synthetic => problems.extend(self.trace.generator.error.iter().map(|e| format!("trace: {e}"))),
            TraceMode::File => problems.extend(self.trace.file_blocker()),
        }
        problems.extend(self.mix.error.iter().map(|e| format!("model mix: {e}")));
        problems.extend(self.seed.error.iter().cloned());
        if self.policies.value.is_empty() {
            problems.push("policies: choose at least one policy to run".into());
        }
        problems
    }

    /// The request for a run of the current scenario, or what must be fixed first.
    pub fn run_request(&self, run_id: u32) -> Result<(RunRequest, SharedScenario), Vec<String>> {
        let problems = self.problems();
        if !problems.is_empty() {
            return Err(problems);
        }
        let scenario = self.shared_scenario().ok_or_else(|| vec!["the scenario is incomplete".to_string()])?;
        let trace = match (&scenario.trace, &self.trace.uploaded) {
            (TraceChoice::Uploaded { .. }, Some(u)) => TraceSource::File { name: u.name.clone(), data: u.data.clone() },
            _ => TraceSource::Synthetic(self.trace.generator.value.spec().map_err(|e| vec![e])?.to_string()),
        };
        let request = RunRequest {
            run_id,
            topology: self.cluster.input(),
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
        if !self.problems().is_empty() {
            return None;
        }
        let scenario = self.shared_scenario()?;
        let topology = match &scenario.topology {
            TopologyChoice::Preset(name) => name.clone(),
            TopologyChoice::Parametric(spec) => spec.to_string(),
            TopologyChoice::Custom(spec) => {
                format!("{}.json", if spec.name.is_empty() { "topology" } else { &spec.name })
            }
        };
        let trace = match &scenario.trace {
            TraceChoice::Synthetic { jobs, load, seed, tenants } => {
                GeneratorSpec::new(*jobs, *load, *seed, *tenants).to_string()
            }
            TraceChoice::Uploaded { name } => name.clone(),
        };
        let mut cmd = format!(
            "proxima compare --topology {} --trace {} --seed {}",
            shell_word(&topology),
            shell_word(&trace),
            scenario.seed
        );
        if let Some(mix) = &scenario.mix {
            cmd += &format!(" --mix {}", shell_word(mix));
        }
        for p in &scenario.policies {
            cmd += &format!(" --policy {}", shell_word(p));
        }
        Some(cmd + " --out results")
    }

    /// `scenario.json`: the scenario in full (the topology as its JSON description, so it
    /// can be fed to `proxima --topology`), with its share code and the equivalent command.
    pub fn scenario_json(&self) -> Option<String> {
        let scenario = self.shared_scenario()?;
        let trace = match &scenario.trace {
            TraceChoice::Synthetic { jobs, load, seed, tenants } => {
                serde_json::json!(GeneratorSpec::new(*jobs, *load, *seed, *tenants).to_string())
            }
            TraceChoice::Uploaded { name } => serde_json::json!({ "file": name }),
        };
        let topology = &self.cluster.topology;
        let doc = serde_json::json!({
            "version": 1,
            "topology_name": topology.name(),
            "topology": serde_json::to_value(topology.spec()).ok()?,
            "trace": trace,
            "mix": scenario.mix,
            "policies": scenario.policies,
            "seed": scenario.seed,
            "share": encode(&scenario),
            "cli": self.cli_command(),
        });
        Some(serde_json::to_string_pretty(&doc).ok()? + "\n")
    }
}

/// The state to start with: the scenario of a share link if the URL has one, else the one
/// saved in local storage (`Err` if what is saved there cannot be read), else the
/// defaults; with a notice or an error when a link or the saved state could not be read.
pub fn startup(link: Option<&str>, saved: Option<Result<String, String>>) -> State {
    let from_saved = || -> State {
        match saved.map(|s| s.and_then(|code| decode(&code).map_err(|e| e.to_string()))) {
            Some(Ok(s)) => State::from_scenario(&s),
            Some(Err(e)) => {
                let mut st = State::default();
                st.notices
                    .push(format!("Your saved scenario could not be read ({e}); Proxima started from the defaults."));
                st
            }
            None => State::default(),
        }
    };
    match link.map(decode) {
        Some(Ok(s)) => {
            let mut state = State::from_scenario(&s);
            // Said, with its "Run it", by the notice of a scenario from a link.
            state.from_link = Some(FromLink { scenario: s, trace: None, replaced_by: None });
            state
        }
        Some(Err(e)) => {
            let mut state = from_saved();
            state
                .errors
                .push(format!("This share link could not be read: {e}. Showing your last scenario instead.").into());
            state
        }
        None => from_saved(),
    }
}

/// The state to start with on a page opened with this URL fragment: a share link's scenario
/// (waiting for its trace file, named with its hash, if it has one), a lesson (run at once
/// with `autoplay`), a tour step (opened once the tour has run), else as [`startup`]
/// without a link.
pub fn startup_from(fragment: &str, saved: Option<Result<String, String>>) -> State {
    match parse_fragment(fragment) {
        Ok(Some(Link::Share { code, trace, moment })) => {
            let mut state = startup(Some(&code), saved);
            state.link_details(trace, moment);
            state
        }
        Ok(Some(lesson)) => startup(None, saved).apply(Action::OpenLink(lesson)),
        Ok(None) => startup(None, saved),
        Err(e) => {
            let mut state = startup(None, saved);
            state.errors.push(format!("This link could not be read: {e}. Showing your last scenario instead.").into());
            state
        }
    }
}

impl State {
    /// The results on screen were run on a scenario other than the one in the form (it
    /// was edited since, or a field is invalid now).
    pub fn results_stale(&self) -> bool {
        let r = &self.results;
        !r.outcomes.is_empty() && r.scenario.is_some() && r.scenario != self.shared_scenario()
    }
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:,=/+@".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::defaults::FIRST_RUN_JOBS;

    #[test]
    fn generator_tenants_reach_the_run_the_command_and_the_link() {
        use crate::state::{Action, GenField};
        let s = State::default().apply(Action::SetGenerator(GenField::Tenants, "3".into()));
        assert_eq!(s.trace.generator.error, None);
        let wanted = s.trace.synthetic_wanted.as_ref().expect("the trace is described again");
        assert_eq!(wanted.spec, "synthetic:jobs=800,load=0.9,seed=1,tenants=3");
        let (request, scenario) = s.run_request(1).unwrap();
        assert_eq!(request.trace, TraceSource::Synthetic(wanted.spec.clone()));
        assert_eq!(scenario.trace, TraceChoice::Synthetic { jobs: 800, load: 0.9, seed: 1, tenants: Some(3) });
        assert!(s.cli_command().unwrap().contains(" --trace synthetic:jobs=800,load=0.9,seed=1,tenants=3 "));
        assert!(s.scenario_json().unwrap().contains(r#""trace": "synthetic:jobs=800,load=0.9,seed=1,tenants=3""#));
        // Saved or linked, the field comes back.
        let restored = startup(Some(&encode(&scenario)), None);
        assert_eq!(restored.trace.generator.value.tenants, "3");
        // A bad value is refused with the CLI's message, and the run with it.
        let bad = s.apply(Action::SetGenerator(GenField::Tenants, "20".into()));
        assert_eq!(
            bad.trace.generator.error.as_deref(),
            Some("tenants: expected a whole number of tenants from 1 to 15, got '20'")
        );
        assert!(bad.run_request(2).is_err());
        assert!(bad.shared_scenario().is_none());
        // Emptied: no tenants key at all.
        let none = bad.apply(Action::SetGenerator(GenField::Tenants, " ".into()));
        assert_eq!(
            none.shared_scenario().unwrap().trace,
            TraceChoice::Synthetic { jobs: FIRST_RUN_JOBS, load: 0.9, seed: 1, tenants: None }
        );
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("dally:preempt=off,autotune=off"), "dally:preempt=off,autotune=off");
        assert_eq!(shell_word("my trace.csv"), "'my trace.csv'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
