//! The fuzz targets, as library functions.
//!
//! Each cargo-fuzz target in `fuzz/fuzz_targets/` is one call of [`fuzz`];
//! `kmst replay`, the seed-corpus replay tests and the randomized tests call
//! [`run`] on the same bytes, so a saved artifact is judged exactly as the
//! fuzzer judged it. [`run`] returns what the implementations agreed on, or
//! the [`Divergence`] report; [`fuzz`] panics with that report.
//!
//! One module per target, each with its input's decoding and its
//! comparison: [`check`], [`sim_raw`], [`sim_structured`], [`sim_edges`]
//! (all three through the shared simulation comparison of [`sim`], as is
//! [`sizes`]),
//! [`builder`] and [`scenario`]. This module holds
//! what they share: the [`Target`] names, the [`Agreement`] they report and
//! the dispatch.

use std::fmt;

use arbitrary::Unstructured;

use crate::fuzzing::divergence::{Divergence, caught};
use crate::fuzzing::input::{CheckPrefix, SimPrefix};
use crate::fuzzing::script::Script;
use kmst_reference::{Params, Status, StreamError};

pub mod builder;
pub mod check;
pub mod scenario;
pub mod sim;
pub mod sim_edges;
pub mod sim_raw;
pub mod sim_structured;
pub mod sizes;

pub use builder::{builder_params, builder_with};
pub use check::check_with;
pub use sim::{Observed, observed_for, sim_all, sim_observed_with, sim_with};
pub use sim_edges::edges_input;
pub use sim_structured::{MAX_STRUCTURED_PASSES, structured_case};
pub use sizes::sizes_input;

/// A fuzz target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Check,
    SimRaw,
    SimStructured,
    Builder,
    Scenario,
    SimEdges,
    Sizes,
}

impl Target {
    /// Every target, in the order of `fuzz/Cargo.toml`.
    pub const ALL: [Target; 7] = [
        Target::Check,
        Target::SimRaw,
        Target::SimStructured,
        Target::Builder,
        Target::Scenario,
        Target::SimEdges,
        Target::Sizes,
    ];

    /// Its cargo-fuzz name.
    pub const fn name(self) -> &'static str {
        match self {
            Target::Check => "check",
            Target::SimRaw => "sim_raw",
            Target::SimStructured => "sim_structured",
            Target::Builder => "builder",
            Target::Scenario => "scenario",
            Target::SimEdges => "sim_edges",
            Target::Sizes => "sizes",
        }
    }
}

named!(
    Target,
    /// A target name that is not one of [`Target::ALL`].
    UnknownTarget,
    "unknown fuzz target `{}` (targets: {})"
);

/// What the implementations agreed on for one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// `check` target: the verdict of `check` in the fuzzed region, and of `check_run`.
    Check {
        check: Option<StreamError>,
        run: (Option<StreamError>, u32),
    },
    /// Simulation targets: the common run's status, reason and size.
    Sim {
        check: Option<StreamError>,
        status: Status,
        error: Option<StreamError>,
        commands: usize,
        events: usize,
        passes: u64,
    },
    /// Builder target: `encode` accepted (op and template counts) or refused.
    Builder { built: Option<(usize, usize)> },
    /// Scenario target: the common answer's size.
    Scenario {
        streams: usize,
        commands: usize,
        events: usize,
        passes: u64,
        stopped: bool,
    },
    /// The bytes do not make an input of this target (too short for the generator).
    Skipped,
}

impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let err = |e: &Option<StreamError>| match e {
            None => "none".to_owned(),
            Some(e) => format!("reason {} at pc {}", e.reason.number(), e.pc),
        };
        match self {
            Agreement::Check { check, run } => write!(
                f,
                "check: {}; check_run: error {}, req {}",
                err(check),
                err(&run.0),
                run.1
            ),
            Agreement::Sim {
                check,
                status,
                error,
                commands,
                events,
                passes,
            } => write!(
                f,
                "check {}; status {status:?}, error {}, {commands} commands, {events} events, passes {passes}",
                err(check),
                err(error)
            ),
            Agreement::Builder { built: None } => write!(f, "the builder refused the script"),
            Agreement::Builder {
                built: Some((ops, templates)),
            } => write!(
                f,
                "built {ops} micro-ops and {templates} templates, as the calls asked; both checkers accept; every implementation runs it alike"
            ),
            Agreement::Scenario {
                streams,
                commands,
                events,
                passes,
                stopped,
            } => write!(
                f,
                "{streams} streams, {commands} commands, {events} events, passes {passes}, stopped {stopped}"
            ),
            Agreement::Skipped => write!(f, "not an input of this target"),
        }
    }
}

/// Runs one input through `target`'s comparison.
pub fn run(target: Target, data: &[u8]) -> Result<Agreement, Divergence> {
    match target {
        Target::Check => check::check_target(data),
        Target::SimRaw => sim_raw::sim_raw(data),
        Target::SimStructured => sim_structured::sim_structured(data),
        Target::Builder => builder::builder(data),
        Target::Scenario => scenario::scenario(data),
        Target::SimEdges => sim_edges::sim_edges(data),
        Target::Sizes => sizes::sizes(data),
    }
}

/// [`run`] for a fuzzer: panics with the report on a divergence.
pub fn fuzz(target: Target, data: &[u8]) {
    if let Err(d) = run(target, data) {
        panic!("{d}");
    }
}

fn divergence(target: Target, title: String, body: String) -> Divergence {
    Divergence {
        target: target.name(),
        title,
        body,
    }
}

/// What an input of `target` stands for: the upload it runs and, for the
/// simulation targets, the parameters (for `kmst replay --disasm`).
pub fn decode_input(target: Target, data: &[u8]) -> (Vec<u8>, Option<Params>) {
    match target {
        Target::Check => (CheckPrefix::split(data).1.to_vec(), None),
        Target::SimRaw => {
            let (prefix, upload) = SimPrefix::split(data);
            (upload.to_vec(), Some(prefix.params()))
        }
        Target::SimStructured => match structured_case(data) {
            Some(c) => (c.upload, Some(c.params)),
            None => (Vec::new(), None),
        },
        Target::Builder => {
            let built = Script::arbitrary(&mut Unstructured::new(data))
                .ok()
                .and_then(|s| caught(|| s.run()).ok())
                .and_then(|r| r.ok())
                .and_then(|p| p.upload.ok());
            (built.map(|u| u.encode()).unwrap_or_default(), None)
        }
        Target::SimEdges => match edges_input(data) {
            Some(c) => (c.upload, Some(c.params)),
            None => (Vec::new(), None),
        },
        Target::Sizes => match sizes_input(data) {
            Some(c) => (c.upload, Some(c.params)),
            None => (Vec::new(), None),
        },
        // A scenario has several uploads; `kmst replay` prints the scenario.
        Target::Scenario => (Vec::new(), None),
    }
}
