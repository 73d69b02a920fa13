#![no_main]
// See proxima_core::fuzz_entry::slurm.
libfuzzer_sys::fuzz_target!(|data: &[u8]| proxima_core::fuzz_entry::slurm(data));
