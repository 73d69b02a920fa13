//! The options of `tiresias`, parsed from its spec and printed back in canonical form, and
//! the placement rules (`place=`) it chooses among.

use super::DEFAULT_THRESHOLDS_GPU_S;
use crate::error::InputError;
use crate::policy::mechanisms::las;
use crate::policy::{on_off, take_optional_secs, PolicySpec};

/// Where an admitted job goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceRule {
    /// Tiresias: consolidate placement-sensitive models only.
    Skew,
    Tightest,
    MostFree,
    FirstFit,
}

impl PlaceRule {
    fn name(self) -> &'static str {
        match self {
            PlaceRule::Skew => "skew",
            PlaceRule::Tightest => "tightest",
            PlaceRule::MostFree => "most_free",
            PlaceRule::FirstFit => "first_fit",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TiresiasOptions {
    /// Attained-service thresholds between queues, GPU-seconds, increasing: `K − 1` of them.
    pub thresholds_gpu_s: Vec<f64>,
    pub starve: Option<f64>,
    pub place: PlaceRule,
    pub skew: f64,
    pub running_first: bool,
    pub restore_s: f64,
    pub round_s: Option<f64>,
    /// Respect the tenants' quotas.
    pub quota: bool,
}

impl TiresiasOptions {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<TiresiasOptions, InputError> {
        let thresholds_gpu_s = las::take_thresholds(spec)?.unwrap_or_else(|| DEFAULT_THRESHOLDS_GPU_S.to_vec());
        let place = match spec.take("place").as_deref() {
            None | Some("skew") => PlaceRule::Skew,
            Some("tightest") => PlaceRule::Tightest,
            Some("most_free") => PlaceRule::MostFree,
            Some("first_fit") => PlaceRule::FirstFit,
            Some(other) => {
                return Err(InputError::new(
                    "place",
                    format!("expected skew, tightest, most_free or first_fit, got '{other}'"),
                ))
            }
        };
        Ok(TiresiasOptions {
            thresholds_gpu_s,
            starve: take_optional_secs(spec, "starve", 0.0)?,
            place,
            skew: spec.take_f64("skew", 1.05, 1.0)?,
            running_first: spec.take_bool("running_first", true)?,
            restore_s: spec.take_f64("restore_s", 30.0, 0.0)?,
            round_s: take_optional_secs(spec, "round_s", 0.0)?,
            quota: spec.take_bool("quota", false)?,
        })
    }

    pub(super) fn spec(&self) -> String {
        let queues = las::thresholds_name(&self.thresholds_gpu_s);
        let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_else(|| "off".into());
        format!(
            "tiresias:queues={queues},starve={},place={},skew={},running_first={},restore_s={},round_s={}",
            opt(self.starve),
            self.place.name(),
            self.skew,
            on_off(self.running_first),
            self.restore_s,
            opt(self.round_s)
        ) + if self.quota { ",quota=on" } else { "" }
    }
}
