//! `kmst fuzz-seeds`: fills `fuzz/corpus/TARGET/` with the seed corpora
//! (`kmst_harness::fuzzing::seeds`: the saved streams behind their prefixes, and
//! chosen pseudo-random inputs for the structured targets) and writes the
//! dictionary `fuzz/kmst.dict`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::common::CliError;
use kmst_harness::fuzzing::seeds::{all_seeds, dictionary, write_seeds};

#[derive(clap::Args)]
pub struct Args {
    /// The saved streams to build the raw targets' seeds from.
    #[arg(long, default_value = kmst_harness::corpus::DEFAULT_DIR)]
    corpus: PathBuf,
    /// Where the seed directories go (one per target).
    #[arg(long, default_value = "fuzz/corpus")]
    out: PathBuf,
    /// Where the libFuzzer dictionary goes.
    #[arg(long, default_value = "fuzz/kmst.dict")]
    dict: PathBuf,
}

pub(super) fn run(args: Args) -> Result<ExitCode, CliError> {
    let seeds = all_seeds(&args.corpus).map_err(|e| CliError::Usage(e.to_string()))?;
    let n = write_seeds(&args.out, &seeds).map_err(|e| CliError::Usage(e.to_string()))?;
    crate::common::write_file(&args.dict, dictionary().as_bytes())?;
    println!(
        "wrote {n} seeds under {} and the dictionary {}",
        args.out.display(),
        args.dict.display()
    );
    Ok(ExitCode::SUCCESS)
}
