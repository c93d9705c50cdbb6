//! The answer of a run (S19, S22, S24): submitted commands, events, status.

use crate::params::Params;

/// `(reason, pc)` of an error event: a rejected check or a stream's runtime error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamError {
    /// Reason 1..=11 of streams.md "Events and errors".
    pub reason: u8,
    /// Program counter the reason names (0 for header faults).
    pub pc: u32,
}

/// One command that took a completion slot (S19).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubmittedCommand {
    /// From 0, one counter for every source.
    pub sequence: u64,
    /// The completion slot, 0..16.
    pub slot: u8,
    pub handler: u8,
    pub first: u32,
    pub count: u32,
    /// The template's flag byte (never the queue bit).
    pub flags: u8,
    /// The ten patched arguments.
    pub args: [u32; 10],
    /// The pass of submit.
    pub pass_index: u64,
    /// The SUBMIT or ENQUEUE that made it.
    pub pc: u32,
    /// True when it came through the job queue.
    pub queued: bool,
}

/// Event kinds (streams.md "Events and errors").
pub mod kind {
    pub const TIMEOUT: u8 = 1;
    pub const STREAM: u8 = 4;
    pub const STREAM_END: u8 = 5;
    pub const STREAM_ERROR: u8 = 6;
}

/// One posted event (S22).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub kind: u8,
    pub req: u32,
    /// The 24-bit auxiliary.
    pub auxiliary: u32,
    pub pass_index: u64,
}

/// How a run ended (S16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ended,
    Error,
    Stuck,
}

/// The whole answer of `simulate` (S24).
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    /// The parameters the run used.
    pub params: Params,
    /// `None` when the check accepted the upload.
    pub check: Option<StreamError>,
    pub commands: Vec<SubmittedCommand>,
    pub events: Vec<Event>,
    pub status: Status,
    /// Pass index of the last event plus one (0 if none).
    pub passes: u64,
    pub error: Option<StreamError>,
    /// The full 32-bit halt register when HALT ended the stream.
    pub halt: Option<u32>,
    /// True when a late command stopped the grid.
    pub stopped: bool,
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "reason {} at pc {}", self.reason, self.pc)
    }
}

impl std::error::Error for StreamError {}
