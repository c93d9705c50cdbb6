//! `kmst fuzz-seeds`: fills `fuzz/corpus/TARGET/` with the seed corpora
//! (`kmst_harness::fuzzing::seeds`: the saved streams behind their prefixes, and
//! chosen pseudo-random inputs for the structured targets) and writes the
//! dictionary `fuzz/kmst.dict`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::common::{CliError, print_out, write_file};
use kmst_harness::fuzzing::seeds::{all_seeds, dictionary};

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
    crate::common::refuse_std_output("--dict", Some(&args.dict))?;
    let seeds = all_seeds(&args.corpus).map_err(|e| CliError::Usage(e.to_string()))?;
    // Each seed replaces its file whole (common::write_file).
    for s in &seeds {
        let dir = args.out.join(s.target.name());
        std::fs::create_dir_all(&dir).map_err(|err| CliError::Io {
            path: dir.clone(),
            err,
        })?;
        write_file(&dir.join(&s.name), &s.bytes)?;
    }
    write_file(&args.dict, dictionary().as_bytes())?;
    print_out(&format!(
        "wrote {} seeds under {} and the dictionary {}\n",
        seeds.len(),
        args.out.display(),
        args.dict.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}
