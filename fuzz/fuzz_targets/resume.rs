//! Fuzz target `resume`: see `kmst_harness::fuzzing::targets::resume` and docs/fuzzing.md.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kmst_harness::fuzzing::fuzz(kmst_harness::fuzzing::Target::Resume, data));
