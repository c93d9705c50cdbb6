//! kmst: the micro-op stream engine.
//!
//! - [`ops`]: the one definition of every micro-op, from which the rest is generated.
//! - [`format`]: the upload layout, encode and decode.
//! - [`check`]: the optimized checker.
//! - [`builder`]: the stream builder (S7..S9).
//! - [`asm`]: the `.kms` assembler and disassembler (`docs/asm.md`).
//! - [`corpus`]: the golden corpus of reference streams and their saved answers.
//! - [`reference`]: the reference model (re-exported `kmst-reference`), the oracle.

pub mod asm;
pub mod builder;
pub mod check;
pub mod corpus;
pub mod format;
pub mod ops;

pub use kmst_reference as reference;
pub use kmst_reference::{
    Delay, Event, Params, Reason, ResultModel, SimResult, Status, StreamError, SubmittedCommand,
};
