//! Hand-made scenarios run on every fast dispatch variant, with the answers
//! worked out by hand from docs/spec.md and the rulings S11..S22.

mod common;

use common::program;

use kmst::exec::{Dispatch, simulate};
use kmst::format::{MicroOp, flags};
use kmst::ops::Opcode::*;
use kmst_harness::answers::Implementation;
use kmst_harness::fuzzing::{job_example, op, template, upload};
use kmst_reference::result::kind;
use kmst_reference::{Delay, Params, Reason, ResultModel, SimResult, Status, StreamError};

/// Runs `data` on every fast variant; all must agree; returns the answer.
fn run(data: &[u8], params: &Params) -> SimResult {
    let mut first: Option<SimResult> = None;
    for &d in Dispatch::ALL {
        let r = simulate(data, params, d);
        if let Some(f) = &first {
            assert_eq!(&r, f, "{d} disagrees with {}", Dispatch::ALL[0]);
        } else {
            first = Some(r);
        }
    }
    first.expect("at least the tail variant")
}

fn err(reason: Reason, pc: u32) -> Option<StreamError> {
    Some(StreamError { reason, pc })
}

fn wait_program() -> Vec<MicroOp> {
    vec![
        op(Set, 0, 0, 0, 1),
        op(Submit, 0, 0, 0, 0),
        op(Wait, 0, 0, 0, 0),
        op(Halt, 0, 0, 0, 0),
    ]
}

#[test]
fn arithmetic_then_halt_in_pass_zero() {
    // r0 = 5, r1 = 7, r2 = 12, r3 = 144, r4 = 144 >> (35 & 31 = 3) = 18,
    // r5 = 18 & 6 = 2, r6 = 2 - 3 = 0xFFFF_FFFF, r7 = r6 + 2 = 1 (wraps),
    // r8 = 144 % 7 = 4, r11 = 144 + 4 = 148; HALT r11 in pass 0: one
    // STREAM_END event, passes = 1.
    let ops = program(
        "set r0, 5
         set r1, 7
         add r2, r0, r1
         mul r3, r2, r2
         shr r4, r3, 35
         set r9, 6
         and r5, r4, r9
         set r10, 3
         sub r6, r5, r10
         addi r7, r6, 2
         mod r8, r3, r1
         add r11, r3, r8
         mov r12, r7
         add r11, r11, r12   ; + r7 (1) = 149
         halt r11",
    );
    let data = upload(100, 0, 9, 42, ops, vec![]).encode();
    let r = run(&data, &Params::default());
    assert_eq!(r.status, Status::Ended);
    assert_eq!(r.halt, Some(149));
    assert_eq!(r.events.len(), 1);
    let e = r.events[0];
    assert_eq!(
        (e.kind, e.req, e.auxiliary, e.pass_index),
        (kind::STREAM_END, 42, 149, 0)
    );
    assert_eq!(r.passes, 1);
    assert!(r.commands.is_empty() && r.error.is_none() && r.check.is_none() && !r.stopped);
}

#[test]
fn sixty_four_micro_ops_without_halt_err_in_pass_one() {
    // S17: the budget of 64 ends the turn first; the pc == op_count test runs
    // at the start of the next turn, in pass 1: `Reason::BadJump` at pc 64.
    let ops = (0..64).map(|i| op(Set, 0, 0, 0, i)).collect();
    let data = upload(1000, 0, 1, 7, ops, vec![]).encode();
    let r = run(&data, &Params::default());
    assert_eq!(r.status, Status::Error);
    assert_eq!(r.error, err(Reason::BadJump, 64));
    assert_eq!(r.events.len(), 1);
    assert_eq!(r.events[0].kind, kind::STREAM_ERROR);
    assert_eq!(r.events[0].auxiliary, 3 | 64 << 8);
    assert_eq!(r.events[0].pass_index, 1);
    assert_eq!(r.passes, 2);
}

#[test]
fn step_limit_names_the_next_micro_op() {
    // JMP 0 forever with max_steps 3: three JMPs complete, the fourth would be
    // the max_steps + 1th: `Reason::StepLimit` at pc 0, in pass 0 (budget 64 not reached).
    let data = upload(3, 0, 1, 0, vec![op(Jmp, 0, 0, 0, 0)], vec![]).encode();
    let r = run(&data, &Params::default());
    assert_eq!(r.error, err(Reason::StepLimit, 0));
    assert_eq!(r.events[0].pass_index, 0);
    // max_steps = 64 = the budget: the budget ends pass 0's turn first (after
    // 32 SET/JMP pairs, at pc 0) and the step-limit test fails in pass 1.
    let body = vec![op(Set, 1, 0, 0, 1), op(Jmp, 0, 0, 0, 0)];
    let data = upload(64, 0, 1, 0, body.clone(), vec![]).encode();
    let r = run(&data, &Params::default());
    assert_eq!(r.error, err(Reason::StepLimit, 0));
    assert_eq!(r.events[0].pass_index, 1);
    // Budget 5, max_steps 11: turns of 5 (pass 0, ends at pc 1), 5 (pass 1,
    // ends at pc 0), then 1 step (the SET) in pass 2 and the limit at pc 1.
    let params = Params {
        turn_budget: 5,
        ..Params::default()
    };
    let data = upload(11, 0, 1, 0, body, vec![]).encode();
    let r = run(&data, &params);
    assert_eq!(r.error, err(Reason::StepLimit, 1));
    assert_eq!(r.events[0].pass_index, 2);
}

#[test]
fn running_off_the_end_before_the_step_limit() {
    // One SET and max_steps 1: after it the pc is op_count and the steps are
    // used up; S17 tests pc == op_count first: `Reason::BadJump` at pc 1, pass 0.
    let data = upload(1, 0, 1, 0, vec![op(Set, 1, 0, 0, 1)], vec![]).encode();
    let r = run(&data, &Params::default());
    assert_eq!(r.error, err(Reason::BadJump, 1));
    assert_eq!(r.events[0].pass_index, 0);
}

#[test]
fn mod_by_zero_at_the_mod() {
    let ops = program(
        "set r0, 10
         mod r1, r0, r2
         halt r0",
    );
    let data = upload(10, 0, 1, 5, ops, vec![]).encode();
    let r = run(&data, &Params::default());
    assert_eq!(r.error, err(Reason::ModByZero, 1));
    assert_eq!(r.events[0].auxiliary, 7 | 1 << 8);
    assert_eq!(r.events[0].req, 5);
}

#[test]
fn rand_is_xorshift_13_17_5_on_r15() {
    // seed 1: x = 1 ^ (1 << 13) = 8193; x ^= x >> 17 (0) = 8193;
    // x ^= x << 5 = 8193 ^ 262176 = 270369. HALT r0 returns it.
    let ops = vec![op(Rand, 0, 0, 0, 0), op(Halt, 0, 0, 0, 0)];
    let data = upload(10, 0, 1, 0, ops, vec![]).encode();
    assert_eq!(run(&data, &Params::default()).halt, Some(270_369));
}

#[test]
fn time_is_pass_times_ticks() {
    // SUBMIT in pass 0 with delay 2 is acked in the sweep of pass 3; WAIT 0
    // goes on in pass 3, TIME gives 3 * 7 = 21, HALT ends in pass 3.
    let ops = program(
        "submit #0
         wait 0
         time r0
         halt r0",
    );
    let data = upload(10, 0, 1, 0, ops, vec![template(9, 0, (0, 4), &[], &[])]).encode();
    let params = Params {
        delay: Delay::Fixed(2),
        ticks_per_pass: 7,
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.halt, Some(21));
    assert_eq!(r.events[0].pass_index, 3);
    assert_eq!(r.passes, 4);
    let c = &r.commands[0];
    let got = (
        c.sequence,
        c.slot,
        c.handler,
        c.first,
        c.count,
        c.pass_index,
        c.pc,
        c.queued,
    );
    assert_eq!(got, (0, 0, 9, 0, 4, 0, 0, false));
}

#[test]
fn a_long_delay_is_skipped_exactly() {
    // delay 999,998: the command of pass 0 is acknowledged in the sweep of
    // pass 999,999 (S12); the default deadline 1,000,000 would be late only in
    // pass 1,000,000. WAIT goes on and HALT ends in pass 999,999 (the last
    // pass below max_passes 1,000,000); TIME there is 999,999 * 1000 mod 2^32.
    let data = common::submit_wait_time_halt(1, 1, (3, 1));
    let params = Params {
        delay: Delay::Fixed(999_998),
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.status, Status::Ended);
    assert_eq!(r.events[0].pass_index, 999_999);
    assert_eq!(r.passes, 1_000_000);
    assert_eq!(r.halt, Some((999_999u64 * 1000) as u32));
    // One pass longer and the run is stuck at max_passes with no event.
    let params = Params {
        delay: Delay::Fixed(999_999),
        deadline_passes: Some(5_000_000),
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.status, Status::Stuck);
    assert!(r.events.is_empty());
    assert_eq!(r.passes, 0);
}

#[test]
fn a_late_command_stops_the_grid() {
    // Never acknowledged, deadline_passes 10: late after the sweep of pass
    // 0 + 10 = 10; the stream is active: `Reason::Deadline` at the SUBMIT (pc 1).
    let tmpl = || vec![template(1, 0, (0, 1), &[], &[])];
    let data = upload(10, 0, 1, 3, wait_program(), tmpl()).encode();
    let params = Params {
        delay: Delay::Never,
        deadline_passes: Some(10),
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.error, err(Reason::Deadline, 1));
    assert!(r.stopped);
    assert_eq!(r.events[0].pass_index, 10);
    assert_eq!(r.passes, 11);
    // A header deadline of 4 microseconds is 4 passes (S13).
    let data = upload(10, 4, 1, 3, wait_program(), tmpl()).encode();
    let params = Params {
        delay: Delay::Never,
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.error, err(Reason::Deadline, 1));
    assert_eq!(r.events[0].pass_index, 4);
    // A delay equal to the deadline is late (S13: late exactly when d >= D).
    let params = Params {
        delay: Delay::Fixed(4),
        ..Params::default()
    };
    assert_eq!(run(&data, &params).error, err(Reason::Deadline, 1));
    let params = Params {
        delay: Delay::Fixed(3),
        ..Params::default()
    };
    assert_eq!(run(&data, &params).status, Status::Ended);
}

#[test]
fn cancel_then_timeout_of_the_command_left_in_flight() {
    // Cancel in pass 5 while WAIT (pc 1) waits: `Reason::Cancelled` at pc 1 in pass 5.
    // The command stays in flight; with deadline_passes 20 it is late in pass
    // 20: TIMEOUT with the slot (0) and the req, the grid stopped (S14).
    let ops = program(
        "submit #0
         wait 0
         halt r0",
    );
    let data = upload(10, 0, 1, 77, ops, vec![template(1, 0, (0, 1), &[], &[])]).encode();
    let params = Params {
        delay: Delay::Never,
        deadline_passes: Some(20),
        cancel_pass: Some(5),
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.error, err(Reason::Cancelled, 1));
    assert_eq!(r.status, Status::Error);
    let ev: Vec<_> = r
        .events
        .iter()
        .map(|e| (e.kind, e.req, e.auxiliary, e.pass_index))
        .collect();
    assert_eq!(
        ev,
        vec![
            (kind::STREAM_ERROR, 77, 10 | 1 << 8, 5),
            (kind::TIMEOUT, 77, 0, 20)
        ]
    );
    assert!(r.stopped);
    assert_eq!(r.passes, 21);
    // Cancel in pass 0 (S15): `Reason::Cancelled` at pc 0, nothing ran.
    let params = Params {
        cancel_pass: Some(0),
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.error, err(Reason::Cancelled, 0));
    assert!(r.commands.is_empty());
    assert_eq!(r.passes, 1);
}

#[test]
fn error_with_commands_in_flight_runs_on_silently() {
    // SUBMIT (delay 3: acked in pass 4), then MOD by zero in pass 0. The run
    // goes on until the command is acknowledged, then ends (S16 d); passes
    // counts to the last event only: 1.
    let ops = vec![op(Submit, 0, 0, 0, 0), op(Mod, 0, 0, 1, 0)];
    let data = upload(10, 0, 1, 0, ops, vec![template(1, 0, (0, 1), &[], &[])]).encode();
    let params = Params {
        delay: Delay::Fixed(3),
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.error, err(Reason::ModByZero, 1));
    assert_eq!(r.passes, 1);
    assert!(!r.stopped);
}

#[test]
fn slots_fill_lowest_first_and_submit_waits() {
    // 17 SUBMITs with delay 0: 16 take slots 0..15 in pass 0, the 17th waits
    // (all slots busy) until the sweep of pass 1 frees them; it takes slot 0.
    let mut ops: Vec<_> = (0..17).map(|_| op(Submit, 0, 0, 0, 0)).collect();
    ops.push(op(Halt, 0, 0, 0, 0));
    let data = upload(100, 0, 1, 0, ops, vec![template(1, 0, (0, 1), &[], &[])]).encode();
    let r = run(&data, &Params::default());
    let got: Vec<_> = r
        .commands
        .iter()
        .map(|c| (c.sequence, c.slot, c.pass_index))
        .collect();
    let mut want: Vec<_> = (0..16).map(|i| (i as u64, i as u8, 0)).collect();
    want.push((16, 0, 1));
    assert_eq!(got, want);
    // HALT waits for the 17th (acked in pass 2).
    assert_eq!(r.events[0].pass_index, 2);
}

#[test]
fn bad_group_and_bad_enqueue() {
    // first 100 + count 20 > 119: `Reason::BadGroup` at the SUBMIT.
    let t = || vec![template(1, 0, (100, 20), &[], &[])];
    let data = upload(10, 0, 1, 0, vec![op(Submit, 0, 0, 0, 0)], t()).encode();
    assert_eq!(
        run(&data, &Params::default()).error,
        err(Reason::BadGroup, 0)
    );
    // ENQUEUE with r0 = 0 cores: `Reason::BadEnqueue`.
    let data = upload(10, 0, 1, 0, vec![op(Enqueue, 0, 0, 0, 0)], t()).encode();
    assert_eq!(
        run(&data, &Params::default()).error,
        err(Reason::BadEnqueue, 0)
    );
    // ENQUEUE of 120 cores on a 119-core grid: `Reason::BadEnqueue` at pc 1.
    let ops = vec![op(Set, 0, 0, 0, 120), op(Enqueue, 0, 0, 0, 0)];
    let data = upload(10, 0, 1, 0, ops, t()).encode();
    assert_eq!(
        run(&data, &Params::default()).error,
        err(Reason::BadEnqueue, 1)
    );
}

#[test]
fn results_from_the_highest_slot_swept_together() {
    // Two result commands in pass 0 (slots 0, 1; sequences 0, 1), both acked
    // in pass 1; result = sequence; the highest slot's (1) is the latest.
    let ops = program(
        "submit #0
         submit #0
         wait 0
         result r3
         halt r3",
    );
    let data = upload(
        10,
        0,
        1,
        0,
        ops,
        vec![template(1, flags::RESULT, (0, 1), &[], &[])],
    )
    .encode();
    let params = Params {
        result: ResultModel::Sequence,
        ..Params::default()
    };
    assert_eq!(run(&data, &params).halt, Some(1));
}

#[test]
fn exclusive_submit_waits_for_an_overlapping_group() {
    // SUBMIT on (0, 4) with delay 5 (acked in pass 6), then an exclusive SUBMIT
    // on (2, 4) overlaps it: it waits until pass 6, then takes slot 0 again.
    let ops = program(
        "submit #0
         submit #1
         halt r0",
    );
    let templates = vec![
        template(1, 0, (0, 4), &[], &[]),
        template(2, flags::EXCLUSIVE, (2, 4), &[], &[]),
    ];
    let data = upload(10, 0, 1, 0, ops, templates).encode();
    let params = Params {
        delay: Delay::Fixed(5),
        ..Params::default()
    };
    let r = run(&data, &params);
    let got: Vec<_> = r
        .commands
        .iter()
        .map(|c| (c.slot, c.pass_index, c.flags))
        .collect();
    assert_eq!(got, vec![(0, 0, 0), (0, 6, flags::EXCLUSIVE)]);
    // HALT waits for the second (acked in pass 6 + 6 = 12).
    assert_eq!(r.events[0].pass_index, 12);
}

#[test]
fn patches_and_group_registers() {
    // r0 = 5, r1 = 2; template args [10, 11, 12], patches arg1 <- r0 then
    // arg1 <- r1 (the later wins), first from r1, count from r0: group (2, 5).
    let ops = program(
        "set r0, 5
         set r1, 2
         submit #0
         halt r9",
    );
    let mut t = template(4, 0, (50, 50), &[10, 11, 12], &[(1, 0), (1, 1)]);
    t.first_register = 1;
    t.count_register = 0;
    let data = upload(10, 0, 1, 0, ops, vec![t]).encode();
    let r = run(&data, &Params::default());
    let c = &r.commands[0];
    assert_eq!((c.first, c.count), (2, 5));
    assert_eq!(&c.args[..4], &[10, 2, 12, 0]);
}

#[test]
fn the_thousand_job_example() {
    let data = job_example().encode();
    let r = run(&data, &Params::default());
    assert_eq!(r.status, Status::Ended);
    assert_eq!(r.halt, Some(0));
    assert_eq!(r.events.len(), 1);
    let e = r.events[0];
    assert_eq!((e.kind, e.req, e.auxiliary), (kind::STREAM_END, 1, 0));
    assert_eq!(r.passes, e.pass_index + 1);
    assert_eq!(r.commands.len(), 1000);
    // Job k has count = (the k+1-th xorshift of seed 1) % 119 + 1 and args [k, 77].
    let mut x = 1u32;
    let mut want = Vec::new();
    for _ in 0..1000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        want.push(x % 119 + 1);
    }
    let mut seen = [false; 1000];
    for (i, c) in r.commands.iter().enumerate() {
        assert_eq!(c.sequence, i as u64);
        assert!(c.queued && c.handler == 3 && c.flags == 0 && c.pc == 6);
        let k = c.args[0] as usize;
        assert!(!seen[k]);
        seen[k] = true;
        assert_eq!(c.args[1], 77);
        assert_eq!(c.count, want[k], "job {k}");
        assert!(c.first + c.count <= 119);
    }
    // With delay 0 a command is busy only in its submit pass: those of one
    // pass have distinct slots and disjoint groups (the allocator).
    for a in &r.commands {
        for b in &r.commands {
            if a.sequence < b.sequence && a.pass_index == b.pass_index {
                assert_ne!(a.slot, b.slot);
                assert!(a.first + a.count <= b.first || b.first + b.count <= a.first);
            }
        }
    }
}

#[test]
fn dispatch_names() {
    for &d in Dispatch::ALL {
        assert_eq!(d.to_string().parse::<Dispatch>(), Ok(d));
    }
    assert_eq!("tail".parse::<Dispatch>(), Ok(Dispatch::Tail));
    // The reference model is an implementation, not a dispatch variant.
    assert!("reference".parse::<Dispatch>().is_err());
    assert_eq!(
        "reference".parse::<Implementation>(),
        Ok(Implementation::Reference)
    );
    assert_eq!(
        "tail".parse::<Implementation>(),
        Ok(Implementation::Fast(Dispatch::Tail))
    );
    assert!("fast".parse::<Dispatch>().is_err());
    assert_eq!(Dispatch::ALL.first(), Some(&Dispatch::Tail));
    #[cfg(feature = "switch")]
    assert!(Dispatch::ALL.contains(&Dispatch::Switch));
    #[cfg(feature = "threaded")]
    assert_eq!("threaded".parse::<Dispatch>(), Ok(Dispatch::Threaded));
}

#[test]
fn a_job_overtaken_1024_times_blocks_the_queue() {
    // Job X (1 core) is never acknowledged, so the 119-core job A behind it
    // never fits; the 1-core jobs behind A overtake it. S20: once A has been
    // overtaken 1,024 times, the queue's turn ends when it looks at A, so
    // nothing behind it is submitted again. Overtakes come at most 15 per turn
    // (16 slots, X holds one), so the last turn that submits brings A from
    // below 1,024 to below 1,024 + 15.
    let ops = program(
        "set r2, 1
         set r3, 119
         set r4, 2000
         enqueue r2, #0      ; X
         enqueue r3, #0      ; A
         enqueue r2, #0      ; top = 5: the small jobs
         addi r0, r0, 1
         jlt r0, r4, @5
         wait 0
         halt r0",
    );
    let data = upload(
        100_000,
        0,
        1,
        0,
        ops,
        vec![template(5, 0, (0, 0), &[], &[])],
    )
    .encode();
    let never_first: std::sync::Arc<kmst_reference::params::DelayFn> =
        std::sync::Arc::new(|c| if c.sequence == 0 { None } else { Some(0) });
    let params = Params {
        delay: Delay::Custom(never_first),
        max_passes: 1000,
        ..Params::default()
    };
    let r = run(&data, &params);
    assert_eq!(r.status, Status::Stuck);
    assert_eq!((r.commands[0].count, r.commands[0].pc), (1, 3));
    assert!(r.commands.iter().all(|c| c.count == 1));
    let small = r.commands.len() - 1;
    assert!(
        (1024..1024 + 15).contains(&small),
        "{small} small jobs submitted"
    );
}

#[test]
fn the_variants_of_this_build() {
    // Tail and Reference are always built; the others follow the features,
    // in the order of Dispatch::ALL.
    let names: Vec<String> = Implementation::all()
        .iter()
        .map(|d| d.to_string())
        .collect();
    let mut want = vec!["tail"];
    for (on, name) in [
        (cfg!(feature = "switch"), "switch"),
        (cfg!(feature = "threaded"), "threaded"),
        (cfg!(feature = "subroutine"), "subroutine"),
        (cfg!(feature = "indirect"), "indirect"),
        (cfg!(feature = "loop_match"), "loop_match"),
        (cfg!(feature = "jit"), "jit"),
        (cfg!(feature = "jit"), "tiered"),
        (cfg!(feature = "stencil"), "stencil"),
    ] {
        if on {
            want.push(name);
        }
    }
    want.push("reference");
    assert_eq!(names, want);
}

#[test]
fn a_machine_runs_once() {
    use kmst::exec::{Machine, NoObserver};
    // HALT r0 at once: one STREAM_END event in pass 0. A second run adds nothing.
    let data = upload(10, 0, 1, 0, vec![op(Halt, 0, 0, 0, 0)], vec![]).encode();
    let mut m = Machine::new(&data, &Params::default());
    m.run(Dispatch::Tail, &mut NoObserver);
    m.run(Dispatch::Tail, &mut NoObserver);
    let r = m.into_result();
    assert_eq!(r.events.len(), 1);
    assert_eq!(r.status, Status::Ended);
}

#[test]
fn a_rejected_upload_is_one_error_event_in_pass_zero() {
    // P1: a bad magic (`Reason::BadHeader`, pc 0): check = error, one STREAM_ERROR at
    // pass 0 with the header's req (S3), passes 1, no commands.
    let mut data = upload(10, 0, 1, 99, vec![op(Halt, 0, 0, 0, 0)], vec![]).encode();
    data[0] ^= 1;
    let r = run(&data, &Params::default());
    assert_eq!(r.check, err(Reason::BadHeader, 0));
    assert_eq!(r.error, err(Reason::BadHeader, 0));
    assert_eq!(r.status, Status::Error);
    let e = r.events[0];
    assert_eq!(
        (r.events.len(), e.kind, e.req, e.auxiliary, e.pass_index),
        (1, kind::STREAM_ERROR, 99, 1, 0)
    );
    assert_eq!(r.passes, 1);
    // An unknown opcode 11 at pc 1: `Reason::UnknownOpcode` at pc 1.
    let mut ops = vec![op(Halt, 0, 0, 0, 0), op(Halt, 0, 0, 0, 0)];
    ops[1].op = 11;
    let r = run(
        &upload(10, 0, 1, 0, ops, vec![]).encode(),
        &Params::default(),
    );
    assert_eq!(r.check, err(Reason::UnknownOpcode, 1));
}

/// A program with the budget or the step limit splitting its ADDI+JNZ pairs
/// (a superinstruction in the fast variants, docs/dispatch.md).
fn countdown(max_steps: u32, budget: u32) -> SimResult {
    // pc0 SET r1, 3; pc1 ADDI r1, r1, -1; pc2 JNZ r1, 1; pc3 HALT r1.
    // Micro-ops in order: SET, (ADDI, JNZ) x 3 with r1 = 2, 1, 0, HALT: 8.
    let ops = program(
        "set r1, 3
         addi r1, r1, -1     ; -1
         jnz r1, @1
         halt r1",
    );
    let params = Params {
        turn_budget: budget,
        ..Params::default()
    };
    run(&upload(max_steps, 0, 1, 0, ops, vec![]).encode(), &params)
}

#[test]
fn budget_between_a_fused_pair_stops_exactly() {
    // Budget 2: pass 0 runs SET, ADDI (r1 = 2) and stops at the JNZ (pc 2);
    // pass 1 JNZ, ADDI (r1 = 1); pass 2 JNZ, ADDI (r1 = 0); pass 3 JNZ falls
    // through and HALT r1 ends the stream with 0: passes = 4.
    let r = countdown(100, 2);
    assert_eq!((r.status, r.halt, r.passes), (Status::Ended, Some(0), 4));
    // Budget 3: pass 0 SET, ADDI, JNZ (at pc 1, r1 = 2); pass 1 ADDI, JNZ,
    // ADDI (r1 = 0, at pc 2); pass 2 JNZ, HALT: passes = 3.
    let r = countdown(100, 3);
    assert_eq!((r.status, r.halt, r.passes), (Status::Ended, Some(0), 3));
}

#[test]
fn step_limit_between_a_fused_pair_names_the_second() {
    // 4 steps: SET, ADDI, JNZ, ADDI; the fifth would be the JNZ at pc 2.
    let r = countdown(4, 64);
    assert_eq!(r.error, err(Reason::StepLimit, 2));
    // 5 steps: ... JNZ taken back to pc 1: the sixth would be the ADDI.
    let r = countdown(5, 64);
    assert_eq!(r.error, err(Reason::StepLimit, 1));
    // Budget 1 and 4 steps: one micro-op per pass, the same stop in pass 4.
    let r = countdown(4, 1);
    assert_eq!(r.error, err(Reason::StepLimit, 2));
    assert_eq!(r.events[0].pass_index, 4);
}

#[test]
fn jump_into_the_second_of_a_fused_pair_runs_it_alone() {
    // pc0 SET r1, 2; pc1 JMP 3; pc2 ADDI r1, r1, -1; pc3 JNZ r1, 2; pc4 HALT r1.
    // Runs SET, JMP, JNZ (r1 = 2, to pc 2), ADDI (1), JNZ, ADDI (0), JNZ (falls
    // through), HALT r1 = 0: 8 micro-ops.
    let ops = program(
        "set r1, 2
         jmp @3
         addi r1, r1, -1
         jnz r1, @2
         halt r1",
    );
    let r = run(
        &upload(8, 0, 1, 0, ops.clone(), vec![]).encode(),
        &Params::default(),
    );
    assert_eq!((r.status, r.halt, r.passes), (Status::Ended, Some(0), 1));
    // 3 steps (SET, JMP, JNZ): the fourth would be the ADDI at pc 2.
    let r = run(
        &upload(3, 0, 1, 0, ops.clone(), vec![]).encode(),
        &Params::default(),
    );
    assert_eq!(r.error, err(Reason::StepLimit, 2));
    // 7 steps: the last JNZ falls through to the HALT at pc 4.
    let r = run(
        &upload(7, 0, 1, 0, ops, vec![]).encode(),
        &Params::default(),
    );
    assert_eq!(r.error, err(Reason::StepLimit, 4));
}

#[test]
fn addi_jlt_pair_split_by_the_budget() {
    // pc0 SET r2, 3; pc1 ADDI r0, r0, 1; pc2 JLT r0, r2, 1; pc3 HALT r0.
    // SET, (ADDI, JLT) with r0 = 1, 2 (taken), 3 (falls through), HALT r0 = 3.
    // Budget 4: pass 0 SET, ADDI, JLT, ADDI (stops at pc 2); pass 1 JLT, ADDI,
    // JLT, HALT: passes = 2.
    let ops = program(
        "set r2, 3
         addi r0, r0, 1
         jlt r0, r2, @1
         halt r0",
    );
    let params = Params {
        turn_budget: 4,
        ..Params::default()
    };
    let r = run(&upload(100, 0, 1, 0, ops, vec![]).encode(), &params);
    assert_eq!((r.status, r.halt, r.passes), (Status::Ended, Some(3), 2));
}
