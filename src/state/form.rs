//! The reducer's part for the scenario form: a preset chosen, a topology imported, the
//! trace's source and file, the model mix, the policies, and what follows from a cluster
//! that changed.

use super::{State, MAX_TRACE_BYTES};
use crate::protocol::{FileData, Problem};
use crate::scenario::fields::check_mix;
use crate::scenario::trace::{too_large, FileCheck, TraceMode};
use crate::scenario::Field;
use crate::Shared;
use proxima_core::policy::resolve_policy;

impl State {
    pub(super) fn select_preset(&mut self, name: &str) {
        let result = self.cluster.make_mut().select_preset(name);
        if result.is_ok() {
            self.take_preset_workload(name);
        }
        self.errors.extend(result.err().map(Problem::from));
    }

    pub(super) fn import_topology(&mut self, name: &str, text: &str) {
        match self.cluster.make_mut().import(name, text) {
            Ok(()) => self.notices.push(format!("Imported the topology in {name}.")),
            Err(e) => self.errors.push(e.into()),
        }
    }

    pub(super) fn set_trace_mode(&mut self, mode: TraceMode) {
        if mode == TraceMode::File && self.trace.uploaded.is_none() && self.trace.file_problem.is_none() {
            self.errors.push("No trace file loaded yet: choose or drop a CSV or JSON file first.".into());
        } else {
            self.trace.mode = mode;
        }
    }

    /// A file chosen is the trace the user means to run: Run waits for it (and stays
    /// blocked if it is refused) rather than running another trace.
    pub(super) fn trace_file_chosen(&mut self, name: String, data: FileData) {
        self.trace.mode = TraceMode::File;
        if data.size() > MAX_TRACE_BYTES {
            self.trace.file_problem = Some(too_large(&name, data.size()).into());
        } else {
            let id = self.take_id();
            // The new file is checked now: an older file's refusal no longer applies.
            self.trace.file_problem = None;
            self.trace.checking = Some(Shared::new(FileCheck { id, name, data }));
        }
    }

    pub(super) fn toggle_policy(&mut self, spec: String) {
        let list = &mut self.policies.value;
        match list.iter().position(|p| *p == spec) {
            Some(i) => drop(list.remove(i)),
            None => list.push(spec),
        }
        self.policies.error = None;
    }

    pub(super) fn remove_policy(&mut self, i: usize) {
        if i < self.policies.value.len() {
            self.policies.value.remove(i);
        }
    }

    pub(super) fn add_policy(&mut self, spec: &str) {
        let error = match resolve_policy(spec) {
            Ok(_) if self.policies.value.iter().any(|p| p == spec) => Some(format!("{spec} is already in the list")),
            Ok(_) => {
                self.policies.value.push(spec.to_string());
                None
            }
            Err(e) => Some(format!("{spec}: {e}")),
        };
        self.policies.error = error;
    }

    /// Sets the model mix as typed, checked against the cluster's GPU.
    pub(super) fn set_mix(&mut self, text: String) {
        let gpu = self.cluster.topology.gpu().map(str::to_string);
        self.mix = Field::checked(text, |t| check_mix(t, gpu.as_deref()));
    }

    /// Checks the generator's fields and asks for their trace to be described.
    pub(super) fn refresh_synthetic(&mut self) {
        let id = self.take_id();
        self.trace.refresh_synthetic(id, self.cluster.gpu_count());
    }

    /// After an action, what follows from a cluster changed from `gpus` GPUs of kind
    /// `gpu_kind`: a cluster of another size makes another synthetic trace (jobs are sized
    /// to it), and one the user chose (`cluster_edit`) takes as many jobs as suits it unless
    /// some were typed; another GPU has other models measured on it.
    pub(super) fn follow_cluster(&mut self, gpus: u32, gpu_kind: Option<&str>, cluster_edit: bool) {
        if self.cluster.gpu_count() != gpus {
            if cluster_edit {
                self.trace.follow_cluster(gpus, self.cluster.gpu_count());
            }
            self.refresh_synthetic();
        }
        if self.cluster.topology.gpu() != gpu_kind {
            self.set_mix(self.mix.value.clone());
        }
    }
}
