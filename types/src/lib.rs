//! The types the kmst engine and its reference model both speak.
//!
//! [`Params`] with its completion models ([`Delay`], [`ResultModel`]), the
//! answer of a run ([`SimResult`], [`SubmittedCommand`], [`Event`]), a kernel
//! scenario ([`Scenario`]) and its answer ([`ScenarioResult`]). Only types,
//! their validation (S25, S26, S27) and, with feature `json` (the default),
//! their JSON (S24, S36) and the scenario file reader ([`scenario::json`]).
//!
//! What the types *mean* is evaluated by each side with its own code: the
//! engine (`kmst`) and the reference model (`kmst-reference`) each compute a
//! command's delay and result, run the check and simulate, so that the
//! differential tests compare two independent readings of the rulings.
//!
//! `no_std` with `alloc`; feature `json` brings `std` (the reader opens files).
#![no_std]
#![forbid(unsafe_code)]
// Every public item documented (CI denies the warning: clippy -D warnings).
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "json")]
extern crate std;

/// What `std`'s prelude would give, from `alloc`.
mod prelude {
    pub use alloc::format;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec;
    pub use alloc::vec::Vec;
}

mod command;
pub mod params;
pub mod result;
pub mod scenario;

pub use params::{Delay, DelayFn, PARAM_KEYS, Params, ParamsError, ResultFn, ResultModel};
pub use result::{
    AnswerError, Event, Reason, SimResult, Status, StreamError, SubmittedCommand, kind,
};
pub use scenario::answer::{HostOutcome, Outcome, ScenarioCommand, ScenarioResult, StreamOutcome};
pub use scenario::{Entry, HostCommand, HostEntry, Problem, Scenario, ScenarioError, Upload};
