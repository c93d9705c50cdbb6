//! The answer of a kernel scenario and its JSON (S36).
//!
//! It reuses the run's pieces (S24): [`SubmittedCommand`] and [`Event`] with
//! their JSON writers and readers from [`crate::result`]; what is new is one
//! object per accepted RUN (`streams`), one per host command (`host`) and the
//! `stream` of every command. There is no top-level check, status, error or
//! halt: those belong to each stream.

use crate::params::Params;
#[allow(unused_imports)]
use crate::prelude::*;
use crate::result::{Event, Reason, SimResult, Status, StreamError, SubmittedCommand};

/// One accepted RUN (S36 `streams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamOutcome {
    /// The header's req.
    pub req: u32,
    /// The RUN's offset.
    pub offset: u32,
    /// The RUN's length.
    pub length: u32,
    /// The pass it started in.
    pub pass: u64,
    /// "stuck" when still active at the end of the run (S35).
    pub status: Status,
    /// The stream's error (S21), `None` if it had none.
    pub error: Option<StreamError>,
    /// The full 32-bit halt register when HALT ended the stream.
    pub halt: Option<u32>,
}

/// What became of a host command (S27, S36).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Taken in its pass (for a RUN: the stream started, S28).
    Taken,
    /// Rejected, with the reason (S28, S31, S32, S34; a RUN's: P8).
    Rejected(Reason),
    /// Neither taken nor rejected when the run ended.
    Waiting,
}

/// One host command's outcome (S36 `host`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostOutcome {
    /// The pass it was taken or rejected in; `None` while waiting.
    pub pass: Option<u64>,
    /// Taken, rejected or still waiting.
    pub outcome: Outcome,
    /// For a taken RUN, its index in `streams`.
    pub stream: Option<usize>,
}

impl HostOutcome {
    /// Not yet taken or rejected.
    pub const WAITING: HostOutcome = HostOutcome {
        pass: None,
        outcome: Outcome::Waiting,
        stream: None,
    };
}

/// A submitted command (S19) and who made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScenarioCommand {
    /// The command (S19).
    pub command: SubmittedCommand,
    /// The index in `streams` of the stream that made it; `None` for the host.
    pub stream: Option<usize>,
}

/// The whole answer of `simulate_scenario` (S36).
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioResult {
    /// The parameters the run used (`cancel_pass` is always `None`).
    pub params: Params,
    /// One per accepted RUN, in start order.
    pub streams: Vec<StreamOutcome>,
    /// One per host command, in list order.
    pub host: Vec<HostOutcome>,
    /// Every command that took a slot, in submit order (S19, S36).
    pub commands: Vec<ScenarioCommand>,
    /// Every posted event, in order (S22, S29).
    pub events: Vec<Event>,
    /// True when a late command stopped the grid (S33).
    pub stopped: bool,
    /// Pass index of the last event plus one, 0 if none (S16, S35).
    pub passes: u64,
}

impl ScenarioResult {
    /// S35: where this answer (of [`super::Scenario::one_run`]) differs from
    /// the one-stream answer `sim`, or `None`: the same commands, events,
    /// `stopped` and `passes`, and the one stream with the same status, error
    /// and halt; for a rejected upload no stream and the RUN rejected with
    /// the check's reason.
    pub fn s35_difference(&self, sim: &SimResult) -> Option<String> {
        let commands: Vec<SubmittedCommand> = self.commands.iter().map(|c| c.command).collect();
        if commands != sim.commands {
            return Some(format!(
                "commands: {:?} against {:?}",
                commands, sim.commands
            ));
        }
        if self.events != sim.events {
            return Some(format!(
                "events: {:?} against {:?}",
                self.events, sim.events
            ));
        }
        if (self.stopped, self.passes) != (sim.stopped, sim.passes) {
            return Some(format!(
                "stopped, passes: {:?} against {:?}",
                (self.stopped, self.passes),
                (sim.stopped, sim.passes)
            ));
        }
        match (sim.check, self.streams.as_slice(), self.host.first()) {
            (Some(e), [], Some(run)) if run.outcome == Outcome::Rejected(e.reason) => None,
            (None, [s], _) if (s.status, s.error, s.halt) == (sim.status, sim.error, sim.halt) => {
                None
            }
            (check, streams, run) => Some(format!(
                "check {check:?}, status {:?}, error {:?}, halt {:?} against streams {streams:?}, RUN {run:?}",
                sim.status, sim.error, sim.halt
            )),
        }
    }
}

#[cfg(feature = "json")]
mod json;
#[cfg(feature = "json")]
pub use json::params_json;
