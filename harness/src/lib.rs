//! kmst-harness: what judges and measures the kmst engine.
//!
//! - [`answers`]: the implementations, their answers as JSON, the first
//!   difference between two answers, and `.kms` sources with their directives.
//! - [`corpus`]: the golden corpus of reference streams and their saved answers.
//! - [`compare`]: the benchmark workloads, timing and statistics of `kmst compare`.
//! - [`profile`]: how a stream spends its turns (`kmst profile`, docs/profiling.md).
//! - [`fuzzing`]: generators and the differential oracles behind the fuzz targets.
//! - [`shapes`]: programs of any size in the shapes that stress a compiler.
//!
//! The engine itself (format, checker, builder, interpreters) is crate `kmst`;
//! this crate only drives it.
#![forbid(unsafe_code)]

#[macro_use]
mod names;

pub mod answers;
pub mod compare;
pub mod corpus;
pub mod fuzzing;
pub mod profile;
pub mod shapes;
pub mod text;
