//! `kmst asm` and `kmst disasm`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kmst::asm::disassemble;
use kmst::check::check;

use crate::common::{
    CliError, Kind, assemble, is_plain_output, is_std, params_file_of, print_out, read_input,
    read_source, shown_output, write_file,
};

const ASM_AFTER_HELP: &str = "\
The `;@` directives are read as `kmst run` reads them, and a bad one is an
error. A `;@ params` line goes to OUT's parameters file, OUT with its
extension replaced by `.params.json` (`-o s.bin` writes `s.params.json`),
which `kmst run`, `kmst profile` and `kmst compare` read beside the upload;
a source without one removes an old parameters file there. `-o -` writes
the upload to standard output, and OUT may be a device or a FIFO (written
through); neither has a parameters file beside it (a note says so when the
source has `;@ params`). A `-` INPUT is standard input.

Exit status: 0 when the check accepts the upload, 1 when it rejects it (the
file is written all the same; --allow-rejected: exit 0), 2 for a usage or
I/O error, text that does not assemble, or more than 65,535 micro-ops or
templates (nothing is written, unless --allow-rejected).";

#[derive(clap::Args)]
#[command(after_help = ASM_AFTER_HELP)]
pub struct AsmArgs {
    /// The `.kms` text to assemble (`-`: standard input).
    input: PathBuf,
    /// Where to write the upload bytes (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
    /// Exit 0 when the check rejects the assembled upload, and write one of
    /// more than 65,535 micro-ops or templates (for the faulty uploads of a
    /// corpus; the note on standard error stays).
    #[arg(long)]
    allow_rejected: bool,
    /// Exit 1 when the check rejects the upload (the default; kept for scripts).
    #[arg(long, hide = true, conflicts_with = "allow_rejected")]
    strict: bool,
}

#[derive(clap::Args)]
pub struct DisasmArgs {
    /// The upload bytes (with its `.params.json` beside it, if any, as a
    /// `;@ params` line; `-`: standard input, with none).
    input: PathBuf,
    /// Where to write the text (standard output if not given, or `-`).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// The bytes of `input`, which must hold `wanted`: another kind is refused
/// naming the command that takes it.
fn read_kind(input: &Path, wanted: Kind) -> Result<Vec<u8>, CliError> {
    let (bytes, kind) = read_input(input)?;
    if kind == wanted {
        return Ok(bytes);
    }
    let hint = match kind {
        Kind::Upload => "`kmst disasm` prints it as text",
        Kind::Source => "`kmst asm` assembles it; `kmst run` and `kmst check` take it as it is",
        Kind::Json => "a kernel scenario runs with `kmst scenario`",
    };
    Err(CliError::WrongKind {
        path: input.to_owned(),
        kind,
        hint,
    })
}

pub fn asm(args: AsmArgs) -> Result<ExitCode, CliError> {
    let bytes = read_kind(&args.input, Kind::Source)?;
    let source = read_source(&args.input, bytes)?;
    let upload = assemble(&args.input, &source)?;
    if !args.allow_rejected {
        refuse_over_limit(&args.input, &upload)?;
    }
    write_file(&args.output, &upload)?;
    write_params(&args.output, &source.directives.params)?;
    // docs/asm.md: report the check's verdict on standard error.
    match check(&upload, upload.len() as u64) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!(
                "kmst: note: the check rejects {}: reason {} at pc {}",
                shown_output(&args.output),
                e.reason,
                e.pc
            );
            Ok(if args.allow_rejected {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

/// More micro-ops or templates than the format holds (docs/spec.md: at
/// most 65,535 of each, in the header's op_count and command_count) is an
/// error, before anything is written.
fn refuse_over_limit(input: &Path, upload: &[u8]) -> Result<(), CliError> {
    let field = |at: usize| {
        upload
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let max = kmst::format::MAX_OPS as u32;
    for (n, what) in [(field(8), "micro-ops"), (field(12), "templates")] {
        if n > max {
            return Err(CliError::Input {
                path: input.to_owned(),
                message: format!(
                    "{} {what}: an upload holds at most 65,535 (docs/spec.md); \
                     --allow-rejected writes it for the check to reject",
                    kmst_harness::text::grouped(n.into())
                ),
            });
        }
    }
    Ok(())
}

/// Writes the source's `;@ params` beside the upload, or removes an old
/// parameters file when it has none; says on standard error which. Beside
/// standard output, a device or a FIFO, nothing is written or removed.
fn write_params(
    output: &Path,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), CliError> {
    if !is_plain_output(output) {
        if !params.is_empty() {
            eprintln!(
                "kmst: note: the `;@ params` are not written: {} is not a file that can \
                 have a parameters file beside it (`kmst run` takes them with --params)",
                shown_output(output)
            );
        }
        return Ok(());
    }
    let path = params_file_of(output);
    if params.is_empty() {
        match std::fs::remove_file(&path) {
            Ok(()) => eprintln!(
                "kmst: note: removed {}: the source has no `;@ params`",
                path.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(CliError::Write { path, err }),
        }
        return Ok(());
    }
    let object = serde_json::Value::Object(params.clone());
    let text = serde_json::to_string_pretty(&object).expect("a JSON value prints");
    write_file(&path, format!("{text}\n").as_bytes())?;
    eprintln!(
        "kmst: the `;@ params` went to {}, which `kmst run {}` reads",
        path.display(),
        output.display()
    );
    Ok(())
}

pub fn disasm(args: DisasmArgs) -> Result<ExitCode, CliError> {
    let bytes = read_kind(&args.input, Kind::Upload)?;
    let mut text = disassemble(&bytes);
    // The parameters `kmst asm` wrote beside the upload, back as a directive
    // (standard input has none beside it).
    let params = params_file_of(&args.input);
    if let Some(json) = std::fs::read(&params).ok().filter(|_| !is_std(&args.input)) {
        let value = kmst_harness::answers::strict_json(&String::from_utf8_lossy(&json)).map_err(
            |message| CliError::Input {
                path: params.clone(),
                message,
            },
        )?;
        text.insert_str(0, &format!(";@ params {value}\n"));
    }
    match &args.output {
        Some(path) => write_file(path, text.as_bytes())?,
        None => print_out(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}
