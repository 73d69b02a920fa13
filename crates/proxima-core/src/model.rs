//! The catalogue of deep-learning models a job can train.
//!
//! A model is described by what the communication model needs: the compute time of one
//! iteration on one GPU at a reference local batch size, and the bytes of gradient exchanged
//! per iteration (its parameter count times four bytes: data-parallel training all-reduces
//! fp32 gradients). Parameter counts are sourced next to each entry. Compute times of the
//! models that `docs/CALIBRATION.md` fitted to measurements are those fits; the others are
//! estimates from published single-GPU throughput and say so in their `source`.

use serde::Serialize;

/// Index of a model in a [`Catalog`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ModelId(pub u16);

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
    /// How far gradient exchange overlaps the backward pass: the exponent of the
    /// soft maximum `(compute^γ + sync^γ)^(1/γ)`; 1 means no overlap (times add), large
    /// values approach full overlap (the longer of the two).
    pub overlap_gamma: f64,
    /// Where the numbers come from.
    pub source: String,
}

impl ModelProfile {
    /// Bytes all-reduced per iteration: one fp32 value per parameter.
    pub fn grad_bytes(&self) -> f64 {
        self.params_millions * 1.0e6 * 4.0
    }
}

/// The models a simulation knows, looked up by name or alias.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Catalog {
    models: Vec<ModelProfile>,
}

/// Built-in entries: (name, aliases, display, params in millions, compute s, local batch,
/// overlap γ, source).
type Entry = (&'static str, &'static [&'static str], &'static str, f64, f64, u32, f64, &'static str);

const BUILT_IN: &[Entry] = &[
    ("resnet18", &["resnet-18"], "ResNet-18", 11.69, 0.107, 128, 1.0,
     "params: He et al. 2016 / torchvision resnet18 (11.69M); compute: estimate from ~1,200 img/s fp32 on a V100"),
    ("resnet50", &["resnet-50", "imagenet"], "ResNet-50", 25.56, 0.178, 64, 1.0,
     "params: He et al. 2016 / torchvision resnet50 (25.56M); compute: estimate from ~360 img/s fp32 on a V100"),
    ("resnet101", &["resnet-101"], "ResNet-101", 44.55, 0.29, 64, 1.0,
     "params: torchvision resnet101 (44.55M); compute: estimate from ~220 img/s fp32 on a V100"),
    ("resnet152", &["resnet-152"], "ResNet-152", 60.19, 0.43, 64, 1.0,
     "params: torchvision resnet152 (60.19M); compute: estimate from ~150 img/s fp32 on a V100"),
    ("vgg11", &["vgg-11"], "VGG-11", 132.86, 0.16, 64, 1.0,
     "params: Simonyan & Zisserman 2015 / torchvision vgg11 (132.86M); compute: estimate from ~400 img/s fp32 on a V100"),
    ("vgg16", &["vgg-16"], "VGG-16", 138.36, 0.27, 64, 1.0,
     "params: torchvision vgg16 (138.36M); compute: estimate from ~240 img/s fp32 on a V100"),
    ("vgg19", &["vgg-19"], "VGG-19", 143.67, 0.32, 64, 1.0,
     "params: torchvision vgg19 (143.67M); compute: estimate from ~200 img/s fp32 on a V100"),
    ("alexnet", &[], "AlexNet", 61.10, 0.043, 128, 1.0,
     "params: torchvision alexnet (61.10M); compute: estimate from ~3,000 img/s fp32 on a V100"),
    ("inception3", &["inception-v3", "inceptionv3", "inception_v3"], "Inception-v3", 27.16, 0.26, 64, 1.0,
     "params: Szegedy et al. 2016 / torchvision inception_v3 (27.16M); compute: estimate from ~250 img/s fp32 on a V100"),
    ("inception4", &["inception-v4", "inceptionv4", "inception_v4"], "Inception-v4", 42.68, 0.40, 64, 1.0,
     "params: Szegedy et al. 2017 (42.68M); compute: estimate from ~160 img/s fp32 on a V100"),
    ("googlenet", &[], "GoogLeNet", 6.62, 0.128, 128, 1.0,
     "params: torchvision googlenet (6.62M); compute: estimate from ~1,000 img/s fp32 on a V100"),
    ("bert", &["bert-base", "bert_base"], "BERT-base", 110.0, 0.50, 12, 1.0,
     "params: Devlin et al. 2019, BERT-base (110M); compute: estimate for SQuAD fine-tuning, sequence 384"),
    ("bert-large", &["bert_large"], "BERT-large", 340.0, 0.80, 8, 1.0,
     "params: Devlin et al. 2019, BERT-large (340M); compute: estimate for sequence 384"),
    ("gpt2", &["gpt-2"], "GPT-2 (124M)", 124.44, 0.60, 8, 1.0,
     "params: Radford et al. 2019, GPT-2 small (124M); compute: estimate for sequence 1024"),
    ("transformer", &[], "Transformer (base)", 65.0, 0.20, 64, 1.0,
     "params: Vaswani et al. 2017, base model (65M); compute: estimate"),
    ("deepspeech2", &["deepspeech"], "DeepSpeech2", 26.0, 0.68, 20, 1.0,
     "params: Amodei et al. 2016 architecture as trained in the Pollux artifact (estimate 26M); compute: estimate"),
    ("yolov3", &["yolo"], "YOLOv3", 61.95, 0.35, 16, 1.0,
     "params: Redmon & Farhadi 2018 (61.95M); compute: estimate"),
    ("ncf", &["neumf"], "NCF (NeuMF)", 5.0, 0.02, 32768, 1.0,
     "params: He et al. 2017 NeuMF on MovieLens (estimate 5M); compute: estimate"),
    ("cifar10", &["resnet18-cifar", "resnet18_cifar10"], "ResNet-18 (CIFAR-10)", 11.17, 0.187, 257, 1.0,
     "params: ResNet-18 for 32x32 inputs (11.17M); compute: estimate"),
];

impl Catalog {
    /// The catalogue shipped with Proxima.
    pub fn built_in() -> Catalog {
        let models = BUILT_IN
            .iter()
            .map(|&(name, aliases, display, params, compute, batch, gamma, source)| ModelProfile {
                name: name.to_string(),
                aliases: aliases.iter().map(|a| a.to_string()).collect(),
                display: display.to_string(),
                params_millions: params,
                compute_s: compute,
                local_batch: batch,
                overlap_gamma: gamma,
                source: source.to_string(),
            })
            .collect();
        Catalog { models }
    }

    pub fn from_models(models: Vec<ModelProfile>) -> Catalog {
        Catalog { models }
    }

    pub fn len(&self) -> usize {
        self.models.len()
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
            let hit = m.name == wanted || m.aliases.iter().any(|a| *a == wanted);
            hit.then_some(id)
        })
    }

    /// The canonical names, for error messages that list what is known.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_by_name_and_alias() {
        let c = Catalog::built_in();
        let r50 = c.lookup("ResNet50").unwrap();
        assert_eq!(c.lookup(" imagenet ").unwrap(), r50);
        assert_eq!(c.get(r50).display, "ResNet-50");
        assert!(c.lookup("no-such-model").is_none());
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let c = Catalog::built_in();
        let mut all: Vec<String> = Vec::new();
        for (_, m) in c.models() {
            all.push(m.name.clone());
            all.extend(m.aliases.iter().cloned());
        }
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n, "a name or alias appears twice");
        for (_, m) in c.models() {
            assert!(m.params_millions > 0.0 && m.compute_s > 0.0 && m.overlap_gamma >= 1.0, "{}", m.name);
        }
    }
}
