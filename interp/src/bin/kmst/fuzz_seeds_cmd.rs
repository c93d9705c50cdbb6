//! `kmst fuzz-seeds`: fills `fuzz/corpus/TARGET/` with the seed corpora
//! (`kmst::fuzzing::seeds`: the saved streams behind their prefixes, and
//! chosen pseudo-random inputs for the structured targets).

use std::path::PathBuf;
use std::process::ExitCode;

use kmst::fuzzing::seeds::{all_seeds, write_seeds};

use crate::common::CliError;

#[derive(clap::Args)]
pub struct Args {
    /// The saved streams to build the raw targets' seeds from.
    #[arg(long, default_value = kmst::corpus::DEFAULT_DIR)]
    corpus: PathBuf,
    /// Where the seed directories go (one per target).
    #[arg(long, default_value = "fuzz/corpus")]
    out: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let seeds = all_seeds(&args.corpus).map_err(|e| CliError::Usage(e.to_string()))?;
    let n = write_seeds(&args.out, &seeds).map_err(|e| CliError::Usage(e.to_string()))?;
    println!("wrote {n} seeds under {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
