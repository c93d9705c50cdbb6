//! What every subcommand shares: its error type and reading input files.

use std::fmt;
use std::path::{Path, PathBuf};

/// A failure that ends a subcommand with exit code 2 and a one-line message.
#[derive(Debug)]
pub enum CliError {
    /// A file could not be read or written.
    Io { path: PathBuf, err: std::io::Error },
    /// The arguments do not make sense together, or a value is out of range.
    Usage(String),
    /// An input file is not what it should be (a `.kms` syntax error, bad JSON, ...).
    Input { path: PathBuf, message: String },
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            CliError::Usage(message) => write!(f, "{message}"),
            CliError::Input { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

/// Reads a file, naming it in the error.
pub fn read_file(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|err| CliError::Io {
        path: path.to_owned(),
        err,
    })
}

/// Writes a file, naming it in the error.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    std::fs::write(path, bytes).map_err(|err| CliError::Io {
        path: path.to_owned(),
        err,
    })
}
