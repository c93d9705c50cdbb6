//! kmst: the micro-op stream engine.
//!
//! - [`ops`]: the one definition of every micro-op, from which the rest is generated.
//! - [`format`](mod@format): the upload layout, encode and decode.
//! - [`check`]: the optimized checker.
//! - [`builder`]: the stream builder (S7..S9).
//! - [`scenario`]: the kernel-scenario builder and the scenario file with
//!   `.bin` or `.kms` uploads (S26..S36).
//! - [`asm`] (feature `asm`, default): the `.kms` assembler and disassembler
//!   (`docs/asm.md`).
//! - [`exec`]: the fast interpreter (six dispatch variants) and fast kernel;
//!   [`simulate_with`] runs a stream with a chosen [`Dispatch`].
//! - [`types`]: the types the engine shares with the reference model
//!   (re-exported `kmst-types`): parameters, answers, scenarios, their JSON.
//!
//! The engine does not depend on the reference model (`kmst-reference`, the
//! oracle): it evaluates every ruling with its own code, so that the
//! differential tests compare two independent readings.
//!
//! The corpus, `kmst compare`, the profiler and the fuzzing oracles live in
//! crate `kmst-harness`; the `kmst` command line in crate `kmst-cli`.

// Feature `nightly` (turned on by the `tail`, `threaded`, `indirect` and
// `loop_match` variants):
// guaranteed tail calls; the queue's turn compares the window's 16 core
// counts at once (exec/kernel/queue.rs); records pushed without a grow path
// (exec/kernel/records.rs). Without it the engine builds on stable Rust.
#![cfg_attr(feature = "nightly", feature(explicit_tail_calls))]
#![cfg_attr(feature = "nightly", feature(portable_simd))]
#![cfg_attr(feature = "nightly", feature(vec_push_within_capacity))]
#![cfg_attr(feature = "loop_match", feature(loop_match))]
#![cfg_attr(feature = "nightly", allow(incomplete_features))]
#![cfg_attr(kmst_preserve_none, feature(rust_preserve_none_cc))]
// Unsafe code lives in the interpreter (`exec`) alone, every block with its
// `// SAFETY:` comment and every `unsafe fn` with a `# Safety` section.
#![deny(unsafe_code)]
// Every public item documented (CI denies the warning: clippy -D warnings).
#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

#[cfg(not(any(
    feature = "tail",
    feature = "switch",
    feature = "threaded",
    feature = "subroutine",
    feature = "indirect",
    feature = "loop_match"
)))]
compile_error!(
    "kmst needs at least one dispatch variant: feature `tail`, `switch`, `threaded`, `subroutine`, `indirect` or `loop_match`"
);

#[cfg(feature = "asm")]
pub mod asm;
pub mod builder;
pub mod check;
#[allow(unsafe_code)]
pub mod exec;
pub mod format;
pub mod ops;
pub mod scenario;

pub use exec::{Dispatch, Observer, TurnEnd, simulate as simulate_with};
pub use kmst_types as types;
pub use kmst_types::{
    Delay, Event, Params, Reason, ResultModel, SimResult, Status, StreamError, SubmittedCommand,
};
