//! `kmst corpus`.

use std::process::ExitCode;

use crate::common::CliError;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::Usage("`kmst corpus` is not built yet".into()))
}
