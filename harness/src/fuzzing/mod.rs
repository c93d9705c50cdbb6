//! Generators and the differential oracles behind the fuzz targets.
//!
//! This module only declares its children and re-exports what the other
//! crates name as `kmst_harness::fuzzing::...`; it holds no items of its
//! own, so that its children form layers: [`generate`] (the stream
//! generators) at the bottom, [`edges`] and [`scenario`] on it, [`targets`]
//! (one comparison per fuzz target) above them, and [`seeds`] (the seed
//! corpora of the targets) on top.

pub mod builder_rules;
pub mod divergence;
pub mod edges;
pub mod generate;
pub mod input;
pub mod scenario;
pub mod script;
pub mod seeds;
pub mod targets;

pub use crate::answers::{DifferentialOracle, Implementation};
pub use divergence::Divergence;
pub use generate::{
    Case, any_case, any_case_from_seed, arbitrary_delay, arbitrary_job_loop, arbitrary_params,
    arbitrary_result, arbitrary_template, arbitrary_upload, case, case_from_seed, job_example, op,
    out_of_range_params, template, upload,
};
pub use targets::{Agreement, Target, fuzz, run};
