//! The side-by-side table: kmst's dispatch variants, wasmi (fuel metering on
//! and off) and native Rust on the same loops, in ns per kmst micro-op.
//!
//! `cargo run --release -p kmst-benches --example peers [ROUNDS]` (default
//! 21, at least 15): every runner is set up and checked against kmst's halt
//! value (see `peers/mod.rs`), then each round times one whole run of every
//! runner on every workload, the runners' order rotating from round to round.
//! Printed: the median ns per micro-op of each runner on each workload, and
//! each runner's time relative to kmst `tail`'s, the median over the rounds
//! of the ratio within a round (so a change of the machine's load hits both
//! sides of a ratio alike).
//!
//! `peers --once WORKLOAD RUNNER` sets up one runner and runs it once inside
//! `measured_run`, for callgrind:
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_run*'
//! target/release/examples/peers --once alu wasmi`, then divide the
//! instructions by the micro-ops printed. `peers --runners` lists the
//! runners of this build, one a line (scripts/peer-counters.sh's default).
// Unsafe code only in the `asm!` barrier of peers/mod.rs.
#![deny(unsafe_code)]

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use kmst_benches::{median, micro_ops};

#[path = "../peers/mod.rs"]
mod peers;
use peers::{Peer, WORKLOADS, runners};

/// The only part that callgrind counts in `--once` mode.
#[inline(never)]
fn measured_run(peer: &mut Peer) -> Option<u32> {
    black_box(peer.run())
}

fn once(workload: &str, runner: &str) -> ExitCode {
    let mut peer = Peer::new(workload, runner);
    let halt = measured_run(&mut peer);
    println!(
        "{workload} {runner}: halt {halt:?}, {} micro-ops",
        micro_ops(workload)
    );
    ExitCode::SUCCESS
}

/// A table's head: a runner column, then one per workload.
fn table_head() {
    print!("| runner |");
    for w in &WORKLOADS {
        print!(" {} |", w.name);
    }
    println!();
    println!("|---|{}", "---:|".repeat(WORKLOADS.len()));
}

fn table(rounds: usize) -> ExitCode {
    let runners = runners();
    let mut peers: Vec<Vec<Peer>> = WORKLOADS
        .iter()
        .map(|w| runners.iter().map(|r| Peer::new(w.name, r)).collect())
        .collect();
    let ops: Vec<f64> = WORKLOADS.iter().map(|w| micro_ops(w.name) as f64).collect();

    // ns[workload][runner][round]: one whole run.
    let mut ns = vec![vec![Vec::with_capacity(rounds); runners.len()]; WORKLOADS.len()];
    for round in 0..rounds {
        for (w, row) in peers.iter_mut().enumerate() {
            for k in 0..runners.len() {
                let r = (k + round) % runners.len();
                let start = Instant::now();
                black_box(row[r].run());
                ns[w][r].push(start.elapsed().as_nanos() as f64);
            }
        }
    }

    println!("ns per micro-op (median of {rounds} interleaved rounds; one round = one whole run)");
    table_head();
    for (r, runner) in runners.iter().enumerate() {
        print!("| {runner} |");
        for (w, o) in ops.iter().enumerate() {
            print!(" {:.2} |", median(ns[w][r].clone()) / o);
        }
        println!();
    }

    println!();
    println!(
        "time relative to kmst {} (median of the per-round ratios; < 1 is faster)",
        runners[0]
    );
    table_head();
    for (r, runner) in runners.iter().enumerate() {
        print!("| {runner} |");
        for row in &ns {
            let ratios: Vec<f64> = row[r].iter().zip(&row[0]).map(|(x, t)| x / t).collect();
            print!(" {:.2} |", median(ratios));
        }
        println!();
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, workload, runner] if flag == "--once" => once(workload, runner),
        [flag] if flag == "--runners" => {
            for r in runners() {
                println!("{r}");
            }
            ExitCode::SUCCESS
        }
        [] => table(21),
        [rounds] => match rounds.parse::<usize>() {
            Ok(n) if n >= 15 => table(n),
            _ => {
                eprintln!("peers: ROUNDS must be a number >= 15");
                ExitCode::from(2)
            }
        },
        _ => {
            eprintln!("usage: peers [ROUNDS] | peers --once WORKLOAD RUNNER | peers --runners");
            ExitCode::from(2)
        }
    }
}
