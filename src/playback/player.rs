//! The player: a playback, where it is, and how it moves. A reducer over
//! [`PlayerAction`]s, local to the player's component, so a frame re-renders only it.

use super::{Frame, Playback, NO_JOB};
use crate::Shared;

/// Playback speeds offered, in simulated seconds per second, with their labels.
pub const SPEEDS: &[(f64, &str)] = &[
    (1.0, "1 s per second"),
    (10.0, "10 s per second"),
    (60.0, "1 min per second"),
    (600.0, "10 min per second"),
    (3600.0, "1 h per second"),
    (36_000.0, "10 h per second"),
    (360_000.0, "100 h per second"),
    (3_600_000.0, "1,000 h per second"),
];

/// The longest wall-clock step a tick takes: after the tab was hidden, playback resumes
/// where it was rather than jumping.
const MAX_TICK_MS: f64 = 250.0;

/// The player: a playback, where it is, and how it moves. A reducer over
/// [`PlayerAction`]s.
#[derive(Clone, Debug, PartialEq)]
pub struct Player {
    pub playback: Shared<Playback>,
    pub frame: Shared<Frame>,
    /// A second run shown beside the watched one at the same instant, and its frame.
    pub other: Option<(Shared<Playback>, Shared<Frame>)>,
    pub playing: bool,
    /// Simulated seconds per second of wall time.
    pub speed: f64,
    pub selected: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PlayerAction {
    TogglePlay,
    /// A frame: this many milliseconds of wall time passed.
    Tick(f64),
    /// Go to this simulated second.
    Seek(f64),
    StepNext,
    StepBack,
    /// Go to the next decision to decline a placement and wait under a delay timer.
    NextWait,
    SetSpeed(f64),
    Select(Option<u32>),
    /// A click on a GPU: select the job holding it (or nothing).
    SelectGpu(u32),
    /// Watch another run (another policy's) from the same instant.
    Watch(Shared<Playback>),
    /// Show another run beside the watched one (or stop).
    Compare(Option<Shared<Playback>>),
}

impl Player {
    /// A player at `start_s`, at a speed that plays the whole run in about two minutes.
    pub fn new(playback: Shared<Playback>, start_s: f64, selected: Option<u32>) -> Player {
        let span_s = playback.end_us() as f64 / 1e6;
        let speed = SPEEDS.iter().map(|s| s.0).find(|&s| s * 120.0 >= span_s).unwrap_or(SPEEDS[SPEEDS.len() - 1].0);
        let frame = Shared::new(playback.state_at(secs_to_us(start_s).min(playback.end_us())));
        Player { playback, frame, other: None, playing: false, speed, selected }
    }

    /// The end of playback: the later end of the runs shown.
    pub fn end_us(&self) -> u64 {
        let other = self.other.as_ref().map(|o| o.0.end_us()).unwrap_or(0);
        self.playback.end_us().max(other)
    }

    pub fn time_s(&self) -> f64 {
        self.frame.time_us as f64 / 1e6
    }

    pub fn end_s(&self) -> f64 {
        self.end_us() as f64 / 1e6
    }

    pub fn apply(mut self, action: PlayerAction) -> Player {
        let end = self.end_us();
        match action {
            PlayerAction::TogglePlay => {
                if !self.playing && self.frame.time_us >= end {
                    // Play from the start again.
                    self.goto(0);
                }
                self.playing = !self.playing;
            }
            PlayerAction::Tick(ms) => {
                if self.playing {
                    let dt = ms.clamp(0.0, MAX_TICK_MS) / 1000.0 * self.speed;
                    let t = (self.frame.time_us + secs_to_us(dt)).min(end);
                    self.goto(t);
                    if t >= end {
                        self.playing = false;
                    }
                }
            }
            PlayerAction::Seek(s) => self.goto(secs_to_us(s).min(end)),
            PlayerAction::StepNext => {
                self.playing = false;
                if let Some(t) = self.playback.next_event_after(self.frame.time_us) {
                    self.goto(t.min(end));
                }
            }
            PlayerAction::NextWait => {
                self.playing = false;
                if let Some(t) = self.playback.next_wait_after(self.frame.time_us) {
                    self.goto(t.min(end));
                }
            }
            PlayerAction::StepBack => {
                self.playing = false;
                let t = self.playback.previous_event_before(self.frame.time_us).unwrap_or(0);
                self.goto(t);
            }
            PlayerAction::SetSpeed(s) if s.is_finite() && s > 0.0 => self.speed = s,
            PlayerAction::SetSpeed(_) => {}
            PlayerAction::Select(job) => self.selected = job,
            PlayerAction::SelectGpu(g) => {
                let owner = self.frame.gpu_owner.get(g as usize).copied().unwrap_or(NO_JOB);
                self.selected = (owner != NO_JOB).then_some(owner);
            }
            PlayerAction::Watch(pb) => {
                if pb != self.playback {
                    // The same instant in the other run (or its end, if it ended sooner).
                    let t = self.frame.time_us;
                    self.frame = Shared::new(pb.state_at(t));
                    self.playback = pb;
                    let end = self.end_us();
                    self.goto(t.min(end));
                }
            }
            PlayerAction::Compare(other) => {
                let t = self.frame.time_us;
                self.other = other.map(|pb| {
                    let f = Shared::new(pb.state_at(t));
                    (pb, f)
                });
                let end = self.end_us();
                self.goto(t.min(end));
            }
        }
        self
    }

    fn goto(&mut self, t: u64) {
        if t != self.frame.time_us {
            self.frame = Shared::new(self.playback.advance(&self.frame, t));
        }
        if let Some((pb, f)) = &mut self.other {
            if f.time_us != t {
                *f = Shared::new(pb.advance(f, t));
            }
        }
    }
}

fn secs_to_us(s: f64) -> u64 {
    if s.is_finite() && s > 0.0 {
        (s * 1e6).round() as u64
    } else {
        0
    }
}
