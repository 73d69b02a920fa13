//! Form fields: what users typed, kept as typed, and why it is refused when it is.

use proxima_core::topology::{ParametricSpec, DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS, TCP_GPU_LINK_GBPS, TCP_NIC_GBPS};
use proxima_core::trace::synthetic::{self, SyntheticSpec};

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
    /// `rdma` or `tcp`: sets the collective efficiencies and the GPU along with the
    /// links' defaults.
    pub fabric: String,
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
}

/// A fabric's NIC and GPU-link bandwidths when the form does not give them.
fn default_links(fabric: &str) -> Option<(f64, f64)> {
    match fabric.trim() {
        "rdma" => Some((DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS)),
        "tcp" => Some((TCP_NIC_GBPS, TCP_GPU_LINK_GBPS)),
        _ => None,
    }
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
        }
    }

    /// Sets a field as typed. Choosing another fabric also moves the link bandwidths that
    /// were the old fabric's defaults to the new one's, so that a TCP cluster does not keep
    /// RDMA's 200 Gbit/s NICs by accident (bandwidths typed by hand stay).
    pub fn set(&mut self, field: ParamField, value: String) {
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
        }
    }

    /// The `racks=R,...` text these fields stand for, in the canonical form `proxima`
    /// prints (defaults left out), checked by the core's parser.
    pub fn to_arg(&self) -> Result<String, String> {
        let text = format!(
            "racks={},servers={},gpus={},oversub={},nic_gbps={},nvlink_gbps={},nics={},fabric={}",
            self.racks.trim(),
            self.servers.trim(),
            self.gpus.trim(),
            self.oversub.trim(),
            self.nic_gbps.trim(),
            self.nvlink_gbps.trim(),
            self.nics.trim(),
            self.fabric.trim()
        );
        ParametricSpec::parse(&text).map(|p| p.to_string()).map_err(|e| e.to_string())
    }
}

/// The synthetic generator's fields, as typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeneratorFields {
    pub jobs: String,
    pub load: String,
    pub seed: String,
}

/// Which field of the generator changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenField {
    Jobs,
    Load,
    Seed,
}

impl GeneratorFields {
    pub fn of(spec: &SyntheticSpec) -> GeneratorFields {
        GeneratorFields { jobs: spec.jobs.to_string(), load: spec.load.to_string(), seed: spec.seed.to_string() }
    }

    pub fn slot(&mut self, field: GenField) -> &mut String {
        match field {
            GenField::Jobs => &mut self.jobs,
            GenField::Load => &mut self.load,
            GenField::Seed => &mut self.seed,
        }
    }

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

/// A seed as typed.
pub fn check_seed(text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| format!("seed: expected a whole number from 0 to {}", u64::MAX))
}

/// A model mix as typed (empty: the default mix).
pub fn check_mix(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Ok(());
    }
    let catalog = proxima_core::model::Catalog::built_in();
    proxima_core::workload::ModelMix::parse(text, &catalog).map(|_| ()).map_err(|e| e.to_string())
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
        let gen = GeneratorFields { jobs: "300000".into(), load: "0.8".into(), seed: "1".into() };
        assert!(gen.spec().unwrap_err().contains("at most 200000 in the browser"));
        let mut param = ParametricFields::from_spec(&ParametricSpec::parse("racks=2,servers=2,gpus=4").unwrap());
        *param.slot(ParamField::Racks) = " 3 ".into();
        assert_eq!(param.to_arg().unwrap(), "racks=3,servers=2,gpus=4");
        // Another fabric takes its own link defaults with it, but not bandwidths typed by hand.
        param.set(ParamField::Fabric, "tcp".into());
        assert_eq!(param.to_arg().unwrap(), "racks=3,servers=2,gpus=4,fabric=tcp");
        param.set(ParamField::NicGbps, "100".into());
        param.set(ParamField::Fabric, "rdma".into());
        assert_eq!(param.to_arg().unwrap(), "racks=3,servers=2,gpus=4,nic_gbps=100");
    }
}
