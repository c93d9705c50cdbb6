//! `kmst asm` and `kmst disasm`.

use std::process::ExitCode;

use crate::common::CliError;

#[derive(clap::Args)]
pub struct AsmArgs {}

#[derive(clap::Args)]
pub struct DisasmArgs {}

pub fn asm(_args: AsmArgs) -> Result<ExitCode, CliError> {
    Err(CliError::Usage("`kmst asm` is not built yet".into()))
}

pub fn disasm(_args: DisasmArgs) -> Result<ExitCode, CliError> {
    Err(CliError::Usage("`kmst disasm` is not built yet".into()))
}
