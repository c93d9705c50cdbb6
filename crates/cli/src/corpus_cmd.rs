//! `kmst corpus write` and `kmst corpus check`: regenerate or verify the golden
//! corpus of reference streams (library: `kmst_harness::corpus`, format: docs/corpus.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kmst_harness::corpus::{self, CorpusError};

use crate::common::{CliError, print_out};
use crate::progress::Line;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Assemble every source and write its `.bin` and the reference model's answer as `.json`.
    Write {
        /// The corpus directory.
        #[arg(long, default_value = corpus::DEFAULT_DIR)]
        dir: PathBuf,
        /// Write even when the new answer contradicts the source's `;@ expect`.
        #[arg(long)]
        force: bool,
        /// Only these streams (default: every `.kms` in the directory).
        names: Vec<String>,
    },
    /// Compare every saved answer with the reference model and every dispatch variant
    /// (exit 1 on any mismatch).
    Check {
        /// The corpus directory.
        #[arg(long, default_value = corpus::DEFAULT_DIR)]
        dir: PathBuf,
        /// Only these streams (default: every `.kms` in the directory).
        names: Vec<String>,
    },
}

fn corpus_err(err: CorpusError) -> CliError {
    match err {
        CorpusError::Io { path, err } => CliError::Io { path, err },
        CorpusError::Unknown { stream } => CliError::Usage(format!("no stream named `{stream}`")),
        other => CliError::Usage(other.to_string()),
    }
}

/// `[done/total] name` on the progress line.
struct Progress {
    line: Line,
    total: usize,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            line: Line::new(),
            total,
        }
    }

    fn show(&self, done: usize, name: &str) {
        self.line.show(&format!("[{done}/{}] {name}", self.total));
    }

    fn clear(&self) {
        self.line.clear();
    }
}

/// The streams to work on: `names`, or every `.kms` in `dir`; none is an error.
fn names_in(dir: &Path, names: Vec<String>) -> Result<Vec<String>, CliError> {
    if !names.is_empty() {
        return Ok(names);
    }
    let found = corpus::stream_names(dir).map_err(corpus_err)?;
    if found.is_empty() {
        return Err(CliError::Usage(format!(
            "{}: no `.kms` streams in this directory",
            dir.display()
        )));
    }
    Ok(found)
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.action {
        Action::Write { dir, force, names } => write(&dir, names, force),
        Action::Check { dir, names } => check(&dir, names),
    }
}

fn write(dir: &Path, names: Vec<String>, force: bool) -> Result<ExitCode, CliError> {
    let names = names_in(dir, names)?;
    let progress = Progress::new(names.len());
    let mut contradicted = 0;
    for (i, name) in names.iter().enumerate() {
        progress.show(i, name);
        let found = corpus::write_stream(dir, name, force).map_err(corpus_err)?;
        if !found.is_empty() {
            contradicted += 1;
            progress.clear();
            for m in &found {
                print_out(&format!("{m}\n"))?;
            }
        }
    }
    progress.clear();
    let written = if force {
        names.len()
    } else {
        names.len() - contradicted
    };
    eprintln!(
        "wrote {written} of {} streams in {}{}",
        names.len(),
        dir.display(),
        if contradicted > 0 {
            format!(
                "; {contradicted} contradict their `;@ expect`{}",
                if force {
                    " (written anyway)"
                } else {
                    " and were not written"
                }
            )
        } else {
            String::new()
        }
    );
    Ok(if contradicted > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn check(dir: &Path, names: Vec<String>) -> Result<ExitCode, CliError> {
    let names = names_in(dir, names)?;
    let impls = kmst_harness::answers::implementations();
    let progress = Progress::new(names.len());
    let mut failing = 0;
    for (i, name) in names.iter().enumerate() {
        progress.show(i, name);
        let saved = corpus::load_saved(dir, name).map_err(corpus_err)?;
        let found = corpus::check_saved(&saved, &impls).map_err(corpus_err)?;
        if !found.is_empty() {
            failing += 1;
            progress.clear();
            for m in &found {
                print_out(&format!("{m}\n"))?;
            }
        }
    }
    progress.clear();
    let mut with: Vec<String> = impls.iter().map(|i| i.name()).collect();
    with.push("the checker".into());
    eprintln!(
        "checked {} streams against {}: {}",
        names.len(),
        with.join(", "),
        if failing == 0 {
            "all match".to_owned()
        } else {
            format!("{failing} do not match")
        }
    );
    Ok(if failing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
