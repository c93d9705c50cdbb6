//! What every subcommand shares: its error type, reading input files,
//! replacing output files whole, and writing standard output.

use std::fmt;
use std::path::{Path, PathBuf};

use kmst_harness::answers::{Source, SourceError};
use kmst_reference::Params;

/// A failure that ends a subcommand with exit code 2 and a one-line message.
#[derive(Debug)]
pub enum CliError {
    /// A file could not be read or written.
    Io { path: PathBuf, err: std::io::Error },
    /// The arguments do not make sense together, or a value is out of range.
    Usage(String),
    /// An input file is not what it should be (a `.kms` syntax error, bad JSON, ...).
    Input { path: PathBuf, message: String },
    /// Standard output could not be written (a full disk, a closed file).
    Stdout(std::io::Error),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            CliError::Usage(message) => write!(f, "{message}"),
            CliError::Input { path, message } => write!(f, "{}: {message}", path.display()),
            CliError::Stdout(err) => write!(f, "writing standard output: {err}"),
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

/// Replaces a file whole (a temporary file beside it, renamed into place),
/// naming it in the error; on any error the old file is left as it was.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    kmst_harness::corpus::replace::replace_file(path, bytes).map_err(|err| CliError::Io {
        path: path.to_owned(),
        err,
    })
}

/// Writes `text` to standard output and flushes it. A closed pipe
/// (`kmst ... | head`) is not an error; any other failure (`>/dev/full`) is.
pub fn print_out(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Stdout(e)),
        _ => Ok(()),
    }
}

/// An upload from a file: a `.kms` file is assembled, anything else is read as bytes.
pub fn load_upload(path: &Path) -> Result<Vec<u8>, CliError> {
    let bytes = read_file(path)?;
    if is_kms(path) {
        assemble(path, &kms_text(path, bytes)?)
    } else {
        Ok(bytes)
    }
}

/// A stream to run from a file: its upload and the parameters its source names.
///
/// A `.kms` file is assembled and its `;@ params` directive (docs/corpus.md),
/// when it has one, gives the base parameters; any other file is an upload
/// run with the defaults. `--params` and the flags override either.
pub fn load_stream(path: &Path) -> Result<(Vec<u8>, Params), CliError> {
    let bytes = read_file(path)?;
    if !is_kms(path) {
        return Ok((bytes, Params::default()));
    }
    let text = kms_text(path, bytes)?;
    let input = |message: String| CliError::Input {
        path: path.to_owned(),
        message,
    };
    let name = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let source_err = |e: SourceError| match e {
        SourceError::Params { message, .. } => input(format!(";@ params: {message}")),
        SourceError::Assemble { message, .. } => input(message),
        e @ SourceError::Directive { .. } => input(e.to_string()),
    };
    let source = Source::parse(&name, &text).map_err(source_err)?;
    let params = source.params().map_err(source_err)?;
    Ok((source.assemble().map_err(source_err)?, params))
}

fn is_kms(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "kms")
}

fn kms_text(path: &Path, bytes: Vec<u8>) -> Result<String, CliError> {
    String::from_utf8(bytes).map_err(|_| CliError::Input {
        path: path.to_owned(),
        message: "not UTF-8 text".into(),
    })
}

fn assemble(path: &Path, text: &str) -> Result<Vec<u8>, CliError> {
    kmst::asm::assemble(text).map_err(|e| CliError::Input {
        path: path.to_owned(),
        message: e.to_string(),
    })
}
