//! The golden corpus: named reference streams and their saved answers.
//!
//! Each stream is a `.kms` source in `corpus/streams/` whose directive comments
//! (`;@ params`, `;@ notes`, `;@ expect`, `;@ check_run`, `;@ covers`, see
//! `docs/corpus.md`) carry its simulation parameters and what it exercises.
//! Beside it lie the assembled upload (`NAME.bin`) and the saved answer
//! (`NAME.json`: `params`, `notes`, then the reference model's full answer,
//! S24). The corpus exists so that every implementation can be replayed
//! against the same answers and so that a slip in the reference model changes
//! some saved answer.
//!
//! - this module: where the corpus is and how a stream's source is found;
//! - [`answer`]: a stream's saved answer as the reference model gives it;
//! - [`expect`]: the hand-worked `;@ expect` parts an answer must contain;
//! - [`render`](mod@render): the fixed, readable layout of a saved `.json`;
//! - [`replay`]: checking saved answers against every implementation, and
//!   writing them;
//! - [`replace`]: replacing a file whole or not at all (every tool that
//!   writes over a file uses it).
//! - [`scenario`]: the scenario corpus (`corpus/scenarios/`): kernel
//!   scenarios (S26..S36) with their saved answers, loaded, checked and
//!   written the same way.
//!
//! Sources and their directives are read with [`crate::answers::Source`];
//! answers are compared with [`crate::answers::first_difference`].

use std::fmt;
use std::path::{Path, PathBuf};

use crate::answers::{Source, SourceError};

pub mod answer;
pub mod expect;
pub mod render;
pub mod replace;
pub mod replay;
pub mod scenario;

pub use answer::{answer_part, reference_answer};
pub use expect::expect_mismatch;
pub use render::render;
pub use replay::{Mismatch, Saved, check_saved, load_saved, write_stream};

/// The default corpus directory, relative to the workspace root.
pub const DEFAULT_DIR: &str = "corpus/streams";

/// The top-level fields of a saved answer, in the order they are written.
pub const ANSWER_FIELDS: [&str; 8] = [
    "check", "commands", "events", "status", "passes", "error", "halt", "stopped",
];

/// Anything that stops the corpus from being read or written.
#[derive(Debug)]
pub enum CorpusError {
    /// A file could not be read or written.
    Io { path: PathBuf, err: std::io::Error },
    /// A source's directives or assembly are bad.
    Source(SourceError),
    /// A saved `.json` answer is not what the corpus writes.
    Answer { stream: String, message: String },
    /// A stream name was asked for that has no source.
    Unknown { stream: String },
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorpusError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            CorpusError::Source(e) => write!(f, "{e}"),
            CorpusError::Answer { stream, message } => write!(f, "{stream}.json: {message}"),
            CorpusError::Unknown { stream } => write!(f, "no stream named `{stream}`"),
        }
    }
}

impl std::error::Error for CorpusError {}

impl From<SourceError> for CorpusError {
    fn from(e: SourceError) -> CorpusError {
        CorpusError::Source(e)
    }
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> CorpusError + '_ {
    move |err| CorpusError::Io {
        path: path.to_owned(),
        err,
    }
}

/// The names of every `.kms` source in `dir`, sorted.
pub fn stream_names(dir: &Path) -> Result<Vec<String>, CorpusError> {
    names_in(dir, "kms", |_| true)
}

/// The stems of the `.ext` files in `dir` that `keep` keeps, sorted.
pub(crate) fn names_in(
    dir: &Path,
    ext: &str,
    keep: impl Fn(&str) -> bool,
) -> Result<Vec<String>, CorpusError> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
        let path = entry.map_err(io_err(dir))?.path();
        if path.extension().is_some_and(|e| e == ext)
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
            && keep(stem)
        {
            names.push(stem.to_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// Reads the source of stream `name` from `dir`.
pub fn load(dir: &Path, name: &str) -> Result<Source, CorpusError> {
    let (_, text) = read_named(dir, name, "kms")?;
    Ok(Source::parse(name, &text)?)
}

/// The text of `dir/name.ext` and its path; a name without such a file is
/// [`CorpusError::Unknown`].
pub(crate) fn read_named(
    dir: &Path,
    name: &str,
    ext: &str,
) -> Result<(PathBuf, String), CorpusError> {
    let path = dir.join(format!("{name}.{ext}"));
    if !path.exists() {
        return Err(CorpusError::Unknown {
            stream: name.to_owned(),
        });
    }
    let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
    Ok((path, text))
}
