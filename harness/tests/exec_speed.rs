//! Quick speed measurements (ignored by default; run with
//! `cargo test --release -p kmst-harness --test exec_speed -- --ignored --nocapture`).
//! A quick look only: `kmst compare`, callgrind and the benchmark crate
//! measure properly (docs/performance.md, "The machine and the method"), and
//! no figure of a document comes from these timed tests.

mod common;

use common::program;

use common::best_of;
use std::time::Duration;

use kmst::exec::{Dispatch, simulate};
use kmst::format::Upload;
use kmst::ops::Opcode::*;
use kmst_harness::answers::{DifferentialOracle, Implementation};
use kmst_harness::fuzzing::{job_example, op, template, upload};
use kmst_reference::{Delay, Params, Status};

/// The arithmetic/branch loop: ADD, ADDI, MUL, AND, SHR, JNZ, JLT, no submits.
/// 7 micro-ops per round.
fn alu_loop(rounds: u32) -> Upload {
    let ops = vec![
        op(Set, 1, 0, 0, rounds),
        op(Set, 2, 0, 0, 3),
        op(Add, 3, 3, 0, 0), // top = 2
        op(Addi, 0, 0, 0, 1),
        op(Mul, 4, 3, 2, 0),
        op(And, 5, 4, 3, 0),
        op(Shr, 6, 5, 0, 3),
        op(Jnz, 6, 0, 0, 8),
        op(Jlt, 0, 1, 0, 2), // pc 8
        op(Halt, 6, 0, 0, 0),
    ];
    upload(u32::MAX, 0, 1, 0, ops, vec![])
}

/// The fast variants, or only the one named by `KMST_SPEED_DISPATCH` (for `perf stat`).
fn variants() -> Vec<Dispatch> {
    match std::env::var("KMST_SPEED_DISPATCH") {
        Ok(name) => vec![name.parse().expect("a dispatch name")],
        Err(_) => Dispatch::ALL.to_vec(),
    }
}

/// The budgets to measure: 64 and unlimited, or only `KMST_SPEED_BUDGET`.
fn budgets() -> Vec<u32> {
    match std::env::var("KMST_SPEED_BUDGET") {
        Ok(b) => vec![b.parse().expect("a budget")],
        Err(_) => vec![64, u32::MAX],
    }
}

#[test]
#[ignore]
fn alu_loop_ns_per_micro_op() {
    let rounds = 200_000u32;
    let data = alu_loop(rounds).encode();
    // 2 SETs, 7 per round (JNZ taken to pc 8 when r6 != 0, else falls through
    // to pc 8 as well), then HALT.
    let steps = 2 + 7 * u64::from(rounds) + 1;
    for budget in budgets() {
        let params = Params {
            turn_budget: budget,
            max_passes: u64::MAX,
            ..Params::default()
        };
        for &d in &variants() {
            let mut status = None;
            let t = best_of(60, || status = Some(simulate(&data, &params, d).status));
            assert_eq!(status, Some(Status::Ended));
            println!(
                "alu loop, budget {budget:>10}, {d:>8}: {:.3} ns/micro-op",
                t.as_nanos() as f64 / steps as f64
            );
        }
    }
}

#[test]
#[ignore]
fn job_example_fast_vs_reference() {
    let data = job_example().encode();
    let params = Params::default();
    let mut times = Vec::new();
    for d in Implementation::all() {
        let t = best_of(
            if d == Implementation::Reference {
                3
            } else {
                20
            },
            || {
                assert_eq!(d.simulate(&data, &params).status, Status::Ended);
            },
        );
        println!(
            "1000-job example, {d:>9}: {:>10.1} us",
            t.as_secs_f64() * 1e6
        );
        times.push((d, t));
    }
    let reference = times.last().map(|t| t.1).unwrap_or_default();
    for (d, t) in &times {
        println!(
            "  {d}: {:.1}x the reference",
            reference.as_secs_f64() / t.as_secs_f64()
        );
    }
}

#[test]
#[ignore]
fn long_delay_costs_what_a_short_one_does() {
    // 100 rounds of SUBMIT; WAIT 0 with delay 1 or 1,000,000 passes.
    let ops = program(
        "set r1, 100
         submit #0           ; top = 1
         wait 0
         addi r0, r0, 1
         jlt r0, r1, @1
         halt r0",
    );
    let data = upload(
        1_000_000,
        0,
        1,
        0,
        ops,
        vec![template(1, 0, (0, 8), &[], &[])],
    )
    .encode();
    for delay in [1u32, 1_000_000] {
        let params = Params {
            delay: Delay::Fixed(delay),
            deadline_passes: Some(u64::MAX / 4),
            max_passes: u64::MAX / 4,
            ..Params::default()
        };
        let t = best_of(20, || {
            assert_eq!(
                simulate(&data, &params, Dispatch::Tail).status,
                Status::Ended
            );
        });
        println!(
            "100 submit/wait rounds, delay {delay:>9}: {:>8.2} us",
            t.as_secs_f64() * 1e6
        );
    }
}

/// The corpus's ALU benchmarks: `alu.kms` (independent chains: dispatch cost)
/// and `alu_chain.kms` (one serial chain: the latency floor), each variant
/// measured in turn, five rounds interleaved so the ratios come from one run.
#[test]
#[ignore]
fn corpus_alu_ns_per_micro_op() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/bench");
    // Worked out in each file's header comment.
    for (file, steps) in [("alu.kms", 999_625u64), ("alu_chain.kms", 999_671)] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let data = kmst::asm::assemble(&text).unwrap();
        for budget in budgets() {
            let params = Params {
                turn_budget: budget,
                max_passes: u64::MAX,
                ..Params::default()
            };
            let ds = variants();
            let mut best = vec![Duration::MAX; ds.len()];
            for _round in 0..5 {
                for (k, &d) in ds.iter().enumerate() {
                    let mut status = None;
                    let t = best_of(8, || status = Some(simulate(&data, &params, d).status));
                    assert_eq!(status, Some(Status::Ended));
                    best[k] = best[k].min(t);
                }
            }
            for (k, d) in ds.iter().enumerate() {
                println!(
                    "{file:>14}, budget {budget:>10}, {d:>8}: {:.3} ns/micro-op; {} is {:.2}x as fast",
                    best[k].as_nanos() as f64 / steps as f64,
                    ds[0],
                    best[k].as_secs_f64() / best[0].as_secs_f64()
                );
            }
        }
    }
}
