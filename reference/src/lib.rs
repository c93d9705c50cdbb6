//! The reference model of the micro-op stream kernel.
//!
//! This crate is the oracle: every faster implementation, every saved answer in
//! `corpus/` and every fuzz target is judged against it. Its only goals are to be
//! right and to read like the specification (docs/spec.md, rulings
//! S1..S25 in docs/semantics.md). It depends on nothing of `kmst` on purpose: it has
//! its own small checker ([`check`]) and its own pass-by-pass simulator
//! ([`simulate`]), so that the optimized code can be tested against it.
//!
//! [`simulate_scenario`] runs the whole kernel (S26..S36): up to four streams
//! and the host's commands over the shared slots and queue, from a
//! [`Scenario`] built in code or read from its JSON file
//! ([`scenario::json`]).
//!
//! It also owns the spec-level types every implementation shares: [`Params`]
//! with its completion models, [`SimResult`], [`SubmittedCommand`], [`Event`]
//! and their JSON (S24).
#![forbid(unsafe_code)]

pub mod check;
pub mod params;
pub(crate) mod program;
pub mod result;
pub mod scenario;
pub mod sim;

pub use check::{check, check_run};
pub use params::{Delay, Params, ParamsError, ResultModel};
pub use result::{AnswerError, Event, Reason, SimResult, Status, StreamError, SubmittedCommand};
pub use scenario::answer::{HostOutcome, Outcome, ScenarioCommand, ScenarioResult, StreamOutcome};
pub use scenario::run::simulate_scenario;
pub use scenario::{Entry, HostCommand, HostEntry, Problem, Scenario, ScenarioError, Upload};
pub use sim::simulate;
