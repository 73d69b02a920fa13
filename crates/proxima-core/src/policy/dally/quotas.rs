//! `dally` under `quota=on`: the semantics every policy's `quota=on` follows ([`quota`],
//! Kueue's cohorts), fitted into dally's own order.
//!
//! - **Within quota first.** Before dally's own steps, the earliest waiter within its
//!   tenant's quota that can be placed at the tier it accepts now is placed; delay scheduling
//!   still applies to it (a sensitive job within quota may wait for a tighter tier).
//! - **Reclaim.** Else the earliest waiter within quota that is short of free GPUs takes them
//!   back from borrowing tenants ([`QuotaBook::reclaim_victims`]); victims pay `restore_s`.
//! - **No lending of claimed GPUs.** A borrower starts, by a plain placement, by the
//!   starvation bound or by preempting, only if the GPUs still free afterwards hold the
//!   largest waiter within quota ([`Dally::may_start`]). A borrower waiting for a tighter tier
//!   thus never holds up a job within quota, and the reservation of the starvation bound holds
//!   up borrowers only.
//! - **Network-sensitive preemption** ([`super::preempt`]) may checkpoint a job of another
//!   tenant only if that tenant borrows and the waiting job it serves is within its own quota
//!   ([`QuotaBook::may_take`]): it never takes a tenant below its guaranteed share to serve a
//!   borrower. A job of the waiting job's own tenant is a candidate as without quotas.
//!
//! So the invariant of [`quota`] holds for dally too: at the end of every instant, no job
//! within its tenant's quota waits for free GPUs while another tenant borrows.

use super::Dally;
use crate::cluster::JobId;
use crate::policy::mechanisms::quota;
use crate::policy::{Decision, View};

impl Dally {
    /// The steps that go before dally's own under quotas: place the earliest placeable
    /// waiter within quota, else reclaim for the earliest one short of free GPUs. Whether a
    /// decision was made.
    pub(super) fn quota_step(&mut self, view: &View, out: &mut Vec<Decision>) -> bool {
        let Some(book) = &self.book else { return false };
        if let Some(job) = self.next_placeable(view, |j| book.within_quota(view, j)) {
            self.place(view, job, out);
            return true;
        }
        let free = view.cluster.free_count();
        let short = self.waiters.iter().find(|(&j, w)| w.gpus > free && book.within_quota(view, j)).map(|(&j, _)| j);
        if let Some(job) = short {
            if let Some(victims) = book.reclaim_victims(view, job).filter(|v| !v.is_empty()) {
                quota::reclaim(job, &victims, self.options.restore_s, out);
                return true;
            }
        }
        false
    }

    /// The most GPUs a waiter within its tenant's quota (other than `except`) asks for: what
    /// a borrower must leave free.
    fn quota_reserve(&self, view: &View, except: JobId) -> u32 {
        let Some(book) = &self.book else { return 0 };
        self.waiters
            .iter()
            .filter(|(&j, _)| j != except && book.within_quota(view, j))
            .map(|(_, w)| w.gpus)
            .max()
            .unwrap_or(0)
    }

    /// Whether `job` may start on free GPUs now: always without quotas or within its
    /// tenant's quota; a borrower only if the GPUs left free hold every waiter within quota.
    pub(super) fn may_start(&self, view: &View, job: JobId) -> bool {
        self.may_start_after(view, job, &[])
    }

    /// [`Self::may_start`] once `victims` are checkpointed to make room for `job`.
    pub(super) fn may_start_after(&self, view: &View, job: JobId, victims: &[JobId]) -> bool {
        let Some(book) = &self.book else { return true };
        if book.within_quota(view, job) {
            return true;
        }
        let freed: u64 = victims.iter().map(|&v| view.job(v).gpus as u64).sum();
        let free_after = (view.cluster.free_count() as u64 + freed).saturating_sub(view.job(job).gpus as u64);
        free_after >= self.quota_reserve(view, job) as u64
    }
}
