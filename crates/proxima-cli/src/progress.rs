//! A progress bar on stderr for runs longer than a second, only when stderr is a terminal
//! (so logs and pipes stay clean).

use proxima_core::engine::Simulation;
use proxima_core::metrics::Summary;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub fn run_with_progress(sim: &mut Simulation, label: &str) -> Summary {
    let show = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut last_draw: Option<Instant> = None;
    let mut steps: u64 = 0;
    while sim.step().is_some() {
        steps += 1;
        // Reading the clock every step would cost more than many steps.
        if show && steps.is_multiple_of(4096) && started.elapsed() > Duration::from_secs(1) {
            let due = last_draw.is_none_or(|t| t.elapsed() > Duration::from_millis(100));
            if due {
                draw(sim, label);
                last_draw = Some(Instant::now());
            }
        }
    }
    if last_draw.is_some() {
        eprint!("\r{:width$}\r", "", width = 78);
        let _ = std::io::stderr().flush();
    }
    sim.summary()
}

fn draw(sim: &Simulation, label: &str) {
    let (done, total) = sim.progress();
    let fraction = if total > 0 { done as f64 / total as f64 } else { 1.0 };
    let width = 30;
    let filled = (fraction * width as f64) as usize;
    let bar: String = "=".repeat(filled) + &" ".repeat(width - filled);
    let label: String = label.chars().take(24).collect();
    eprint!("\r{label:<24} [{bar}] {:>3.0}%  {done}/{total} jobs", fraction * 100.0);
    let _ = std::io::stderr().flush();
}
