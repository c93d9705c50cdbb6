//! `kmst asm` and `kmst disasm`.

use std::path::PathBuf;
use std::process::ExitCode;

use kmst::asm::{assemble, disassemble};
use kmst::check::check;

use crate::common::{CliError, print_out, read_file, write_file};

#[derive(clap::Args)]
pub struct AsmArgs {
    /// The `.kms` text to assemble.
    input: PathBuf,
    /// Where to write the upload bytes.
    #[arg(short, long)]
    output: PathBuf,
    /// Exit 1 when the check rejects the assembled upload.
    #[arg(long)]
    strict: bool,
}

#[derive(clap::Args)]
pub struct DisasmArgs {
    /// The upload bytes.
    input: PathBuf,
    /// Where to write the text (standard output if not given).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn asm(args: AsmArgs) -> Result<ExitCode, CliError> {
    let text = String::from_utf8(read_file(&args.input)?).map_err(|_| CliError::Input {
        path: args.input.clone(),
        message: "not UTF-8 text".into(),
    })?;
    let bytes = assemble(&text).map_err(|e| CliError::Input {
        path: args.input.clone(),
        message: e.to_string(),
    })?;
    write_file(&args.output, &bytes)?;
    // docs/asm.md: report the check's verdict on standard error.
    match check(&bytes, bytes.len() as u64) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!(
                "kmst: note: the check rejects {}: reason {} at pc {}",
                args.output.display(),
                e.reason,
                e.pc
            );
            Ok(if args.strict {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

pub fn disasm(args: DisasmArgs) -> Result<ExitCode, CliError> {
    let text = disassemble(&read_file(&args.input)?);
    match &args.output {
        Some(path) => write_file(path, text.as_bytes())?,
        None => print_out(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}
