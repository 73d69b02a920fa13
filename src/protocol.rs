//! What crosses between the page and its workers, typed.
//!
//! Both sides are this crate, so the messages are plain serde types. They cross as
//! JavaScript values (serde-wasm-bindgen), not text: numbers keep every bit (a `Summary`
//! read back is the `Summary` the worker computed, so `summary.json` written from it on
//! the page is the CLI's byte for byte), and nothing is parsed. Byte buffers ([`Bytes`]:
//! the playback log, the exported files, a trace file) become `Uint8Array`s whose memory
//! is transferred with the message rather than copied ([`encode`]).

use proxima_core::metrics::Summary;
use proxima_core::topology::TopologySpec;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// What the page asks a worker to do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// Build the scenario and run each policy on it, one after another.
    Run(RunRequest),
    /// Describe the trace the synthetic generator makes for a cluster of `gpus` GPUs.
    PreviewSynthetic { id: u32, spec: String, gpus: u32 },
    /// Check a trace file as a run would read it, against this cluster, and describe it.
    CheckTrace { id: u32, topology: TopologyInput, name: String, data: FileData },
    /// Panic on purpose: lets the tests check that a crash in the worker reaches the page
    /// as a message and that the page recovers.
    Crash,
}

/// One run: everything `proxima compare` takes on its command line, with the trace's
/// bytes instead of its path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    /// Answers carry it, so that the page can ignore anything from a run it gave up on.
    pub run_id: u32,
    pub topology: TopologyInput,
    pub trace: TraceInput,
    pub seed: u64,
    /// The model mix `name[:weight],...`; `None` for the default.
    pub mix: Option<String>,
    pub policies: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TopologyInput {
    /// A preset name or a parametric spec, as `--topology` takes them.
    Arg(String),
    /// A full description (imported from a JSON file, or edited).
    Spec(TopologySpec),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TraceInput {
    /// `synthetic:jobs=N,load=L,seed=S`; the label in the results is exactly this text.
    Synthetic(String),
    /// A trace file and its name (the label in the results, and the source named in
    /// errors).
    File { name: String, data: FileData },
}

/// A file's content on its way to a worker.
///
/// A file the user picked or dropped stays a `Blob`: posting one copies nothing (the
/// browser shares the file), and only the worker reads it, so a 16 MiB trace never
/// passes through the page's thread. Bytes already in memory (the tour's trace, tests)
/// go as they are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FileData {
    Blob {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        blob: web_sys::Blob,
        /// Its size, read when it was chosen.
        size: u64,
    },
    Bytes(Bytes),
}

impl FileData {
    /// A file the user chose.
    pub fn of_blob(blob: web_sys::Blob) -> FileData {
        FileData::Blob { size: blob.size() as u64, blob }
    }

    /// The size in bytes.
    pub fn size(&self) -> u64 {
        match self {
            FileData::Blob { size, .. } => *size,
            FileData::Bytes(bytes) => bytes.len() as u64,
        }
    }

    /// The content. A `Blob` is read synchronously, which only a worker may do.
    pub fn read(&self) -> Result<std::borrow::Cow<'_, [u8]>, String> {
        match self {
            FileData::Bytes(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
            FileData::Blob { blob, .. } => {
                let reader = web_sys::FileReaderSync::new().map_err(|e| format!("cannot read the file: {e:?}"))?;
                let buffer = reader.read_as_array_buffer(blob).map_err(|e| format!("cannot read the file: {e:?}"))?;
                Ok(std::borrow::Cow::Owned(js_sys::Uint8Array::new(&buffer).to_vec()))
            }
        }
    }
}

/// What a worker tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker has loaded and listens.
    Ready,
    /// Policy `policy` (an index into the request's list) has finished `done` of `total`
    /// jobs.
    Progress { run_id: u32, policy: u32, done: u32, total: u32 },
    /// One policy's results.
    PolicyDone { run_id: u32, policy: u32, result: Box<PolicyResult> },
    /// Every policy ran.
    Finished { run_id: u32 },
    /// The inputs were refused (a trace row, the topology, a policy): the message names
    /// the source, line and field, as the CLI does.
    Failed { run_id: u32, message: String },
    /// The answer to a [`ToWorker::PreviewSynthetic`] or [`ToWorker::CheckTrace`]: the
    /// trace described, or why it cannot run (the CLI's message).
    Checked { id: u32, result: Result<TracePreview, String> },
    /// The worker panicked; it is unusable now and the page replaces it.
    Panicked { message: String },
}

/// What a trace looks like before it runs: the preview under the trace controls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TracePreview {
    /// The format detected, e.g. `philly`.
    pub format: String,
    pub jobs: u32,
    /// Jobs per GPU count, smallest first.
    pub gpu_histogram: Vec<(u32, u32)>,
    /// Seconds from the first submission to the last.
    pub span_s: f64,
}

/// What the page shows and exports for one policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyResult {
    /// The spec as the user gave it, e.g. `dally:preempt=off`.
    pub policy: String,
    /// `summary.json`, as data.
    #[serde(with = "SummaryDef")]
    pub summary: Summary,
    /// What happened to each job, by job number.
    pub jobs: JobOutcomes,
    /// Points of the JCT distribution: (JCT in seconds, fraction of completed jobs at or
    /// below it), at most [`CDF_POINTS`] of them.
    pub jct_cdf: Vec<(f64, f64)>,
    /// The cluster over time: [`TIMELINE_BUCKETS`] buckets over the makespan.
    pub timeline: Vec<TimelineBucket>,
    /// Completed jobs by the tier of their last placement, tightest first.
    pub jobs_per_tier: Vec<(String, u64)>,
    /// Wall-clock milliseconds the simulation took in the worker.
    pub elapsed_ms: f64,
    /// The core's `EventHasher` over every event of the run (16 hex digits), as
    /// `proxima run --events` prints it: equal hashes mean equal event streams.
    pub event_hash: String,
    /// Events in the run, all kinds.
    pub event_count: u64,
    /// The events playback needs, encoded by [`crate::eventlog`].
    pub playback: Bytes,
    /// The run's files as `proxima compare --out` writes them, byte for byte: only ever
    /// downloaded, never read by the page.
    pub files: Vec<RunFile>,
}

/// A file of a run's results, by its name in the CLI's result directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFile {
    pub name: String,
    pub mime: String,
    pub bytes: Bytes,
}

/// One bucket of the cluster over time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineBucket {
    pub start_s: f64,
    pub end_s: f64,
    /// Share of GPUs busy, 0..1.
    pub gpu_util: f64,
    /// Jobs waiting, time-averaged.
    pub queued: f64,
}

/// Per job (by number, in submission order) what the page needs of `jobs.csv`, as
/// columns of numbers. They cross as packed bytes: a run can have 200,000 jobs, and one
/// JavaScript value per job would cost the page more to read back than the whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobOutcomes {
    /// Seconds queued, over all waits.
    pub queue_s: Column<f64>,
    /// Completion minus submission; NaN for a job that did not complete.
    pub jct_s: Column<f64>,
    /// Run time over ideal run time; NaN when there is none.
    pub slowdown: Column<f64>,
    /// The tier of the last placement (an index into `jobs_per_tier`); [`NO_TIER`] for a
    /// job never placed.
    pub tier: Column<u8>,
}

/// `JobOutcomes::tier` of a job never placed.
pub const NO_TIER: u8 = u8::MAX;

/// The most points of a JCT CDF sent to the page: more than a chart can show apart.
pub const CDF_POINTS: usize = 200;

/// Buckets of the charts' time series; `timeseries.csv` keeps the CLI's 500.
pub const TIMELINE_BUCKETS: u32 = 200;

/// Bytes shared on either side and sent as a `Uint8Array`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Bytes(pub Rc<[u8]>);

impl Bytes {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Self {
        Bytes(v.into())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bytes({} bytes)", self.0.len())
    }
}

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.into()))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(v.into())
            }
        }
        d.deserialize_byte_buf(Visitor)
    }
}

/// A column of fixed-size numbers, sent as their little-endian bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Column<T>(pub Vec<T>);

/// A number a [`Column`] holds.
pub trait Packed: Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
}

impl Packed for f64 {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(bytes: &[u8]) -> Self {
        f64::from_le_bytes(bytes.try_into().expect("8 bytes"))
    }
}

impl Packed for u8 {
    const SIZE: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self);
    }
    fn get(bytes: &[u8]) -> Self {
        bytes[0]
    }
}

impl<T: Packed> Serialize for Column<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(self.0.len() * T::SIZE);
        for &v in &self.0 {
            v.put(&mut out);
        }
        s.serialize_bytes(&out)
    }
}

impl<'de, T: Packed> Deserialize<'de> for Column<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = Bytes::deserialize(d)?;
        if bytes.len() % T::SIZE != 0 {
            return Err(serde::de::Error::custom(format!("a column of {}-byte numbers", T::SIZE)));
        }
        Ok(Column(bytes.chunks_exact(T::SIZE).map(T::get).collect()))
    }
}

/// `Summary`'s fields, for serde: the core's type serialises but does not deserialise.
#[derive(Serialize, Deserialize)]
#[serde(remote = "Summary")]
struct SummaryDef {
    policy: String,
    seed: u64,
    topology: String,
    trace: String,
    gpus: u32,
    jobs_total: u32,
    jobs_completed: u32,
    jobs_rejected: u32,
    jobs_unfinished: u32,
    avg_jct_s: f64,
    p50_jct_s: f64,
    p95_jct_s: f64,
    p99_jct_s: f64,
    makespan_s: f64,
    avg_queue_s: f64,
    comm_overhead_s: f64,
    avg_gpu_util: f64,
    preemptions: u64,
    tier_counts: std::collections::BTreeMap<String, u64>,
}

/// A message as a JavaScript value, and the buffers to transfer with it (every
/// `Uint8Array` in it).
pub fn encode<T: Serialize>(message: &T) -> (wasm_bindgen::JsValue, js_sys::Array) {
    // 64-bit integers (seeds, counts) as BigInt, so that none is rounded.
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true);
    let value = message.serialize(&serializer).expect("messages serialise");
    let transfer = js_sys::Array::new();
    collect_buffers(&value, &transfer);
    (value, transfer)
}

/// A message from its JavaScript value.
pub fn decode<T: serde::de::DeserializeOwned>(value: wasm_bindgen::JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}

/// Pushes the buffer of every `Uint8Array` inside `value` (objects, arrays and maps, as
/// serde-wasm-bindgen makes them).
fn collect_buffers(value: &wasm_bindgen::JsValue, out: &js_sys::Array) {
    use wasm_bindgen::JsCast;
    if let Some(bytes) = value.dyn_ref::<js_sys::Uint8Array>() {
        out.push(&bytes.buffer());
    } else if let Some(array) = value.dyn_ref::<js_sys::Array>() {
        array.for_each(&mut |v, _, _| collect_buffers(&v, out));
    } else if let Some(map) = value.dyn_ref::<js_sys::Map>() {
        map.for_each(&mut |v, _| collect_buffers(&v, out));
    } else if value.is_object() {
        for v in js_sys::Object::values(value.unchecked_ref()).iter() {
            collect_buffers(&v, out);
        }
    }
}
