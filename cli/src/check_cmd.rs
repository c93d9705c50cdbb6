//! `kmst check`: the kernel's check on one upload (exit 0 valid, 1 rejected, 2 usage or I/O).

use std::path::PathBuf;
use std::process::ExitCode;

use kmst::asm::format_op;
use kmst::check::{Reason, check};
use kmst::format::check_req;
use kmst::format::{HEADER_LEN, MicroOp, OP_LEN};

use crate::common::{CliError, load_upload, print_out};

#[derive(clap::Args)]
pub struct Args {
    /// The upload: a binary, or a `.kms` text assembled on the fly (`-`:
    /// standard input).
    input: PathBuf,
    /// The size of the region the kernel publishes (docs/spec.md; 1 MiB by default).
    #[arg(long, default_value_t = 1 << 20, allow_negative_numbers = true, value_parser = crate::common::in_range::<0, { crate::common::U64 }>)]
    region_size: u64,
    /// Print one JSON object instead of a sentence: `{"check": null}` or
    /// `{"check": {"reason": R, "pc": P}, "req": Q}` (Q by S3 for `check`: the header's
    /// req when the upload is at least 64 bytes long, else 0; the req of the
    /// error event `kmst run` posts for it, P5).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let data = load_upload(&args.input)?;
    let verdict = check(&data, args.region_size);
    let line = if args.json {
        // Written by hand to keep the documented key order (reason before pc).
        match verdict {
            Ok(()) => r#"{"check": null}"#.to_owned(),
            Err(e) => format!(
                r#"{{"check": {{"reason": {}, "pc": {}}}, "req": {}}}"#,
                e.reason.number(),
                e.pc,
                check_req(&data)
            ),
        }
    } else {
        match verdict {
            Ok(()) => format!("{}: accepted", args.input.display()),
            Err(e) => {
                let mut line = format!(
                    "{}: rejected: reason {} ({}) at pc {}, req {}",
                    args.input.display(),
                    e.reason.number(),
                    e.reason.describe(),
                    e.pc,
                    check_req(&data)
                );
                // Name the micro-op at the pc for the micro-op reasons.
                let at = HEADER_LEN + e.pc as usize * OP_LEN;
                if e.reason != Reason::BadHeader && at + OP_LEN <= data.len() {
                    line.push_str(&format!(": {}", format_op(&MicroOp::read(&data[at..]))));
                }
                line
            }
        }
    };
    print_out(&format!("{line}\n"))?;
    Ok(if verdict.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
