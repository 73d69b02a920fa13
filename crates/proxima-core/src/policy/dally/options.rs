//! The options of `dally`, parsed from its spec and printed back in canonical form.

use crate::error::InputError;
use crate::policy::info::{
    opt, opt_with, profile, profile_error,
    OptionKind::{Choice, Number, PerTier, Seconds, SecondsOrOff, Switch, Thresholds, Whole},
    PolicyInfo, RESTORE,
};
use crate::policy::mechanisms::las::{self, DALLY_LAS_THRESHOLDS_GPU_S};
use crate::policy::mechanisms::profile::ProfileOptions;
use crate::policy::mechanisms::runtime::RuntimeKnowledge;
use crate::policy::PolicySpec;

pub use super::service::ServiceRule;

/// Default timers, in seconds, for the server tier and the rack tier (further tiers repeat
/// the last). Not tuned to any experiment: five minutes for a server-local placement, half
/// that for a rack-local one, a scale at which jobs of the Philly trace (median run time
/// about 19 minutes) come and go.
pub const DEFAULT_TIMERS_S: &[f64] = &[300.0, 150.0];

/// How many times a job may be preempted under `order=fifo` (the paper's guard rail).
pub const DEFAULT_MAX_PREEMPT: u32 = 2;

/// How many times a job may be preempted under `order=las`, by every kind of preemption.
/// Least attained service has to take GPUs back from the same long jobs again and again:
/// with no cap one job was checkpointed 59 times (issue 31, and up to 173 on the
/// robustness experiment's development cells), but on Kalos-shaped LLM jobs a cap of 12 or
/// 24 left short jobs stuck behind long ones that could no longer move (mean JCT up to 1.89x
/// and 1.08x the best fair baseline's). 48 is the smallest of 12/24/48 within every
/// development target of the robustness experiment but one cell (`docs/EXPERIMENTS.md`, "Robustness").
pub const LAS_MAX_PREEMPT: u32 = 48;

/// Under `order=las`, the slowdown from which a waiting job holds out for a tighter placement
/// for as long as the looser one would cost it, not only for its tier's timer. Issue 31's
/// first scenario (LLaMA 13B alone on a thin 16:1 network) is the case: a cross-rack ring is
/// several times slower there, so taking it after a 300 s timer loses hours to save minutes,
/// and `strict`, which never spreads, beat every delay timer. Waiting as long as the loss
/// (ski rental) bounds the damage to twice the better choice's; below this slowdown the
/// timers, which the tuner learns, keep deciding.
pub const LAS_PATIENT_ABOVE: f64 = 2.0;

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

/// The order in which waiting jobs are served (`order=fifo|las`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// First come, first served: the paper's order (the default).
    Fifo,
    /// Least attained service first, in discretised queues as `tiresias` keeps them
    /// ([`super::order`]).
    Las,
}

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "dally",
    summary: "The network-sensitive scheduler of arXiv:2401.16492 (v2: \"Dally\"): delay scheduling for consolidation, network-sensitive preemption and auto-tuned delay timers. Ablations: `preempt=off`, `autotune=off` (static timers), `preempt=off,autotune=off` (delay scheduling alone), `delay=off` (preemption without delay), `delay=all` (every job waits its tier's full timer, sensitive or not), `runtime=oracle` (what knowing the future is worth). `order=las` serves jobs least attained service first, in `tiresias`'s queues, and preempts jobs of lower queues for a placement within the tier a job accepts when the exchange pays: Dally's network awareness without its first-come order, knowing no run times.",
    source: "arXiv:2401.16492",
    options: &[
        opt("delay", Choice(&["on", "off", "all"]), "on", "off: no delay timers; all: every job waits its tier's full timer"),
        opt("preempt", Switch, "on", "network-sensitive preemption and re-consolidation"),
        opt("autotune", Switch, "on", "off: the timers stay as given"),
        opt("timers", PerTier, "300/150", "delay timers per tier, tightest first: static, or the tuner's start"),
        opt("threshold", Number, "1.05", "slowdown above which a job is network-sensitive"),
        opt("starve_s", SecondsOrOff, "off", "a job waiting this long gets the cluster reserved for it"),
        RESTORE,
        opt("min_run_s", Seconds, "600", "a job runs this long before it may be preempted"),
        opt("max_preempt", Whole, "2", "preemptions per job at most, of every kind (48 with order=las)"),
        opt("tune_every_s", Seconds, "600", "how often the tuner revises the timers"),
        opt("quota", Switch, "off", "on: tenants' quotas; preemption takes another tenant's job only from a borrower"),
        opt("runtime", Choice(&["estimate", "oracle"]), "estimate", "remaining run times estimated from completed jobs and attained service; oracle: read from the trace, for ablation only (not with order=las)"),
        profile(None),
        profile_error("profile=table"),
        opt("order", Choice(&["fifo", "las"]), "fifo", "the order waiting jobs are served in; las: least attained GPU-time first, lower queues preempted"),
        opt_with("queues", Thresholds, "3600/57600", "attained GPU-seconds at which a job drops a queue", "order=las"),
        opt_with("service", Choice(&["exchange", "priority"]), "exchange", "when a higher queue preempts: exchange, only when the waiter saves more than its victims lose (their slower resume included); priority: always, as tiresias", "order=las"),
    ],
    build: |spec| Ok(Box::new(super::Dally::from_spec(spec)?)),
};

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
    /// [`crate::policy::mechanisms::runtime`]).
    pub runtime: RuntimeKnowledge,
    pub order: Order,
    /// Under `order=las`, the attained GPU-seconds at which a job drops a queue (empty
    /// under `order=fifo`).
    pub thresholds_gpu_s: Vec<f64>,
    /// Under `order=las`, when service order may preempt (`service=exchange|priority`,
    /// [`super::service`]); unused under `order=fifo`.
    pub service: ServiceRule,
    /// Where predicted slowdowns come from (`profile=table|exact`, `profile_error=E`,
    /// [`crate::policy::mechanisms::profile`]).
    pub profile: ProfileOptions,
    /// Under `order=las`, the slowdown of the next looser tier from which a job's wait is
    /// budgeted by what it can win alone, the timer no longer capping it
    /// (`patient_above=S|off`, [`LAS_PATIENT_ABOVE`]); `None` under `order=fifo`.
    pub patient_above: Option<f64>,
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
        let order = match spec.take("order").as_deref() {
            None | Some("fifo") => Order::Fifo,
            Some("las") => Order::Las,
            Some(other) => return Err(InputError::new("order", format!("expected fifo or las, got '{other}'"))),
        };
        let thresholds = las::take_thresholds(spec)?;
        let thresholds_gpu_s = match (order, thresholds) {
            (Order::Fifo, None) => Vec::new(),
            (Order::Fifo, Some(_)) => return Err(InputError::new("queues", "applies only with order=las")),
            (Order::Las, t) => t.unwrap_or_else(|| DALLY_LAS_THRESHOLDS_GPU_S.to_vec()),
        };
        let service = match (order, spec.take("service").as_deref()) {
            (Order::Las, None | Some("exchange")) => ServiceRule::Exchange,
            (Order::Las, Some("priority")) => ServiceRule::Priority,
            (Order::Las, Some(other)) => {
                return Err(InputError::new("service", format!("expected exchange or priority, got '{other}'")))
            }
            (Order::Fifo, None) => ServiceRule::Exchange,
            (Order::Fifo, Some(_)) => return Err(InputError::new("service", "applies only with order=las")),
        };
        let patient_above = match (order, spec.take("patient_above").as_deref()) {
            (Order::Las, None) => Some(LAS_PATIENT_ABOVE),
            (Order::Las, Some("off")) => None,
            (Order::Las, Some(v)) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 1.0 => Some(x),
                _ => {
                    return Err(InputError::new(
                        "patient_above",
                        format!("expected a slowdown of 1 or more, or off, got '{v}'"),
                    ))
                }
            },
            (Order::Fifo, None) => None,
            (Order::Fifo, Some(_)) => return Err(InputError::new("patient_above", "applies only with order=las")),
        };
        let runtime = RuntimeKnowledge::from_spec(spec)?;
        let profile = ProfileOptions::from_spec(spec)?;
        let quota = spec.take_bool("quota", false)?;
        if order == Order::Las {
            // Serving by attained service is what a scheduler that does not know run times
            // does; reading them from the trace would defeat the point of the order.
            if runtime == RuntimeKnowledge::Oracle {
                return Err(InputError::new("runtime", "order=las knows no run times: only runtime=estimate"));
            }
            if quota {
                return Err(InputError::new("quota", "order=las does not support tenants' quotas yet"));
            }
        }
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
            max_preempt: spec
                .take_u32("max_preempt", if order == Order::Las { LAS_MAX_PREEMPT } else { DEFAULT_MAX_PREEMPT })?,
            tune_every_s: spec.take_f64("tune_every_s", 600.0, 1.0)?,
            quota,
            runtime,
            order,
            thresholds_gpu_s,
            service,
            profile,
            patient_above,
        })
    }

    /// The canonical spec, every option spelled out (`quota` only when on, and `order` with
    /// its `queues` only when `las`, so that the specs of earlier runs read as they always
    /// did; `runtime` and `profile` always, so that no spec hides whether the run knew the
    /// future or the engine's own slowdowns).
    pub fn spec(&self) -> String {
        let on = |b: bool| if b { "on" } else { "off" };
        let timers: Vec<String> = self.timers_s.iter().map(|t| format!("{t}")).collect();
        format!(
            "dally:delay={},preempt={},autotune={},timers={},threshold={},starve_s={},restore_s={},min_run_s={},max_preempt={},tune_every_s={},runtime={},{}",
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
            self.runtime.name(),
            self.profile.spec_part()
        ) + if self.quota { ",quota=on" } else { "" }
            + &match self.order {
                Order::Fifo => String::new(),
                Order::Las => format!(
                    ",order=las,queues={},service={},patient_above={}",
                    las::thresholds_name(&self.thresholds_gpu_s),
                    self.service.name(),
                    self.patient_above.map(|x| x.to_string()).unwrap_or_else(|| "off".into())
                ),
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::resolve_policy;

    fn options(text: &str) -> Result<DallyOptions, InputError> {
        let mut spec = PolicySpec::parse(text)?;
        let options = DallyOptions::from_spec(&mut spec)?;
        spec.finish()?;
        Ok(options)
    }

    #[test]
    fn order_las_round_trips_in_canonical_form_and_fifo_specs_read_as_before() {
        let base = "dally:delay=on,preempt=on,autotune=on,timers=300/150,threshold=1.05,starve_s=off,restore_s=30,min_run_s=600,max_preempt=2,tune_every_s=600,runtime=estimate,profile=table,profile_error=0";
        assert_eq!(resolve_policy("dally").unwrap().spec(), base);
        assert_eq!(resolve_policy("dally:order=fifo").unwrap().spec(), base);
        // Under order=las a job may be preempted up to 48 times, by every kind.
        let las_base = base.replace("max_preempt=2", "max_preempt=48");
        let las = format!("{las_base},order=las,queues=3600/57600,service=exchange,patient_above=2");
        assert_eq!(resolve_policy("dally:order=las").unwrap().spec(), las);
        assert_eq!(resolve_policy(&las).unwrap().spec(), las);
        let custom = resolve_policy("dally:queues=100/250.5,order=las,service=priority,max_preempt=3").unwrap().spec();
        let custom_base = base.replace("max_preempt=2", "max_preempt=3");
        assert_eq!(custom, format!("{custom_base},order=las,queues=100/250.5,service=priority,patient_above=2"));
        assert_eq!(resolve_policy(&custom).unwrap().spec(), custom);
        let single = resolve_policy("dally:order=las,queues=none").unwrap().spec();
        assert!(single.ends_with(",order=las,queues=none,service=exchange,patient_above=2"), "{single}");
        assert_eq!(options("dally:order=las").unwrap().thresholds_gpu_s, vec![3600.0, 57600.0]);
    }

    #[test]
    fn bad_order_options_name_their_field() {
        let field = |text: &str| options(text).unwrap_err().field;
        assert_eq!(field("dally:order=lifo"), "order");
        assert_eq!(field("dally:order=las,queues=7200/3250"), "queues");
        assert_eq!(field("dally:order=las,queues=-5"), "queues");
        // Thresholds mean nothing in first-come order.
        assert_eq!(field("dally:queues=3250"), "queues");
        assert_eq!(field("dally:service=priority"), "service");
        assert_eq!(field("dally:order=las,service=fair"), "service");
        // The order that knows no run times refuses the oracle, and quotas are not built yet.
        assert_eq!(field("dally:order=las,runtime=oracle"), "runtime");
        assert_eq!(field("dally:order=las,quota=on"), "quota");
        assert_eq!(options("dally:order=lifo").unwrap_err().message, "expected fifo or las, got 'lifo'");
        // Patience is part of the order that does not know run times, and a slowdown is 1 or more.
        assert_eq!(field("dally:patient_above=2"), "patient_above");
        assert_eq!(field("dally:order=las,patient_above=0.5"), "patient_above");
        assert_eq!(options("dally:order=las,patient_above=off").unwrap().patient_above, None);
        assert_eq!(options("dally:order=las,patient_above=3").unwrap().patient_above, Some(3.0));
    }
}
