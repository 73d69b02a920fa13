//! A progress bar on stderr for runs longer than a second, only when stderr is a terminal
//! (so logs and pipes stay clean).

use proxima_core::engine::Simulation;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// The bar of one run: told of every instant by the core's run path
/// (`RunOptions::on_step`), it draws at most every 100 ms, once the run has taken a second.
pub struct Progress<'a> {
    label: &'a str,
    show: bool,
    started: Instant,
    last_draw: Option<Instant>,
    steps: u64,
}

impl<'a> Progress<'a> {
    pub fn new(label: &'a str) -> Progress<'a> {
        Progress { label, show: std::io::stderr().is_terminal(), started: Instant::now(), last_draw: None, steps: 0 }
    }

    /// After each instant of the run.
    pub fn step(&mut self, sim: &Simulation) {
        self.steps += 1;
        // Reading the clock every step would cost more than many steps.
        if self.show && self.steps.is_multiple_of(4096) && self.started.elapsed() > Duration::from_secs(1) {
            let due = self.last_draw.is_none_or(|t| t.elapsed() > Duration::from_millis(100));
            if due {
                draw(sim, self.label);
                self.last_draw = Some(Instant::now());
            }
        }
        // Cleared as soon as the run ends, before ρ's isolated runs report theirs.
        if self.last_draw.is_some() && sim.is_done() {
            self.clear();
        }
    }

    fn clear(&mut self) {
        if self.last_draw.take().is_some() {
            eprint!("\r{:width$}\r", "", width = 78);
            let _ = std::io::stderr().flush();
        }
    }
}

/// The bar is cleared when the run stops, at its end or by an error.
impl Drop for Progress<'_> {
    fn drop(&mut self) {
        self.clear();
    }
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
