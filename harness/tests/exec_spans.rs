//! Spans of quick passes (interp/src/exec/machine/: mod.rs, budget.rs,
//! turn.rs): a stream alone with nothing in flight runs many turns as one
//! chain, and a micro-op that reads or changes the kernel must still see the
//! pass the pass-by-pass model gives it.
//! Hand-worked TIME values first, then a grid of loops ending in every kind
//! of micro-op, budget, step limit, pass limit and cancel pass against the
//! reference model.

use kmst::exec::{Dispatch, simulate};
use kmst::format::MicroOp;
use kmst::ops::Opcode::{self, *};
use kmst_harness::answers::run_difference;
use kmst_harness::fuzzing::{op, template, upload};
use kmst_reference::{Params, Status};

/// `SET r3, 0; SET r1, n; loop: ADDI r1, r1, -1; JNZ r1, loop`, then `tail`,
/// then the same loop again and `tail` again, then `HALT r2`: 2 + 2n
/// micro-ops before the first `tail`.
fn looped(n: u32, tail: &[MicroOp]) -> Vec<MicroOp> {
    let mut ops = Vec::new();
    for round in 0..2 {
        if round == 0 {
            ops.push(op(Set, 3, 0, 0, 0));
        }
        ops.push(op(Set, 1, 0, 0, n));
        let top = ops.len() as u32;
        ops.push(op(Addi, 1, 1, 0, u32::MAX));
        ops.push(op(Jnz, 1, 0, 0, top));
        ops.extend_from_slice(tail);
    }
    ops.push(op(Halt, 2, 0, 0, 0));
    ops
}

fn halt_value(ops: Vec<MicroOp>, params: &Params) -> u32 {
    let data = upload(
        1_000_000,
        0,
        1,
        0,
        ops,
        vec![template(9, 0, (0, 4), &[], &[])],
    )
    .encode();
    let want = kmst_reference::simulate(&data, params);
    let mut value = None;
    for &d in Dispatch::ALL {
        let got = simulate(&data, params, d);
        assert!(got == want, "{d}: {:?}", run_difference(&want, &got));
        assert_eq!(got.status, Status::Ended);
        value = got.halt;
    }
    value.expect("the stream halts")
}

#[test]
fn time_after_whole_turns_sees_the_pass_it_runs_in() {
    // One stream, budget 64: its k-th turn (from 0) runs in pass k, each
    // turn 64 micro-ops (S17). TIME = pass * 1,000 (S24's default ticks).
    let time = [op(Time, 2, 0, 0, 0)];
    // n = 159: 2 + 318 = 320 = 5 * 64 micro-ops before TIME: the first of
    // the turn in pass 5.
    // The second TIME: SET at 321, the loop at 322..=639, TIME at 640 =
    // 10 * 64: the first of the turn in pass 10.
    assert_eq!(halt_value(looped(159, &time), &Params::default()), 10_000);
    // n = 160: 322 = 5 * 64 + 2 before the first TIME, still pass 5; the
    // second at 322 + 2 + 320 = 644 = 10 * 64 + 4: pass 10 again.
    assert_eq!(halt_value(looped(160, &time), &Params::default()), 10_000);
    // n = 191: 384 = 6 * 64 before the first TIME (pass 6), the second at
    // 384 + 2 + 382 = 768 = 12 * 64: pass 12.
    assert_eq!(halt_value(looped(191, &time), &Params::default()), 12_000);
    // Budget 1: every micro-op its own turn and pass: with n = 10 the
    // second TIME is micro-op 22 + 2 + 20 = 44 (from 0): pass 44.
    let one = Params {
        turn_budget: 1,
        ..Params::default()
    };
    assert_eq!(halt_value(looped(10, &time), &one), 44_000);
}

/// Every kind of micro-op after a long loop, under budgets, step limits,
/// pass limits and cancel passes that cut the loop anywhere.
#[test]
fn spans_agree_with_the_reference_model() {
    let tails: Vec<Vec<MicroOp>> = vec![
        vec![op(Time, 2, 0, 0, 0)],
        vec![op(Event, 1, 0, 0, 0)],
        vec![op(Submit, 0, 0, 0, 0)],
        vec![op(Set, 4, 0, 0, 2), op(Enqueue, 4, 0, 0, 0)],
        vec![op(Submit, 0, 0, 0, 0), op(Wait, 0, 0, 0, 0)],
        vec![op(ReadResult, 2, 0, 0, 0)],
        vec![op(Opcode::Mod, 2, 3, 1, 0)],
        vec![op(Add, 2, 2, 1, 0)],
    ];
    let mut cases = 0;
    for tail in &tails {
        for n in [0, 1, 31, 32, 33, 100, 160] {
            let ops = looped(n, tail);
            let before = 2 + 2 * n;
            for budget in [1, 2, 3, 63, 64, 65, 1_000] {
                for max_steps in [before - 1, before, before + 1, 2 * before + 3, 100_000] {
                    for (max_passes, cancel_pass) in
                        [(1_000_000, None), (7, None), (1_000_000, Some(5))]
                    {
                        let data = upload(
                            max_steps.max(1),
                            0,
                            1,
                            0,
                            ops.clone(),
                            vec![template(9, 0, (0, 4), &[], &[])],
                        )
                        .encode();
                        let params = Params {
                            turn_budget: budget,
                            max_passes,
                            cancel_pass,
                            ..Params::default()
                        };
                        let want = kmst_reference::simulate(&data, &params);
                        for &d in Dispatch::ALL {
                            let got = simulate(&data, &params, d);
                            assert!(
                                got == want,
                                "{d}, n {n}, budget {budget}, max_steps {max_steps}, \
                                 max_passes {max_passes}, cancel {cancel_pass:?}, tail {:?}: {:?}",
                                tail[0].op,
                                run_difference(&want, &got)
                            );
                        }
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 8 * 7 * 7 * 5 * 3);
}
