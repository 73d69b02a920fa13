//! Where the jobs come from: the synthetic generator's fields or a trace file, and what
//! the worker said about them.
//!
//! Describing a trace (generating up to 200,000 synthetic jobs, or parsing a 16 MiB file
//! and checking it against the cluster) is work for the checks worker, not for the page:
//! the state says what it wants described ([`TraceForm::synthetic_wanted`],
//! [`TraceForm::checking`]), the app posts it, and the answer comes back as an action. A
//! trace file stays a `Blob` on the page: only the worker reads it.

use super::fields::{Field, GeneratorFields};
use crate::protocol::{FileData, Problem, TracePreview};
use crate::Shared;
use proxima_core::trace::synthetic::{self, SyntheticSpec};
use proxima_core::trace::tenant_mix;

/// The largest trace file the page takes. A larger file is refused before anything
/// reads it, so a huge file never fills the tab's memory; the CLI has no such limit.
pub const MAX_TRACE_BYTES: u64 = 16 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceMode {
    Synthetic,
    File,
}

/// The generator's jobs per GPU on a large cluster. The generator spreads arrivals so that
/// the jobs offer the load asked for, which takes more jobs than the cluster can run at
/// once: with too few the window shrinks to 0 and every job arrives together
/// (`proxima_core::trace::synthetic`). Measured with `proxima compare` (fifo, consolidate,
/// dally; load 0.9, seed 1) on the presets of 1,024 GPUs or more: 1,000 jobs arrive at
/// once on 2,048 GPUs (utilisation 1.2%, every policy equal); 5 jobs per GPU spread them
/// over about 7 hours with 80% of the GPUs busy meanwhile, and 3 policies on 2,048 GPUs run
/// in under a second natively (10 per GPU: 43 hours, 1.7 s).
pub const JOBS_PER_GPU: u32 = 5;

/// The jobs a fresh page's generator has (its first cluster has 32 GPUs), and the fewest it
/// suggests for any cluster.
pub const DEFAULT_JOBS: u32 = 1000;

/// The offered load a fresh page's generator has, and a preset without a workload of its
/// own sets.
pub const DEFAULT_LOAD: f64 = 0.9;

/// The jobs the generator suggests for a cluster of `gpus` GPUs: [`DEFAULT_JOBS`], or
/// [`JOBS_PER_GPU`] per GPU to the nearest thousand on a cluster large enough to need more.
pub fn suggested_jobs(gpus: u32) -> u32 {
    let scaled = (JOBS_PER_GPU * gpus + 500) / 1000 * 1000;
    scaled.clamp(DEFAULT_JOBS, super::MAX_APP_JOBS)
}

/// Below this offered load the cluster has GPUs to spare most of the time and jobs hardly
/// wait, so policies that place differently come out alike. Measured with `proxima compare`
/// on the page's first cluster (32 GPUs, 32:1 uplinks, 1,000 jobs): dally and consolidate
/// equal at load 0.2 and 0.4, dally 14% sooner at 0.6 and 17% at 0.9; on `a100-roce-2048`
/// (10,000 jobs) equal at 0.3 and 0.5, dally 1.3% sooner at 0.9 and 8% at 1.5.
pub const LOW_LOAD: f64 = 0.6;

/// Why the generator's trace makes a poor comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorWarning {
    /// `burst` (every job arrives at once) or `low-load`: the page's `data-warning`.
    pub kind: &'static str,
    pub text: String,
}

/// Why the generator's trace makes a poor comparison, if it does: every job arriving at
/// once (too few jobs for the cluster), or a load too low for policies to differ. Said next
/// to the generator's fields, as data (`spec` and `preview` are the generator's trace on a
/// cluster of `gpus` GPUs).
pub fn generator_warnings(spec: &SyntheticSpec, preview: &TracePreview, gpus: u32) -> Vec<GeneratorWarning> {
    let mut warnings = Vec::new();
    if preview.jobs > 1 && preview.span_s == 0.0 {
        let text = format!(
            "All {} jobs arrive at once: too few to keep {gpus} GPUs {:.0}% busy, so the generator submits them together \
             and the run measures one burst, not a busy cluster. About {} jobs suit this cluster.",
            preview.jobs,
            spec.load * 100.0,
            group_thousands(suggested_jobs(gpus).max(preview.jobs * 2))
        );
        warnings.push(GeneratorWarning { kind: "burst", text });
    }
    if spec.load < LOW_LOAD {
        let text = format!(
            "At offered load {} the cluster has GPUs to spare most of the time: jobs hardly wait, so policies that place \
             jobs differently come out alike. {LOW_LOAD} or more makes them differ.",
            spec.load
        );
        warnings.push(GeneratorWarning { kind: "low-load", text });
    }
    warnings
}

/// `12000` as `12,000`.
fn group_thousands(n: u32) -> String {
    crate::numbers::count(n as f64)
}

/// A synthetic trace to describe: the generator's spec on a cluster of `gpus` GPUs.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewWanted {
    pub id: u32,
    pub spec: String,
    pub gpus: u32,
}

/// A trace file chosen, being checked by the worker against the cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct FileCheck {
    pub id: u32,
    pub name: String,
    pub data: FileData,
}

/// A trace file the worker checked against the cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedTrace {
    pub name: String,
    pub data: FileData,
    pub preview: TracePreview,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TraceForm {
    pub mode: TraceMode,
    pub generator: Field<GeneratorFields>,
    /// The generator's trace as last described (kept while a newer description is on
    /// its way).
    pub synthetic: Option<Shared<TracePreview>>,
    /// The description wanted of the generator's current trace.
    pub synthetic_wanted: Option<PreviewWanted>,
    /// The spec and cluster size [`TraceForm::synthetic`] describes (its warnings are about
    /// them, not about fields typed since).
    pub synthetic_for: Option<(SyntheticSpec, u32)>,
    pub uploaded: Option<Shared<LoadedTrace>>,
    pub checking: Option<Shared<FileCheck>>,
    /// Why the last trace file chosen was refused (too large, a bad header, line or
    /// field), shown beside the drop zone where the file went rather than in the page's
    /// banner: the problem is the file's, and the user fixes it there. Cleared when a file
    /// loads.
    pub file_problem: Option<Problem>,
}

impl Default for TraceForm {
    fn default() -> Self {
        TraceForm {
            mode: TraceMode::Synthetic,
            generator: Field::new(GeneratorFields::default()),
            synthetic: None,
            synthetic_wanted: None,
            synthetic_for: None,
            uploaded: None,
            checking: None,
            file_problem: None,
        }
    }
}

impl TraceForm {
    /// Checks the generator's fields and asks for a description of their trace (under
    /// request `id`) on a cluster of `gpus` GPUs.
    pub fn refresh_synthetic(&mut self, id: u32, gpus: u32) {
        match self.generator.value.spec() {
            Ok(spec) => {
                self.generator.error = None;
                self.synthetic_wanted = Some(PreviewWanted { id, spec: spec.to_string(), gpus });
            }
            Err(e) => {
                self.generator.error = Some(e);
                self.synthetic = None;
                self.synthetic_wanted = None;
            }
        }
    }

    /// The cluster went from `old_gpus` to `new_gpus` GPUs: a generator whose jobs are
    /// those suggested for the old size takes those suggested for the new one (a count
    /// typed by hand stays).
    pub fn follow_cluster(&mut self, old_gpus: u32, new_gpus: u32) {
        let jobs = &mut self.generator.value.jobs;
        if jobs.trim().parse::<u32>() == Ok(suggested_jobs(old_gpus)) {
            *jobs = suggested_jobs(new_gpus).to_string();
        }
    }

    /// Why the generator's trace, as last described, makes a poor comparison on a cluster
    /// of `gpus` GPUs ([`generator_warnings`]); none while its fields are invalid or its
    /// description is for another cluster.
    pub fn warnings(&self, gpus: u32) -> Vec<GeneratorWarning> {
        match (&self.synthetic_for, &self.synthetic) {
            (Some((spec, described_on)), Some(preview)) if *described_on == gpus && self.generator.is_valid() => {
                generator_warnings(spec, preview, gpus)
            }
            _ => Vec::new(),
        }
    }

    /// Why the trace file in use cannot run yet, while the trace comes from a file: it is
    /// still being read, it was refused (the user meant that file, so neither the previous
    /// file nor the generator runs in its place), or none is loaded.
    pub fn file_blocker(&self) -> Option<String> {
        if self.mode != TraceMode::File {
            return None;
        }
        const WAY_OUT: &str = "fix the file or choose the generator";
        if let Some(c) = &self.checking {
            return Some(format!("trace: {} is still being read and checked", c.name));
        }
        match (&self.file_problem, &self.uploaded) {
            (Some(Problem::Input(e)), _) => {
                let at = match e.line {
                    Some(line) if e.field.is_empty() => format!("line {line}"),
                    Some(line) => format!("line {line}, {}", e.field),
                    None if e.field.is_empty() => "its header or format".to_string(),
                    None => e.field.clone(),
                };
                Some(format!("trace: {} was refused ({at}): {WAY_OUT}", e.source))
            }
            (Some(Problem::Message(_)), _) => {
                Some(format!("trace: the trace file was refused (the reason is beside the drop zone): {WAY_OUT}"))
            }
            (None, None) => Some("trace: choose a trace file or the generator".to_string()),
            (None, Some(_)) => None,
        }
    }

    /// The preview shown for the trace in use.
    pub fn preview(&self) -> Option<&TracePreview> {
        match self.mode {
            TraceMode::Synthetic => self.synthetic.as_deref(),
            TraceMode::File => self.uploaded.as_ref().map(|u| &u.preview),
        }
    }

    /// An answer of the checks worker: `true` when it loaded a trace file. A file it
    /// refused leaves the previous trace as it was and its problem in
    /// [`TraceForm::file_problem`].
    pub fn on_checked(&mut self, id: u32, result: &Result<TracePreview, Problem>) -> bool {
        if let Some(wanted) = self.synthetic_wanted.take_if(|w| w.id == id) {
            match result {
                Ok(preview) => {
                    self.synthetic = Some(Shared::new(preview.clone()));
                    let spec = tenant_mix::split_spec(&wanted.spec).ok().and_then(|(s, _)| synthetic::parse(&s).ok());
                    self.synthetic_for = spec.map(|s| (s, wanted.gpus));
                }
                Err(e) => self.generator.error = Some(e.to_string()),
            }
            return false;
        }
        let Some(check) = self.checking.take_if(|c| c.id == id) else { return false };
        match result {
            Ok(preview) => {
                let loaded =
                    LoadedTrace { name: check.name.clone(), data: check.data.clone(), preview: preview.clone() };
                self.uploaded = Some(Shared::new(loaded));
                self.mode = TraceMode::File;
                self.file_problem = None;
                true
            }
            Err(e) => {
                self.file_problem = Some(e.clone());
                false
            }
        }
    }
}

/// The message for a trace file above [`MAX_TRACE_BYTES`].
pub fn too_large(name: &str, bytes: u64) -> String {
    format!(
        "{name}: the file is {:.1} MiB; the browser reads traces of up to {} MiB (use `proxima` on the command line for larger ones, or cut the trace)",
        bytes as f64 / (1024.0 * 1024.0),
        MAX_TRACE_BYTES >> 20
    )
}

/// The state after a trace file named `name` with these bytes was chosen and checked by the
/// checks worker (run here, natively): what the page does when a file is opened or dropped.
#[cfg(test)]
pub(crate) fn opened_and_checked(state: crate::state::State, name: &str, bytes: &[u8]) -> crate::state::State {
    use crate::protocol::{FromWorker, ToWorker};
    use crate::state::Action;
    let data = FileData::Bytes(bytes.to_vec().into());
    let state = state.apply(Action::TraceFileChosen { name: name.into(), data: data.clone() });
    let check = state.trace.checking.clone().expect("a check asked for");
    let mut answer = None;
    crate::worker::handle(
        ToWorker::CheckTrace { id: check.id, topology: state.cluster.input(), name: name.into(), data },
        &|| 0.0,
        &mut |m| answer = Some(m),
    );
    let Some(answer @ FromWorker::Checked { .. }) = answer else { panic!("no answer") };
    state.apply(Action::Worker(answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{RunRequest, TraceSource};
    use crate::scenario::GenField;
    use crate::state::{Action, State};
    use crate::worker::preview_synthetic;

    /// The generator's trace of `jobs` jobs at `load` on `gpus` GPUs, and its warnings.
    fn warnings_of(jobs: u32, load: f64, gpus: u32) -> (TracePreview, Vec<GeneratorWarning>) {
        let spec = SyntheticSpec { jobs, load, seed: 1 };
        let preview = preview_synthetic(&spec.to_string(), gpus).unwrap();
        let warnings = generator_warnings(&spec, &preview, gpus);
        (preview, warnings)
    }

    #[test]
    fn the_suggested_jobs_scale_with_the_cluster() {
        // The page's first cluster and the small presets keep the first run's 1,000 jobs.
        for gpus in [16, 32, 64, 128, 160] {
            assert_eq!(suggested_jobs(gpus), DEFAULT_JOBS, "{gpus} GPUs");
        }
        // The presets of 1,024 GPUs or more: 5 per GPU to the nearest thousand.
        assert_eq!([1024, 1120, 2048].map(suggested_jobs), [5_000, 6_000, 10_000]);
        assert_eq!(suggested_jobs(1_000_000), super::super::MAX_APP_JOBS);
        // On 2,048 GPUs, 1,000 jobs all arrive at once; the suggested 10,000 arrive over hours.
        let (burst, _) = warnings_of(1000, 0.9, 2048);
        assert_eq!(burst.span_s, 0.0);
        let (spread, warnings) = warnings_of(suggested_jobs(2048), 0.9, 2048);
        assert!(spread.span_s > 3.0 * 3600.0, "{}", spread.span_s);
        assert_eq!(warnings, []);
    }

    #[test]
    fn a_burst_or_a_low_load_is_warned_of() {
        let (_, warnings) = warnings_of(1000, 0.9, 2048);
        assert_eq!(
            warnings,
            [GeneratorWarning {
                kind: "burst",
                text: "All 1000 jobs arrive at once: too few to keep 2048 GPUs 90% busy, so the generator submits them \
                       together and the run measures one burst, not a busy cluster. About 10,000 jobs suit this cluster."
                    .into()
            }]
        );
        let (_, warnings) = warnings_of(1000, 0.4, 32);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].kind, "low-load");
        assert!(warnings[0].text.starts_with("At offered load 0.4 the cluster has GPUs to spare"), "{:?}", warnings[0]);
        // Both at once: a burst of jobs at a low load.
        let kinds: Vec<&str> = warnings_of(1000, 0.5, 2048).1.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, ["burst", "low-load"]);
        // The first run's trace: no warning. One job alone is no burst.
        assert!(warnings_of(1000, 0.9, 32).1.is_empty());
        assert!(warnings_of(1, 0.9, 32).1.is_empty());
    }

    #[test]
    fn a_chosen_preset_sets_its_default_workload() {
        let jobs = |s: &State| s.trace.generator.value.jobs.clone();
        // The first run's jobs (`FIRST_RUN_JOBS`), fewer than the generator's default.
        let s = State::default();
        assert_eq!(jobs(&s), "800");
        let big = s.apply(Action::SelectPreset("oversub-2048".into()));
        assert_eq!(jobs(&big), "10000");
        assert_eq!(big.trace.synthetic_wanted.as_ref().unwrap().spec, "synthetic:jobs=10000,load=0.9,seed=1");
        // The large presets run LLM-era jobs (issue 32): the mix field shows it.
        assert_eq!((big.mix.value.as_str(), big.mix.error.as_ref()), ("llm", None));
        let rdma = big.clone().apply(Action::SelectPreset("rdma-2048".into()));
        assert_eq!(rdma.mix.value, "llama-13b");
        // A preset without a workload of its own takes the general default back.
        let typed = big.clone().apply(Action::SetGenerator(GenField::Load, "1.5".into()));
        let small = typed.apply(Action::SelectPreset("teaching".into()));
        assert_eq!(
            (jobs(&small).as_str(), small.trace.generator.value.load.as_str(), small.mix.value.as_str()),
            ("1000", "0.9", "")
        );
        // The preset's workload replaces a count typed by hand: the choice is the workload.
        let typed = small.apply(Action::SetGenerator(GenField::Jobs, "3000".into()));
        assert_eq!(jobs(&typed.apply(Action::SelectPreset("fat-tree-k8".into()))), "5000");
        // A parametric form of another size keeps a typed count.
        let typed = State::default().apply(Action::SetGenerator(GenField::Jobs, "3000".into()));
        let wider = typed.apply(Action::SetParam(crate::scenario::ParamField::Racks, "4".into()));
        assert_eq!(jobs(&wider), "3000");
        // A link says its own jobs: 1,000 on 2,048 GPUs stays 1,000 (and is warned of).
        let mut linked = big.shared_scenario().unwrap();
        linked.trace = proxima_core::share::TraceChoice::Synthetic { jobs: 1000, load: 0.9, seed: 1, tenants: None };
        let restored = State::default().apply(Action::Restore { scenario: linked, notice: None });
        assert_eq!(jobs(&restored), "1000");
    }

    #[test]
    fn a_trace_file_in_use_keeps_its_mix_when_a_preset_is_chosen() {
        const TRACE: &[u8] = b"id,submit_s,gpus,duration_s\na,0,8,600\nb,30,16,1200\n";
        let s = State::default().apply(Action::SelectPreset("teaching".into()));
        let s = s.apply(Action::SetMix("resnet50".into()));
        let s = super::opened_and_checked(s, "mine.csv", TRACE);
        assert_eq!(s.trace.mode, TraceMode::File);
        let s = s.apply(Action::SelectPreset("oversub-2048".into()));
        assert_eq!((s.trace.mode, s.mix.value.as_str()), (TraceMode::File, "resnet50"));
    }

    #[test]
    fn warnings_are_about_the_trace_described_on_this_cluster() {
        let mut form = TraceForm::default();
        form.generator.value = GeneratorFields::of(&super::super::fields::GeneratorSpec::new(1000, 0.9, 1, None));
        form.refresh_synthetic(7, 2048);
        let wanted = form.synthetic_wanted.clone().unwrap();
        assert_eq!(form.warnings(2048), [], "nothing described yet");
        let preview = preview_synthetic(&wanted.spec, wanted.gpus);
        assert!(!form.on_checked(7, &preview), "a description of the generator's trace loads no file");
        assert_eq!(form.warnings(2048).len(), 1);
        assert!(form.warnings(2048)[0].text.starts_with("All 1000 jobs arrive at once"));
        // Described for 2,048 GPUs, it says nothing about a cluster of another size.
        assert_eq!(form.warnings(32), []);
    }

    #[test]
    fn a_refused_trace_file_is_said_beside_its_drop_zone_and_the_previous_trace_stays() {
        const GOOD: &[u8] = b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,30,4,resnet50,1200\n";
        const BAD: &[u8] = b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,thirty,4,resnet50,1200\n";
        let s = State::default().apply(Action::SelectPreset("teaching".into()));
        let s = super::opened_and_checked(s, "good.csv", GOOD);
        let before = s.trace.uploaded.clone().expect("the good file loads");
        let s = super::opened_and_checked(s, "bad.csv", BAD);
        // The problem names the file, line and field, beside the drop zone, not in the banner.
        let Some(Problem::Input(e)) = &s.trace.file_problem else { panic!("{:?}", s.trace.file_problem) };
        assert_eq!((e.source.as_str(), e.line, e.field.as_str()), ("bad.csv", Some(3), "submit_s"));
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        // Nothing half-applied: the previous trace is still the one in use.
        assert_eq!(s.trace.uploaded, Some(before));
        assert_eq!(s.trace.mode, TraceMode::File);
        // A file above the limit is refused before anything reads it, the same way.
        let big = FileData::Bytes(vec![b'a'; MAX_TRACE_BYTES as usize + 1].into());
        let s = s.apply(Action::TraceFileChosen { name: "huge.csv".into(), data: big });
        assert!(s.trace.checking.is_none());
        assert!(s.trace.file_problem.as_ref().unwrap().to_string().starts_with("huge.csv: the file is 16.0 MiB"));
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        // A good file clears it.
        let s = super::opened_and_checked(s, "good2.csv", GOOD);
        assert_eq!(s.trace.file_problem, None);
        assert_eq!(s.trace.uploaded.as_ref().unwrap().name, "good2.csv");
    }

    #[test]
    fn a_refused_trace_file_blocks_run_until_fixed_or_the_generator_is_chosen() {
        const GOOD: &[u8] = b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\n";
        const BAD: &[u8] = b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,30,four,resnet50,1200\n";
        let s = State::default().apply(Action::SelectPreset("teaching".into()));
        assert_eq!(s.problems(), Vec::<String>::new());
        // While the file is read, Run waits for it rather than running the generator's trace.
        let data = FileData::Bytes(BAD.to_vec().into());
        let reading = s.clone().apply(Action::TraceFileChosen { name: "trace.csv".into(), data });
        assert_eq!(reading.problems(), ["trace: trace.csv is still being read and checked"]);
        assert!(reading.run_request(1).is_err());
        // Refused, it blocks Run with where the file is wrong and the two ways out.
        let refused = super::opened_and_checked(s, "trace.csv", BAD);
        assert_eq!(refused.trace.mode, TraceMode::File);
        let blocked = ["trace: trace.csv was refused (line 3, gpus): fix the file or choose the generator"];
        assert_eq!(refused.problems(), blocked);
        assert_eq!(refused.run_request(1).err(), Some(blocked.map(String::from).to_vec()));
        // Choosing the generator runs its trace; the file's problem stays beside the drop zone.
        let generator = refused.clone().apply(Action::SetTraceMode(TraceMode::Synthetic));
        assert_eq!(generator.problems(), Vec::<String>::new());
        assert!(generator.trace.file_problem.is_some());
        assert!(matches!(generator.run_request(1), Ok((RunRequest { trace: TraceSource::Synthetic(_), .. }, _))));
        // Back to the file: blocked again until a good one loads.
        let back = generator.apply(Action::SetTraceMode(TraceMode::File));
        assert_eq!(back.problems(), blocked);
        let fixed = super::opened_and_checked(back, "trace.csv", GOOD);
        assert_eq!(fixed.problems(), Vec::<String>::new());
        assert!(matches!(fixed.run_request(1), Ok((RunRequest { trace: TraceSource::File { .. }, .. }, _))));
        // A file above the size limit blocks Run the same way, even over a good file.
        let big = FileData::Bytes(vec![b'a'; MAX_TRACE_BYTES as usize + 1].into());
        let huge = fixed.apply(Action::TraceFileChosen { name: "huge.csv".into(), data: big });
        assert_eq!(
            huge.problems(),
            ["trace: the trace file was refused (the reason is beside the drop zone): fix the file or choose the generator"]
        );
    }
}
