//! Kernel scenarios from Rust and from files (S26..S36).
//!
//! [`ScenarioBuilder`] sits beside the stream builder ([`crate::builder`]):
//! place uploads (bytes, or a [`Stream`] it encodes), then send host commands
//! (`run`, `cancel`, `deadline`, `submit`, `enqueue`) at a pass, and get a
//! [`Scenario`] the reference model and the fast kernel both run. It adds
//! nothing to the rules: every placement and command goes through
//! [`Scenario::place`] and [`Scenario::push`], so it refuses exactly what a
//! scenario file would, with the same [`ScenarioError`] naming the entry and
//! the field; a stream that does not encode is the stream builder's
//! [`BuildError`], naming the upload.
//!
//! [`read_file`] reads a scenario file (S36) with the reference reader; an
//! upload's `file` is raw bytes, or `.kms` assembly text assembled first
//! (S36 lets an implementation accept its own assembly text).

#![forbid(unsafe_code)]

use std::fmt;
use std::path::Path;

use crate::builder::{BuildError, Stream};
use crate::types::Params;
use crate::types::scenario::{Entry, HostCommand, Problem, Scenario, ScenarioError, json};

/// What the scenario builder refuses (S26, S27, P7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioBuildError {
    /// The scenario's own rules (S26, S27, S36): which entry, which field, what.
    Scenario(ScenarioError),
    /// The stream to place as `uploads[upload]` does not encode.
    Stream {
        /// The index in `uploads`.
        upload: usize,
        /// What the stream's builder refused.
        error: BuildError,
    },
}

impl fmt::Display for ScenarioBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioBuildError::Scenario(e) => write!(f, "{e}"),
            ScenarioBuildError::Stream { upload, error } => {
                write!(f, "uploads[{upload}]: the stream does not encode: {error}")
            }
        }
    }
}

impl std::error::Error for ScenarioBuildError {}

impl From<ScenarioError> for ScenarioBuildError {
    fn from(e: ScenarioError) -> ScenarioBuildError {
        ScenarioBuildError::Scenario(e)
    }
}

/// Where an upload was placed: `uploads[index]`, `length` bytes at `offset` (S26, P7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The index in `uploads` (S36).
    pub index: usize,
    /// The byte offset in the region, a multiple of 64 (P7).
    pub offset: u64,
    /// The upload's length in bytes.
    pub length: u64,
}

/// Builds a [`Scenario`] one placement and one host command at a time (S26, S27).
///
/// ```
/// use kmst::builder::Stream;
/// use kmst::types::Params;
/// use kmst::scenario::ScenarioBuilder;
///
/// let mut s = Stream::new(0, 1000, 1, 7).unwrap();
/// let zero = s.constant(0).unwrap();
/// s.halt(zero);
/// let mut b = ScenarioBuilder::new(Params::default()).unwrap();
/// b.place_stream(0, &s).unwrap();
/// b.run(0, 0).unwrap().cancel(5, 7).unwrap();
/// let scenario = b.build();
/// assert_eq!(scenario.host().len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioBuilder {
    scenario: Scenario,
}

impl Default for ScenarioBuilder {
    /// No uploads, no host commands, the default parameters.
    fn default() -> ScenarioBuilder {
        ScenarioBuilder::new(Params::default()).expect("the default params have no cancel_pass")
    }
}

impl ScenarioBuilder {
    /// An empty scenario with these parameters; a `cancel_pass` is refused (S26).
    pub fn new(params: Params) -> Result<ScenarioBuilder, ScenarioBuildError> {
        Ok(ScenarioBuilder {
            scenario: Scenario::new(params)?,
        })
    }

    /// Places `bytes` at `offset` before pass 0 (S26): a multiple of 64,
    /// wholly inside the region, overlapping no other placement.
    pub fn place(
        &mut self,
        offset: u64,
        bytes: impl Into<Vec<u8>>,
    ) -> Result<Placed, ScenarioBuildError> {
        let bytes = bytes.into();
        let placed = Placed {
            index: self.scenario.uploads().len(),
            offset,
            length: bytes.len() as u64,
        };
        self.scenario.place(offset, bytes)?;
        Ok(placed)
    }

    /// Encodes `stream` ([`Stream::encode`]) and places it at `offset`.
    pub fn place_stream(
        &mut self,
        offset: u64,
        stream: &Stream,
    ) -> Result<Placed, ScenarioBuildError> {
        let bytes = stream
            .encode()
            .map_err(|error| ScenarioBuildError::Stream {
                upload: self.scenario.uploads().len(),
                error,
            })?;
        self.place(offset, bytes)
    }

    /// Any host command sent in `pass`; passes must not decrease (S26).
    pub fn command(
        &mut self,
        pass: u64,
        command: HostCommand,
    ) -> Result<&mut ScenarioBuilder, ScenarioBuildError> {
        self.scenario.push(pass, command)?;
        Ok(self)
    }

    /// The entry the next host command will be, for its errors.
    fn next_entry(&self) -> Entry {
        Entry::Host(self.scenario.host().len())
    }

    /// `run(offset, length)` in `pass` of the upload placed exactly at
    /// `offset`, with its length (as a file's `run` without `length`, S36);
    /// nothing placed there is an error.
    pub fn run(
        &mut self,
        pass: u64,
        offset: u32,
    ) -> Result<&mut ScenarioBuilder, ScenarioBuildError> {
        let entry = self.next_entry();
        let Some(length) = self.scenario.placed_length(u64::from(offset)) else {
            return Err(
                ScenarioError::new(entry, "run.length", Problem::RunWithoutLength(offset)).into(),
            );
        };
        let length = u32::try_from(length).map_err(|_| {
            ScenarioError::new(entry, "run.length", Problem::NotU32(length.to_string()))
        })?;
        self.run_range(pass, offset, length)
    }

    /// `run(offset, length)` in `pass` with any range: the kernel's check
    /// judges it when it is taken (S28), so a bad range is a rejected RUN,
    /// not a builder error.
    pub fn run_range(
        &mut self,
        pass: u64,
        offset: u32,
        length: u32,
    ) -> Result<&mut ScenarioBuilder, ScenarioBuildError> {
        self.command(pass, HostCommand::Run { offset, length })
    }

    /// `cancel(req)` in `pass` (S34).
    pub fn cancel(
        &mut self,
        pass: u64,
        req: u32,
    ) -> Result<&mut ScenarioBuilder, ScenarioBuildError> {
        self.command(pass, HostCommand::Cancel { req })
    }

    /// `deadline(us)` in `pass` (S31; 0 is a rejection when it is taken).
    pub fn deadline(
        &mut self,
        pass: u64,
        us: u32,
    ) -> Result<&mut ScenarioBuilder, ScenarioBuildError> {
        self.command(pass, HostCommand::Deadline { us })
    }

    /// Up to ten words padded with 0 (S27).
    fn args(&self, kind: &str, args: &[u32]) -> Result<[u32; 10], ScenarioError> {
        let mut words = [0u32; 10];
        if args.len() > words.len() {
            return Err(ScenarioError::new(
                self.next_entry(),
                format!("{kind}.args"),
                Problem::TooManyArgs(args.len()),
            ));
        }
        words[..args.len()].copy_from_slice(args);
        Ok(words)
    }

    /// A plain command from the host in `pass` on the fixed `group` =
    /// (first, count) (S32). A handler outside 1..239 or a group outside the
    /// grid is a rejection when it is taken, not a builder error.
    pub fn submit(
        &mut self,
        pass: u64,
        handler: u32,
        group: (u32, u32),
        args: &[u32],
        exclusive: bool,
        result: bool,
    ) -> Result<&mut ScenarioBuilder, ScenarioBuildError> {
        let args = self.args("submit", args)?;
        self.command(
            pass,
            HostCommand::Submit {
                handler,
                first: group.0,
                count: group.1,
                args,
                exclusive,
                result,
            },
        )
    }

    /// A queued command from the host in `pass`; the allocator chooses its
    /// first core (S32).
    pub fn enqueue(
        &mut self,
        pass: u64,
        handler: u32,
        count: u32,
        args: &[u32],
        exclusive: bool,
        result: bool,
    ) -> Result<&mut ScenarioBuilder, ScenarioBuildError> {
        let args = self.args("enqueue", args)?;
        self.command(
            pass,
            HostCommand::Enqueue {
                handler,
                count,
                args,
                exclusive,
                result,
            },
        )
    }

    /// The scenario so far.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The scenario.
    pub fn build(self) -> Scenario {
        self.scenario
    }
}

/// One upload file's bytes: `.kms` text assembled ([`crate::asm::assemble`]),
/// anything else read as raw bytes. The error says what is wrong; the
/// scenario reader puts the file's path in front of it.
pub fn load_upload(path: &Path) -> Result<Vec<u8>, String> {
    upload_bytes(
        path,
        std::fs::read(path).map_err(|e| format!("cannot be read: {e}"))?,
    )
}

/// An upload's bytes from the contents of its file at `path`: `.kms` text
/// assembled, anything else as it is.
pub fn upload_bytes(path: &Path, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    if path.extension().is_none_or(|e| e != "kms") {
        return Ok(bytes);
    }
    assemble(bytes)
}

/// `.kms` text assembled (one function for both builds, so that each
/// build has all of it).
fn assemble(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    #[cfg(feature = "asm")]
    {
        let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
        crate::asm::assemble(&text).map_err(|e| format!("does not assemble: {e}"))
    }
    #[cfg(not(feature = "asm"))]
    {
        drop(bytes);
        Err("assembly text needs kmst's `asm` feature".to_string())
    }
}

/// Reads the scenario file at `path` (S36); uploads are relative to its
/// folder and loaded with [`load_upload`]. Any error names the entry and
/// the field (an upload that cannot be read or assembled: its `file` and
/// the path), and nothing runs.
pub fn read_file(path: &Path) -> Result<Scenario, ScenarioError> {
    json::read_file_with(path, &mut load_upload)
}

/// [`read_file`] of a file's text already read; `path` is where it lives.
pub fn from_json(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
    json::from_json(text, path, &mut load_upload)
}

/// [`from_json`] with the uploads' files read by `read` (their contents,
/// for example from files bundled into a program), then turned into bytes
/// as [`upload_bytes`] says.
pub fn from_json_with(
    text: &str,
    path: &Path,
    read: &mut dyn FnMut(&Path) -> Result<Vec<u8>, String>,
) -> Result<Scenario, ScenarioError> {
    json::from_json(text, path, &mut |p: &Path| upload_bytes(p, read(p)?))
}
