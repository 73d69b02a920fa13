//! The challenge mode, "Be the scheduler" (issue 24, item 9), as data: a small fixed
//! scenario, the student's decisions so far, the state of the run at the decision point
//! they face, and the end: their mean JCT beside `fifo`, `consolidate` and `dally` after a
//! prediction, and what-ifs on any decision.
//!
//! Every change re-runs the scenario from the start with the decisions so far through the
//! core's replay policy (`proxima_core::policy::replay`) and stops at the next decision
//! point. This is the one simulation that runs on the page's thread rather than in the
//! worker: ten jobs on sixteen GPUs replay in well under a millisecond (`tests` below
//! prints the figure), less than a message to the worker and back would take, and the
//! page then needs no second copy of the run's state. A what-if is the same mechanism:
//! change one decision and replay.

pub mod end;
pub mod end_view;
pub mod scenario;
pub mod view;

pub use end::Made;
use end::{End, EndAct, Guess, WhatIfKind};
use proxima_core::cluster::JobId;
use proxima_core::policy::replay::{AfterChoices, Choice};
use proxima_core::scenario::JobStatus;
use proxima_core::session::{self as replay_run, Replayed, Stop};
use proxima_core::topology::{GpuId, Tier};
use proxima_core::{Scenario, Simulation};
pub use scenario::{mean_jct, scenario, JOBS, RIVALS, SEED, TOPOLOGY, TRACE, TRACE_NAME};

/// The clock: seconds per decision before it is made for you.
pub const DECISION_SECONDS: u32 = 30;

/// A job in the queue or still to come.
#[derive(Clone, Debug, PartialEq)]
pub struct JobCard {
    pub id: u32,
    pub name: String,
    pub gpus: u32,
    pub model: String,
    /// When it joined the queue, or (still to come) when it will arrive.
    pub since_s: f64,
}

/// The run at the decision point the student faces (or at its end).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub now_s: f64,
    pub finished: bool,
    /// Whether something will happen if nothing is placed now (a job runs or will arrive).
    pub can_wait: bool,
    /// The job on each GPU.
    pub owner: Vec<Option<u32>>,
    /// Each GPU's server and rack, numbered from 0 in GPU order.
    pub server: Vec<u32>,
    pub rack: Vec<u32>,
    pub queue: Vec<JobCard>,
    pub coming: Vec<JobCard>,
    /// Every job's name, by id.
    pub names: Vec<String>,
    pub completed: u32,
    pub avg_jct_s: Option<f64>,
}

impl Snapshot {
    fn of(sim: &Simulation, stop: Stop) -> Snapshot {
        let sc = sim.scenario();
        let topo = &sc.topology;
        let n = topo.gpu_count();
        let (mut server, mut rack) = (Vec::new(), Vec::new());
        let (mut rack_start, mut r) = (0, 0);
        for g in 0..n {
            let s = topo.servers().iter().position(|&s| s == topo.server_of(GpuId(g))).unwrap_or(0) as u32;
            // GPUs of a subtree are contiguous: a new rack starts where the tier of the
            // GPUs since the rack's first rises above the rack's.
            if topo.tier_of(&[GpuId(rack_start), GpuId(g)]) > Tier(1) {
                rack_start = g;
                r += 1;
            }
            server.push(s);
            rack.push(r);
        }
        let card = |i: usize, since: f64| {
            let j = &sc.jobs[i];
            JobCard {
                id: i as u32,
                name: j.name.clone(),
                gpus: j.gpus,
                model: sc.catalog.get(j.model).display.clone(),
                since_s: since,
            }
        };
        let runs = sim.runs();
        let queue = (0..runs.len())
            .filter(|&i| runs[i].status == JobStatus::Queued)
            .map(|i| card(i, runs[i].enqueued_at.as_secs_f64()))
            .collect();
        let coming = (0..runs.len())
            .filter(|&i| runs[i].status == JobStatus::Future)
            .map(|i| card(i, sc.jobs[i].submit.as_secs_f64()))
            .collect();
        let finished = stop == Stop::Finished;
        let (completed, avg_jct_s) = mean_jct(sim);
        Snapshot {
            now_s: sim.now().as_secs_f64(),
            finished,
            can_wait: sim.next_time().is_some(),
            owner: (0..n).map(|g| sim.cluster().owner(GpuId(g)).map(|j| j.0)).collect(),
            server,
            rack,
            queue,
            coming,
            names: sc.jobs.iter().map(|j| j.name.clone()).collect(),
            completed,
            avg_jct_s: finished.then_some(avg_jct_s),
        }
    }

    pub fn free(&self) -> u32 {
        self.owner.iter().filter(|o| o.is_none()).count() as u32
    }

    fn distance(&self, a: usize, b: usize) -> u32 {
        if self.server[a] == self.server[b] {
            0
        } else if self.rack[a] == self.rack[b] {
            1
        } else {
            2
        }
    }

    /// In words, how far apart a set of GPUs is.
    pub fn spans(&self, gpus: &[u32]) -> &'static str {
        let first = gpus.first().map_or(0, |&g| g as usize);
        match gpus.iter().map(|&g| self.distance(first, g as usize)).max().unwrap_or(0) {
            0 => "one server",
            1 => "two servers of one rack",
            _ => "both racks",
        }
    }

    /// The free GPUs a job of `n` GPUs dropped on `gpu` takes: the nearest to it (its
    /// server, then its rack, then the rest), in GPU order within each.
    pub fn around(&self, gpu: u32, n: u32) -> Vec<u32> {
        let g = gpu as usize;
        if g >= self.owner.len() {
            return Vec::new();
        }
        let mut free: Vec<u32> = (0..self.owner.len() as u32).filter(|&x| self.owner[x as usize].is_none()).collect();
        free.sort_by_key(|&x| (self.distance(g, x as usize), x));
        free.truncate(n as usize);
        free.sort_unstable();
        free
    }
}

/// The placement being prepared, shown before it is committed.
#[derive(Clone, Debug, PartialEq)]
pub struct Preview {
    pub slowdown: f64,
    pub spans: String,
}

/// Where the challenge is played, which decides whether its clock starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// A mouse or trackpad and a keyboard: the clock starts.
    Desktop,
    /// Projector mode: a teacher talks the class through each decision.
    Projector,
    /// A touch screen (no hover, a coarse pointer): choosing a job and its GPUs by touch,
    /// scrolling between the queue and the cluster, takes longer than 30 s allows.
    Touch,
}

impl Screen {
    /// Why the clock starts off on this screen, said beside its switch; `None` where it
    /// starts on.
    pub fn clock_off_why(self) -> Option<&'static str> {
        match self {
            Screen::Desktop => None,
            Screen::Projector => Some("No clock in projector mode: each decision waits while you talk it through."),
            Screen::Touch => Some("No clock on a touch screen: each decision waits for you."),
        }
    }
}

/// The clock: on (unless the screen says otherwise, see [`Screen`]), pausable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    pub on: bool,
    pub paused: bool,
    pub left: u32,
}

/// What the student does.
#[derive(Clone, Debug, PartialEq)]
pub enum Act {
    /// Choose a queued job (click, Enter); choosing it again lets it go.
    Select(u32),
    /// Start dragging a queued job.
    Grab(u32),
    /// The dragged job is over a GPU: show the GPUs it would take there.
    Hover(u32),
    /// The dragged job is dropped on a GPU.
    Drop(u32),
    EndDrag,
    /// Add or remove one GPU (click, Enter).
    Toggle(u32),
    Clear,
    Place,
    Wait,
    /// A second of the clock.
    Tick,
    ClockOn(bool),
    ClockPaused(bool),
    Predict(String),
    Reveal,
    WhatIf(usize, WhatIfKind),
    Guess(Guess),
    Restart,
}

/// The challenge's whole state.
#[derive(Clone, Debug)]
pub struct Challenge {
    scenario: Option<Scenario>,
    pub made: Vec<Made>,
    pub snap: Snapshot,
    pub job: Option<u32>,
    pub picked: Vec<u32>,
    pub dragging: bool,
    pub preview: Option<Result<Preview, String>>,
    pub error: Option<String>,
    pub clock: Clock,
    pub end: Option<End>,
    /// Where it is played: the clock's start, kept when the game starts again.
    pub screen: Screen,
}

/// Two states are equal when what they show is: the scenario never changes.
impl PartialEq for Challenge {
    fn eq(&self, o: &Challenge) -> bool {
        (
            &self.made,
            &self.snap,
            self.job,
            &self.picked,
            self.dragging,
            &self.preview,
            &self.error,
            self.clock,
            &self.end,
        ) == (&o.made, &o.snap, o.job, &o.picked, o.dragging, &o.preview, &o.error, o.clock, &o.end)
    }
}

impl Challenge {
    /// A new challenge at its first decision point; the clock starts on a desktop screen.
    pub fn new(screen: Screen) -> Challenge {
        let clock = Clock { on: screen.clock_off_why().is_none(), paused: false, left: DECISION_SECONDS };
        let mut c = Challenge {
            scenario: None,
            made: Vec::new(),
            snap: Snapshot::default(),
            job: None,
            picked: Vec::new(),
            dragging: false,
            preview: None,
            error: None,
            clock,
            end: None,
            screen,
        };
        match scenario() {
            Ok(s) => {
                c.scenario = Some(s);
                c.rerun();
            }
            Err(e) => c.error = Some(format!("The challenge's scenario does not build: {e}")),
        }
        c
    }

    pub fn choices(&self) -> Vec<Choice> {
        self.made.iter().map(|m| m.choice.clone()).collect()
    }

    /// Replays `choices` from the start; `None` without a scenario.
    pub fn replay(&self, choices: &[Choice], after: AfterChoices) -> Option<Result<Replayed, String>> {
        let s = self.scenario.clone()?;
        Some(replay_run::replay(s, choices, after).map_err(|e| e.to_string()))
    }

    /// Replays the decisions so far; a refused one is taken back and its reason shown.
    fn rerun(&mut self) {
        match self.replay(&self.choices(), AfterChoices::Pause) {
            None => {}
            Some(Ok(r)) => {
                self.snap = Snapshot::of(&r.sim, r.stop);
                if r.stop == Stop::Finished {
                    let you = self.snap.avg_jct_s.unwrap_or(f64::NAN);
                    self.end = Some(End::new(you));
                }
            }
            Some(Err(e)) => {
                self.made.pop();
                self.error = Some(e);
                self.rerun();
            }
        }
        self.job = None;
        self.picked.clear();
        self.preview = None;
        self.clock.left = DECISION_SECONDS;
    }

    fn job_gpus(&self, job: u32) -> u32 {
        self.snap.queue.iter().find(|j| j.id == job).map_or(0, |j| j.gpus)
    }

    /// Recomputes the preview of the placement being prepared: the slowdown it would run
    /// at, from the core's own estimate at this instant.
    fn refresh_preview(&mut self) {
        self.preview = match self.job {
            Some(job) if !self.picked.is_empty() => {
                let need = self.job_gpus(job);
                if self.picked.len() as u32 != need {
                    Some(Err(format!("{} of {need} GPUs chosen", self.picked.len())))
                } else {
                    self.replay(&self.choices(), AfterChoices::Pause).and_then(|r| r.ok()).map(|r| {
                        let gpus: Vec<GpuId> = self.picked.iter().map(|&g| GpuId(g)).collect();
                        let slowdown = replay_run::slowdown_now(&r.sim, JobId(job), &gpus);
                        if slowdown.is_finite() {
                            Ok(Preview { slowdown, spans: self.snap.spans(&self.picked).into() })
                        } else {
                            Err("those GPUs cannot take this job now".into())
                        }
                    })
                }
            }
            _ => None,
        };
    }

    fn describe(&self, job: u32, gpus: &[u32]) -> String {
        let name = self.snap.names.get(job as usize).cloned().unwrap_or_default();
        let list = gpus.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        match &self.preview {
            Some(Ok(p)) => format!("job {name} on GPUs {list} ({}, {:.2}× ideal)", p.spans, p.slowdown),
            _ => format!("job {name} on GPUs {list}"),
        }
    }

    fn commit(&mut self, choice: Choice, text: String) {
        self.error = None;
        self.made.push(Made { choice, at_s: self.snap.now_s, text });
        self.rerun();
    }

    /// Time ran out: wait if anything is to come, else `fifo`'s rule decides.
    fn time_out(&mut self) {
        if self.snap.can_wait {
            return self.commit(Choice::Wait { for_s: None }, "time ran out: waited".into());
        }
        let free = self.snap.free();
        if let Some(j) = self.snap.queue.iter().find(|j| j.gpus <= free).cloned() {
            let gpus: Vec<u32> = (0..self.snap.owner.len() as u32)
                .filter(|&g| self.snap.owner[g as usize].is_none())
                .take(j.gpus as usize)
                .collect();
            let text = format!("time ran out: job {} took the first free GPUs", j.name);
            self.commit(Choice::Place { job: JobId(j.id), gpus: gpus.into_iter().map(GpuId).collect() }, text);
        }
    }

    /// An act on the end, once there is one.
    fn end_act(&mut self, act: EndAct) {
        if let Some(end) = &mut self.end {
            end.apply(act, &self.made, self.scenario.as_ref());
        }
    }

    /// The state after `act`. Acts that do not apply now change nothing.
    pub fn apply(&mut self, act: Act) {
        let playing = !self.snap.finished && self.scenario.is_some();
        match act {
            Act::Select(job) if playing => {
                self.job = (self.job != Some(job) && self.job_gpus(job) > 0).then_some(job);
                self.picked.clear();
                self.refresh_preview();
            }
            Act::Grab(job) if playing && self.job_gpus(job) > 0 => {
                if self.job != Some(job) {
                    self.job = Some(job);
                    self.picked.clear();
                    self.refresh_preview();
                }
                self.dragging = true;
            }
            Act::Hover(gpu) | Act::Drop(gpu) if playing && self.dragging => {
                if let Some(job) = self.job {
                    let picked = self.snap.around(gpu, self.job_gpus(job));
                    if picked != self.picked {
                        self.picked = picked;
                        self.refresh_preview();
                    }
                }
                if matches!(act, Act::Drop(_)) {
                    self.dragging = false;
                }
            }
            Act::EndDrag => self.dragging = false,
            Act::Toggle(gpu) if playing && self.job.is_some() => {
                if let Some(i) = self.picked.iter().position(|&g| g == gpu) {
                    self.picked.remove(i);
                } else if self.snap.owner.get(gpu as usize) == Some(&None) {
                    self.picked.push(gpu);
                    self.picked.sort_unstable();
                }
                self.refresh_preview();
            }
            Act::Clear => {
                self.picked.clear();
                self.refresh_preview();
            }
            Act::Place if playing => {
                if let (Some(job), true) = (self.job, matches!(self.preview, Some(Ok(_)))) {
                    let text = self.describe(job, &self.picked);
                    let gpus = self.picked.iter().map(|&g| GpuId(g)).collect();
                    self.commit(Choice::Place { job: JobId(job), gpus }, text);
                }
            }
            Act::Wait if playing && self.snap.can_wait => {
                self.commit(Choice::Wait { for_s: None }, "waited for the next event".into())
            }
            Act::Tick if playing && self.clock.on && !self.clock.paused => {
                self.clock.left = self.clock.left.saturating_sub(1);
                if self.clock.left == 0 {
                    self.time_out();
                }
            }
            Act::ClockOn(on) => self.clock = Clock { on, paused: false, left: DECISION_SECONDS },
            Act::ClockPaused(p) => self.clock.paused = p,
            Act::Predict(p) => self.end_act(EndAct::Predict(p)),
            Act::Reveal => self.end_act(EndAct::Reveal),
            Act::WhatIf(index, kind) => self.end_act(EndAct::WhatIf(index, kind)),
            Act::Guess(g) => self.end_act(EndAct::Guess(g)),
            Act::Restart => {
                // The clock as the student left it: on or off, whatever the screen.
                let on = self.clock.on;
                *self = Challenge::new(self.screen);
                self.clock.on = on;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
