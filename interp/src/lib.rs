//! kmst: the micro-op stream engine.
//!
//! - [`ops`]: the one definition of every micro-op, from which the rest is generated.
//! - [`format`]: the upload layout, encode and decode.
//! - [`check`]: the optimized checker.
//! - [`corpus`]: the golden corpus of reference streams and their saved answers.
//! - [`reference`]: the reference model (re-exported `kmst-reference`), the oracle.

pub mod check;
pub mod corpus;
pub mod format;
pub mod ops;

pub use kmst_reference as reference;
pub use kmst_reference::{
    Delay, Event, Params, ResultModel, SimResult, Status, StreamError, SubmittedCommand,
};
