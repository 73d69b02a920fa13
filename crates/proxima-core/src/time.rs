//! Simulated time.
//!
//! Time is an integer count of microseconds since the start of the trace. Integers make event
//! ordering exact and identical on every target; a microsecond is far below anything a
//! scheduler of hour-long training jobs can observe, and `u64` microseconds cover 584,000
//! years.

use std::fmt;
use std::ops::{Add, Sub};

/// A point in simulated time, in whole microseconds since the first submission of the trace.
/// Serialised as the integer number of microseconds, so nothing is lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct SimTime(pub u64);

/// Microseconds in a second.
pub const MICROS_PER_SEC: u64 = 1_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// The time `secs` seconds after the start, rounded to the nearest microsecond.
    /// Negative and NaN inputs clamp to zero; callers validate inputs before they get here.
    pub fn from_secs_f64(secs: f64) -> SimTime {
        if secs.is_nan() || secs <= 0.0 {
            return SimTime::ZERO;
        }
        let micros = (secs * MICROS_PER_SEC as f64).round();
        if micros >= u64::MAX as f64 {
            SimTime::MAX
        } else {
            SimTime(micros as u64)
        }
    }

    /// Like [`SimTime::from_secs_f64`] but rounding up, so that an event computed from a
    /// remaining amount of work never fires before the work is done.
    pub fn from_secs_f64_ceil(secs: f64) -> SimTime {
        if secs.is_nan() || secs <= 0.0 {
            return SimTime::ZERO;
        }
        let micros = (secs * MICROS_PER_SEC as f64).ceil();
        if micros >= u64::MAX as f64 {
            SimTime::MAX
        } else {
            SimTime(micros as u64)
        }
    }

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / MICROS_PER_SEC as f64
    }

    pub fn saturating_add(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(other.0))
    }

    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        self.saturating_add(rhs)
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        self.saturating_sub(rhs)
    }
}

impl fmt::Display for SimTime {
    /// Seconds with microsecond precision, e.g. `12.500000`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:06}", self.0 / MICROS_PER_SEC, self.0 % MICROS_PER_SEC)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_trip_and_display() {
        let t = SimTime::from_secs_f64(12.5);
        assert_eq!(t, SimTime(12_500_000));
        assert_eq!(t.to_string(), "12.500000");
        assert_eq!(t.as_secs_f64(), 12.5);
        assert_eq!(SimTime::from_secs_f64(-3.0), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64(f64::NAN), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64_ceil(1.0000001), SimTime(1_000_001));
    }
}
