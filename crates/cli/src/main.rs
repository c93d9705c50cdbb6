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
    /// Run every dispatch variant and the reference model on workloads and compare speed.
    Compare(compare_cmd::Args),
    /// Profile how a stream spends its per-pass turns.
    Profile(Box<profile_cmd::Args>),
    /// Re-run a saved fuzz artifact and report any divergence.
    Replay(replay_cmd::Args),
    /// Fill fuzz/corpus/TARGET/ with the fuzz targets' seed corpora.
    FuzzSeeds(fuzz_seeds_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Asm(args) => asm_cmd::asm(args),
        Command::Disasm(args) => asm_cmd::disasm(args),
        Command::Check(args) => check_cmd::run(args),
        Command::Run(args) => run_cmd::run(*args),
        Command::Scenario(args) => scenario_cmd::run(args),
        Command::Corpus(args) => corpus_cmd::run(args),
        Command::Compare(args) => compare_cmd::run(args),
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
