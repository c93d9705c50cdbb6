//! The fuzz targets, as library functions.
//!
//! Each cargo-fuzz target in `fuzz/fuzz_targets/` is one call of [`fuzz`];
//! `kmst replay`, the seed-corpus replay tests and the randomized tests call
//! [`run`] on the same bytes, so a saved artifact is judged exactly as the
//! fuzzer judged it. [`run`] returns what the implementations agreed on, or
//! the [`Divergence`] report; [`fuzz`] panics with that report.
//!
//! One module per target, each with its input's decoding and its
//! comparison: [`check`], [`sim_raw`], [`sim_structured`], [`sim_edges`]
//! (all three through the shared simulation comparison of [`sim`], as is
//! [`sizes`]),
//! [`builder`], [`scenario`] and [`resume`] (a run in pieces). What they share, the [`Target`] names and
//! the [`Agreement`] they report, is the leaf [`agreement`] below them all;
//! this module, above them, holds the dispatch over them ([`run`],
//! [`decode_input`]).

use arbitrary::Unstructured;

use crate::fuzzing::divergence::{Divergence, caught};
use crate::fuzzing::input::{CheckPrefix, SimPrefix};
use crate::fuzzing::script::Script;
use kmst_reference::Params;

pub mod agreement;
pub mod builder;
pub mod check;
pub mod resume;
pub mod scenario;
pub mod sim;
pub mod sim_edges;
pub mod sim_raw;
pub mod sim_structured;
pub mod sizes;

pub use agreement::{Agreement, Target, UnknownTarget};
pub use builder::{builder_params, builder_with};
pub use check::check_with;
pub use sim::{Observed, observed_for, sim_all, sim_observed_with, sim_with};
pub use sim_edges::edges_input;
pub use sim_structured::{MAX_STRUCTURED_PASSES, structured_case};
pub use sizes::sizes_input;

/// Runs one input through `target`'s comparison.
pub fn run(target: Target, data: &[u8]) -> Result<Agreement, Divergence> {
    match target {
        Target::Check => check::check_target(data),
        Target::SimRaw => sim_raw::sim_raw(data),
        Target::SimStructured => sim_structured::sim_structured(data),
        Target::Builder => builder::builder(data),
        Target::Scenario => scenario::scenario(data),
        Target::SimEdges => sim_edges::sim_edges(data),
        Target::Sizes => sizes::sizes(data),
        Target::Resume => resume::resume(data),
    }
}

/// [`run`] for a fuzzer: panics with the report on a divergence.
pub fn fuzz(target: Target, data: &[u8]) {
    if let Err(d) = run(target, data) {
        panic!("{d}");
    }
}

/// What an input of `target` stands for: the upload it runs and, for the
/// simulation targets, the parameters (for `kmst replay --disasm`).
pub fn decode_input(target: Target, data: &[u8]) -> (Vec<u8>, Option<Params>) {
    match target {
        Target::Check => (CheckPrefix::split(data).1.to_vec(), None),
        Target::SimRaw => {
            let (prefix, upload) = SimPrefix::split(data);
            (upload.to_vec(), Some(prefix.params()))
        }
        Target::SimStructured => match structured_case(data) {
            Some(c) => (c.upload, Some(c.params)),
            None => (Vec::new(), None),
        },
        Target::Builder => {
            let built = Script::arbitrary(&mut Unstructured::new(data))
                .ok()
                .and_then(|s| caught(|| s.run()).ok())
                .and_then(|r| r.ok())
                .and_then(|p| p.upload.ok());
            (built.map(|u| u.encode()).unwrap_or_default(), None)
        }
        Target::SimEdges => match edges_input(data) {
            Some(c) => (c.upload, Some(c.params)),
            None => (Vec::new(), None),
        },
        Target::Sizes => match sizes_input(data) {
            Some(c) => (c.upload, Some(c.params)),
            None => (Vec::new(), None),
        },
        // A scenario has several uploads; `kmst replay` prints the scenario.
        Target::Scenario => (Vec::new(), None),
        Target::Resume => match data.get(resume::PREFIX..).and_then(structured_case) {
            Some(c) if data[0] & 1 == 0 => (c.upload, Some(c.params)),
            _ => (Vec::new(), None),
        },
    }
}
