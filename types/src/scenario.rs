//! A kernel scenario (S26, S27): the parameters, the region with its placed
//! uploads, and the host commands with the pass each is sent in.
//!
//! A [`Scenario`] is valid by construction: [`Scenario::new`] refuses a
//! parameter outside its S25 range and a `cancel_pass` (S26), [`Scenario::place`] refuses a placement that is
//! misaligned, leaves the region or overlaps another, and [`Scenario::push`]
//! refuses a command sent in an earlier pass than the one before it. Every
//! refusal is a [`ScenarioError`] naming the entry and the field, the same
//! errors the JSON reader ([`json`]) gives, so nothing runs from a bad
//! scenario. The region is kept as its placements (it is zero elsewhere), so a
//! large `region_size` costs nothing.

#[allow(unused_imports)]
use crate::prelude::*;

pub mod answer;
#[cfg(feature = "json")]
pub mod json;

use core::fmt;

use crate::params::{Params, ParamsError};

/// Bytes placed in the region before pass 0 (S26).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upload {
    /// A multiple of 64; `offset + bytes.len() <= region_size`.
    pub offset: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// One host command (S27). The fields are the command's u32 words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostCommand {
    /// `KM_HANDLER_RUN`: start the stream at `[offset, offset + length)` (S28).
    Run {
        /// The upload's byte offset in the region.
        offset: u32,
        /// The upload's length in bytes.
        length: u32,
    },
    /// `KM_HANDLER_CANCEL`: end the active stream with this header req (S34).
    Cancel {
        /// The header req of the stream to end.
        req: u32,
    },
    /// `KM_HANDLER_DEADLINE`: the default deadline becomes `us` passes (S31).
    Deadline {
        /// The new default deadline.
        us: u32,
    },
    /// A plain command from the host on a fixed group (S32).
    Submit {
        /// The handler (S1).
        handler: u32,
        /// The group's first core.
        first: u32,
        /// The group's core count.
        count: u32,
        /// The ten argument words.
        args: [u32; 10],
        /// The exclusive flag (S1).
        exclusive: bool,
        /// The result flag (S1).
        result: bool,
    },
    /// A queued command from the host; the allocator chooses first (S32).
    Enqueue {
        /// The handler (S1).
        handler: u32,
        /// The group's core count.
        count: u32,
        /// The ten argument words.
        args: [u32; 10],
        /// The exclusive flag (S1).
        exclusive: bool,
        /// The result flag (S1).
        result: bool,
    },
}

impl HostCommand {
    /// The S36 name of the command's kind.
    pub const fn kind(&self) -> &'static str {
        match self {
            HostCommand::Run { .. } => "run",
            HostCommand::Cancel { .. } => "cancel",
            HostCommand::Deadline { .. } => "deadline",
            HostCommand::Submit { .. } => "submit",
            HostCommand::Enqueue { .. } => "enqueue",
        }
    }
}

/// A host command and the pass in which the host sends it (S26).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostEntry {
    /// The pass whose host-command phase sends it (S22, S29).
    pub pass: u64,
    /// The command.
    pub command: HostCommand,
}

/// The whole kernel's input (S26).
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    params: Params,
    uploads: Vec<Upload>,
    host: Vec<HostEntry>,
}

/// Which part of a scenario an error is about (S36).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// The file as a whole, or its top-level object.
    File,
    /// The params object.
    Params,
    /// `uploads[i]`.
    Upload(usize),
    /// `host[i]`.
    Host(usize),
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::File => write!(f, "scenario"),
            Entry::Params => write!(f, "params"),
            Entry::Upload(i) => write!(f, "uploads[{i}]"),
            Entry::Host(i) => write!(f, "host[{i}]"),
        }
    }
}

/// What is wrong (S25, S26, S36).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The text is not JSON.
    NotJson(String),
    /// A value of the wrong JSON type; says what was expected.
    WrongType(&'static str),
    /// A key the format does not have.
    UnknownKey,
    /// A required key left out.
    Missing,
    /// A number that is not an integer in 0..=2³²−1 (S36).
    NotU32(String),
    /// More than ten `args` words (S27).
    TooManyArgs(usize),
    /// A parameter out of its range or of the wrong type (S25).
    Param(ParamsError),
    /// `cancel_pass` in a scenario's params (S26).
    CancelPass,
    /// Two command kinds in one host entry (S36).
    TwoKinds(&'static str, &'static str),
    /// A host entry with no command kind.
    NoKind,
    /// A `run` without `length` where no upload is placed at its offset (S36).
    RunWithoutLength(u32),
    /// A pass earlier than the previous entry's (S26).
    OutOfOrder {
        /// This entry's pass.
        pass: u64,
        /// The previous entry's pass.
        previous: u64,
    },
    /// A placement whose offset is not a multiple of 64 (S26).
    Misaligned(u64),
    /// A placement not wholly inside the region (S26).
    OutsideRegion {
        /// The placement's offset.
        offset: u64,
        /// The placement's length in bytes.
        length: u64,
        /// The region's size (S25).
        region_size: u64,
    },
    /// A placement overlapping `uploads[other]` (S26).
    Overlaps(usize),
    /// An upload file that cannot be read.
    File {
        /// The path as the scenario file names it.
        path: String,
        /// The system's error message.
        message: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotJson(m) => write!(f, "not JSON: {m}"),
            Problem::WrongType(what) => write!(f, "expected {what}"),
            Problem::UnknownKey => write!(f, "unknown key"),
            Problem::Missing => write!(f, "missing"),
            Problem::NotU32(v) => write!(f, "{v} is not an integer in 0..=4294967295"),
            Problem::TooManyArgs(n) => write!(f, "{n} words, at most 10"),
            Problem::Param(e) => write!(f, "{}", e.message),
            Problem::CancelPass => {
                write!(f, "a scenario cancels with `cancel` host commands (S26)")
            }
            Problem::TwoKinds(a, b) => write!(f, "two commands in one entry: `{a}` and `{b}`"),
            Problem::NoKind => write!(
                f,
                "no command (one of run, cancel, deadline, submit, enqueue)"
            ),
            Problem::RunWithoutLength(offset) => {
                write!(f, "no `length`, and no upload is placed at offset {offset}")
            }
            Problem::OutOfOrder { pass, previous } => write!(
                f,
                "pass {pass} is earlier than the previous entry's pass {previous}"
            ),
            Problem::Misaligned(offset) => write!(f, "offset {offset} is not a multiple of 64"),
            Problem::OutsideRegion {
                offset,
                length,
                region_size,
            } => write!(
                f,
                "{length} bytes at offset {offset} are not inside the region of {region_size} bytes"
            ),
            Problem::Overlaps(other) => write!(f, "overlaps uploads[{other}]"),
            Problem::File { path, message } => write!(f, "`{path}`: {message}"),
        }
    }
}

/// A scenario that cannot run: which entry, which field, what is wrong
/// (S25, S26, S36, P7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Which part of the scenario.
    pub entry: Entry,
    /// The key path inside the entry (`run.length`, `offset`, ...), or "" for
    /// the entry as a whole.
    pub field: String,
    /// What is wrong.
    pub problem: Problem,
}

impl ScenarioError {
    /// The error about `field` of `entry`.
    pub fn new(entry: Entry, field: impl Into<String>, problem: Problem) -> ScenarioError {
        ScenarioError {
            entry,
            field: field.into(),
            problem,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.entry, self.problem)
        } else {
            write!(f, "{}: `{}`: {}", self.entry, self.field, self.problem)
        }
    }
}

impl core::error::Error for ScenarioError {}

impl Scenario {
    /// An empty scenario (no uploads, no host commands) with these parameters.
    /// A parameter outside its S25 range is an error naming it, as in the
    /// JSON reader (P7), and so is a `cancel_pass` (S26).
    pub fn new(params: Params) -> Result<Scenario, ScenarioError> {
        // S25: every parameter in its range, as the JSON reader requires.
        if let Err(e) = params.validate() {
            return Err(ScenarioError::new(
                Entry::Params,
                e.param,
                Problem::Param(e),
            ));
        }
        if params.cancel_pass.is_some() {
            return Err(ScenarioError::new(
                Entry::Params,
                "cancel_pass",
                Problem::CancelPass,
            ));
        }
        Ok(Scenario {
            params,
            uploads: Vec::new(),
            host: Vec::new(),
        })
    }

    /// Places `bytes` at `offset` (S26): a multiple of 64, wholly inside the
    /// region, overlapping no other placement (half-open ranges; an empty
    /// upload overlaps nothing).
    pub fn place(&mut self, offset: u64, bytes: Vec<u8>) -> Result<&mut Scenario, ScenarioError> {
        let entry = Entry::Upload(self.uploads.len());
        let length = bytes.len() as u64;
        if !offset.is_multiple_of(64) {
            return Err(ScenarioError::new(
                entry,
                "offset",
                Problem::Misaligned(offset),
            ));
        }
        let region_size = self.params.region_size;
        if offset > region_size || length > region_size - offset {
            return Err(ScenarioError::new(
                entry,
                "offset",
                Problem::OutsideRegion {
                    offset,
                    length,
                    region_size,
                },
            ));
        }
        let end = offset + length;
        let overlapping = self.uploads.iter().position(|u| {
            let u_end = u.offset + u.bytes.len() as u64;
            length != 0 && u_end != u.offset && u.offset < end && offset < u_end
        });
        if let Some(other) = overlapping {
            return Err(ScenarioError::new(
                entry,
                "offset",
                Problem::Overlaps(other),
            ));
        }
        self.uploads.push(Upload { offset, bytes });
        Ok(self)
    }

    /// Appends a host command sent in `pass`; passes must not decrease (S26).
    pub fn push(
        &mut self,
        pass: u64,
        command: HostCommand,
    ) -> Result<&mut Scenario, ScenarioError> {
        if let Some(last) = self.host.last()
            && pass < last.pass
        {
            return Err(ScenarioError::new(
                Entry::Host(self.host.len()),
                "pass",
                Problem::OutOfOrder {
                    pass,
                    previous: last.pass,
                },
            ));
        }
        self.host.push(HostEntry { pass, command });
        Ok(self)
    }

    /// S35's scenario of a one-stream run: `upload` placed at offset 0,
    /// `run(0, len)` in pass 0 and, for a `cancel_pass` c, `cancel(req)` in
    /// pass c (req: the header's, 0 for an upload shorter than a header). An
    /// upload longer than the region (or than a u32 length) cannot be placed:
    /// an error.
    pub fn one_run(upload: &[u8], params: &Params) -> Result<Scenario, ScenarioError> {
        let mut scenario = Scenario::new(Params {
            cancel_pass: None,
            ..params.clone()
        })?;
        scenario.place(0, upload.to_vec())?;
        let Ok(length) = u32::try_from(upload.len()) else {
            return Err(ScenarioError::new(
                Entry::Host(0),
                "run.length",
                Problem::NotU32(upload.len().to_string()),
            ));
        };
        scenario.push(0, HostCommand::Run { offset: 0, length })?;
        if let Some(pass) = params.cancel_pass {
            let req = if upload.len() >= 64 {
                u32::from_le_bytes([upload[24], upload[25], upload[26], upload[27]])
            } else {
                0
            };
            scenario.push(pass, HostCommand::Cancel { req })?;
        }
        Ok(scenario)
    }

    /// The same placements and host commands under other parameters (a
    /// budget sweep, a flag over the file's), refused as [`Scenario::new`]
    /// refuses them.
    pub fn with_params(&self, params: Params) -> Result<Scenario, ScenarioError> {
        let mut s = Scenario::new(params)?;
        for u in &self.uploads {
            s.place(u.offset, u.bytes.clone())?;
        }
        for h in &self.host {
            s.push(h.pass, h.command)?;
        }
        Ok(s)
    }

    /// The parameters of the run (S25; never a `cancel_pass`, S26).
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The placements in the order they were made.
    pub fn uploads(&self) -> &[Upload] {
        &self.uploads
    }

    /// The host commands in list order.
    pub fn host(&self) -> &[HostEntry] {
        &self.host
    }

    /// The length of the upload placed exactly at `offset`, if any (a `run`
    /// without `length`, S36).
    pub fn placed_length(&self, offset: u64) -> Option<u64> {
        self.uploads
            .iter()
            .find(|u| u.offset == offset)
            .map(|u| u.bytes.len() as u64)
    }

    /// The region's bytes `[offset, offset + length)`: the placed uploads',
    /// zero elsewhere and past the end of the region (S26).
    pub fn region_bytes(&self, offset: u64, length: u64) -> Vec<u8> {
        let mut out = vec![0u8; usize::try_from(length).unwrap_or(0)];
        let end = offset.saturating_add(out.len() as u64);
        for u in &self.uploads {
            // The intersection of [offset, end) and the upload's range.
            let from = offset.max(u.offset);
            let to = end.min(u.offset + u.bytes.len() as u64);
            for at in from..to {
                out[(at - offset) as usize] = u.bytes[(at - u.offset) as usize];
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_the_s36_keys() {
        let args = [0; 10];
        let kinds = [
            HostCommand::Run {
                offset: 0,
                length: 0,
            },
            HostCommand::Cancel { req: 0 },
            HostCommand::Deadline { us: 0 },
            HostCommand::Submit {
                handler: 1,
                first: 0,
                count: 1,
                args,
                exclusive: false,
                result: false,
            },
            HostCommand::Enqueue {
                handler: 1,
                count: 1,
                args,
                exclusive: false,
                result: false,
            },
        ]
        .map(|c| c.kind());
        assert_eq!(kinds, ["run", "cancel", "deadline", "submit", "enqueue"]);
    }

    /// S25 through P7: a scenario built in code refuses what its JSON file
    /// would, naming the parameter; nothing runs from it.
    #[test]
    fn new_refuses_a_parameter_out_of_range() {
        let cases = [
            (
                Params {
                    turn_budget: 0,
                    ..Params::default()
                },
                "turn_budget",
            ),
            (
                Params {
                    max_passes: 0,
                    ..Params::default()
                },
                "max_passes",
            ),
            (
                Params {
                    core_count: 0,
                    ..Params::default()
                },
                "core_count",
            ),
            (
                Params {
                    deadline_passes: Some(0),
                    ..Params::default()
                },
                "deadline_passes",
            ),
        ];
        for (params, name) in cases {
            let e = Scenario::new(params).unwrap_err();
            assert_eq!(e.entry, Entry::Params, "{name}");
            assert_eq!(e.field, name);
            assert!(
                matches!(e.problem, Problem::Param(ref p) if p.param == name),
                "{name}"
            );
        }
        assert!(Scenario::new(Params::default()).is_ok());
    }
}
