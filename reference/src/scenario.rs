//! A kernel scenario (S26, S27) and its answer (S36): the types and their
//! JSON are the shared crate's ([`kmst_types::scenario`]); what is the
//! reference model's own is running one ([`run`]).

pub use kmst_types::scenario::*;

pub mod run;
