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

/// The largest trace file the page takes. A larger file is refused before anything
/// reads it, so a huge file never fills the tab's memory; the CLI has no such limit.
pub const MAX_TRACE_BYTES: u64 = 16 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceMode {
    Synthetic,
    File,
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
    pub uploaded: Option<Shared<LoadedTrace>>,
    pub checking: Option<Shared<FileCheck>>,
}

impl Default for TraceForm {
    fn default() -> Self {
        TraceForm {
            mode: TraceMode::Synthetic,
            generator: Field::new(GeneratorFields::default()),
            synthetic: None,
            synthetic_wanted: None,
            uploaded: None,
            checking: None,
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

    /// The preview shown for the trace in use.
    pub fn preview(&self) -> Option<&TracePreview> {
        match self.mode {
            TraceMode::Synthetic => self.synthetic.as_deref(),
            TraceMode::File => self.uploaded.as_ref().map(|u| &u.preview),
        }
    }

    /// An answer of the checks worker; `Some(error)` for a file it refused.
    pub fn on_checked(&mut self, id: u32, result: &Result<TracePreview, Problem>) -> Option<Problem> {
        if self.synthetic_wanted.as_ref().is_some_and(|w| w.id == id) {
            self.synthetic_wanted = None;
            match result {
                Ok(preview) => self.synthetic = Some(Shared::new(preview.clone())),
                Err(e) => self.generator.error = Some(e.to_string()),
            }
            return None;
        }
        let check = self.checking.take_if(|c| c.id == id)?;
        match result {
            Ok(preview) => {
                let loaded =
                    LoadedTrace { name: check.name.clone(), data: check.data.clone(), preview: preview.clone() };
                self.uploaded = Some(Shared::new(loaded));
                self.mode = TraceMode::File;
                None
            }
            Err(e) => Some(e.clone()),
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
