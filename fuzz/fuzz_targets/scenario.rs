//! Fuzz target `scenario`: see `kmst_harness::fuzzing::targets::scenario` and docs/fuzzing.md.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kmst_harness::fuzzing::fuzz(kmst_harness::fuzzing::Target::Scenario, data));
