//! Replays the fuzzers' corpus (`fuzz/corpus/<target>/`) as ordinary tests on stable Rust:
//! every input the fuzzers kept, including those that once crashed, must run cleanly.

use std::path::PathBuf;

fn replay(target: &str, entry: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} has no corpus", dir.display());
    for file in files {
        let data = std::fs::read(&file).unwrap();
        // A panic names the input, so the failing file is found at once.
        let result = std::panic::catch_unwind(|| entry(&data));
        assert!(result.is_ok(), "{} made the {target} entry panic", file.display());
    }
}

#[test]
fn trace_corpus() {
    replay("trace", proxima_core::fuzz_entry::trace);
}

#[test]
fn topology_json_corpus() {
    replay("topology_json", proxima_core::fuzz_entry::topology_json);
}

#[test]
fn slurm_corpus() {
    replay("slurm", proxima_core::fuzz_entry::slurm);
}

#[test]
fn topology_arg_corpus() {
    replay("topology_arg", proxima_core::fuzz_entry::topology_arg);
}

#[test]
fn policy_corpus() {
    replay("policy", proxima_core::fuzz_entry::policy);
}

#[test]
fn share_corpus() {
    replay("share", proxima_core::fuzz_entry::share);
}
