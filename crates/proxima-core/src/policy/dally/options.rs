//! The options of `dally`, parsed from its spec and printed back in canonical form.

use crate::error::InputError;
use crate::policy::runtime::RuntimeKnowledge;
use crate::policy::PolicySpec;

/// Default timers, in seconds, for the server tier and the rack tier (further tiers repeat
/// the last). Not tuned to any experiment: five minutes for a server-local placement, half
/// that for a rack-local one, a scale at which jobs of the Philly trace (median run time
/// about 19 minutes) come and go.
pub const DEFAULT_TIMERS_S: &[f64] = &[300.0, 150.0];

/// Which jobs delay scheduling makes wait for a tighter placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayMode {
    /// Sensitive jobs, each for at most what waiting can win (the default).
    Sensitive,
    /// Nobody: every job takes the tightest placement free now, unless preempting for it
    /// pays (the "preemption without delay" ablation).
    Off,
    /// Every job that could run tighter, for its tier's full timer whatever it stands to
    /// win: classical delay scheduling, blind to sensitivity (the ablation that isolates
    /// what sensitivity adds).
    All,
}

impl DelayMode {
    fn name(self) -> &'static str {
        match self {
            DelayMode::Sensitive => "on",
            DelayMode::Off => "off",
            DelayMode::All => "all",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DallyOptions {
    pub delay: DelayMode,
    pub preempt: bool,
    pub autotune: bool,
    pub timers_s: Vec<f64>,
    pub threshold: f64,
    /// The reservation bound; `None` (the default) leaves only the timers' bound.
    pub starve_s: Option<f64>,
    pub restore_s: f64,
    pub min_run_s: f64,
    pub max_preempt: u32,
    pub tune_every_s: f64,
    /// Tenants' quotas respected (`quota=on`, [`super::quotas`]).
    pub quota: bool,
    /// Where remaining run times come from (`runtime=estimate|oracle`,
    /// [`crate::policy::runtime`]).
    pub runtime: RuntimeKnowledge,
}

impl DallyOptions {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<DallyOptions, InputError> {
        let timers_s = match spec.take("timers") {
            None => DEFAULT_TIMERS_S.to_vec(),
            Some(text) => text
                .split('/')
                .map(|v| match v.trim().parse::<f64>() {
                    Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
                    _ => Err(InputError::new("timers", format!("expected seconds like 300/150, got '{text}'"))),
                })
                .collect::<Result<Vec<f64>, InputError>>()?,
        };
        let delay = match spec.take("delay").as_deref() {
            None | Some("on" | "true" | "yes" | "1") => DelayMode::Sensitive,
            Some("off" | "false" | "no" | "0") => DelayMode::Off,
            Some("all") => DelayMode::All,
            Some(other) => return Err(InputError::new("delay", format!("expected on, off or all, got '{other}'"))),
        };
        Ok(DallyOptions {
            delay,
            preempt: spec.take_bool("preempt", true)?,
            autotune: spec.take_bool("autotune", true)?,
            timers_s,
            threshold: spec.take_f64("threshold", 1.05, 1.0)?,
            starve_s: match spec.take("starve_s").as_deref() {
                None | Some("off") => None,
                Some(v) => match v.parse::<f64>() {
                    Ok(x) if x.is_finite() && x >= 0.0 => Some(x),
                    _ => return Err(InputError::new("starve_s", format!("expected seconds or off, got '{v}'"))),
                },
            },
            restore_s: spec.take_f64("restore_s", 30.0, 0.0)?,
            min_run_s: spec.take_f64("min_run_s", 600.0, 0.0)?,
            max_preempt: spec.take_u32("max_preempt", 2)?,
            tune_every_s: spec.take_f64("tune_every_s", 600.0, 1.0)?,
            quota: spec.take_bool("quota", false)?,
            runtime: RuntimeKnowledge::from_spec(spec)?,
        })
    }

    /// The canonical spec, every option spelled out (`quota` only when on, so that the
    /// specs of runs without quotas read as they always did; `runtime` always, so that no
    /// spec hides whether the run knew the future).
    pub fn spec(&self) -> String {
        let on = |b: bool| if b { "on" } else { "off" };
        let timers: Vec<String> = self.timers_s.iter().map(|t| format!("{t}")).collect();
        format!(
            "dally:delay={},preempt={},autotune={},timers={},threshold={},starve_s={},restore_s={},min_run_s={},max_preempt={},tune_every_s={},runtime={}",
            self.delay.name(),
            on(self.preempt),
            on(self.autotune),
            timers.join("/"),
            self.threshold,
            self.starve_s.map(|s| s.to_string()).unwrap_or_else(|| "off".into()),
            self.restore_s,
            self.min_run_s,
            self.max_preempt,
            self.tune_every_s,
            self.runtime.name()
        ) + if self.quota { ",quota=on" } else { "" }
    }
}
