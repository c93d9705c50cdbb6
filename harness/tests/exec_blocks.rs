//! Fuel charged once per block (docs/dispatch.md "Blocks"): turns and step
//! limits that end inside a straight-line run, fused pairs inside blocks,
//! jumps into a block's middle and blocks cut at 255 micro-ops must end
//! after exactly the micro-op S17 says, on every variant.

mod common;

use common::program;

use kmst::exec::{Dispatch, Observer, simulate, simulate_observed};
use kmst::format::MicroOp;
use kmst::ops::Opcode::*;
use kmst_harness::answers::assert_every_variant_agrees;
use kmst_harness::fuzzing::{op, upload};
use kmst_reference::{Params, Reason, Status};

fn agree(ops: &[MicroOp], max_steps: u32, params: &Params, what: &str) {
    let data = upload(max_steps, 0, 1, 0, ops.to_vec(), vec![]).encode();
    assert_every_variant_agrees(&data, params, &format!("{what}, max_steps {max_steps}"));
}

/// `agree` under every budget of `budgets` and every step limit of `steps`.
fn agree_grid(
    ops: &[MicroOp],
    budgets: impl IntoIterator<Item = u32>,
    steps: impl IntoIterator<Item = u32> + Clone,
    what: &str,
) {
    for budget in budgets {
        let params = Params {
            turn_budget: budget,
            ..Params::default()
        };
        for max_steps in steps.clone() {
            agree(ops, max_steps, &params, what);
        }
    }
}

/// A straight run of every straight micro-op, with the fused pairs
/// ADD+ADDI and RAND+MOD in it, then `end`.
fn straight_run(end: MicroOp) -> Vec<MicroOp> {
    vec![
        op(Set, 1, 0, 0, 7),
        op(Mov, 2, 1, 0, 0),
        op(Add, 3, 1, 2, 0),
        op(Addi, 3, 3, 0, 5),
        op(Sub, 4, 3, 1, 0),
        op(Mul, 5, 4, 4, 0),
        op(And, 6, 5, 3, 0),
        op(Shr, 7, 5, 0, 2),
        op(ReadResult, 8, 0, 0, 0),
        op(Rand, 9, 0, 0, 0),
        op(Mod, 10, 9, 1, 0),
        op(Add, 11, 10, 9, 0),
        op(Addi, 11, 11, 0, 3),
        op(Rand, 12, 0, 0, 0),
        op(Mod, 13, 12, 1, 0),
        end,
    ]
}

#[test]
fn every_step_limit_and_budget_inside_a_straight_run() {
    for end in [op(Halt, 11, 0, 0, 0), op(Mod, 1, 1, 8, 0)] {
        let ops = straight_run(end);
        agree_grid(
            &ops,
            [1, 2, 3, 4, 15, 16, 17, 63, 64],
            1..=ops.len() as u32 + 2,
            "straight run",
        );
    }
}

#[test]
fn a_loop_of_straight_blocks_cut_by_turns_everywhere() {
    // SET r1, 40; top: 13 straight micro-ops; ADDI r1, r1, -1; JNZ r1, top;
    // HALT r11: the loop's block is 15 micro-ops, so turns of 1..=64 cut it
    // at every position.
    let mut ops = vec![op(Set, 1, 0, 0, 40)];
    ops.extend(straight_run(op(Add, 14, 14, 11, 0)).into_iter().skip(1));
    ops.push(op(Addi, 1, 1, 0, u32::MAX));
    ops.push(op(Jnz, 1, 0, 0, 1));
    ops.push(op(Halt, 11, 0, 0, 0));
    agree_grid(&ops, 1..=64, [100, 101, 102, 103, 1_000], "loop");
}

#[test]
fn a_dependent_chain_through_the_accumulator_cut_everywhere() {
    // Each micro-op of the loop body reads what the one before wrote (the
    // forwarding variants, docs/dispatch.md "The accumulator"): turns and
    // step limits that stop at any of them restart it from the registers.
    let ops = program(
        "set r3, 3
         set r1, 30
         add r4, r4, r1
         mul r5, r4, r3
         and r6, r5, r4
         shr r7, r6, 3
         add r8, r8, r7
         sub r9, r8, r9
         mov r10, r9
         addi r11, r10, 7
         addi r1, r1, -1
         jnz r1, @2
         halt r11",
    );
    agree_grid(
        &ops,
        1..=64,
        [1, 5, 9, 100, 101, 102, 103, 104, 105, 106, 107, 108, 1_000],
        "dependent chain",
    );
}

#[test]
fn in_place_variants_and_pairs_cut_everywhere() {
    // The in-place variants (`b` is `a`, docs/dispatch.md "In place") at a
    // head and inside blocks, and the loop pairs whose jump reads the
    // register their ADDI wrote, under every budget and step limits that
    // stop between a pair's halves.
    let ops = program(
        "set r3, 3
         set r9, 25
         set r5, 1
         add r4, r4, r9      ; pc 3, head: AddInPlace
         mul r5, r5, r3      ; MulInPlace
         sub r6, r6, r4      ; SubInPlace (c = r4 is not MUL's r5)
         and r7, r7, r5      ; AndInPlace
         shr r8, r8, 1       ; ShrInPlace
         add r10, r10, r8    ; AddInPlaceC
         addi r0, r0, 1      ; AddiJltInPlace with pc 10
         jlt r0, r9, @3
         set r1, 4
         addi r1, r1, -1     ; pc 12, head: AddiInPlace
         addi r2, r2, 7      ; AddiJnz: JNZ reads r1, not r2
         jnz r1, @12
         addi r11, r2, 1     ; AddiJlt: not in place
         jlt r11, r9, @0     ; not taken (r11 = 29)
         halt r10",
    );
    agree_grid(
        &ops,
        1..=64,
        [
            1, 4, 10, 11, 12, 100, 201, 202, 203, 204, 214, 215, 216, 1_000,
        ],
        "in place",
    );
}

#[test]
fn jumps_testing_the_value_just_computed_cut_everywhere() {
    // A block's closing jump whose `a` is the register the micro-op before
    // it wrote reads it from the accumulator (JeqA, JnzA, JltA): cut by
    // every budget and by step limits at the jumps.
    let ops = program(
        "set r10, 3
         set r9, 40
         rand r1             ; pc 2, top
         and r2, r1, r10     ; b = r1 is what RAND wrote: AndB
         jeq r2, r11, @8     ; JeqA
         sub r2, r2, r10     ; head: SubInPlace
         jnz r2, @8          ; JnzA
         addi r5, r5, 1      ; head: AddiInPlace
         addi r0, r0, 1      ; pc 8, head: AddiInPlace
         shr r6, r0, 1       ; ShrB
         jlt r6, r9, @2      ; JltA
         halt r5",
    );
    agree_grid(
        &ops,
        1..=64,
        [1, 3, 5, 7, 100, 101, 102, 103, 104, 105, 1_000],
        "jump on the accumulator",
    );
}

#[test]
fn jumps_into_a_block_and_long_blocks() {
    // JMP over the first of ADD+ADDI into the ADDI: the pair must not fuse.
    let ops = program(
        "set r1, 3
         jmp @3
         add r2, r2, r1
         addi r2, r2, 1
         addi r1, r1, -1
         jnz r1, @2
         halt r2",
    );
    agree_grid(&ops, [1, 2, 3, 64], 1..=20, "jump into a pair");
    // 600 ADDIs and HALT: blocks of 255, 255 and 91 micro-ops.
    let mut ops = vec![op(Addi, 1, 1, 0, 1); 600];
    ops.push(op(Halt, 1, 0, 0, 0));
    agree_grid(
        &ops,
        [1, 63, 64, 254, 255, 256, 1_000],
        [1, 254, 255, 256, 509, 510, 511, 600, 601, 602],
        "long block",
    );
}

#[test]
fn a_step_limit_inside_a_long_block_worked_out_by_hand() {
    // 300 x ADDI r1, r1, 1, HALT r1: with the steps enough, r1 = 300 and
    // the stream ends with status 300 (S17: HALT counts a step: 301).
    let mut ops = vec![op(Addi, 1, 1, 0, 1); 300];
    ops.push(op(Halt, 1, 0, 0, 0));
    let data = upload(301, 0, 1, 0, ops.clone(), vec![]).encode();
    for &d in Dispatch::ALL {
        let r = simulate(&data, &Params::default(), d);
        assert_eq!((r.status, r.halt), (Status::Ended, Some(300)), "{d}");
    }
    // max_steps 200: the 200 steps run out before the micro-op at pc 200
    // (inside the first block of 255): `Reason::StepLimit` at pc 200 (S17).
    let data = upload(200, 0, 1, 0, ops, vec![]).encode();
    for &d in Dispatch::ALL {
        let r = simulate(&data, &Params::default(), d);
        assert_eq!(r.status, Status::Error, "{d}");
        let e = r.error.expect("an error");
        assert_eq!((e.reason, e.pc), (Reason::StepLimit, 200), "{d}");
    }
}

#[derive(Default)]
struct Pcs(Vec<u32>);

impl Observer for Pcs {
    const ENABLED: bool = true;
    fn on_op(&mut self, pc: u32) {
        self.0.push(pc);
    }
}

#[test]
fn an_observer_sees_every_micro_op_of_a_charged_block() {
    // The straight run ending in HALT: pcs 0..=14 complete, then HALT (15)
    // ends the stream and counts as a completed micro-op too.
    let ops = straight_run(op(Halt, 11, 0, 0, 0));
    let data = upload(100, 0, 1, 0, ops, vec![]).encode();
    for &d in Dispatch::ALL {
        let mut pcs = Pcs::default();
        let r = simulate_observed(&data, &Params::default(), d, &mut pcs);
        assert_eq!(r.status, Status::Ended, "{d}");
        assert_eq!(pcs.0, (0..=15).collect::<Vec<u32>>(), "{d}");
    }
}
