//! How big a cluster a Philly cell gets: the trace's jobs arrive when they arrived, so a
//! Philly cell's load is set by the cluster's size, not by the arrivals (as the paper
//! experiment sized its fresh held-out clusters, `paper.rs`).
//!
//! The offered load of a set of windows on `G` GPUs is their GPU-time (GPUs × measured run
//! time, summed over jobs) over `G` × their summed submission spans, the paper
//! experiment's definition. A cell at load `L` gets the number of 8-GPU servers, rounded
//! to whole racks of [`SERVERS_PER_RACK`], that makes the offered GPUs over its GPUs
//! closest to `L`. The sizes are written into the grid as constants, fixed before any run
//! and without the data at hand; a test recomputes them from `philly.csv`.

use proxima_core::trace::{Trace, TraceWork};

/// GPUs per server of every network of the grid.
pub const GPUS_PER_SERVER: u32 = 8;

/// Servers per rack of every parametric network of the grid (issue 31's clusters have
/// four), and the step in which a Philly cell's servers are counted.
pub const SERVERS_PER_RACK: u32 = 4;

/// The GPUs the jobs of the windows `(skip, limit)` keep busy on average while they
/// arrive: their GPU-time over their summed submission spans. Jobs are taken by
/// submission time, as a scenario takes a window (`proxima_core::workload`); a job whose
/// trace gives iterations rather than a run time (none in Philly) counts for nothing.
pub fn offered_gpus(trace: &Trace, windows: &[(u32, u32)]) -> f64 {
    let mut order: Vec<usize> = (0..trace.jobs.len()).collect();
    order.sort_by(|&a, &b| trace.jobs[a].submit_s.total_cmp(&trace.jobs[b].submit_s));
    let (mut gpu_s, mut span_s) = (0.0, 0.0);
    for &(skip, limit) in windows {
        let start = (skip as usize).min(order.len());
        let end = (start + limit as usize).min(order.len());
        let jobs = &order[start..end];
        let (Some(&first), Some(&last)) = (jobs.first(), jobs.last()) else { continue };
        span_s += trace.jobs[last].submit_s - trace.jobs[first].submit_s;
        for &i in jobs {
            let job = &trace.jobs[i];
            if let TraceWork::DurationS(d) = job.work {
                gpu_s += job.gpus as f64 * d;
            }
        }
    }
    if span_s > 0.0 {
        gpu_s / span_s
    } else {
        0.0
    }
}

/// The servers (a multiple of [`SERVERS_PER_RACK`], at least one rack) at which `offered`
/// GPUs of work are closest to `load` of the cluster.
pub fn servers_for_load(offered: f64, load: f64) -> u32 {
    let rack_gpus = (SERVERS_PER_RACK * GPUS_PER_SERVER) as f64;
    let racks = (offered / load / rack_gpus).round().max(1.0) as u32;
    racks * SERVERS_PER_RACK
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::trace::{TraceFormat, TraceJob};

    fn job(submit_s: f64, gpus: u32, run_s: f64) -> TraceJob {
        TraceJob {
            name: String::new(),
            submit_s,
            gpus,
            model: None,
            work: TraceWork::DurationS(run_s),
            batch: None,
            tenant: None,
            line: 0,
        }
    }

    #[test]
    fn offered_gpus_by_hand() {
        // Out of order on purpose: by submission, the jobs at 0, 100, 200, 400.
        let trace = Trace::new(
            TraceFormat::Philly,
            vec![job(200.0, 4, 50.0), job(0.0, 1, 100.0), job(400.0, 8, 10.0), job(100.0, 2, 300.0)],
        );
        // One window of all four: (100 + 600 + 200 + 80) GPU-s over 400 s.
        assert_eq!(offered_gpus(&trace, &[(0, 4)]), 980.0 / 400.0);
        // Two windows of two: spans 100 and 200, GPU-time 700 and 280.
        assert_eq!(offered_gpus(&trace, &[(0, 2), (2, 2)]), 980.0 / 300.0);
    }

    #[test]
    fn servers_come_in_racks_closest_to_the_load() {
        // 576 GPUs offered at 0.9: 640 GPUs, 20 racks of 32; at 1.2: 480, 15 racks.
        assert_eq!(servers_for_load(576.0, 0.9), 80);
        assert_eq!(servers_for_load(576.0, 1.2), 60);
        assert_eq!(servers_for_load(1.0, 1.0), SERVERS_PER_RACK);
    }
}
