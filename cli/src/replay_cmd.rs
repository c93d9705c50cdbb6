//! `kmst replay`: re-runs a saved fuzz input through its target's comparison
//! (`kmst_harness::fuzzing::run`, the very code the fuzz target calls) and prints
//! what the implementations agreed on, or the divergence report.
//! Exit 0 when they agree, 1 on a divergence, 2 on a usage or I/O error.

use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::common::{CliError, print_out, read_file};
use kmst_harness::fuzzing::Target;
use kmst_harness::fuzzing::divergence::params_json;
use kmst_harness::fuzzing::targets::decode_input;

#[derive(clap::Args)]
pub struct Args {
    /// The saved input (a libFuzzer artifact, a seed, a regression file; `-`:
    /// standard input, with --target).
    artifact: PathBuf,
    /// The fuzz target: check, sim_raw, sim_structured, builder, scenario, sim_edges, sizes or resume. By default
    /// the first directory of the artifact's path named like a target
    /// (`fuzz/artifacts/TARGET/...`, `fuzz/regressions/TARGET/...`).
    #[arg(long)]
    target: Option<String>,
    /// Also print the upload the input stands for (as `.kms`) and its parameters.
    #[arg(long)]
    disasm: bool,
    /// Keep the input as a regression test: copy it to
    /// `REGRESSIONS/TARGET/NAME` (before it runs, so a crash is kept too);
    /// `cargo test -p kmst-harness --test fuzz_corpus` replays it from then on.
    #[arg(long)]
    keep: bool,
    /// Where `--keep` puts it.
    #[arg(long, default_value = "fuzz/regressions", requires = "keep")]
    regressions: PathBuf,
}

/// `--keep`: the input under `regressions/TARGET/` by its file name.
fn keep(args: &Args, target: Target, data: &[u8]) -> Result<(), CliError> {
    let dir = args.regressions.join(target.name());
    std::fs::create_dir_all(&dir).map_err(|err| CliError::Io {
        path: dir.clone(),
        err,
    })?;
    let name = args
        .artifact
        .file_name()
        .filter(|_| !crate::common::is_std(&args.artifact))
        .ok_or_else(|| {
            CliError::Usage("--keep names the kept file after the artifact's; give a file".into())
        })?;
    let path = dir.join(name);
    match std::fs::read(&path) {
        Ok(old) if old == data => {}
        Ok(_) => {
            return Err(CliError::Usage(format!(
                "{} exists with other contents; rename the artifact to keep both",
                path.display()
            )));
        }
        Err(_) => crate::common::write_file(&path, data)?,
    }
    eprintln!(
        "kmst: kept as {}; `cargo test -p kmst-harness --test fuzz_corpus` replays it",
        path.display()
    );
    Ok(())
}

/// The target named by a directory of `path`, innermost first.
fn target_from_path(path: &Path) -> Option<Target> {
    path.parent()?
        .ancestors()
        .filter_map(|p| p.file_name()?.to_str()?.parse().ok())
        .next()
}

pub(super) fn run(args: Args) -> Result<ExitCode, CliError> {
    let target = match &args.target {
        Some(name) => name
            .parse::<Target>()
            .map_err(|e| CliError::Usage(e.to_string()))?,
        None => target_from_path(&args.artifact).ok_or_else(|| {
            CliError::Usage(format!(
                "cannot tell the fuzz target from the path {}; give --target",
                args.artifact.display()
            ))
        })?,
    };
    let data = read_file(&args.artifact)?;
    if args.keep {
        keep(&args, target, &data)?;
    }
    let mut out = String::new();
    if args.disasm {
        let (upload, params) = decode_input(target, &data);
        if let Some(p) = params {
            let _ = writeln!(out, "; params: {}", params_json(&p));
        }
        let _ = write!(out, "{}", kmst::asm::disassemble(&upload));
        // Printed before the run: a crash input ends the process in it.
        print_out(&std::mem::take(&mut out))?;
    }
    let code = match kmst_harness::fuzzing::run(target, &data) {
        Ok(agreement) => {
            let _ = writeln!(
                out,
                "{target}: {} ({}): every implementation agrees; {agreement}",
                args.artifact.display(),
                kmst_harness::text::counted(data.len() as u64, "byte", "bytes")
            );
            ExitCode::SUCCESS
        }
        Err(divergence) => {
            let _ = writeln!(out, "{}: {divergence}", args.artifact.display());
            ExitCode::from(1)
        }
    };
    print_out(&out)?;
    Ok(code)
}
