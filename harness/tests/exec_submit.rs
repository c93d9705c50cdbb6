//! SUBMIT's `group` variant (a template that is not exclusive and takes its
//! group from registers: the decoder hands the registers to the handler):
//! its records, its error 11 and its waits must be the plain SUBMIT's, on
//! every variant, beside the plain SUBMITs it shares slots with (S9, S18,
//! S19).

mod common;

use common::program;

use kmst::exec::{Dispatch, simulate};
use kmst::format::{MicroOp, NO_REGISTER, Template, flags};
use kmst::ops::Opcode::*;
use kmst_harness::answers::assert_every_variant_agrees;
use kmst_harness::fuzzing::{op, template, upload};
use kmst_reference::{Delay, Params, Reason, ResultModel, Status};

/// Template `handler` with its group from registers r3 (first core) and r7
/// (count), argument 1 patched from r3.
fn group_template(handler: u8, flag_byte: u8) -> Template {
    let mut t = template(handler, flag_byte, (0, 1), &[11, 0, 13], &[(1, 3)]);
    t.first_register = 3;
    t.count_register = 7;
    t
}

fn agree(ops: &[MicroOp], templates: &[Template], max_steps: u32, params: &Params, what: &str) {
    let data = upload(max_steps, 0, 1, 0, ops.to_vec(), templates.to_vec()).encode();
    assert_every_variant_agrees(&data, params, &format!("{what}, max_steps {max_steps}"));
}

#[test]
fn a_register_group_records_its_registers_and_fails_past_the_last_core() {
    // pc 0 SET r3, 100; pc 1 SET r7, 8; pc 2 SUBMIT 0; pc 3 ADDI r3, r3, 6;
    // pc 4 JNZ r7, 2 (always). With 119 cores (the default): first core 100
    // and 106 fit (106 + 8 = 114), 112 does not (120 > 119): error 11 at
    // pc 2 after two records (S18). Both are submitted in pass 0 into
    // slots 0 and 1, sequences 0 and 1, argument 1 patched from r3.
    let ops = program(
        "set r3, 100
         set r7, 8
         submit #0
         addi r3, r3, 6
         jnz r7, @2",
    );
    let data = upload(1000, 0, 1, 0, ops, vec![group_template(5, 0)]).encode();
    for &d in Dispatch::ALL {
        let r = simulate(&data, &Params::default(), d);
        assert_eq!(r.status, Status::Error, "{d}");
        let e = r.error.expect("an error");
        assert_eq!((e.reason, e.pc), (Reason::BadGroup, 2), "{d}");
        let got: Vec<_> = r
            .commands
            .iter()
            .map(|c| {
                (
                    c.sequence,
                    c.slot,
                    c.handler,
                    c.first,
                    c.count,
                    c.args[..3].to_vec(),
                    c.pass_index,
                    c.pc,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 0, 5, 100, 8, vec![11, 100, 13], 0, 2),
                (1, 1, 5, 106, 8, vec![11, 106, 13], 0, 2),
            ],
            "{d}"
        );
    }
}

#[test]
fn a_register_group_out_of_range_is_error_11_without_a_record() {
    // (first core, count) from r3 and r7: a count of 0, a first core past
    // the last (120 of 119), and a sum that would wrap u32 are each error
    // 11 at the SUBMIT (pc 2), with nothing recorded (S18).
    for (first, count) in [(0, 0), (120, 1), (u32::MAX, 2), (1, u32::MAX)] {
        let ops = vec![
            op(Set, 3, 0, 0, first),
            op(Set, 7, 0, 0, count),
            op(Submit, 0, 0, 0, 0),
            op(Halt, 0, 0, 0, 0),
        ];
        let data = upload(100, 0, 1, 0, ops, vec![group_template(5, 0)]).encode();
        for &d in Dispatch::ALL {
            let r = simulate(&data, &Params::default(), d);
            let e = r.error.expect("an error");
            assert_eq!(
                (e.reason, e.pc),
                (Reason::BadGroup, 2),
                "{d} ({first}, {count})"
            );
            assert!(r.commands.is_empty(), "{d} ({first}, {count})");
        }
    }
}

#[test]
fn register_groups_beside_exclusive_and_fixed_ones_cut_everywhere() {
    // A loop over random groups: SUBMITs of the variant (templates 0 and 3,
    // the second with results), an exclusive one and one with a fixed first
    // core (plain SUBMITs), then RESULT and a WAIT, until r9 counts down.
    // Slots fill (long delays) and groups overlap, so the stream waits for
    // slots and for the exclusive command; some groups run past the last
    // core (error 11). Every budget and step limit cuts it somewhere.
    let ops = program(
        "set r10, 24         ; pc 0: the core modulo
         set r9, 30          ; pc 1: rounds
         rand r3             ; pc 2 (top): first core
         mod r3, r3, r10
         rand r7
         mod r7, r7, r10
         addi r7, r7, 1      ; count 1..=24
         submit #0
         submit #3
         result r5
         submit #1
         submit #2
         wait 6
         addi r9, r9, -1
         jnz r9, @2
         wait 0
         halt r5",
    );
    let mut fixed_first = group_template(7, 0);
    fixed_first.first_register = NO_REGISTER;
    fixed_first.command.first = 3;
    let templates = [
        group_template(5, 0),
        group_template(6, flags::EXCLUSIVE),
        fixed_first,
        group_template(8, flags::RESULT),
    ];
    let models = [
        (Delay::Cycle { base: 0, modulo: 4 }, 24),
        (Delay::Cycle { base: 5, modulo: 9 }, 24),
        (Delay::Fixed(2), 20),
    ];
    for (delay, cores) in models {
        for budget in [1, 2, 3, 4, 63, 64] {
            let params = Params {
                delay: delay.clone(),
                result: ResultModel::Sequence,
                core_count: cores,
                turn_budget: budget,
                ..Params::default()
            };
            for max_steps in (1..=90).chain([200, 20_000]) {
                agree(
                    &ops,
                    &templates,
                    max_steps,
                    &params,
                    &format!("{delay:?} on {cores} cores"),
                );
            }
        }
    }
}
