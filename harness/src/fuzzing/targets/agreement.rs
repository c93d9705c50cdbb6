//! What every target's comparison reports: the [`Target`] it belongs to,
//! and the [`Agreement`] it found or, through `divergence`, the
//! [`Divergence`] report.
//!
//! A leaf below the targets: each target module and the dispatch of
//! [`super::run`] name these, and they name no target.

use std::fmt;

use crate::fuzzing::divergence::Divergence;
use kmst_reference::{Status, StreamError};

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
    Resume,
}

impl Target {
    /// Every target, in the order of `fuzz/Cargo.toml`.
    pub const ALL: [Target; 8] = [
        Target::Check,
        Target::SimRaw,
        Target::SimStructured,
        Target::Builder,
        Target::Scenario,
        Target::SimEdges,
        Target::Sizes,
        Target::Resume,
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
            Target::Resume => "resume",
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

/// A divergence report of `target`.
pub(super) fn divergence(target: Target, title: String, body: String) -> Divergence {
    Divergence {
        target: target.name(),
        title,
        body,
    }
}
