//! The answer of a run (S19, S22, S24): submitted commands, events, status.

#[allow(unused_imports)]
use crate::prelude::*;

use crate::params::Params;

/// `(reason, pc)` of an error event: a rejected check or a stream's runtime error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamError {
    /// The reason of docs/spec.md "Events and errors".
    pub reason: Reason,
    /// Program counter the reason names (0 for header faults).
    pub pc: u32,
}

macro_rules! reasons {
    ($($name:ident = $n:literal, $label:literal;)*) => {
        /// Why a stream ended with an error event (docs/spec.md "Events and errors").
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Reason {
            $(#[doc = $label] $name = $n,)*
        }

        impl Reason {
            /// Every reason, 1..=11.
            pub const ALL: [Reason; 11] = [$(Reason::$name,)*];

            /// The reason with the spec's number.
            pub const fn from_u8(n: u8) -> Option<Reason> {
                match n {
                    $($n => Some(Reason::$name),)*
                    _ => None,
                }
            }

            /// The spec's number.
            pub const fn number(self) -> u8 {
                self as u8
            }

            /// A short description, as in the spec's table.
            pub const fn describe(self) -> &'static str {
                match self {
                    $(Reason::$name => $label,)*
                }
            }
        }
    };
}

reasons! {
    BadHeader = 1, "bad header, or an upload of the wrong size";
    UnknownOpcode = 2, "unknown opcode";
    BadJump = 3, "jump target out of range, or the program counter ran past the last micro-op";
    BadRegister = 4, "register number out of range";
    BadTemplate = 5, "bad template or patch, or template index out of range";
    StepLimit = 6, "step limit";
    ModByZero = 7, "MOD by zero";
    Deadline = 8, "a command's deadline passed";
    BadEnqueue = 9, "an ENQUEUE whose count is 0 or above the grid";
    Cancelled = 10, "cancelled";
    BadGroup = 11, "a SUBMIT whose group is empty or leaves the grid";
}

impl core::fmt::Display for Reason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} ({})", self.number(), self.describe())
    }
}

pub use crate::command::SubmittedCommand;

/// Event kinds (docs/spec.md "Events and errors").
pub mod kind {
    /// `KM_EVENT_TIMEOUT`: a late command stopped the grid (S14, S33).
    pub const TIMEOUT: u8 = 1;
    /// `KM_EVENT_STREAM`: posted by `EVENT a`.
    pub const STREAM: u8 = 4;
    /// `KM_EVENT_STREAM_END`: HALT ended the stream.
    pub const STREAM_END: u8 = 5;
    /// `KM_EVENT_STREAM_ERROR`: a stream's error or a rejected upload (S21).
    pub const STREAM_ERROR: u8 = 6;
}

/// One posted event (S22).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// One of [`kind`]'s constants.
    pub kind: u8,
    /// The req of the stream it is about (S3 for a rejected upload).
    pub req: u32,
    /// The 24-bit auxiliary.
    pub auxiliary: u32,
    /// The pass it was posted in (S22).
    pub pass_index: u64,
}

/// How a run ended (S16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// HALT ended the stream (`"ended"`).
    Ended,
    /// The stream ended with an error, or the check rejected it (`"error"`).
    Error,
    /// Still active when the run stopped at `max_passes` (`"stuck"`).
    Stuck,
}

/// The whole answer of `simulate` (S24).
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    /// The parameters the run used.
    pub params: Params,
    /// `None` when the check accepted the upload.
    pub check: Option<StreamError>,
    /// Every command that took a slot, in submit order (S19).
    pub commands: Vec<SubmittedCommand>,
    /// Every posted event, in order (S22).
    pub events: Vec<Event>,
    /// How the stream ended (S16).
    pub status: Status,
    /// Pass index of the last event plus one (0 if none).
    pub passes: u64,
    /// The stream's error (S21), `None` if it had none.
    pub error: Option<StreamError>,
    /// The full 32-bit halt register when HALT ended the stream.
    pub halt: Option<u32>,
    /// True when a late command stopped the grid.
    pub stopped: bool,
}

impl core::fmt::Display for StreamError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "reason {} at pc {}", self.reason, self.pc)
    }
}

impl core::error::Error for StreamError {}

impl Status {
    /// The S24 spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Ended => "ended",
            Status::Error => "error",
            Status::Stuck => "stuck",
        }
    }
}

/// A saved answer that is not the S24 object; the message names the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerError(pub String);

impl core::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "saved answer: {}", self.0)
    }
}

impl core::error::Error for AnswerError {}

#[cfg(feature = "json")]
mod json;
#[cfg(feature = "json")]
pub(crate) use json::*;
