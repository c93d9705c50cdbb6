//! Answers: which implementations exist, what each of them answers, and how
//! two answers differ.
//!
//! Everything that judges the engine asks the same questions of several
//! implementations and demands the same answer: the golden corpus, `kmst
//! compare`'s agreement check, the fuzz targets, the profiler's sanity checks
//! and the command line. They all go through this module, so there is one list
//! of implementations ([`Implementation`], behind the [`DifferentialOracle`]
//! trait), one way to turn an answer into JSON ([`json`]), one way to name
//! the first difference between two answers ([`diff`]), one line that sums a
//! run up ([`run_summary`]) and one loader for `.kms` sources with their `;@`
//! directives ([`source`]).

pub mod diff;
pub mod implementation;
pub mod json;
pub mod source;
pub mod strict;
mod summary;

pub use diff::{Difference, assert_every_variant_agrees, first_difference, run_difference};
pub use implementation::{
    DifferentialOracle, Implementation, RunAnswer, RunArgs, UnknownImplementation, checkers,
    implementations, with_checkers, with_implementations,
};
pub use json::{check_run_json, error_json, run_args_json, run_json};
pub use source::{CheckRunCase, Directives, Source, SourceError, parse_directives};
pub use strict::strict_json;
pub use summary::{counted, run_summary};
