//! `kmst compare`.

use std::process::ExitCode;

use crate::common::CliError;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::Usage("`kmst compare` is not built yet".into()))
}
