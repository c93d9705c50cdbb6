//! `kmst resume` and `kmst state`: a run saved by `--stop-at-pass N --save
//! STATE` (pause.rs), looked at, and resumed on any fast variant with the
//! whole run's answer (docs/pause.md).

use std::path::PathBuf;
use std::process::ExitCode;

use kmst::exec::Until;
use kmst::exec::resume::{Answer, Resumable};

use crate::common::{CliError, print_out};
use crate::pause::{PauseArgs, fast, pause_and_save, pretty, restore, state_json, state_text};

const AFTER_HELP: &str = "\
A snapshot (docs/pause.md) holds a run stopped between two passes: its
upload or scenario, its parameters, every stream's registers and pc, the
slots, the queue, the host commands still to come and the answer so far,
versioned and checksummed. A changed or cut file is refused (exit 2).";

#[derive(clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct ResumeArgs {
    /// The snapshot file (`kmst run --save`, `kmst scenario --save`).
    pub state: PathBuf,
    // The names come from `Dispatch::ALL` (common::dispatch_help).
    #[arg(long, default_value = "tail", help = crate::common::dispatch_help("The fast dispatch variant that runs the rest", false))]
    pub dispatch: String,
    #[command(flatten)]
    pub pause: PauseArgs,
    /// Print the S24 (one stream) or S36 (scenario) JSON answer, or with
    /// --save the state as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct StateArgs {
    /// The snapshot file.
    pub state: PathBuf,
    /// Print the state as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn resume(args: ResumeArgs) -> Result<ExitCode, CliError> {
    let dispatch = fast(&args.dispatch)?;
    let mut run = restore(&args.state)?;
    if args.pause.stop_at_pass.is_some() {
        pause_and_save(run, dispatch, &args.pause, args.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    run.run(dispatch, Until::End);
    print_answer(&run, args.json)?;
    Ok(ExitCode::SUCCESS)
}

pub fn state(args: StateArgs) -> Result<ExitCode, CliError> {
    let run = restore(&args.state)?;
    print_out(&if args.json {
        pretty(&state_json(&run))
    } else {
        state_text(&run)
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The answer of a finished run, as `kmst run` or `kmst scenario` prints it.
fn print_answer(run: &Resumable, as_json: bool) -> Result<(), CliError> {
    let answer = run.answer();
    let value = || match &answer {
        Answer::Stream(a) => a.to_json_value(),
        Answer::Scenario(a) => a.to_json_value(),
    };
    if as_json {
        let v = value().map_err(|e| CliError::Usage(e.to_string()))?;
        return print_out(&pretty(&v));
    }
    print_out(&match (&answer, run.input_scenario()) {
        (Answer::Scenario(a), Some(s)) => crate::scenario_cmd::summary(s, a, &Default::default()),
        (Answer::Stream(a), _) => {
            crate::run_cmd::summary(a, run.input_upload().unwrap_or(&[]), None)
        }
        (Answer::Scenario(_), None) => unreachable!("a scenario's run has its scenario"),
    })
}
