//! The reference model of the micro-op stream kernel.
//!
//! This crate is the oracle: every faster implementation, every saved answer in
//! `corpus/` and every fuzz target is judged against it. Its only goals are to be
//! right and to read like the specification (docs/spec.md, rulings
//! S1..S25 in docs/semantics.md). It depends on nothing of `kmst` on purpose: it has
//! its own small checker ([`check`](mod@check)) and its own pass-by-pass simulator
//! ([`simulate`]), so that the optimized code can be tested against it.
//!
//! [`simulate_scenario`] runs the whole kernel (S26..S36): up to four streams
//! and the host's commands over the shared slots and queue, from a
//! [`Scenario`] built in code or read from its JSON file
//! ([`scenario::json`]).
//!
//! The types every implementation shares ([`Params`] with its completion
//! models, [`SimResult`], [`Scenario`], their JSON) are the crate
//! `kmst-types`'s, re-exported here; what they mean is evaluated here with
//! this crate's own code ([`Models`] for the completion models), never the
//! engine's.
#![forbid(unsafe_code)]
// Every public item documented (CI denies the warning: clippy -D warnings).
#![warn(missing_docs)]

pub mod check;
pub(crate) mod grid;
pub mod models;
pub(crate) mod ops;
pub(crate) mod program;
pub mod scenario;
pub mod sim;

pub use kmst_types::{params, result};

pub use check::{check, check_run};
pub use models::Models;
pub use params::{Delay, Params, ParamsError, ResultModel};
pub use result::{AnswerError, Event, Reason, SimResult, Status, StreamError, SubmittedCommand};
pub use scenario::answer::{HostOutcome, Outcome, ScenarioCommand, ScenarioResult, StreamOutcome};
pub use scenario::run::simulate_scenario;
pub use scenario::{Entry, HostCommand, HostEntry, Problem, Scenario, ScenarioError, Upload};
pub use sim::simulate;
