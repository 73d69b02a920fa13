//! The command-line tool's integration tests, in one test binary: each module is one
//! subject. Run one with `cargo test -p proxima-cli --test integration -- sweep::`.

mod calibrate_cluster;
mod closed_output;
mod experiment;
mod front_ends;
mod generated;
mod inputs;
mod kube_history;
mod kueue;
mod network;
mod policies;
mod robust;
mod sacct;
mod slurm_yaml;
mod sweep;
mod volcano;
mod what_if;
