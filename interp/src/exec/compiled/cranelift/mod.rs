//! The compiled tier (feature `jit`): a decoded program compiled with
//! Cranelift, a function per region of the program (plan.rs), each
//! micro-op built by its body's lowering (`OpBody::lower`,
//! compiled/lower.rs), run by the `jit` dispatch variant's loop
//! (`run.rs`), which hands the micro-ops that read or change the
//! kernel to the interpreter one at a time. Compiled once per program, when
//! a run with the `jit` variant starts (`dispatch::prepare`): a scenario
//! running one upload in several streams compiles it once.
//!
//! - `lowering.rs`: which body lowers a unit, and what a lowering does
//!   (a survey that builds nothing);
//! - `plan.rs`: the regions, entries and fuel tests of a program;
//! - `compile.rs`: a region's IR, safe code;
//! - `code.rs`: the one module with `unsafe` code: the function made
//!   runnable, called, and its memory freed;
//! - `run.rs`: the `jit` variant's loop, the one place the code runs.

mod code;
mod compile;
mod lowering;
mod plan;
pub(crate) mod run;

pub(crate) use code::{Code, available};
pub(crate) use plan::REGION;
