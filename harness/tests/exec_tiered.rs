//! The tiered variant (`Dispatch::Tiered`) moves a hot program to the
//! compiled tier in the middle of a run; the answers stay the reference
//! model's. Its compile threshold is 262,144 micro-ops and 8,192 per
//! micro-op of the program, run in turns that ran out of fuel
//! (docs/dispatch.md, "The compiled tier"), so these streams run long
//! enough to cross it.
#![cfg(feature = "jit")]

use kmst::builder::{Operand, Stream};
use kmst::exec::{Dispatch, simulate, simulate_scenario};
use kmst_reference::{HostCommand, Params, Scenario, Status};

/// `acc = 0; n = N; loop: acc += step; n -= 1; jnz n loop; halt acc`
/// (6 micro-ops: hot after 262,144 + 7 * 8,192 micro-ops of full turns).
fn hot_loop(req: u64, n: i64, step: i64) -> Vec<u8> {
    let mut s = Stream::new(0, 10_000_000, 1, req).unwrap();
    let r = s.registers(2).unwrap();
    let (acc, left) = (r[0], r[1]);
    s.set(acc, 0).unwrap();
    s.set(left, n).unwrap();
    let top = s.label();
    s.addi(acc, acc, step).unwrap();
    s.addi(left, left, -1).unwrap();
    s.jnz(left, top);
    s.halt(acc);
    s.encode().unwrap()
}

/// `n = N; loop: submit; wait 0; n -= 1; jnz n loop; halt n`: every turn
/// ends at the WAIT, so it never gets hot.
fn waiting_loop(req: u64, n: i64) -> Vec<u8> {
    let mut s = Stream::new(0, 10_000_000, 1, req).unwrap();
    let left = s.registers(1).unwrap()[0];
    s.set(left, n).unwrap();
    let top = s.label();
    s.submit(1, (Operand::Int(0), Operand::Int(4)), &[], false, false)
        .unwrap();
    s.wait(0).unwrap();
    s.addi(left, left, -1).unwrap();
    s.jnz(left, top);
    s.halt(left);
    s.encode().unwrap()
}

/// One stream: 600,002 micro-ops then HALT with acc = 600,000 (the
/// specification's arithmetic), in pass 600,002 / 64 = 9,375 (S17), the
/// same answer as the reference model's.
#[test]
fn a_hot_stream_is_compiled_mid_run_and_answers_the_same() {
    let upload = hot_loop(1, 200_000, 3);
    let params = Params::default();
    let want = kmst_reference::simulate(&upload, &params);
    assert_eq!(want.status, Status::Ended);
    assert_eq!(want.halt, Some(600_000));
    assert_eq!(want.passes, 9_376);
    assert_eq!(simulate(&upload, &params, Dispatch::Tiered), want);
}

/// Three streams: the same hot program in two of them (its heat is the
/// program's, so the second stream finds it compiled), another hot program
/// started later, and a stream that waits on the kernel; every answer the
/// reference model's.
#[test]
fn streams_sharing_a_hot_program_answer_the_same() {
    let a = hot_loop(1, 150_000, 3);
    let b = hot_loop(2, 120_000, 5);
    let w = waiting_loop(3, 2_000);
    let mut scenario = Scenario::new(Params {
        max_passes: 100_000,
        ..Params::default()
    })
    .unwrap();
    let run = |offset: u64, bytes: &[u8]| HostCommand::Run {
        offset: offset as u32,
        length: bytes.len() as u32,
    };
    scenario
        .place(0, a.clone())
        .unwrap()
        .place(4096, b.clone())
        .unwrap()
        .place(8192, w.clone())
        .unwrap();
    scenario
        .push(0, run(0, &a))
        .unwrap()
        .push(0, run(8192, &w))
        .unwrap()
        .push(3_000, run(4096, &b))
        .unwrap()
        .push(9_000, run(0, &a))
        .unwrap();
    let want = kmst_reference::simulate_scenario(&scenario);
    assert_eq!(want.streams.len(), 4, "every RUN was taken");
    assert!(
        want.streams.iter().all(|s| s.status == Status::Ended),
        "{:?}",
        want.streams
    );
    for d in [Dispatch::Tiered, Dispatch::Tail] {
        assert!(simulate_scenario(&scenario, d) == want, "{d}");
    }
}
