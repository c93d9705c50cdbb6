//! The compiled tier (feature `jit`): a decoded program compiled with
//! Cranelift into one function, each micro-op built by its body's lowering
//! (`OpBody::lower`, exec/lower.rs), run by the `jit` dispatch variant
//! (dispatch/jit.rs), which hands the micro-ops that read or change the
//! kernel to the interpreter one at a time. Compiled once per program, when
//! a run with the `jit` variant starts (`dispatch::prepare`): a scenario
//! running one upload in several streams compiles it once.
//!
//! - `compile.rs`: the IR, safe code;
//! - `code.rs`: the one module with `unsafe` code: the function made
//!   runnable, called, and its memory freed.

mod code;
mod compile;
mod plan;

pub(crate) use code::{Code, available, call, entry_at};
pub(crate) use compile::{GO, PC_MASK, SHORT};
