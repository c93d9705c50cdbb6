//! The compiled tier's compile time, apart from its run time:
//! `cargo run --release -p kmst-benches --example jit_compile [ROUNDS]`
//! (default 31). For every bundled stream workload: microseconds per
//! micro-op compiled (`Machine::prepare` with `Dispatch::Jit`, the median
//! over the rounds), and the time to the first answer (a whole run, compile
//! included) of `jit` and of `tiered` against `tail`, and the run alone
//! (the program compiled before), each the median of the per-round ratios.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use kmst::exec::{Dispatch, Machine, NoObserver};
use kmst_benches::median;

fn main() -> ExitCode {
    let Some(rounds) = kmst_benches::rounds_arg(31, "jit_compile: ROUNDS must be a number >= 1")
    else {
        return ExitCode::from(2);
    };
    println!(
        "| workload | micro-ops in the upload | µs to compile | µs per micro-op compiled | first answer, jit / tail | first answer, tiered / tail | the run alone, jit / tail |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for w in kmst_benches::workloads() {
        let op_count = (w.upload.len() - 32) / 8; // an upper bound is enough here
        let (mut compile, mut ratio, mut tiered, mut run) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let mut m = Machine::new(&w.upload, &w.params);
            let t = Instant::now();
            m.prepare::<NoObserver>(Dispatch::Jit);
            compile.push(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            m.run(Dispatch::Jit, &mut NoObserver);
            let jit_run = t.elapsed().as_secs_f64();
            black_box(m.into_result());
            let mut t_tail = Machine::new(&w.upload, &w.params);
            t_tail.prepare::<NoObserver>(Dispatch::Tail);
            let t = Instant::now();
            t_tail.run(Dispatch::Tail, &mut NoObserver);
            run.push(jit_run / t.elapsed().as_secs_f64());
            black_box(t_tail.into_result());
            let time = |d: Dispatch| {
                let t = Instant::now();
                black_box(kmst::exec::simulate(black_box(&w.upload), &w.params, d));
                t.elapsed().as_secs_f64()
            };
            // The order rotates by round: a run right after a compile's
            // memory was freed runs slower (long_wait's few microseconds
            // by 2x).
            let mut times = [0.0; 3];
            for k in 0..3 {
                let v = (round + k) % 3;
                times[v] = time([Dispatch::Tail, Dispatch::Jit, Dispatch::Tiered][v]);
            }
            let [tail, jit, tiers] = times;
            ratio.push(jit / tail);
            tiered.push(tiers / tail);
        }
        let us = median(compile);
        let ops = kmst::check::CheckedUpload::new(&w.upload, w.upload.len() as u64)
            .map(|u| u.op_count() as usize)
            .unwrap_or(op_count);
        println!(
            "| {} | {} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} |",
            w.name,
            ops,
            us,
            us / ops.max(1) as f64,
            median(ratio),
            median(tiered),
            median(run)
        );
    }
    ExitCode::SUCCESS
}
