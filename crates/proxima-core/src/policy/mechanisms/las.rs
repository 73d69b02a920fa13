//! Discretised least-attained-service queues, shared by `tiresias` and `dally:order=las`.
//!
//! A job's attained service is its GPU count times the time it has made progress. Jobs enter
//! queue 0 and drop to queue `k + 1` once their attained service reaches the `k`-th
//! threshold; queues are served in order. The thresholds default to those of the Tiresias
//! simulator (SymbioticLab/Tiresias `simulator/jobs.py`: `queue_limit = [3250, 7200, 18000]`
//! with `num_queue = 3`, the last unused), given as `queues=3250/7200` GPU-seconds.

use crate::error::InputError;
use crate::policy::PolicySpec;
use crate::time::SimTime;

/// Queue thresholds of the Tiresias simulator, in GPU-seconds: `tiresias`'s default.
pub const DEFAULT_THRESHOLDS_GPU_S: &[f64] = &[3250.0, 7200.0];

/// Queue thresholds of `dally:order=las`, in GPU-seconds: one and sixteen GPU-hours.
/// Settled on the experiment's development workloads only, among `3250/7200`, `57600` and
/// `3600/57600` (`docs/SCHEDULER.md`, section 4): the Tiresias simulator's thresholds demote
/// an eight-GPU job after seven minutes of service, and `3600/57600` gave up to 27% lower
/// mean JCT on the LLM-era workload and up to 32% on the loaded synthetic one. The experiment holds
/// it against `tiresias:place=tightest` with the same thresholds, so that the comparison
/// does not credit the order with what the thresholds do.
pub const DALLY_LAS_THRESHOLDS_GPU_S: &[f64] = &[3600.0, 57600.0];

/// Takes `queues=T1/T2/...` (increasing GPU-seconds, or `none` for a single queue) out of a
/// spec; the Tiresias simulator's thresholds when absent.
pub fn take_thresholds(spec: &mut PolicySpec) -> Result<Option<Vec<f64>>, InputError> {
    let Some(text) = spec.take("queues") else { return Ok(None) };
    if text == "none" {
        return Ok(Some(Vec::new()));
    }
    let values = text
        .split('/')
        .map(|v| match v.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
            _ => Err(InputError::new(
                "queues",
                format!("expected GPU-second thresholds like 3250/7200 (or none), got '{text}'"),
            )),
        })
        .collect::<Result<Vec<f64>, InputError>>()?;
    if values.windows(2).any(|w| w[0] >= w[1]) {
        return Err(InputError::new("queues", format!("thresholds must increase, got '{text}'")));
    }
    if values.len() > 100 {
        return Err(InputError::new("queues", "at most 100 thresholds"));
    }
    Ok(Some(values))
}

/// The thresholds as a spec writes them: `3250/7200`, or `none`.
pub fn thresholds_name(thresholds_gpu_s: &[f64]) -> String {
    if thresholds_gpu_s.is_empty() {
        "none".to_string()
    } else {
        thresholds_gpu_s.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("/")
    }
}

/// When a job of `gpus` GPUs in `queue`, which has made progress for `executed` since it
/// entered queue 0 and has made progress again since `since`, reaches its queue's threshold
/// (`thresholds_gpu_us`, GPU-microseconds); `None` in the last queue. At least a microsecond
/// after `since`, so that a demotion is always a step forward in time.
pub fn demotion_time(
    thresholds_gpu_us: &[f64],
    queue: u8,
    gpus: u32,
    executed: SimTime,
    since: SimTime,
) -> Option<SimTime> {
    let threshold = *thresholds_gpu_us.get(queue as usize)?;
    let needed = SimTime((threshold / gpus as f64).ceil() as u64);
    Some(since + SimTime(needed.0.saturating_sub(executed.0)).max(SimTime(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(text: &str) -> Result<Option<Vec<f64>>, InputError> {
        take_thresholds(&mut PolicySpec::parse(text).unwrap())
    }

    #[test]
    fn thresholds_parse_print_and_name_the_field_on_bad_values() {
        assert_eq!(take("tiresias").unwrap(), None);
        assert_eq!(take("tiresias:queues=none").unwrap(), Some(vec![]));
        assert_eq!(take("tiresias:queues=100/250.5").unwrap(), Some(vec![100.0, 250.5]));
        assert_eq!(thresholds_name(&[3250.0, 7200.0]), "3250/7200");
        assert_eq!(thresholds_name(&[]), "none");
        for bad in ["tiresias:queues=0", "tiresias:queues=10/5", "tiresias:queues=abc", "tiresias:queues=10/10"] {
            assert_eq!(take(bad).unwrap_err().field, "queues", "{bad}");
        }
    }

    #[test]
    fn a_demotion_falls_when_gpus_times_progress_reach_the_threshold() {
        let us = [100e6, 200e6];
        // 4 GPUs reach 100 GPU-s after 25 s of progress; 10 s already done since queue 0.
        let t = demotion_time(&us, 0, 4, SimTime::from_secs_f64(10.0), SimTime::from_secs_f64(50.0));
        assert_eq!(t, Some(SimTime::from_secs_f64(65.0)));
        assert_eq!(demotion_time(&us, 2, 4, SimTime::ZERO, SimTime::ZERO), None);
        // Past the threshold already: a microsecond on.
        let t = demotion_time(&us, 0, 4, SimTime::from_secs_f64(30.0), SimTime::from_secs_f64(50.0));
        assert_eq!(t, Some(SimTime::from_secs_f64(50.0) + SimTime(1)));
    }
}
