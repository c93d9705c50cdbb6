//! Fuzz target `check`: see `kmst::fuzzing::targets` and docs/fuzzing.md.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kmst::fuzzing::fuzz(kmst::fuzzing::Target::Check, data));
