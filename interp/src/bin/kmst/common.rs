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

/// An upload from a file: a `.kms` file is assembled, anything else is read as bytes.
pub fn load_upload(path: &Path) -> Result<Vec<u8>, CliError> {
    let bytes = read_file(path)?;
    if path.extension().is_some_and(|e| e == "kms") {
        let text = String::from_utf8(bytes).map_err(|_| CliError::Input {
            path: path.to_owned(),
            message: "not UTF-8 text".into(),
        })?;
        kmst::asm::assemble(&text).map_err(|e| CliError::Input {
            path: path.to_owned(),
            message: e.to_string(),
        })
    } else {
        Ok(bytes)
    }
}
