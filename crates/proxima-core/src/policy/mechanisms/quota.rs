//! Quota-aware scheduling (`quota=on`, an option of every policy; `dally` fits these rules
//! into its own order in `dally/quotas.rs`): each tenant is guaranteed its quota of GPUs,
//! may borrow idle GPUs beyond it, and gives borrowed GPUs back when a tenant within its
//! quota needs them.
//!
//! The semantics are Kubernetes Kueue's for ClusterQueues in one cohort with
//! `reclaimWithinCohort: Any` and no borrowing limit (KEP-83, "Workload preemption",
//! kubernetes-sigs/kueue `keps/83-workload-preemption/README.md`), which are also the YARN
//! capacity scheduler's (a queue's capacity is guaranteed, idle capacity goes to queues
//! beyond theirs, and preemption takes it back from queues over their capacity). Here a
//! tenant is a ClusterQueue, its quota the nominal quota, the cluster the cohort, and GPUs
//! the only resource; quotas are counts of GPUs, as Kueue's are.
//!
//! - A tenant *uses* the GPUs its running jobs hold; it *borrows* when it uses more than its
//!   quota. A queued job is *within quota* when its tenant's use plus its GPUs is at most the
//!   quota (Kueue: it fits without borrowing).
//! - **Order.** Jobs within quota go before jobs that would borrow (KEP-83, "Sorting
//!   Workloads that are heads of ClusterQueues": flavours that don't borrow first); within
//!   each class a policy keeps its own order (first come first served, least attained
//!   service, shortest remaining time).
//! - **No lending of claimed GPUs.** A job may borrow only if the GPUs left free after it still
//!   hold every job within quota that waits (KEP-83, "Admission": once a workload that fits
//!   without borrowing was considered, nobody borrows in that cycle). A job within quota waiting
//!   for a tighter placement (`strict`, `slurm`) keeps its GPUs from borrowers.
//! - **Reclaim.** A job within quota that does not fit in the free GPUs takes GPUs back from
//!   tenants that borrow ([`QuotaBook::reclaim_victims`], KEP-83 "Preemption" steps 2–5):
//!   candidates are the running jobs of other tenants that borrow, the most recently started
//!   first ("shortest running time first"); they are taken in that order, skipping those of a
//!   tenant no longer borrowing once the ones taken are gone, until the job fits; then, in the
//!   reverse order, each is given back if the job still fits without it, so the set is
//!   minimal. Victims are checkpointed and pay the policy's restore cost, and neither
//!   `min_run_s` nor `max_preempt` protects them: a guarantee that waits for guard rails is
//!   not one.
//!
//! As long as the quotas add up to no more than the cluster (the tenant spec checks it), a
//! job within quota that does not fit can always reclaim enough: the GPUs held within quota
//! by other tenants are at most the cluster less its own tenant's quota. So, at the end of
//! every instant at which the policy decides, **no job within its tenant's quota waits for
//! free GPUs while another tenant borrows**: for every such queued job of `g` GPUs, either
//! `g` GPUs are free or no tenant uses more than its quota. Without backfill this holds for
//! the first such job in the queue's order only: the jobs behind it wait for it, as every
//! job does in a queue without backfill, and it may itself wait with enough GPUs free for a
//! tighter placement (`strict:backfill=off`), which reclaim, counting GPUs, does not make.
//! The property tests check this invariant on random clusters, traces, tenants and policies
//! (`tests/integration/tenant_invariants.rs`).
//!
//! Counting, not placing: quotas count GPUs and reclaim frees enough of them; where the job
//! then lands is the policy's business (a consolidating policy may still find the freed GPUs
//! scattered). The first-come-first-served policies take their next step from
//! [`next_step`]; `tiresias` and `srtf`, which decide by walking every job in priority
//! order, admit in two passes ([`admit_two_phase`]): first each tenant's jobs in that order
//! within its quota, then everyone's in that order in what is left.

use crate::cluster::JobId;
use crate::event::{Reason, SimEvent};
use crate::policy::{Decision, View};
use crate::tenants::TenantId;
use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet};

/// A tenant's running jobs, the most recently started first.
type NewestFirst<'a> = std::iter::Rev<std::collections::btree_set::Iter<'a, (SimTime, JobId)>>;

/// Per tenant, the GPUs its running jobs hold and those jobs by start time, kept up to date
/// from the engine's events.
#[derive(Clone, Debug, Default)]
pub struct QuotaBook {
    usage: Vec<u32>,
    running: Vec<BTreeSet<(SimTime, JobId)>>,
}

impl QuotaBook {
    fn ensure(&mut self, t: TenantId) {
        let need = t.0 as usize + 1;
        if self.usage.len() < need {
            self.usage.resize(need, 0);
            self.running.resize(need, BTreeSet::new());
        }
    }

    /// Follows placements, preemptions and completions.
    pub fn on_event(&mut self, event: &SimEvent, view: &View) {
        match *event {
            SimEvent::Placed { job, .. } => {
                let j = view.job(job);
                self.ensure(j.tenant);
                self.usage[j.tenant.0 as usize] += j.gpus;
                self.running[j.tenant.0 as usize].insert((view.run(job).last_start, job));
            }
            SimEvent::Preempted { job, .. } | SimEvent::Completed { job } => {
                let j = view.job(job);
                self.ensure(j.tenant);
                if self.running[j.tenant.0 as usize].remove(&(view.run(job).last_start, job)) {
                    self.usage[j.tenant.0 as usize] -= j.gpus;
                }
            }
            _ => {}
        }
    }

    /// GPUs the tenant's running jobs hold.
    pub fn usage(&self, t: TenantId) -> u32 {
        self.usage.get(t.0 as usize).copied().unwrap_or(0)
    }

    /// GPUs the tenant may still take within its quota.
    pub fn headroom(&self, view: &View, t: TenantId) -> u32 {
        view.tenants.quota(t).saturating_sub(self.usage(t))
    }

    /// GPUs the tenant holds beyond its quota.
    pub fn borrowed(&self, view: &View, t: TenantId) -> u32 {
        self.usage(t).saturating_sub(view.tenants.quota(t))
    }

    /// Whether the tenant uses more than its quota.
    pub fn is_borrowing(&self, view: &View, t: TenantId) -> bool {
        self.borrowed(view, t) > 0
    }

    /// Whether a queued job fits within its tenant's quota now.
    pub fn within_quota(&self, view: &View, job: JobId) -> bool {
        let j = view.job(job);
        j.gpus <= self.headroom(view, j.tenant)
    }

    /// Whether `victim` may be checkpointed to make room for `for_job` under quotas: a job
    /// of `for_job`'s own tenant always may (the policy's own rules decide), another tenant's
    /// only if `for_job` is within its quota and that tenant still borrows once the jobs
    /// already chosen (`taken`) are gone. What `dally`'s preemption asks of each candidate.
    pub fn may_take(&self, view: &View, for_job: JobId, victim: JobId, taken: &[JobId]) -> bool {
        let (mine, theirs) = (view.job(for_job).tenant, view.job(victim).tenant);
        if mine == theirs {
            return true;
        }
        if !self.within_quota(view, for_job) {
            return false;
        }
        let gone: u32 = taken.iter().filter(|&&v| view.job(v).tenant == theirs).map(|&v| view.job(v).gpus).sum();
        self.usage(theirs).saturating_sub(gone) > view.tenants.quota(theirs)
    }

    /// The running jobs to checkpoint so that `job`, within its tenant's quota, fits in the
    /// free GPUs; `None` if it fits already, is not within quota, or borrowers do not hold
    /// enough (see the module documentation for the order and the minimal set).
    pub fn reclaim_victims(&self, view: &View, job: JobId) -> Option<Vec<JobId>> {
        let j = view.job(job);
        let free = view.cluster.free_count();
        if j.gpus <= free || !self.within_quota(view, job) {
            return None;
        }
        let need = j.gpus - free;
        // The running jobs of borrowing tenants, newest first, merged across tenants.
        let mut heads: Vec<(TenantId, NewestFirst<'_>)> = self
            .running
            .iter()
            .enumerate()
            .map(|(t, set)| (TenantId(t as u32), set.iter().rev()))
            .filter(|(t, _)| *t != j.tenant && self.is_borrowing(view, *t))
            .collect();
        let mut peeked: Vec<Option<(SimTime, JobId)>> = heads.iter_mut().map(|(_, it)| it.next().copied()).collect();
        let mut left: BTreeMap<TenantId, u32> = heads.iter().map(|(t, _)| (*t, self.usage(*t))).collect();
        let mut victims = Vec::new();
        let mut freed = 0u32;
        while freed < need {
            let newest = (0..heads.len()).filter(|&i| peeked[i].is_some()).max_by_key(|&i| peeked[i])?;
            let (_, victim) = peeked[newest].expect("chosen among present heads");
            peeked[newest] = heads[newest].1.next().copied();
            let t = heads[newest].0;
            let usage = left.get_mut(&t).expect("every head's tenant");
            if *usage <= view.tenants.quota(t) {
                continue;
            }
            let g = view.job(victim).gpus;
            *usage -= g;
            freed += g;
            victims.push(victim);
        }
        // Give back, newest choice first, every victim the job does not need.
        for i in (0..victims.len()).rev() {
            let g = view.job(victims[i]).gpus;
            if freed - g >= need {
                freed -= g;
                victims.remove(i);
            }
        }
        Some(victims)
    }
}

/// The queue of a first-come-first-served policy under quotas: queued jobs by tenant, then
/// by (a kind the policy chooses, GPUs), each group in submission order.
#[derive(Clone, Debug, Default)]
pub struct QuotaQueue {
    groups: Vec<BTreeMap<(u8, u32), BTreeSet<JobId>>>,
    key: BTreeMap<JobId, (TenantId, u8, u32)>,
}

impl QuotaQueue {
    pub fn insert(&mut self, job: JobId, tenant: TenantId, kind: u8, gpus: u32) {
        self.remove(job);
        if self.groups.len() <= tenant.0 as usize {
            self.groups.resize(tenant.0 as usize + 1, BTreeMap::new());
        }
        self.groups[tenant.0 as usize].entry((kind, gpus)).or_default().insert(job);
        self.key.insert(job, (tenant, kind, gpus));
    }

    pub fn remove(&mut self, job: JobId) {
        if let Some((t, kind, gpus)) = self.key.remove(&job) {
            let groups = &mut self.groups[t.0 as usize];
            if let Some(set) = groups.get_mut(&(kind, gpus)) {
                set.remove(&job);
                if set.is_empty() {
                    groups.remove(&(kind, gpus));
                }
            }
        }
    }

    /// The kind a queued job was filed under.
    pub fn kind(&self, job: JobId) -> Option<u8> {
        self.key.get(&job).map(|&(_, k, _)| k)
    }

    /// Files arrivals and requeued jobs under kind 0 and drops placed ones.
    pub fn track(&mut self, event: &SimEvent, view: &View) {
        match *event {
            SimEvent::Arrived { job } | SimEvent::Preempted { job, .. } => {
                let j = view.job(job);
                self.insert(job, j.tenant, 0, j.gpus);
            }
            SimEvent::Placed { job, .. } => self.remove(job),
            _ => {}
        }
    }

    /// The earliest-submitted queued job whose group passes `pick(tenant, kind, GPUs)`.
    pub fn earliest(&self, pick: impl Fn(TenantId, u8, u32) -> bool) -> Option<(JobId, u32)> {
        self.groups
            .iter()
            .enumerate()
            .flat_map(|(t, groups)| {
                groups.iter().map(move |(&(kind, gpus), set)| (TenantId(t as u32), kind, gpus, set))
            })
            .filter(|&(t, kind, gpus, _)| pick(t, kind, gpus))
            .filter_map(|(_, _, gpus, set)| set.first().map(|&j| (j, gpus)))
            .min()
    }

    /// The most GPUs a queued job passing `pick` asks for.
    pub fn largest(&self, pick: impl Fn(TenantId, u8, u32) -> bool) -> Option<u32> {
        self.groups
            .iter()
            .enumerate()
            .flat_map(|(t, groups)| groups.keys().map(move |&(kind, gpus)| (TenantId(t as u32), kind, gpus)))
            .filter(|&(t, kind, gpus)| pick(t, kind, gpus))
            .map(|(_, _, gpus)| gpus)
            .max()
    }
}

/// What a first-come-first-served policy does next under quotas.
#[derive(Clone, Debug, PartialEq)]
pub enum QuotaStep {
    /// Place this job (of this many GPUs) by the policy's own placement rule.
    Place(JobId, u32),
    /// Checkpoint `victims` to give `for_job` back its tenant's GPUs; it is placed in a later
    /// pass, when they are free.
    Reclaim { for_job: JobId, victims: Vec<JobId> },
}

/// The next step of a first-come-first-served policy under quotas. `fits(GPUs, kind)` says
/// whether a job could be placed now by the policy's rule (enough free GPUs for `fifo`, its
/// tier free for `strict`, ...). With backfill: the earliest job within quota that fits;
/// else a reclaim for the earliest job within quota short of free GPUs; else the earliest
/// job that fits by borrowing without taking GPUs a waiting job within quota needs. Without
/// backfill the first job in that order (within quota first) is placed, reclaimed for, or
/// blocks the rest.
pub fn next_step(
    queue: &QuotaQueue,
    book: &QuotaBook,
    view: &View,
    backfill: bool,
    fits: impl Fn(u32, u8) -> bool,
) -> Option<QuotaStep> {
    let free = view.cluster.free_count();
    let room = |t: TenantId| book.headroom(view, t);
    let kind = |job: JobId| queue.kind(job).unwrap_or(0);
    if !backfill {
        if let Some((job, n)) = queue.earliest(|t, _, g| g <= room(t)) {
            if fits(n, kind(job)) {
                return Some(QuotaStep::Place(job, n));
            }
            return book.reclaim_victims(view, job).map(|victims| QuotaStep::Reclaim { for_job: job, victims });
        }
        let (job, n) = queue.earliest(|_, _, _| true)?;
        return fits(n, kind(job)).then_some(QuotaStep::Place(job, n));
    }
    if let Some((job, n)) = queue.earliest(|t, k, g| g <= room(t) && fits(g, k)) {
        return Some(QuotaStep::Place(job, n));
    }
    if let Some((job, _)) = queue.earliest(|t, _, g| g <= room(t) && g > free) {
        if let Some(victims) = book.reclaim_victims(view, job) {
            return Some(QuotaStep::Reclaim { for_job: job, victims });
        }
    }
    let reserve = queue.largest(|t, _, g| g <= room(t)).unwrap_or(0) as u64;
    queue
        .earliest(|t, k, g| g > room(t) && g as u64 + reserve <= free as u64 && fits(g, k))
        .map(|(job, n)| QuotaStep::Place(job, n))
}

/// The checkpoints of a reclaim, each paying `restore_s`.
pub fn reclaim(for_job: JobId, victims: &[JobId], restore_s: f64, out: &mut Vec<Decision>) {
    for &job in victims {
        out.push(Decision::Preempt { job, restore_s, reason: Reason::Reclaimed { for_job, cost_s: restore_s } });
    }
}

/// Which jobs run under quotas when a policy admits by walking every job in its priority
/// order (`order`: job, GPUs, tenant; running and waiting alike): first, each tenant's jobs
/// in that order while they fit within its quota and the cluster; then every job not yet
/// admitted, in that order, while it fits in what is left. With no quotas set this is the
/// plain greedy walk. `admitted` is filled with one flag per job of `order`.
pub fn admit_two_phase(view: &View, order: &[(JobId, u32, TenantId)], admitted: &mut Vec<bool>) {
    admitted.clear();
    admitted.resize(order.len(), false);
    let mut room = view.topo.gpu_count() as u64;
    // Per tenant, what its quota still allows in this walk.
    let mut left: Vec<u64> = Vec::new();
    for (i, &(_, gpus, t)) in order.iter().enumerate() {
        let t = t.0 as usize;
        if left.len() <= t {
            let known = left.len();
            left.extend((known..=t).map(|k| view.tenants.quota(TenantId(k as u32)) as u64));
        }
        let g = gpus as u64;
        if g <= left[t] && g <= room {
            left[t] -= g;
            room -= g;
            admitted[i] = true;
            if room == 0 {
                return;
            }
        }
    }
    for (i, &(_, gpus, _)) in order.iter().enumerate() {
        if room == 0 {
            return;
        }
        if !admitted[i] && gpus as u64 <= room {
            room -= gpus as u64;
            admitted[i] = true;
        }
    }
}

/// Restore cost of a checkpoint under quotas for policies that checkpoint nothing of their
/// own: `dally`'s default.
pub const DEFAULT_RESTORE_S: f64 = 30.0;

/// What a first-come-first-served policy keeps under `quota=on`: the book, the queue by
/// tenant, and what a reclaimed job pays to restore.
#[derive(Clone, Debug)]
pub struct FcfsQuota {
    pub book: QuotaBook,
    pub queue: QuotaQueue,
    pub restore_s: f64,
}

impl FcfsQuota {
    pub fn new(restore_s: f64) -> FcfsQuota {
        FcfsQuota { book: QuotaBook::default(), queue: QuotaQueue::default(), restore_s }
    }

    /// Reads `quota=on|off` (default off) and, for a policy with no restore cost of its own
    /// (`own_restore_s` is `None`), `restore_s` (default [`DEFAULT_RESTORE_S`]; accepted and
    /// unused with `quota=off`, so that a sweep can name every policy alike).
    pub fn from_spec(
        spec: &mut crate::policy::PolicySpec,
        own_restore_s: Option<f64>,
    ) -> Result<Option<FcfsQuota>, crate::error::InputError> {
        let on = spec.take_bool("quota", false)?;
        let restore_s = match own_restore_s {
            Some(r) => r,
            None => spec.take_f64("restore_s", DEFAULT_RESTORE_S, 0.0)?,
        };
        Ok(on.then(|| FcfsQuota::new(restore_s)))
    }

    /// The options' part of a canonical spec: `,quota=on` (and the restore cost for a policy
    /// that has none of its own); nothing with quotas off, so specs stay as they were.
    pub fn spec_suffix(quota: &Option<FcfsQuota>, with_restore: bool) -> String {
        match quota {
            None => String::new(),
            Some(q) if with_restore => format!(",quota=on,restore_s={}", q.restore_s),
            Some(_) => ",quota=on".to_string(),
        }
    }

    /// Follows the engine's events: the book, and the queue under kind 0.
    pub fn on_event(&mut self, event: &SimEvent, view: &View) {
        self.book.on_event(event, view);
        self.queue.track(event, view);
    }

    /// The next step ([`next_step`]); a reclaim's checkpoints go to `out` at once.
    pub fn next(
        &self,
        view: &View,
        backfill: bool,
        fits: impl Fn(u32, u8) -> bool,
        out: &mut Vec<Decision>,
    ) -> Option<(JobId, u32)> {
        match next_step(&self.queue, &self.book, view, backfill, fits)? {
            QuotaStep::Place(job, n) => Some((job, n)),
            QuotaStep::Reclaim { for_job, victims } => {
                reclaim(for_job, &victims, self.restore_s, out);
                None
            }
        }
    }
}
