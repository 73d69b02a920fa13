//! The catalogue of deep-learning models a job can train.
//!
//! A model is described by what the communication model needs: the compute time of one
//! iteration on one GPU at a reference local batch size, the bytes exchanged per iteration
//! (its parameter count times the bytes of one exchanged value: 4 in fp32, 2 in bf16), how
//! it is parallelised (data parallel: one ring all-reduce of the gradients; sharded, FSDP or
//! ZeRO-3: parameters all-gathered and gradients reduce-scattered, 1.5 times the traffic;
//! [`Parallelism`]), and how much of that exchange the compute hides. Parameter counts are
//! sourced next to each entry.
//!
//! Six entries (BERT-base, ResNet-50, ResNet-18 on CIFAR-10, DeepSpeech2, NCF, YOLOv3: the
//! Pollux applications) were fitted to step times measured on NVIDIA T4 GPUs (the Pollux
//! testbed, `docs/CALIBRATION.md`): their compute curve `c(b) = c0 + c1·b` and their overlap
//! are those fits, and they know the largest per-GPU batch measured, beyond which a job
//! accumulates gradients over several micro-steps ([`ModelProfile::for_batch`]). Most
//! others are estimates for a V100-class GPU from published single-GPU throughput, and say
//! so in their `source` and `gpu`. Mixing the two in one simulation means the fitted models
//! run at T4 speed beside V100-speed ones: that is the built-in catalogue, for topologies
//! that do not say which GPU they have. All of these train data parallel in fp32.
//!
//! The models of today (GPT-2 XL, LLaMA 7B and 13B, ResNet-50 in mixed precision) have no
//! figure on those GPUs: in the built-in catalogue they compute as on an A100, and say so.
//!
//! A topology that names its GPU (`gpu` in its description; the parametric `fabric=rdma`
//! says A100, `fabric=tcp` T4) gets the catalogue of that GPU ([`Catalog::for_gpu`]): only
//! the models with a compute time on it, each with that time, precision and parallelism.
//! Adding a GPU, or a model to one, is a row of [`per_gpu::ROWS`] (or, for T4, a fitted
//! entry).

mod built_in;
pub mod estimate;
pub mod per_gpu;

pub use built_in::OV_UNKNOWN;
pub use estimate::Estimate;

use serde::Serialize;

/// Index of a model in a [`Catalog`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ModelId(pub u16);

/// A compute time that grows linearly with the local batch: `fixed_s + per_sample_s · b`.
/// Per-iteration overheads (optimizer step, kernel launches) make the fixed part.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ComputeCurve {
    pub fixed_s: f64,
    pub per_sample_s: f64,
}

impl ComputeCurve {
    /// Seconds of forward and backward pass on one GPU at local batch `b`.
    pub fn at(&self, b: f64) -> f64 {
        self.fixed_s + self.per_sample_s * b
    }
}

/// The number format of the values a job exchanges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 4 bytes a value: fp32 gradients (fp32 training, and PyTorch's automatic mixed
    /// precision, which keeps fp32 parameters and so all-reduces fp32 gradients).
    Fp32,
    /// 2 bytes a value: bf16 parameters and gradients reduced in bf16.
    Bf16,
}

impl Precision {
    /// Bytes of one exchanged value.
    pub fn bytes(self) -> f64 {
        match self {
            Precision::Fp32 => 4.0,
            Precision::Bf16 => 2.0,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
        }
    }
}

/// How a job spreads a model over its GPUs, which sets what it exchanges per iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Parallelism {
    /// Every GPU holds the whole model; gradients are summed by one ring all-reduce, which
    /// sends `2(N−1)/N · S` bytes per GPU for `S` bytes of gradients.
    DataParallel,
    /// Fully sharded (PyTorch FSDP, DeepSpeed ZeRO stage 3): every GPU holds `1/N` of the
    /// parameters, gradients and optimizer state; parameters are all-gathered before the
    /// forward pass and again before the backward pass, and gradients reduce-scattered
    /// after it. Each of the three sends `(N−1)/N · S`: `3(N−1)/N · S` in all, 1.5 times
    /// data parallelism's (Rajbhandari et al. 2020, "ZeRO", §7.2.2).
    Fsdp,
}

impl Parallelism {
    /// Exchange per iteration relative to data parallelism's ring all-reduce of the same
    /// bytes: its volume, and its ring steps (three collectives of `N−1` steps instead of
    /// two phases of `N−1`).
    pub fn volume_factor(self) -> f64 {
        match self {
            Parallelism::DataParallel => 1.0,
            Parallelism::Fsdp => 1.5,
        }
    }

    /// The overlap of a model trained this way, from its overlap under data parallelism.
    /// Data parallelism hides exchange behind the backward pass only, about two thirds of
    /// compute: the transformer default of 0.6 s per second of compute is 0.9 of the
    /// backward pass's time. Sharded training prefetches the next layer's all-gather during
    /// the forward pass as well, so the same fraction of the forward pass hides exchange
    /// too: 1.5 times the data-parallel overlap, at most 1.
    pub fn overlap_from(self, data_parallel_overlap: f64) -> f64 {
        match self {
            Parallelism::DataParallel => data_parallel_overlap,
            Parallelism::Fsdp => (data_parallel_overlap * 1.5).min(1.0),
        }
    }

    /// The data-parallel overlap a model trained this way with `overlap` would have: the
    /// inverse of [`Parallelism::overlap_from`] (exact below its cap of 1).
    pub fn data_parallel_overlap(self, overlap: f64) -> f64 {
        match self {
            Parallelism::DataParallel => overlap,
            Parallelism::Fsdp => overlap / 1.5,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Parallelism::DataParallel => "data parallel",
            Parallelism::Fsdp => "FSDP (ZeRO-3)",
        }
    }

    /// How [`Parallelism::overlap_from`] set a model's overlap, for its `source`.
    pub fn overlap_note(self) -> &'static str {
        match self {
            Parallelism::DataParallel => "transformer default",
            Parallelism::Fsdp => "transformer default x 1.5 (forward prefetch hides exchange too)",
        }
    }
}

/// What the simulator knows about one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelProfile {
    /// Canonical lower-case key, e.g. `resnet50`.
    pub name: String,
    /// Other spellings traces use for it, e.g. `imagenet` for the Pollux ResNet-50 job.
    pub aliases: Vec<String>,
    /// Human-readable name, e.g. `ResNet-50`.
    pub display: String,
    /// Trainable parameters, in millions.
    pub params_millions: f64,
    /// Seconds of forward and backward pass per iteration on one GPU at `local_batch`.
    pub compute_s: f64,
    /// The per-GPU batch size `compute_s` refers to.
    pub local_batch: u32,
    /// The measured compute curve, for entries fitted to measurements; `compute_s` is this
    /// curve at `local_batch`.
    pub compute_curve: Option<ComputeCurve>,
    /// The GPU `compute_s` is for, e.g. `T4` (measured) or `V100` (estimated).
    pub gpu: String,
    /// `ov`: seconds of gradient exchange the backward pass hides per second of compute, in
    /// [0, 1] (see `comm`). 0 means the exchange starts after compute ends.
    pub overlap: f64,
    /// Where the numbers come from.
    pub source: String,
    /// The largest per-GPU batch one micro-step takes (GPU memory), for entries fitted to
    /// measurements: a job whose per-GPU share of its batch is larger accumulates gradients
    /// over several micro-steps per iteration.
    pub max_local_batch: Option<u32>,
    /// One GPU's measured compute time at several per-GPU batches, `(batch, seconds)` in
    /// increasing batch, for a measured model whose compute is not linear in the batch; it
    /// replaces the compute curve (see [`ModelProfile::compute_at`]). Empty otherwise.
    pub compute_points: Vec<(f64, f64)>,
    /// The format of the exchanged values (fp32 for every entry measured before bf16).
    pub precision: Precision,
    /// Data parallel or sharded, which sets the exchange's volume.
    pub parallelism: Parallelism,
    /// For a compute time not measured on `gpu`: the GPU it was scaled from, by what ratio,
    /// on whose figures ([`estimate`]). `None` for measured rows and the built-in entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
}

impl ModelProfile {
    /// Bytes of the model's gradients (`S`): one value per parameter, in the model's
    /// precision. Data parallelism all-reduces them once per iteration; sharding moves 1.5
    /// times as much ([`Parallelism::volume_factor`]).
    pub fn grad_bytes(&self) -> f64 {
        self.params_millions * 1.0e6 * self.precision.bytes()
    }

    /// Seconds of compute on one GPU at per-GPU batch `b`, for measured entries: linear
    /// between the measured points when the entry has them (below the smallest, the
    /// smallest's time: a step's fixed overheads do not shrink with fewer samples; above the
    /// largest, along the last segment, never falling), otherwise the compute curve.
    pub fn compute_at(&self, b: f64) -> Option<f64> {
        let points = &self.compute_points;
        if points.len() < 2 {
            return self.compute_curve.map(|c| c.at(b));
        }
        if b <= points[0].0 {
            return Some(points[0].1);
        }
        let pair = points.windows(2).find(|w| b <= w[1].0).unwrap_or(&points[points.len() - 2..]);
        let ((b0, t0), (b1, t1)) = (pair[0], pair[1]);
        let slope = (t1 - t0) / (b1 - b0);
        Some(if b > b1 { t1 + slope.max(0.0) * (b - b1) } else { t0 + slope * (b - b0) })
    }

    /// The same model at another local batch size, for measured entries.
    pub fn at_local_batch(&self, b: f64) -> Option<ModelProfile> {
        Some(ModelProfile { compute_s: self.compute_at(b)?, ..self.clone() })
    }

    /// The model as a job training at global batch `batch` on `gpus` GPUs runs it, for
    /// entries with a measured compute curve. Each GPU takes `b = batch / gpus` samples per
    /// iteration, in `k = ceil(b / max_local_batch)` micro-steps of `b / k` (gradient
    /// accumulation); only the last micro-step's backward pass overlaps the exchange. One
    /// iteration then computes for `k · c(b / k)`, and the exchange hides behind the last
    /// micro-step only, which the returned profile expresses with `compute_s = k · c(b / k)`
    /// and `overlap = ov / k` (the communication model's `ov · compute` stays `ov · c(b / k)`).
    pub fn for_batch(&self, batch: u32, gpus: u32) -> Option<ModelProfile> {
        if batch == 0 || gpus == 0 {
            return None;
        }
        let local = batch as f64 / gpus as f64;
        let micro_steps = match self.max_local_batch {
            Some(max) if max > 0 => libm::ceil(local / max as f64).max(1.0),
            _ => 1.0,
        };
        let per_step = local / micro_steps;
        let compute_s = micro_steps * self.compute_at(per_step)?;
        let accumulation =
            if micro_steps > 1.0 { format!(" in {micro_steps} micro-steps of {per_step}") } else { String::new() };
        Some(ModelProfile {
            display: format!("{} (batch {batch} on {gpus} GPUs)", self.display),
            compute_s,
            local_batch: libm::ceil(local) as u32,
            compute_curve: None,
            compute_points: Vec::new(),
            overlap: self.overlap / micro_steps,
            source: format!("{}; at global batch {batch} over {gpus} GPUs: {local} per GPU{accumulation}", self.source),
            ..self.clone()
        })
    }
}

/// The models a simulation knows, looked up by name or alias.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Catalog {
    models: Vec<ModelProfile>,
    /// The GPU every compute time is for, when the catalogue is for one.
    gpu: Option<String>,
}

impl Catalog {
    /// The catalogue shipped with Proxima.
    pub fn built_in() -> Catalog {
        Catalog { models: built_in::built_in_models(None), gpu: None }
    }

    /// The catalogue of a cluster of `gpu` GPUs: the built-in models with a compute time
    /// measured for that GPU (the entries measured on T4 for T4, rows of [`per_gpu::ROWS`]
    /// for others), in built-in order, each with that time; then, for a GPU of
    /// [`crate::topology::GpuKind::ALL`], every other built-in model that fits it, with a
    /// compute time scaled from another GPU and marked as an estimate ([`estimate`]). The
    /// measured models come first so that their ids do not depend on the estimates. `None`
    /// if no model has a compute time there.
    pub fn for_gpu(gpu: &str) -> Option<Catalog> {
        let mut models = built_in::built_in_models(Some(gpu));
        if let Some(kind) = crate::topology::GpuKind::named(gpu) {
            let estimated = estimate::estimated_models(kind, &models);
            models.extend(estimated);
        }
        (!models.is_empty()).then(|| Catalog { models, gpu: Some(gpu.to_string()) })
    }

    /// The models of this catalogue whose compute time is an estimate, with how it was made:
    /// `vgg16 on T4: compute time estimated from A100 x 0.20 (...)`, for a run's notices.
    pub fn estimate_notes<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut notes: Vec<String> = names
            .into_iter()
            .filter_map(|n| self.lookup(n).map(|id| self.get(id)))
            .filter_map(|m| m.estimate.as_ref().map(|e| format!("{} on {}: compute time {}", m.name, m.gpu, e.label())))
            .collect();
        notes.sort();
        notes.dedup();
        notes
    }

    /// The catalogue for a cluster: that of the GPU its description names, or the built-in
    /// one when it names none. An error names the GPU when nothing was measured on it.
    pub fn for_gpu_or_built_in(gpu: Option<&str>) -> Result<Catalog, crate::error::InputError> {
        match gpu {
            None => Ok(Catalog::built_in()),
            Some(g) => Catalog::for_gpu(g).ok_or_else(|| {
                crate::error::InputError::new("gpu", format!("no model's compute time was measured on a '{g}'"))
            }),
        }
    }

    pub fn from_models(models: Vec<ModelProfile>) -> Catalog {
        Catalog { models, gpu: None }
    }

    /// The GPU every compute time is for, if the catalogue is for one.
    pub fn gpu(&self) -> Option<&str> {
        self.gpu.as_deref()
    }

    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Adds a model (e.g. a job's [`ModelProfile::for_batch`]) and returns its id. Lookups
    /// by name still find the first entry of a name.
    pub fn add(&mut self, model: ModelProfile) -> ModelId {
        self.models.push(model);
        ModelId((self.models.len() - 1) as u16)
    }

    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    pub fn get(&self, id: ModelId) -> &ModelProfile {
        &self.models[id.0 as usize]
    }

    pub fn models(&self) -> impl Iterator<Item = (ModelId, &ModelProfile)> {
        self.models.iter().enumerate().map(|(i, m)| (ModelId(i as u16), m))
    }

    /// Finds a model by name or alias, ignoring case and surrounding spaces.
    pub fn lookup(&self, name: &str) -> Option<ModelId> {
        let wanted = name.trim().to_ascii_lowercase();
        self.models().find_map(|(id, m)| {
            let hit = m.name == wanted || m.aliases.contains(&wanted);
            hit.then_some(id)
        })
    }

    /// The canonical names, for error messages that list what is known.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }

    /// Why [`Catalog::lookup`] does not find `name` here, in words. A model of the
    /// built-in catalogue missing from a GPU's catalogue is known, only not measured on that
    /// GPU: saying "unknown" would contradict the list of models the web page and `proxima
    /// models` show, so the message says which GPUs it runs on instead.
    pub fn why_missing(&self, name: &str) -> String {
        let built_in = Catalog::built_in();
        let (Some(gpu), Some(id)) = (self.gpu(), built_in.lookup(name)) else {
            return format!("unknown model '{name}' (known: {})", self.names().join(", "));
        };
        let canonical = &built_in.get(id).name;
        if let Some(Err(why)) = crate::topology::GpuKind::named(gpu).map(|g| estimate::estimate_on(canonical, g)) {
            return format!("model '{name}' does not run on a {gpu}, this cluster's GPU: {why}");
        }
        let elsewhere: Vec<&str> = crate::topology::GpuKind::ALL
            .into_iter()
            .map(|g| g.name())
            .filter(|g| !g.eq_ignore_ascii_case(gpu))
            .filter(|g| Catalog::for_gpu(g).is_some_and(|c| c.lookup(canonical).is_some()))
            .collect();
        let runs_on = if elsewhere.is_empty() {
            "clusters that name no GPU (the built-in catalogue)".to_string()
        } else {
            format!("{} clusters, or clusters that name no GPU (the built-in catalogue)", elsewhere.join(" or "))
        };
        format!(
            "model '{name}' has no compute time measured on a {gpu}, this cluster's GPU (models on {gpu}: {}); it runs on {runs_on}",
            self.names().join(", ")
        )
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
