//! `kmst profile`: how a stream spends its per-pass turns (docs/profiling.md).
//!
//! Takes the flags of `kmst run` for the parameters, runs the stream on a
//! fast dispatch variant with the profiling observer, and prints the report
//! (tables, or `--json`), a budget sweep (`--sweep`), and optionally writes a
//! Perfetto trace (`--trace`).

use std::path::PathBuf;
use std::process::ExitCode;

use kmst::exec::Dispatch;
use kmst_harness::profile::{self, ProfileError};

use crate::common::{CliError, load_stream};
use crate::run_cmd::{ParamsArgs, build_params_on};

#[derive(clap::Args)]
pub struct Args {
    /// The upload to profile (`.kms` is assembled).
    pub file: PathBuf,
    #[command(flatten)]
    pub params: ParamsArgs,
    /// The fast dispatch variant: tail, switch or threaded.
    #[arg(long, default_value = "tail")]
    pub dispatch: String,
    /// The turn budget (micro-ops per turn; the same as --turn-budget).
    #[arg(long, conflicts_with = "sweep")]
    pub budget: Option<u32>,
    /// Run once per turn budget and tabulate: N,N,...
    #[arg(long, value_delimiter = ',', num_args = 1)]
    pub sweep: Option<Vec<u32>>,
    /// Write a Chrome trace-event / Perfetto JSON file (1 pass = 1 us).
    #[arg(long, conflicts_with = "sweep")]
    pub trace: Option<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

fn profile_error(path: &std::path::Path, e: ProfileError) -> CliError {
    match e {
        ProfileError::Rejected(_) => CliError::Input {
            path: path.to_owned(),
            message: e.to_string(),
        },
        _ => CliError::Usage(e.to_string()),
    }
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let (upload, base) = load_stream(&args.file)?;
    let mut params = build_params_on(base, &args.params)?;
    if let Some(b) = args.budget {
        if b == 0 {
            return Err(CliError::Usage("--budget must be at least 1".into()));
        }
        params.turn_budget = b;
    }
    let dispatch: Dispatch = args
        .dispatch
        .parse()
        .map_err(|e: kmst::exec::UnknownDispatch| CliError::Usage(format!("--dispatch: {e}")))?;

    if let Some(budgets) = &args.sweep {
        if budgets.contains(&0) {
            return Err(CliError::Usage(
                "--sweep: a budget must be at least 1".into(),
            ));
        }
        let rows = profile::sweep(&upload, &params, dispatch, budgets)
            .map_err(|e| profile_error(&args.file, e))?;
        if args.json {
            let v = serde_json::json!({"dispatch": dispatch.name(), "sweep": rows});
            print_out(&format!("{}\n", pretty(&v)))?;
        } else {
            print_out(&profile::render::sweep(&rows))?;
        }
        return Ok(ExitCode::SUCCESS);
    }

    let run = profile::profile(&upload, &params, dispatch, args.trace.is_some())
        .map_err(|e| profile_error(&args.file, e))?;
    if let Some(path) = &args.trace {
        let io = |err| CliError::Io {
            path: path.clone(),
            err,
        };
        let file = std::fs::File::create(path).map_err(io)?;
        profile::trace::write(&run, std::io::BufWriter::new(file)).map_err(io)?;
    }
    if args.json {
        print_out(&format!("{}\n", pretty(&run.profile)))?;
    } else {
        print_out(&profile::render::human(&run.profile))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn pretty<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).expect("a profile prints as JSON")
}

/// Writes to stdout; a closed pipe (`kmst profile ... | head`) is not an error.
fn print_out(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Usage(format!("writing the output: {e}")))
        }
        _ => Ok(()),
    }
}
