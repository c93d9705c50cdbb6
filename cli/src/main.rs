//! The `kmst` command-line program: one file per subcommand.
#![forbid(unsafe_code)]

mod asm_cmd;
mod binary;
mod check_cmd;
mod common;
mod compare_cmd;
mod corpus_cmd;
mod explain_cmd;
mod fuzz_seeds_cmd;
mod machine_code;
mod pause;
mod plot;
mod profile_cmd;
mod progress;
mod replay_cmd;
mod resume_cmd;
mod run_cmd;
mod scenario_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// What every exit status means, for every subcommand.
const EXIT_CODES: &str = "\
Inputs are known by their content, whatever their names: an upload begins
with the format's magic (other binary data, or the magic cut short, is an
upload with a bad header), JSON begins with `{` or `[`, anything else is
`.kms` text. A file of the wrong kind for a command is an error that names
the command that takes it. An input FILE `-` is standard input; `-o -` is
standard output. An output that is a device or a FIFO is written through;
a regular one is replaced whole.

Exit status:
  0  success: the command did its work and the check, where it ran,
     accepted every upload (a stream that fails at run time still ran)
  1  a verdict against the input: the check rejects an upload (`check`,
     `asm`, `run`, `profile`, `compare`), implementations disagree
     (`compare`, `corpus check`, `replay`), a saved answer or `;@ expect`
     does not match (`corpus`)
  2  a usage or I/O error: bad arguments, an input of the wrong kind, text
     or JSON that does not parse, a file that cannot be read or written
     (standard output too); nothing is judged
Every error is one line on standard error, starting `kmst: `. Ctrl-C or
SIGTERM ends a command with 130, removing the temporary file of an output
it was writing (the old file stays as it was).";

/// kmst — the micro-op stream engine: check, assemble, run, compare and profile streams.
#[derive(Parser)]
#[command(name = "kmst", version, propagate_version = true, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Assemble a `.kms` text into an upload.
    Asm(asm_cmd::AsmArgs),
    /// Print an upload as `.kms` assembly that re-assembles to the same bytes.
    Disasm(asm_cmd::DisasmArgs),
    /// Run the kernel's check on an upload or a `.kms` source (exit 0 valid, 1 rejected, 2 usage or I/O error).
    Check(check_cmd::Args),
    /// Simulate a stream with the reference model or a fast dispatch variant.
    Run(Box<run_cmd::Args>),
    /// Run a kernel scenario (several streams and the host) from a JSON file.
    Scenario(scenario_cmd::Args),
    /// Go on with a run saved by `--stop-at-pass N --save STATE`, on any fast variant.
    Resume(resume_cmd::ResumeArgs),
    /// Print what a saved run holds: its pass, streams, slots, queue and host commands.
    State(resume_cmd::StateArgs),
    /// Regenerate or verify the golden corpus of reference streams.
    Corpus(corpus_cmd::Args),
    /// Run every dispatch variant and the reference model on workloads and compare speed
    /// (or, with --counters, count instructions, branches and mispredictions under callgrind).
    Compare(compare_cmd::Args),
    /// The child process `kmst compare --counters` counts under callgrind.
    #[command(hide = true)]
    CountersChild(compare_cmd::ChildArgs),
    /// Profile how a stream spends its per-pass turns.
    Profile(Box<profile_cmd::Args>),
    /// Print the machine code each dispatch variant runs for a micro-op, or
    /// the code compiled for an upload.
    Explain(explain_cmd::Args),
    /// Re-run a saved fuzz artifact and report any divergence.
    Replay(replay_cmd::Args),
    /// Fill fuzz/corpus/TARGET/ with the fuzz targets' seed corpora.
    FuzzSeeds(fuzz_seeds_cmd::Args),
}

/// clap's usage error as one line: its message, the missing arguments and
/// its tip joined, then the usage and a pointer to `--help`; exit 2.
fn usage_error(err: &clap::Error) -> String {
    let text = err.to_string();
    let mut parts = Vec::new();
    let mut usage = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(u) = line.strip_prefix("Usage: ") {
            usage = Some(u.to_owned());
        } else if !line.starts_with("For more information") {
            parts.push(line.strip_prefix("error: ").unwrap_or(line).to_owned());
        }
    }
    let mut line = String::new();
    for part in parts {
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(&part);
    }
    match usage {
        Some(u) => line.push_str(&format!(" (usage: {u}; see --help)")),
        None => line.push_str(" (see --help)"),
    }
    line
}

fn main() -> ExitCode {
    // Ctrl-C, SIGTERM, SIGHUP: remove the half-written temporary files
    // beside the outputs (their old versions stay), exit 130.
    let _ = ctrlc::set_handler(|| {
        kmst_harness::corpus::replace::remove_unfinished();
        std::process::exit(130);
    });
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => {
            // --help and --version: clap prints them whole, exit 0; a write
            // error on standard output is an I/O error (exit 2), a closed
            // pipe is not (common::print_out).
            use std::io::Write;
            return match err.print().and_then(|()| std::io::stdout().flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("kmst: {}", common::CliError::Stdout(e));
                    ExitCode::from(2)
                }
                _ => ExitCode::SUCCESS,
            };
        }
        Err(err)
            if err.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            // Plain `kmst`: the help, on stderr, exit 2.
            let _ = err.print();
            return ExitCode::from(2);
        }
        Err(err) => {
            eprintln!("kmst: {}", usage_error(&err));
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command {
        Command::Asm(args) => asm_cmd::asm(args),
        Command::Disasm(args) => asm_cmd::disasm(args),
        Command::Check(args) => check_cmd::run(args),
        Command::Run(args) => run_cmd::run(*args),
        Command::Scenario(args) => scenario_cmd::run(args),
        Command::Resume(args) => resume_cmd::resume(args),
        Command::State(args) => resume_cmd::state(args),
        Command::Corpus(args) => corpus_cmd::run(args),
        Command::Compare(args) => compare_cmd::run(args),
        Command::CountersChild(args) => compare_cmd::run_child(args),
        Command::Profile(args) => profile_cmd::run(*args),
        Command::Explain(args) => explain_cmd::run(args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::FuzzSeeds(args) => fuzz_seeds_cmd::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(err) => {
            eprintln!("kmst: {err}");
            err.exit_code()
        }
    }
}
