//! The workload each large preset runs by default: the page's generator takes it when the
//! preset is chosen, and `proxima topologies` lists it for the command line, so that a
//! preset's first run shows what the preset is there to show.
//!
//! The presets of 1,024 GPUs or more are A100 and H100 clusters. Under the page's general
//! default (an even mix of eight 2016–19 models, mostly CNNs of tens of millions of
//! parameters) their placement is nearly free and every policy comes out alike (issue 32:
//! dally equal to consolidate to the digit on six of the seven). Their own era's jobs are
//! LLMs exchanging gigabytes each step; with those, leaving a server or crossing an
//! oversubscribed uplink costs, and a policy that waits for a good placement parts from one
//! that takes the first free GPUs. Sizes and durations stay Philly-shaped: the Kalos and
//! Seren shapes (`shape=kalos|seren`) make almost every job one GPU or one whole server,
//! where placement has nothing to decide (dally equal to consolidate within 1% on
//! `rdma-2048` and both DGX pods, seeds 1–3, loads 0.9–1.5).

use super::Preset;

/// A preset's default workload: a synthetic trace (Philly-shaped sizes and durations) and
/// the models its jobs train.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PresetWorkload {
    /// Synthetic jobs: 5 per GPU to the nearest thousand, as the page suggests for any
    /// cluster this size (fewer arrive all at once on a large cluster).
    pub jobs: u32,
    /// Offered load (`load=`).
    pub load: f64,
    /// The model mix (`--mix`), in the form `name[:weight],...` or a named mix.
    pub mix: &'static str,
}

impl PresetWorkload {
    /// The synthetic trace argument for `seed`, as `--trace` takes it.
    pub fn trace(&self, seed: u64) -> String {
        format!("synthetic:jobs={},load={},seed={seed}", self.jobs, self.load)
    }
}

/// The named mix of today's models (`workload::NAMED_MIXES`): BERT-large, GPT-2 XL, LLaMA
/// 7B and 13B (FSDP), each a quarter of the jobs.
const LLM: &str = "llm";

/// The default workloads, by preset name. Measured with `proxima compare --policy dally
/// --policy consolidate --no-rho` at seeds 1, 2 and 3 (mean JCT, dally over consolidate):
/// `flat-2048` 0.937, 0.960, 0.905; `oversub-2048` 0.935, 0.947, 0.885; `a100-roce-2048`
/// 0.628, 0.587, 0.437; `fat-tree-k8` 0.932, 0.962, 0.973; `rdma-2048` (LLaMA 13B alone)
/// 0.965, 0.964, 0.952; the two DGX pods, the controls, 0.988–0.994. `rdma-2048` runs
/// LLaMA 13B alone because its eight NICs a server carry the `llm` mix's smaller exchanges
/// with room to spare (0.984, 0.996, 0.982): only the largest model's rings fill the 4:1
/// uplinks.
const PRESET_WORKLOADS: &[(&str, PresetWorkload)] = &[
    ("flat-2048", PresetWorkload { jobs: 10_000, load: 0.9, mix: LLM }),
    ("oversub-2048", PresetWorkload { jobs: 10_000, load: 0.9, mix: LLM }),
    ("rdma-2048", PresetWorkload { jobs: 10_000, load: 0.9, mix: "llama-13b" }),
    ("dgx-a100-pod", PresetWorkload { jobs: 6_000, load: 0.9, mix: LLM }),
    ("dgx-h100-pod", PresetWorkload { jobs: 5_000, load: 0.9, mix: LLM }),
    ("a100-roce-2048", PresetWorkload { jobs: 10_000, load: 0.9, mix: LLM }),
    ("fat-tree-k8", PresetWorkload { jobs: 5_000, load: 0.9, mix: LLM }),
];

impl Preset {
    /// The workload the preset runs by default, if it has its own (the presets of 1,024
    /// GPUs or more); the others take the generator's general default.
    pub fn workload(&self) -> Option<&'static PresetWorkload> {
        PRESET_WORKLOADS.iter().find(|(name, _)| *name == self.name).map(|(_, w)| w)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{all_presets, preset};
    use crate::model::Catalog;
    use crate::workload::{mix_for, ModelMix};

    /// The presets of 1,024 GPUs or more (issue 32 names them).
    const LARGE: [&str; 7] =
        ["flat-2048", "oversub-2048", "rdma-2048", "dgx-a100-pod", "dgx-h100-pod", "a100-roce-2048", "fat-tree-k8"];

    #[test]
    fn every_large_preset_has_a_workload_its_gpu_runs() {
        for p in all_presets() {
            let gpus = crate::topology::Topology::from_spec(&p.spec()).unwrap().gpu_count();
            assert_eq!(p.workload().is_some(), LARGE.contains(&p.name), "{}", p.name);
            let Some(w) = p.workload() else { continue };
            assert!(gpus >= 1024, "{} has {gpus} GPUs", p.name);
            // 5 jobs per GPU to the nearest thousand, the page's suggestion for the size.
            assert_eq!(w.jobs, (5 * gpus + 500) / 1000 * 1000, "{}", p.name);
            let mix = ModelMix::parse(w.mix, &Catalog::built_in()).unwrap();
            let catalog = Catalog::for_gpu_or_built_in(p.spec().gpu.as_deref()).unwrap();
            mix_for(&mix, &catalog).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
        assert_eq!(preset("rdma-2048").unwrap().workload().unwrap().trace(3), "synthetic:jobs=10000,load=0.9,seed=3");
    }
}
