//! The `kmst` command-line program: one file per subcommand.
#![forbid(unsafe_code)]

mod asm_cmd;
mod check_cmd;
mod common;
mod compare_cmd;
mod corpus_cmd;
mod fuzz_seeds_cmd;
mod plot;
mod profile_cmd;
mod progress;
mod replay_cmd;
mod run_cmd;
mod scenario_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// kmst — the micro-op stream engine: check, assemble, run, compare and profile streams.
#[derive(Parser)]
#[command(name = "kmst", version, propagate_version = true)]
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
    /// Run the kernel's check on an upload (exit 0 valid, 1 rejected, 2 usage or I/O error).
    Check(check_cmd::Args),
    /// Simulate a stream with the reference model or a fast dispatch variant.
    Run(Box<run_cmd::Args>),
    /// Run a kernel scenario (several streams and the host) from a JSON file.
    Scenario(scenario_cmd::Args),
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => {
            // --help and --version: clap prints them whole, exit 0.
            let _ = err.print();
            return ExitCode::SUCCESS;
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
        Command::Corpus(args) => corpus_cmd::run(args),
        Command::Compare(args) => compare_cmd::run(args),
        Command::CountersChild(args) => compare_cmd::run_child(args),
        Command::Profile(args) => profile_cmd::run(*args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::FuzzSeeds(args) => fuzz_seeds_cmd::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(err) => {
            eprintln!("kmst: {err}");
            ExitCode::from(2)
        }
    }
}
