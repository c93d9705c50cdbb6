//! Runs one bundled workload with one variant, for profilers:
//! `cargo build --release -p kmst-benches --example run_workload`, then
//! `valgrind --tool=callgrind --dump-instr=yes target/release/examples/run_workload alu tail`
//! or `perf stat target/release/examples/run_workload alu tail 100`.
//! `run_workload --variants` lists the variants of this build, one a line.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::process::ExitCode;

use kmst_harness::answers::{DifferentialOracle, Implementation};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 1 && args[0] == "--variants" {
        // What scripts/icount.sh counts by default: every variant of this build.
        for i in Implementation::all() {
            println!("{i}");
        }
        return ExitCode::SUCCESS;
    }
    let (Some(name), Some(variant)) = (args.first(), args.get(1)) else {
        eprintln!("usage: run_workload WORKLOAD VARIANT [RUNS] | run_workload --variants");
        return ExitCode::from(2);
    };
    let runs: u64 = match args.get(2).map(|s| s.parse()) {
        None => 1,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("run_workload: RUNS: {e}");
            return ExitCode::from(2);
        }
    };
    let d: Implementation = match variant.parse() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("run_workload: {e}");
            return ExitCode::from(2);
        }
    };
    let w = kmst_benches::workload(name);
    let mut passes = 0;
    for _ in 0..runs {
        passes = black_box(d.simulate(black_box(&w.upload), &w.params)).passes;
    }
    let ops = kmst_benches::micro_ops(name);
    println!("{name} {d}: {runs} runs, {passes} passes and {ops} micro-ops each");
    ExitCode::SUCCESS
}
