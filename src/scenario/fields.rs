//! Form fields: what users typed, kept as typed, and why it is refused when it is.

use proxima_core::share::TraceChoice;
use proxima_core::topology::{Fabric, GpuKind, ParametricSpec};
use proxima_core::trace::synthetic::{self, SyntheticSpec};
use proxima_core::trace::tenant_mix;

/// The most jobs the page's generator makes: the results of a larger run would not fit a
/// browser tab comfortably (the CLI takes up to 10 million).
pub const MAX_APP_JOBS: u32 = 200_000;

/// A form field: its value as typed, and why it does not make sense, if it does not.
/// While a field has an error the last value that made sense stays in use (the cluster,
/// the trace) and runs are refused with the error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Field<T> {
    pub value: T,
    pub error: Option<String>,
}

impl<T> Field<T> {
    pub fn new(value: T) -> Field<T> {
        Field { value, error: None }
    }

    /// A field holding `value`, with the error `check` finds in it.
    pub fn checked<U>(value: T, check: impl FnOnce(&T) -> Result<U, String>) -> Field<T> {
        let error = check(&value).err();
        Field { value, error }
    }

    pub fn is_valid(&self) -> bool {
        self.error.is_none()
    }
}

/// The fields of the parametric topology form, as typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParametricFields {
    pub racks: String,
    pub servers: String,
    pub gpus: String,
    pub oversub: String,
    pub nic_gbps: String,
    pub nvlink_gbps: String,
    pub nics: String,
    /// `ib`, `roce` or `tcp`: sets the NICs' collective efficiency and, with the GPU, the
    /// links' defaults.
    pub fabric: String,
    /// `t4`, `a100` or `h100`: the GPU, its NVLink or PCIe and its model catalogue.
    pub gpu: String,
    /// `on` for a rail-optimised fabric (GPU i of every server on rail i), else `off`.
    pub rails: String,
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
    Nics,
    Fabric,
    Gpu,
    Rails,
}

/// A fabric's NIC and GPU-link bandwidths when the form does not give them.
fn default_links(fabric: &str) -> Option<(f64, f64)> {
    Fabric::named(fabric.trim()).map(Fabric::default_links)
}

impl ParametricFields {
    pub fn from_spec(p: &ParametricSpec) -> ParametricFields {
        ParametricFields {
            racks: p.racks.to_string(),
            servers: p.servers_per_rack.to_string(),
            gpus: p.gpus_per_server.to_string(),
            oversub: p.oversub.to_string(),
            nic_gbps: p.nic_gbps.to_string(),
            nvlink_gbps: p.nvlink_gbps.to_string(),
            nics: p.nics.to_string(),
            fabric: p.fabric.name().to_string(),
            gpu: p.gpu.key().to_string(),
            rails: if p.rails { "on" } else { "off" }.to_string(),
        }
    }

    /// Sets a field as typed. Choosing another fabric also moves the link bandwidths that
    /// were the old fabric's defaults to the new one's, so that a TCP cluster does not keep
    /// RDMA's 200 Gbit/s NICs by accident (bandwidths typed by hand stay).
    pub fn set(&mut self, field: ParamField, value: String) {
        // A GPU chosen by hand stays; one that was the old fabric's default follows the new.
        if field == ParamField::Fabric {
            let default_gpu = |f: &str| Fabric::named(f.trim()).map(|f| f.default_gpu());
            if let (Some(old), Some(new)) = (default_gpu(&self.fabric), default_gpu(&value)) {
                if GpuKind::named(self.gpu.trim()) == Some(old) {
                    self.set(ParamField::Gpu, new.key().to_string());
                }
            }
        }
        // The GPU link's bandwidth follows the GPU when it was the old one's default.
        if field == ParamField::Gpu {
            if let (Some(old), Some(new)) = (GpuKind::named(self.gpu.trim()), GpuKind::named(value.trim())) {
                if self.nvlink_gbps.trim().parse::<f64>().is_ok_and(|v| v == old.default_link_gbps()) {
                    self.nvlink_gbps = new.default_link_gbps().to_string();
                }
            }
        }
        if field == ParamField::Fabric {
            if let (Some(old), Some(new)) = (default_links(&self.fabric), default_links(&value)) {
                let same = |text: &str, x: f64| text.trim().parse::<f64>().is_ok_and(|v| v == x);
                if same(&self.nic_gbps, old.0) {
                    self.nic_gbps = new.0.to_string();
                }
                if same(&self.nvlink_gbps, old.1) {
                    self.nvlink_gbps = new.1.to_string();
                }
            }
        }
        *self.slot(field) = value;
    }

    pub fn slot(&mut self, field: ParamField) -> &mut String {
        match field {
            ParamField::Racks => &mut self.racks,
            ParamField::Servers => &mut self.servers,
            ParamField::Gpus => &mut self.gpus,
            ParamField::Oversub => &mut self.oversub,
            ParamField::NicGbps => &mut self.nic_gbps,
            ParamField::NvlinkGbps => &mut self.nvlink_gbps,
            ParamField::Nics => &mut self.nics,
            ParamField::Fabric => &mut self.fabric,
            ParamField::Gpu => &mut self.gpu,
            ParamField::Rails => &mut self.rails,
        }
    }

    /// The typed spec these fields stand for: each field read once into its number or name
    /// by the core ([`ParametricSpec::from_pairs`]), with the messages `proxima --topology`
    /// gives (`oversub: must be at least 1, got 0.5`). No text of the whole form is made and
    /// parsed again: the spec goes into the scenario, the worker and links as it is.
    pub fn spec(&self) -> Result<ParametricSpec, String> {
        ParametricSpec::from_pairs([
            ("racks", self.racks.as_str()),
            ("servers", self.servers.as_str()),
            ("gpus", self.gpus.as_str()),
            ("oversub", self.oversub.as_str()),
            ("nic_gbps", self.nic_gbps.as_str()),
            ("nvlink_gbps", self.nvlink_gbps.as_str()),
            ("nics", self.nics.as_str()),
            ("fabric", self.fabric.as_str()),
            ("gpu", self.gpu.as_str()),
            ("rails", self.rails.as_str()),
        ])
        .map_err(|e| e.to_string())
    }
}

/// The synthetic generator's fields, as typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeneratorFields {
    pub jobs: String,
    pub load: String,
    pub seed: String,
    /// Tenants the jobs are spread over; empty for none (every job of the tenant `default`).
    pub tenants: String,
}

/// Which field of the generator changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenField {
    Jobs,
    Load,
    Seed,
    Tenants,
}

/// The generator's trace, checked: the core's synthetic spec and the tenants (`tenants=N`)
/// its jobs are spread over, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorSpec {
    pub synthetic: SyntheticSpec,
    pub tenants: Option<u32>,
}

impl GeneratorSpec {
    /// The spec of a scenario's synthetic trace.
    pub fn new(jobs: u32, load: f64, seed: u64, tenants: Option<u32>) -> GeneratorSpec {
        GeneratorSpec { synthetic: SyntheticSpec { jobs, load, seed }, tenants }
    }

    /// The trace as a link or local storage keeps it.
    pub fn choice(&self) -> TraceChoice {
        let SyntheticSpec { jobs, load, seed } = self.synthetic;
        TraceChoice::Synthetic { jobs, load, seed, tenants: self.tenants }
    }
}

/// The `--trace` argument: `synthetic:jobs=N,load=L,seed=S[,tenants=T]`.
impl std::fmt::Display for GeneratorSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.synthetic)?;
        match self.tenants {
            Some(n) => write!(f, ",tenants={n}"),
            None => Ok(()),
        }
    }
}

impl GeneratorFields {
    pub fn of(spec: &GeneratorSpec) -> GeneratorFields {
        let s = &spec.synthetic;
        GeneratorFields {
            jobs: s.jobs.to_string(),
            load: s.load.to_string(),
            seed: s.seed.to_string(),
            tenants: spec.tenants.map(|n| n.to_string()).unwrap_or_default(),
        }
    }

    pub fn slot(&mut self, field: GenField) -> &mut String {
        match field {
            GenField::Jobs => &mut self.jobs,
            GenField::Load => &mut self.load,
            GenField::Seed => &mut self.seed,
            GenField::Tenants => &mut self.tenants,
        }
    }

    /// The generator's spec, checked by the core's parsers as `proxima --trace` checks it
    /// (the same messages), e.g. `synthetic:jobs=200,load=0.8,seed=1,tenants=3`.
    pub fn spec(&self) -> Result<GeneratorSpec, String> {
        let fields = [("jobs", &self.jobs), ("load", &self.load), ("seed", &self.seed), ("tenants", &self.tenants)];
        // A separator typed into a field would add keys of its own to the spec.
        if let Some((name, text)) = fields.iter().find(|(_, t)| t.contains([',', '='])) {
            return Err(format!("{name}: expected a number, got '{}'", text.trim()));
        }
        let mut text =
            format!("synthetic:jobs={},load={},seed={}", self.jobs.trim(), self.load.trim(), self.seed.trim());
        if !self.tenants.trim().is_empty() {
            text += &format!(",tenants={}", self.tenants.trim());
        }
        let (text, tenants) = tenant_mix::split_spec(&text).map_err(|e| e.to_string())?;
        let synthetic = synthetic::parse(&text).map_err(|e| e.to_string())?;
        if synthetic.jobs > MAX_APP_JOBS {
            return Err(format!("jobs: at most {MAX_APP_JOBS} in the browser (the CLI takes more)"));
        }
        Ok(GeneratorSpec { synthetic, tenants })
    }
}

/// A seed as typed.
pub fn check_seed(text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| format!("seed: expected a whole number from 0 to {}", u64::MAX))
}

/// A model mix as typed (empty: the default mix), on a cluster of `gpu` GPUs (`None`: a
/// cluster that names none). Checked as a run checks it: the names against the built-in
/// catalogue, then against the models measured on the cluster's GPU.
pub fn check_mix(text: &str, gpu: Option<&str>) -> Result<(), String> {
    use proxima_core::model::Catalog;
    use proxima_core::workload::{mix_for, ModelMix};
    if text.trim().is_empty() {
        return Ok(());
    }
    let mix = ModelMix::parse(text, &Catalog::built_in()).map_err(|e| e.to_string())?;
    let catalog = Catalog::for_gpu_or_built_in(gpu).map_err(|e| e.to_string())?;
    mix_for(&mix, &catalog).map(|_| ()).map_err(|e| e.to_string())
}

/// A model a cluster can run, as the page lists it beside the mix.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedModel {
    pub name: String,
    /// The GPU its compute time was measured on and scaled from by published throughput
    /// ratios (`model::estimate`), when it was not measured on the cluster's own.
    pub estimated_from: Option<String>,
}

/// The models a cluster of `gpu` GPUs can run (what the page lists beside the mix), and how
/// many of them its default mix draws from.
pub fn model_names(gpu: Option<&str>) -> (Vec<ListedModel>, usize) {
    use proxima_core::model::Catalog;
    let catalog = Catalog::for_gpu_or_built_in(gpu).unwrap_or_else(|_| Catalog::built_in());
    let default_mix = proxima_core::workload::ModelMix::default_for(&catalog).entries.len();
    let listed = catalog
        .models()
        .map(|(_, m)| ListedModel {
            name: m.name.clone(),
            estimated_from: m.estimate.as_ref().map(|e| e.from_gpu.clone()),
        })
        .collect();
    (listed, default_mix)
}

/// The list beside the mix in words: the measured models, then the estimated ones with the
/// GPU each is scaled from, so that no estimate passes for a measurement.
pub fn models_in_words(models: &[ListedModel], gpu: Option<&str>) -> String {
    let measured: Vec<&str> = models.iter().filter(|m| m.estimated_from.is_none()).map(|m| m.name.as_str()).collect();
    let estimated: Vec<String> = models
        .iter()
        .filter_map(|m| m.estimated_from.as_ref().map(|from| format!("{} (from {from})", m.name)))
        .collect();
    let on = gpu.map(|g| format!(" measured on this cluster's {g}")).unwrap_or_default();
    let mut text = format!("Models{on}: {}.", measured.join(", "));
    if !estimated.is_empty() {
        text.push_str(&format!(
            " Estimated, scaled from another GPU by published throughput ratios: {}.",
            estimated.join(", ")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_keep_what_was_typed_and_say_what_is_wrong() {
        let seed = Field::checked("12x".to_string(), |t| check_seed(t));
        assert_eq!(seed.value, "12x");
        assert!(seed.error.as_deref().unwrap().starts_with("seed: expected a whole number"));
        assert!(Field::checked(" 7 ".to_string(), |t| check_seed(t)).is_valid());
        let mut gen =
            GeneratorFields { jobs: "300000".into(), load: "0.8".into(), seed: "1".into(), tenants: "".into() };
        assert!(gen.spec().unwrap_err().contains("at most 200000 in the browser"));
        gen.jobs = "200".into();
        assert_eq!(gen.spec().unwrap().to_string(), "synthetic:jobs=200,load=0.8,seed=1");
        assert_eq!(gen.spec().unwrap().tenants, None);
        // Tenants: written as the CLI's key, refused with the CLI's message.
        gen.tenants = " 3 ".into();
        assert_eq!(gen.spec().unwrap().to_string(), "synthetic:jobs=200,load=0.8,seed=1,tenants=3");
        assert_eq!(GeneratorFields::of(&gen.spec().unwrap()).tenants, "3");
        for (bad, got) in [("0", "'0'"), ("16", "'16'"), ("2.5", "'2.5'"), ("x", "'x'")] {
            gen.tenants = bad.into();
            assert_eq!(
                gen.spec().unwrap_err(),
                format!("tenants: expected a whole number of tenants from 1 to 15, got {got}")
            );
        }
        gen.tenants = "2,load=9".into();
        assert_eq!(gen.spec().unwrap_err(), "tenants: expected a number, got '2,load=9'");
        let mut param = ParametricFields::from_spec(&ParametricSpec::parse("racks=2,servers=2,gpus=4").unwrap());
        *param.slot(ParamField::Racks) = " 3 ".into();
        assert_eq!(param.spec().unwrap().to_string(), "racks=3,servers=2,gpus=4");
        // Another fabric takes its own link defaults with it, but not bandwidths typed by hand.
        param.set(ParamField::Fabric, "tcp".into());
        assert_eq!(param.spec().unwrap().to_string(), "racks=3,servers=2,gpus=4,fabric=tcp");
        param.set(ParamField::NicGbps, "100".into());
        param.set(ParamField::Fabric, "rdma".into());
        assert_eq!(param.spec().unwrap().to_string(), "racks=3,servers=2,gpus=4,nic_gbps=100");
        // Each field is read as a number on its own: a separator typed into one is refused
        // in that field's words rather than read as keys of its own.
        param.set(ParamField::Oversub, "2,racks=9".into());
        assert_eq!(param.spec().unwrap_err(), "oversub: must be a positive number, got '2,racks=9'");
        param.set(ParamField::Oversub, "0.5".into());
        assert_eq!(param.spec().unwrap_err(), "oversub: must be at least 1, got 0.5");
        param.set(ParamField::Oversub, " 2.5 ".into());
        assert_eq!(param.spec().unwrap().oversub, 2.5);
    }

    #[test]
    fn a_mix_is_checked_against_the_clusters_gpu() {
        assert_eq!(check_mix("vgg16:2,resnet50", None), Ok(()));
        assert_eq!(check_mix("vgg16:2,resnet50", Some("A100")), Ok(()));
        // VGG-16 runs on T4, estimated from its A100 measurement; GPT-2 XL does not fit.
        assert_eq!(check_mix("vgg16:2,resnet50", Some("T4")), Ok(()));
        let e = check_mix("gpt2-xl", Some("T4")).unwrap_err();
        assert!(e.starts_with("mix: model 'gpt2-xl' does not run on a T4"), "{e}");
        assert!(check_mix("lenet", None).unwrap_err().contains("unknown model 'lenet'"));
        let (t4, t4_default) = model_names(Some("T4"));
        let names: Vec<&str> = t4.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names[..6], ["resnet50", "bert", "deepspeech2", "yolov3", "ncf", "cifar10"]);
        // VGG-16 is listed as estimated from its A100 measurement; ResNet-50 as measured.
        let vgg16 = t4.iter().find(|m| m.name == "vgg16").unwrap();
        assert_eq!(vgg16.estimated_from.as_deref(), Some("A100"));
        assert_eq!(t4[0].estimated_from, None);
        let words = models_in_words(&t4, Some("T4"));
        assert!(words.starts_with("Models measured on this cluster's T4: resnet50, bert, "), "{words}");
        let (measured, estimated) =
            words.split_once(" Estimated, scaled from another GPU by published throughput ratios: ").unwrap();
        assert!(!measured.contains("vgg16") && estimated.contains("vgg16 (from A100)"), "{words}");
        assert_eq!(t4.len(), proxima_core::model::Catalog::built_in().len() - 3, "all but GPT-2 XL and LLaMA");
        // The default mix draws from the models of its eight that T4 has.
        assert_eq!(t4_default, 3);
        let (all, default) = model_names(None);
        assert_eq!((all.len(), default), (proxima_core::model::Catalog::built_in().len(), 8));
    }

    #[test]
    fn the_gpu_and_rails_keep_through_the_form() {
        let spec = ParametricSpec::parse("racks=2,servers=2,gpus=8,nics=2,gpu=h100,rails=on").unwrap();
        let mut p = ParametricFields::from_spec(&spec);
        assert_eq!((p.gpu.as_str(), p.rails.as_str()), ("h100", "on"));
        assert_eq!(p.spec().unwrap().to_string(), spec.to_string());
        // A GPU chosen by hand stays when the fabric changes; its NVLink default follows a
        // GPU change.
        p.set(ParamField::Fabric, "roce".into());
        assert_eq!(p.gpu, "h100");
        p.set(ParamField::Gpu, "a100".into());
        assert_eq!(p.nvlink_gbps, GpuKind::A100.default_link_gbps().to_string());
        // The fabric's default GPU follows the fabric: A100 under RoCE becomes T4 under TCP.
        p.set(ParamField::Fabric, "tcp".into());
        assert_eq!((p.gpu.as_str(), p.nvlink_gbps.clone()), ("t4", GpuKind::T4.default_link_gbps().to_string()));
        p.set(ParamField::Rails, "off".into());
        assert!(!p.spec().unwrap().to_string().contains("rails"));
    }
}
