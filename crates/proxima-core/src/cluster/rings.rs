//! The rings on the network: which links each ring that spans servers crosses, the max-min
//! fair rates they get there, and what a new ring would get. Apart from the GPU bookkeeping
//! of `cluster.rs` because it changes only when a ring comes or goes, not on every
//! allocation.

use super::{ClusterState, JobId, Ring};
use crate::maxmin::{share_for_newcomer, Flow};
use crate::topology::LinkId;

impl ClusterState {
    /// Records that `job`'s ring crosses the network links `links` and reaches `cap` bytes/s
    /// alone. Its rate is its cap until [`ClusterState::reshare`] runs.
    pub fn add_ring(&mut self, job: JobId, links: &[LinkId], cap: f64) {
        for &l in links {
            self.link_jobs[l.0 as usize].push(job);
            self.level_load[self.link_level[l.0 as usize] as usize] += 1;
        }
        let i = job.0 as usize;
        if self.rings.len() <= i {
            self.rings.resize(i + 1, None);
        }
        self.rings[i] = Some(Ring { links: links.to_vec(), cap, rate: cap, mark: 0 });
        for &l in links {
            self.update_binding(l);
        }
    }

    /// Re-adds the caps of the rings on `l` (afresh, so that no rounding accumulates).
    fn update_binding(&mut self, l: LinkId) {
        let demand: f64 = self.link_jobs[l.0 as usize]
            .iter()
            .map(|j| self.rings[j.0 as usize].as_ref().expect("a job on a link has a ring").cap)
            .sum();
        self.link_binding[l.0 as usize] = demand > self.link_capacity[l.0 as usize];
    }

    /// Takes `job`'s ring off the network (nothing if it had none). Returns its links.
    pub fn remove_ring(&mut self, job: JobId) -> Vec<LinkId> {
        let Some(ring) = self.rings.get_mut(job.0 as usize).and_then(Option::take) else { return Vec::new() };
        for &l in &ring.links {
            let jobs = &mut self.link_jobs[l.0 as usize];
            let pos = jobs.iter().position(|&j| j == job).expect("the job was on this link");
            jobs.swap_remove(pos);
            self.level_load[self.link_level[l.0 as usize] as usize] -= 1;
        }
        for &l in &ring.links {
            self.update_binding(l);
        }
        ring.links
    }

    /// The bandwidth `job`'s ring gets on the network now, bytes/s; infinite for a job that
    /// does not span servers (its GPU links are its own).
    pub fn ring_rate(&self, job: JobId) -> f64 {
        match self.rings.get(job.0 as usize) {
            Some(Some(r)) => r.rate,
            _ => f64::INFINITY,
        }
    }

    /// The mean number of jobs on the links of a level (1 = server NICs, 2 = rack uplinks).
    pub fn mean_jobs_at_level(&self, level: u8) -> f64 {
        let links = self.level_links.get(level as usize).copied().unwrap_or(0);
        if links == 0 {
            return 0.0;
        }
        self.level_load[level as usize] as f64 / links as f64
    }

    /// Re-solves the max-min rates of every ring coupled to the links `changed` and appends
    /// to `moved` the rings whose rate changed, in job order. The rings re-solved are those
    /// on `changed` and, transitively, those sharing a *binding* link with them (one whose
    /// rings' caps add up to more than it carries). A link that is not binding can hold no
    /// ring below its cap, so rings that meet only there do not affect each other.
    pub fn reshare(&mut self, changed: &[LinkId], moved: &mut Vec<JobId>) {
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            // After 2^32 searches the marks wrap; clear them once rather than misread one.
            self.link_mark.iter_mut().for_each(|m| *m = 0);
            self.slot_mark.iter_mut().for_each(|m| *m = 0);
            self.rings.iter_mut().flatten().for_each(|r| r.mark = 0);
            self.search = 1;
        }
        let search = self.search;
        let mut sc = std::mem::take(&mut self.scratch);
        sc.queue.clear();
        sc.jobs.clear();
        // Every ring on a changed link may move, binding or not: a link that stopped binding
        // releases the rings it held back.
        for &l in changed {
            if self.link_mark[l.0 as usize] != search {
                self.link_mark[l.0 as usize] = search;
                sc.queue.push(l);
            }
        }
        let mut next = 0;
        while next < sc.queue.len() {
            let l = sc.queue[next];
            next += 1;
            for &j in &self.link_jobs[l.0 as usize] {
                let ring = self.rings[j.0 as usize].as_mut().expect("a job on a link has a ring");
                if ring.mark == search {
                    continue;
                }
                ring.mark = search;
                sc.jobs.push(j);
                for &m in &ring.links {
                    if self.link_binding[m.0 as usize] && self.link_mark[m.0 as usize] != search {
                        self.link_mark[m.0 as usize] = search;
                        sc.queue.push(m);
                    }
                }
            }
        }
        if !sc.jobs.is_empty() {
            // Job order, and links numbered as the jobs meet them, whatever order the search
            // found them in: the same rings always give the same bits. Links that are not
            // binding are left out: they constrain nothing.
            sc.jobs.sort_unstable();
            sc.capacity.clear();
            sc.local.clear();
            sc.ends.clear();
            for j in &sc.jobs {
                let ring = self.rings[j.0 as usize].as_ref().expect("searched rings exist");
                for l in ring.links.iter().filter(|l| self.link_binding[l.0 as usize]) {
                    let i = l.0 as usize;
                    if self.slot_mark[i] != search {
                        self.slot_mark[i] = search;
                        self.link_slot[i] = sc.capacity.len() as u32;
                        sc.capacity.push(self.link_capacity[i]);
                    }
                    sc.local.push(self.link_slot[i]);
                }
                sc.ends.push(sc.local.len());
            }
            let mut begin = 0;
            let flows: Vec<Flow> = sc
                .jobs
                .iter()
                .zip(&sc.ends)
                .map(|(j, &end)| {
                    let links = &sc.local[begin..end];
                    begin = end;
                    Flow { cap: self.rings[j.0 as usize].as_ref().expect("exists").cap, links }
                })
                .collect();
            self.solver.solve(&sc.capacity, &flows, &mut sc.rates);
            drop(flows);
            for (j, &rate) in sc.jobs.iter().zip(&sc.rates) {
                let ring = self.rings[j.0 as usize].as_mut().expect("exists");
                if ring.rate != rate {
                    ring.rate = rate;
                    moved.push(*j);
                }
            }
        }
        self.scratch = sc;
    }

    /// The bandwidth a new ring capped at `cap` would get on `links` now: on each link the
    /// level a newcomer reaches when the rings already there keep their rates unless they are
    /// above it ([`share_for_newcomer`]), the lowest of these, and at most `cap`. It sees a
    /// hot link as hot, whatever the other links of its level carry.
    pub fn estimate_new_ring(&self, links: &[LinkId], cap: f64) -> f64 {
        let mut rate = cap;
        let mut rates: Vec<f64> = Vec::new();
        for &l in links {
            rates.clear();
            rates.extend(self.link_jobs[l.0 as usize].iter().map(|&j| self.ring_rate(j)));
            rate = rate.min(self.link_share(l, &mut rates));
        }
        rate
    }

    /// What a newcomer would get on link `l` whose rings run at `rates` (reordered).
    fn link_share(&self, l: LinkId, rates: &mut [f64]) -> f64 {
        share_for_newcomer(self.link_capacity[l.0 as usize], rates)
    }

    /// The share a new ring would get on one link, uncapped: how cool the link is.
    pub fn link_share_for_new_ring(&self, link: LinkId) -> f64 {
        let mut rates: Vec<f64> = self.link_jobs[link.0 as usize].iter().map(|&j| self.ring_rate(j)).collect();
        self.link_share(link, &mut rates)
    }
}
