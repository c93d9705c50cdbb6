//! `kmst replay`.

use std::process::ExitCode;

use crate::common::CliError;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::Usage("`kmst replay` is not built yet".into()))
}
