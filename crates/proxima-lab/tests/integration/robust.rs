use crate::common::read_data;
use proxima_lab::experiment::robust::sizing::{offered_gpus, servers_for_load};

#[test]
fn print_sizes() {
    let Some(text) = read_data("philly/philly.csv") else { return };
    let trace = proxima_core::trace::parse_trace(&text).unwrap();
    for first in [0u32, 30_000, 45_000] {
        let windows: Vec<(u32, u32)> = (0..5).map(|k| (first + k * 3000, 3000)).collect();
        let g = offered_gpus(&trace, &windows);
        for w in &windows {
            eprintln!("  window {:?}: {:.0}", w, offered_gpus(&trace, &[*w]));
        }
        for load in [0.7, 0.9, 1.2, 1.0] {
            eprintln!("first {first}: offered {g:.1} GPUs; load {load}: {} servers", servers_for_load(g, load));
        }
    }
}
