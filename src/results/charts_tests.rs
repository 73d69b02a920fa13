//! Tests of the charts' scales and marks.

use super::*;

fn labels(ticks: &[Tick]) -> Vec<&str> {
    ticks.iter().map(|t| t.label.as_str()).collect()
}

#[test]
fn time_axes_tick_at_round_values() {
    let (axis, ticks) = Axis::time(30.0, 300_000.0, true);
    assert_eq!(labels(&ticks), ["10 s", "1 min", "10 min", "1 h", "1 d", "10 d"]);
    assert_eq!((axis.min, axis.max), (10.0, 864_000.0));
    let (_, ticks) = Axis::time(0.0, 60_000.0, false);
    assert_eq!(labels(&ticks), ["0", "5 h", "10 h", "15 h", "20 h"]);
    let (_, ticks) = Axis::time(0.0, 1000.0, false);
    assert_eq!(labels(&ticks), ["0", "5 min", "10 min", "15 min", "20 min"]);
    let (axis, ticks) = Axis::time(0.0, 400_000.0, false);
    assert_eq!(labels(&ticks), ["0", "1 d", "2 d", "3 d", "4 d", "5 d"]);
    assert_eq!(axis.max, 432_000.0);
}

#[test]
fn value_axes_tick_at_round_values() {
    let (axis, ticks) = Axis::values(5693.0, false, round_text);
    assert_eq!(labels(&ticks), ["0", "1000", "2000", "3000", "4000", "5000", "6000"]);
    assert_eq!(axis.max, 6000.0);
    let (_, ticks) = Axis::values(1.0, true, |y| format!("{:.0}%", y * 100.0));
    assert_eq!(labels(&ticks), ["0%", "20%", "40%", "60%", "80%", "100%"]);
}
