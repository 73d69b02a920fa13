//! The discrete-event engine.
//!
//! Time advances from one instant to the next at which something happens: a submission, a
//! completion, or a wake-up a policy asked for. At each instant the engine, in this fixed
//! order, (1) completes the jobs due then, (2) queues the jobs submitted then, (3) asks the
//! policy for decisions and applies them, asking again until a pass decides nothing, and
//! (4) recomputes the iteration time of every running job whose share of the network
//! changed. Timed events at one instant run in the order they were scheduled (a sequence
//! number breaks ties), so a run is a pure function of its inputs.
//!
//! Rings that span servers share the network links max-min fairly: whenever a ring starts or
//! stops, the cluster re-solves the rates of every ring coupled to it through shared links
//! ([`ClusterState::reshare`]), which can move rings on links the change did not touch.
//!
//! A job's progress is measured in iterations. Between changes it advances at
//! `1 / iteration time`; when its placement or its share of the network changes, the engine
//! credits the iterations done so far at the old rate and schedules the completion anew
//! (older completion events are recognised as stale by an epoch counter).
//!
//! The caller owns the clock: [`Simulation::step`] runs one instant,
//! [`Simulation::step_until`] runs to a time, [`Simulation::run`] runs to the end.
//!
//! The policy's decisions are applied, each checked first, in `engine/apply.rs`.

use crate::cluster::{ClusterState, JobId};
use crate::comm::shape_of;
use crate::event::{Observer, SimEvent};
use crate::metrics::{Summary, Timeline};
use crate::policy::{Decision, Policy, View};
use crate::scenario::{JobRun, JobStatus, Scenario};
use crate::time::SimTime;
use crate::topology::LinkId;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

mod apply;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum TimedKind {
    Completion { job: JobId, epoch: u32 },
    Wake,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Timed {
    time: SimTime,
    seq: u64,
    kind: TimedKind,
}

/// The mutable state of a run, apart from the policy and the observers.
struct State {
    now: SimTime,
    runs: Vec<JobRun>,
    cluster: ClusterState,
    queued: BTreeSet<JobId>,
    heap: BinaryHeap<Reverse<Timed>>,
    seq: u64,
    next_arrival: usize,
    /// Running jobs whose share of the network changed this instant.
    dirty: Vec<JobId>,
    /// Scratch: rings whose rate the last re-solve moved.
    moved: Vec<JobId>,
    dirty_mark: Vec<bool>,
    busy_gpus: u32,
    running: u32,
    finished: u32,
    timeline: Timeline,
    tier_placements: Vec<u64>,
    preemptions: u64,
    events: u64,
    stalled: bool,
}

/// The policy's read-only window on a run. A free function rather than a method so that
/// it borrows only the scenario and the state, leaving the policy free to be borrowed
/// mutably beside it.
fn view_of<'a>(scenario: &'a Scenario, st: &'a State) -> View<'a> {
    View {
        now: st.now,
        topo: &scenario.topology,
        catalog: &scenario.catalog,
        comm: &scenario.comm,
        jobs: &scenario.jobs,
        runs: &st.runs,
        cluster: &st.cluster,
        queued: &st.queued,
        seed: scenario.seed,
        tenants: &scenario.tenants,
    }
}

/// One simulation run.
pub struct Simulation {
    scenario: Scenario,
    policy: Box<dyn Policy>,
    observers: Vec<Box<dyn Observer>>,
    /// The events of the current instant, kept while [`Simulation::step_observed`] runs it
    /// for the observers it borrows (they cannot be stored in the simulation).
    held: Option<Vec<SimEvent>>,
    st: State,
    decisions: Vec<Decision>,
}

impl Simulation {
    pub fn new(scenario: Scenario, policy: Box<dyn Policy>) -> Simulation {
        for (i, j) in scenario.jobs.iter().enumerate() {
            assert_eq!(j.id, JobId(i as u32), "jobs are numbered in order");
        }
        assert!(scenario.jobs.windows(2).all(|w| w[0].submit <= w[1].submit), "jobs are sorted by submission time");
        let n = scenario.jobs.len();
        let st = State {
            now: SimTime::ZERO,
            runs: vec![JobRun::new(); n],
            cluster: ClusterState::new(&scenario.topology),
            queued: BTreeSet::new(),
            heap: BinaryHeap::new(),
            seq: 0,
            next_arrival: 0,
            dirty: Vec::new(),
            moved: Vec::new(),
            dirty_mark: vec![false; n],
            busy_gpus: 0,
            running: 0,
            finished: 0,
            timeline: Timeline::default(),
            tier_placements: vec![0; scenario.topology.tier_count() as usize],
            preemptions: 0,
            events: 0,
            stalled: false,
        };
        Simulation { scenario, policy, observers: Vec::new(), held: None, st, decisions: Vec::new() }
    }

    pub fn add_observer(&mut self, observer: Box<dyn Observer>) {
        self.observers.push(observer);
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn policy_spec(&self) -> String {
        self.policy.spec()
    }

    /// The delay timers the policy started with ([`Policy::delay_timers`]).
    pub fn policy_delay_timers(&self) -> Vec<f64> {
        self.policy.delay_timers()
    }

    pub fn now(&self) -> SimTime {
        self.st.now
    }

    pub fn runs(&self) -> &[JobRun] {
        &self.st.runs
    }

    pub fn cluster(&self) -> &ClusterState {
        &self.st.cluster
    }

    /// Jobs completed or rejected, out of all jobs.
    pub fn progress(&self) -> (u32, u32) {
        (self.st.finished, self.scenario.jobs.len() as u32)
    }

    /// Events handled so far (arrivals, completions, wake-ups, placements, preemptions).
    pub fn events(&self) -> u64 {
        self.st.events
    }

    pub fn is_done(&self) -> bool {
        self.next_time().is_none()
    }

    /// The next instant at which something will happen, if any.
    pub fn next_time(&self) -> Option<SimTime> {
        let timed = self.st.heap.peek().map(|Reverse(t)| t.time);
        let arrival = self.scenario.jobs.get(self.st.next_arrival).map(|j| j.submit);
        match (timed, arrival) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs the next instant. Returns its time, or `None` when nothing is left to happen.
    pub fn step(&mut self) -> Option<SimTime> {
        let t = self.next_time()?;
        debug_assert!(t >= self.st.now, "time never goes back");
        self.st.now = t;
        while let Some(Reverse(top)) = self.st.heap.peek().copied() {
            if top.time != t {
                break;
            }
            self.st.heap.pop();
            self.st.events += 1;
            match top.kind {
                TimedKind::Completion { job, epoch } => {
                    let run = &self.st.runs[job.0 as usize];
                    if run.status == JobStatus::Running && run.epoch == epoch {
                        self.complete(job);
                    }
                }
                TimedKind::Wake => {}
            }
        }
        while let Some(job) = self.scenario.jobs.get(self.st.next_arrival) {
            if job.submit != t {
                break;
            }
            let id = job.id;
            self.st.next_arrival += 1;
            self.st.events += 1;
            self.arrive(id);
        }
        self.schedule_passes();
        self.refresh_dirty();
        self.st.timeline.record(t, self.st.busy_gpus, self.st.queued.len() as u32, self.st.running);
        if self.next_time().is_none() && self.st.finished < self.scenario.jobs.len() as u32 {
            // Nothing will ever happen again, yet jobs wait: the policy left them queued
            // with no wake-up. Report them as unfinished instead of waiting forever.
            self.st.stalled = true;
        }
        Some(t)
    }

    /// Runs the next instant as [`Simulation::step`] does, then shows its events, in order,
    /// to `observers`, borrowed for the step only: a caller keeps its observers and reads
    /// them after the run, with no shared ownership. They see each event after the rest of
    /// its instant has run, which an observer cannot tell: it sees only times and events.
    pub fn step_observed(&mut self, observers: &mut [&mut dyn Observer]) -> Option<SimTime> {
        if observers.is_empty() {
            return self.step();
        }
        self.held = Some(Vec::new());
        let t = self.step();
        for event in self.held.take().expect("held for this step") {
            for o in observers.iter_mut() {
                o.observe(self.st.now, &event);
            }
        }
        t
    }

    /// Runs to the end as [`Simulation::run`] does, showing every event to `observers`
    /// ([`Simulation::step_observed`]).
    pub fn run_observed(&mut self, observers: &mut [&mut dyn Observer]) -> Summary {
        while self.step_observed(observers).is_some() {}
        self.summary()
    }

    /// Runs every instant up to and including `until`.
    pub fn step_until(&mut self, until: SimTime) {
        while self.next_time().is_some_and(|t| t <= until) {
            self.step();
        }
    }

    /// Runs to the end and returns the summary.
    pub fn run(&mut self) -> Summary {
        while self.step().is_some() {}
        self.summary()
    }

    /// The metrics of the run so far (final once [`Simulation::is_done`]).
    pub fn summary(&self) -> Summary {
        Summary::compute(
            &self.policy.spec(),
            &self.scenario,
            &self.st.runs,
            &self.st.timeline,
            &self.st.tier_placements,
            self.st.preemptions,
        )
    }

    pub fn timeline(&self) -> &Timeline {
        &self.st.timeline
    }

    /// Whether the run ended with jobs the policy never placed.
    pub fn stalled(&self) -> bool {
        self.st.stalled
    }

    // -----------------------------------------------------------------------------------

    /// Sends an event to the observers and (except rate changes) to the policy.
    fn emit(&mut self, event: SimEvent) {
        for o in &mut self.observers {
            o.observe(self.st.now, &event);
        }
        if !matches!(event, SimEvent::RateChanged { .. }) {
            self.policy.on_event(&event, &view_of(&self.scenario, &self.st));
        }
        // Kept last, so the event moves into the buffer instead of being copied.
        if let Some(held) = &mut self.held {
            held.push(event);
        }
    }

    fn push_timed(&mut self, time: SimTime, kind: TimedKind) {
        self.st.seq += 1;
        self.st.heap.push(Reverse(Timed { time, seq: self.st.seq, kind }));
    }

    fn arrive(&mut self, id: JobId) {
        let job = &self.scenario.jobs[id.0 as usize];
        let cluster_gpus = self.scenario.topology.gpu_count();
        if job.gpus > cluster_gpus || job.ideal_iter_s.is_none() {
            let gpus = job.gpus;
            let run = &mut self.st.runs[id.0 as usize];
            run.status = JobStatus::Rejected;
            run.end = Some(self.st.now);
            self.st.finished += 1;
            self.emit(SimEvent::Rejected { job: id, gpus, cluster_gpus });
            return;
        }
        let now = self.st.now;
        let run = &mut self.st.runs[id.0 as usize];
        run.status = JobStatus::Queued;
        run.enqueued_at = now;
        self.st.queued.insert(id);
        self.emit(SimEvent::Arrived { job: id });
    }

    /// Re-solves the network shares coupled to `links` and marks the rings that moved.
    fn reshare(st: &mut State, links: &[LinkId], except: Option<JobId>) {
        if links.is_empty() {
            return;
        }
        let mut moved = std::mem::take(&mut st.moved);
        moved.clear();
        st.cluster.reshare(links, &mut moved);
        for &j in &moved {
            if Some(j) != except && !st.dirty_mark[j.0 as usize] {
                st.dirty_mark[j.0 as usize] = true;
                st.dirty.push(j);
            }
        }
        st.moved = moved;
    }

    fn schedule_completion(&mut self, job: JobId) {
        let iterations = self.scenario.jobs[job.0 as usize].iterations;
        let now = self.st.now;
        let run = &mut self.st.runs[job.0 as usize];
        run.epoch += 1;
        let remaining = (iterations - run.done).max(0.0);
        let start = now.max(run.resume_at);
        let at = start + SimTime::from_secs_f64_ceil(remaining * run.iter_s);
        let epoch = run.epoch;
        self.push_timed(at, TimedKind::Completion { job, epoch });
    }

    /// Credits progress up to now and takes the job off its GPUs and links.
    fn stop(&mut self, job: JobId) {
        let topo = &self.scenario.topology;
        let now = self.st.now;
        let run = &mut self.st.runs[job.0 as usize];
        run.done = run.progress_at(now);
        run.updated = now;
        run.run_total = run.run_total + (now - run.last_start);
        run.restore_total = run.restore_total + (run.resume_at.min(now) - run.last_start);
        run.status = JobStatus::Queued;
        run.epoch += 1;
        let gpus = std::mem::take(&mut run.gpus);
        let links = std::mem::take(&mut run.links);
        self.st.cluster.release(topo, &gpus);
        self.st.cluster.remove_ring(job);
        Self::reshare(&mut self.st, &links, None);
        self.st.busy_gpus -= gpus.len() as u32;
        self.st.running -= 1;
    }

    fn complete(&mut self, job: JobId) {
        self.stop(job);
        let iterations = self.scenario.jobs[job.0 as usize].iterations;
        let now = self.st.now;
        let run = &mut self.st.runs[job.0 as usize];
        run.status = JobStatus::Completed;
        run.done = iterations;
        run.end = Some(now);
        self.st.finished += 1;
        self.emit(SimEvent::Completed { job });
    }

    /// Recomputes the iteration time of running jobs whose share of the network changed this
    /// instant.
    fn refresh_dirty(&mut self) {
        let mut dirty = std::mem::take(&mut self.st.dirty);
        dirty.sort_unstable();
        for &job in &dirty {
            self.st.dirty_mark[job.0 as usize] = false;
            if self.st.runs[job.0 as usize].status != JobStatus::Running {
                continue;
            }
            let topo = &self.scenario.topology;
            let run = &self.st.runs[job.0 as usize];
            let shape = shape_of(topo, &run.gpus, &run.links).with_share(self.st.cluster.ring_rate(job));
            let model = self.scenario.catalog.get(self.scenario.jobs[job.0 as usize].model);
            let iter_s = self.scenario.comm.iteration_time(model, &shape);
            if iter_s == run.iter_s {
                continue;
            }
            let now = self.st.now;
            let run = &mut self.st.runs[job.0 as usize];
            run.done = run.progress_at(now);
            run.updated = now;
            run.iter_s = iter_s;
            self.schedule_completion(job);
            self.emit(SimEvent::RateChanged { job, iter_s });
        }
        dirty.clear();
        self.st.dirty = dirty;
    }
}
