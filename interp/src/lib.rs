//! kmst: the micro-op stream engine.
//!
//! The most common use: build a stream, check it, simulate it and read the
//! answer. This stream submits three commands, waits until all are
//! acknowledged and halts with its job count:
//!
//! ```
//! use kmst::builder::Stream;
//! use kmst::{Dispatch, Params, Status};
//!
//! // The header (S2): deadline_us (0: the kernel's default), max_steps, seed, req.
//! let mut s = Stream::new(0, 1_000, 1, 7)?;
//! let job = s.registers(1)?[0];
//! let top = s.label();
//! // Handler 3 on cores 0..8, with the job number as args[0] (a patch, S1).
//! s.submit(3, (0.into(), 8.into()), &[job.into()], false, false)?;
//! s.addi(job, job, 1)?;
//! let three = s.constant(3)?; // a SET in the prologue (S8)
//! s.jlt(job, three, top);
//! s.wait(0)?; // until none of the stream's commands is pending (S18)
//! s.halt(job);
//! let upload: Vec<u8> = s.encode()?;
//!
//! let params = Params::default(); // every command's delay 0 (S23)
//! kmst::check::check(&upload, params.region_size)?; // the kernel's check (S5, S6)
//! let answer = kmst::simulate_with(&upload, &params, Dispatch::default());
//!
//! assert_eq!(answer.check, None);
//! assert_eq!(answer.status, Status::Ended);
//! assert_eq!(answer.halt, Some(3));
//! // All three submitted in pass 0's turn, in slots 0, 1, 2 (S19) ...
//! let jobs: Vec<(u8, u32, u64)> =
//!     answer.commands.iter().map(|c| (c.slot, c.args[0], c.pass_index)).collect();
//! assert_eq!(jobs, [(0, 0, 0), (1, 1, 0), (2, 2, 0)]);
//! // ... acknowledged in pass 1's sweep (S12), so WAIT and HALT go on in
//! // pass 1's turn: one KM_EVENT_STREAM_END with the halt value (S18, S22).
//! assert_eq!(answer.events.len(), 1);
//! assert_eq!(answer.events[0].kind, kmst::types::result::kind::STREAM_END);
//! assert_eq!((answer.events[0].req, answer.events[0].auxiliary), (7, 3));
//! assert_eq!(answer.passes, 2); // the last event's pass + 1 (S16)
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The same answer comes from every [`Dispatch`] variant and from the
//! reference model (`kmst_reference::simulate`);
//! [`SimResult::to_json_value`] writes it as S24's JSON (feature `json` of
//! `kmst-types`, on by default). A whole-kernel scenario (several streams and
//! the host, S26..S36) is built with [`scenario`] and run with
//! [`exec::simulate_scenario`].
//!
//! # Modules
//!
//! - [`ops`]: the one definition of every micro-op, from which the rest is generated.
//! - [`format`](mod@format): the upload layout, encode and decode.
//! - [`check`]: the optimized checker.
//! - [`builder`]: the stream builder (S7..S9).
//! - [`scenario`]: the kernel-scenario builder and the scenario file with
//!   `.bin` or `.kms` uploads (S26..S36).
//! - [`asm`] (feature `asm`, default): the `.kms` assembler and disassembler
//!   (`docs/asm.md`).
//! - [`exec`]: the fast interpreter (its dispatch variants, and with feature
//!   `jit` the compiled tier) and fast kernel;
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
#![cfg_attr(feature = "handlers", feature(explicit_tail_calls))]
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

/// The crate's README.md, whose example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctest;
/// The repository's README.md, whose Rust example runs as a doctest (left
/// out of the crate's package by `cfg(doctest)` before the file is read).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct RepositoryReadmeDoctest;
/// docs/pause.md, whose Rust example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/pause.md")]
pub struct PauseDoctest;
pub use kmst_types::{
    Delay, Event, Params, Reason, ResultModel, SimResult, Status, StreamError, SubmittedCommand,
};
