//! The copy-and-patch tier (`stencil`, issue 53) against its targets,
//! measured side by side: `cargo run --release -p kmst-benches --example
//! stencil_compile [ROUNDS]` (default 11). Two markdown tables:
//!
//! - for every shape of `kmst_harness::shapes` at 16, 1,000, 16,000 and
//!   65,535 micro-ops: ns per micro-op to decode (`Machine::new`), to make
//!   the stencil code (`Machine::prepare` for `Dispatch::Stencil`) and, up
//!   to 1,000 micro-ops, to compile with Cranelift (`Dispatch::Jit`); each
//!   the median over the rounds, the three taking turns within a round;
//! - for every bundled stream workload: the time to make its code (once
//!   in a round, and the mean of 100 in a row, each program dropped before
//!   the next), the first answer (a whole run, the code made included) and
//!   the run alone (made before the timing) of `stencil` and `jit` over
//!   `tail`'s, each the median over the rounds.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use kmst::exec::{Dispatch, Machine, NoObserver};
use kmst_benches::median;
use kmst_harness::shapes::{self, Shape};

const SIZES: [usize; 4] = [16, 1_000, 16_000, 65_535];

/// Seconds `f` takes.
fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

fn main() -> ExitCode {
    let Some(rounds) =
        kmst_benches::rounds_arg(11, "stencil_compile: ROUNDS must be a number >= 1")
    else {
        return ExitCode::from(2);
    };
    if !Dispatch::ALL.contains(&Dispatch::Stencil) {
        eprintln!("stencil_compile: this build has no stencil variant");
        return ExitCode::from(2);
    }
    let params = shapes::params();
    println!(
        "| shape | micro-ops | ns/op to decode | ns/op to make the stencil code | ns/op to compile (jit) |"
    );
    println!("|---|---:|---:|---:|---:|");
    for shape in Shape::ALL {
        for n in SIZES {
            let upload = shape.upload(n).encode();
            let (mut decode, mut stencil, mut jit) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..rounds {
                let mut m = None;
                decode.push(time(|| m = Some(Machine::new(&upload, &params))) * 1e9 / n as f64);
                let mut m = m.expect("made");
                stencil.push(time(|| m.prepare::<NoObserver>(Dispatch::Stencil)) * 1e9 / n as f64);
                black_box(m);
                if n <= 1_000 {
                    let mut m = Machine::new(&upload, &params);
                    jit.push(time(|| m.prepare::<NoObserver>(Dispatch::Jit)) * 1e9 / n as f64);
                    black_box(m);
                }
            }
            let jit = if jit.is_empty() {
                "-".to_owned()
            } else {
                format!("{:.0}", median(jit))
            };
            println!(
                "| {} | {n} | {:.1} | {:.1} | {jit} |",
                shape.name(),
                median(decode),
                median(stencil)
            );
        }
    }
    println!();
    println!(
        "| workload | µs to make the code | µs, 100 in a row | first answer, stencil / tail | the run alone, stencil / tail | the run alone, jit / tail |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for w in kmst_benches::workloads() {
        let (mut make, mut warm, mut first, mut alone, mut jit) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let run = |d: Dispatch, prepared: bool| {
                let mut m = Machine::new(&w.upload, &w.params);
                if prepared {
                    m.prepare::<NoObserver>(d);
                }
                let t = time(|| m.run(d, &mut NoObserver));
                black_box(m.into_result());
                t
            };
            let tail = run(Dispatch::Tail, true);
            let mut m = Machine::new(&w.upload, &w.params);
            make.push(time(|| m.prepare::<NoObserver>(Dispatch::Stencil)) * 1e6);
            black_box(m);
            // The same program made 100 times in a row, each dropped
            // before the next is made (its pages back to the pool).
            let mut t = 0.0;
            for _ in 0..100 {
                let mut m = Machine::new(&w.upload, &w.params);
                t += time(|| m.prepare::<NoObserver>(Dispatch::Stencil));
                black_box(m);
            }
            warm.push(t * 1e6 / 100.0);
            first.push(run(Dispatch::Stencil, false) / tail);
            alone.push(run(Dispatch::Stencil, true) / tail);
            jit.push(run(Dispatch::Jit, true) / tail);
        }
        println!(
            "| {} | {:.1} | {:.1} | {:.3} | {:.3} | {:.3} |",
            w.name,
            median(make),
            median(warm),
            median(first),
            median(alone),
            median(jit)
        );
    }
    ExitCode::SUCCESS
}
