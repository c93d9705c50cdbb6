//! The profile of streams of known shape, with every count worked out by
//! hand from docs/spec.md and S11..S20 (the turn rules of S17, the sweep of
//! S12, the queue's turn of S20).
//!
//! Counts that depend on how the fast kernel skips idle passes are asserted
//! as the pass-by-pass model sees them: a skipped pass is a turn of 0
//! micro-ops, so `taken + skipped` and `zero_op + skipped` are fixed by the
//! spec whatever the kernel skips.

mod common;

use common::LOOP;
use kmst::asm::assemble;
use kmst::exec::{Dispatch, simulate};
use kmst_harness::profile::{Profile, profile, sweep};
use kmst_reference::{Delay, Params};

fn params(budget: u32, delay: Delay) -> Params {
    Params {
        turn_budget: budget,
        delay,
        ..Params::default()
    }
}

/// Profiles on every fast variant; all must give the same profile but for its name.
fn prof(src: &str, p: &Params) -> Profile {
    let upload = assemble(src).expect("assembles");
    let mut first: Option<Profile> = None;
    for &d in Dispatch::ALL {
        let run = profile(&upload, p, d, true).expect("profiles");
        // Observing changes nothing of the answer.
        assert_eq!(run.result, simulate(&upload, p, d), "{d}");
        let mut prof = run.profile;
        prof.dispatch = String::new();
        match &first {
            Some(f) => assert_eq!(&prof, f, "{d} disagrees"),
            None => first = Some(prof),
        }
    }
    first.unwrap()
}

fn ends(p: &Profile, why: &str) -> (u64, u64) {
    let e = p.turns.ends.iter().find(|e| e.why == why).unwrap();
    (e.turns, e.skipped)
}

fn histogram(p: &Profile) -> Vec<(u32, u64)> {
    p.turns
        .ops_histogram
        .iter()
        .map(|r| (r.ops, r.turns))
        .collect()
}

#[test]
fn a_loop_takes_ceil_steps_over_budget_turns() {
    // 202 micro-ops at 64 a turn: 64, 64, 64 (budget) in passes 0..2, then
    // 10 ending with HALT in pass 3. ceil(202 / 64) = 4 turns, passes = 4.
    let p = prof(LOOP, &params(64, Delay::Fixed(0)));
    assert_eq!(p.status, "ended");
    assert_eq!(p.passes, 4);
    assert_eq!(p.kernel_passes, 4);
    assert_eq!(p.micro_ops, 202);
    assert_eq!(p.turns.taken, 4);
    assert_eq!(p.turns.skipped, 0);
    assert_eq!(p.turns.ran_nothing, 0);
    assert_eq!(p.turns.without_turn, 0);
    assert_eq!(histogram(&p), vec![(10, 1), (64, 3)]);
    assert_eq!(ends(&p, "budget"), (3, 0));
    assert_eq!(ends(&p, "halt"), (1, 0));
    let budget_share = p.turns.ends[0].share;
    assert!((budget_share - 0.75).abs() < 1e-12);
    assert!((p.turns.mean_ops - 202.0 / 4.0).abs() < 1e-12);
    // Per pc: SET once, the loop body 100 times each, HALT once; no waits.
    let executed: Vec<u64> = p.pcs.iter().map(|l| l.executed).collect();
    assert_eq!(executed, vec![1, 100, 100, 1]);
    assert!(p.pcs.iter().all(|l| l.waits == 0 && l.skipped == 0));
    // The two loop lines are the hottest (rank 1, shared); the others tie at rank 3.
    let hot: Vec<Option<u32>> = p.pcs.iter().map(|l| l.hot).collect();
    assert_eq!(hot, vec![Some(3), Some(1), Some(1), Some(3)]);
    assert_eq!(p.pcs[1].text, "addi r0, r0, 1");
    // No command: every pass ends with 0 busy slots and an empty queue.
    assert_eq!(p.slots.histogram[0], 4);
    assert_eq!(p.slots.histogram.iter().sum::<u64>(), 4);
    assert_eq!((p.slots.mean, p.slots.max), (0.0, 0));
    assert_eq!((p.queue.mean, p.queue.max), (0.0, 0));
}

#[test]
fn the_sweep_gives_hand_computed_pass_counts() {
    // One turn per pass and no waiting, so passes = turns = ceil(202 / b):
    // b = 1: 202; 50: 5 (50+50+50+50+2); 64: 4; 202: 1; 1000: 1.
    let upload = assemble(LOOP).unwrap();
    let rows = sweep(
        &upload,
        &Params::default(),
        Dispatch::Tail,
        &[1, 50, 64, 202, 1000],
    )
    .unwrap();
    let got: Vec<(u32, u64, u64)> = rows
        .iter()
        .map(|r| (r.turn_budget, r.passes, r.turns))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, 202, 202),
            (50, 5, 5),
            (64, 4, 4),
            (202, 1, 1),
            (1000, 1, 1)
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r.mean_slots == 0.0 && r.micro_ops == 202)
    );
}

/// Two commands, then WAIT 0 and HALT.
const TWO_SUBMITS: &str = "
.stream max_steps=1000 seed=1
        submit handler=1, group=(0, 1)
        submit handler=1, group=(1, 1)
        wait 0
        halt r0
";

#[test]
fn waits_at_a_known_pc_for_a_known_delay() {
    // Delay 5: both commands submitted in pass 0 are acknowledged by the
    // sweep of pass 0 + 1 + 5 = 6 (S12). Pass 0: two SUBMITs (2 micro-ops),
    // then WAIT 0 at pc 2 waits (pending 2). Passes 1..=5: the stream waits
    // at pc 2 and runs nothing. Pass 6: WAIT goes on, HALT ends: 2 micro-ops.
    let p = prof(TWO_SUBMITS, &params(64, Delay::Fixed(5)));
    assert_eq!(p.passes, 7);
    assert_eq!(p.kernel_passes, 7);
    assert_eq!(p.micro_ops, 4);
    // Seven turns in the pass-by-pass model, five of them running nothing.
    assert_eq!(p.turns.taken + p.turns.skipped, 7);
    assert_eq!(p.turns.ran_nothing, 5);
    assert_eq!(p.turns.zero_op + p.turns.skipped, 5);
    assert_eq!(p.turns.without_turn, 0);
    // Six waits (pass 0..=5), one halt.
    let (w, ws) = ends(&p, "wait");
    assert_eq!(w + ws, 6);
    assert_eq!(ends(&p, "halt"), (1, 0));
    assert_eq!(ends(&p, "budget"), (0, 0));
    // Histogram of turns taken: two of 2 micro-ops, the rest 0.
    let h = histogram(&p);
    assert_eq!(h.iter().find(|r| r.0 == 2), Some(&(2, 2)));
    assert_eq!(h.iter().map(|r| r.1).sum::<u64>(), p.turns.taken);
    // All of the waiting is at pc 2; every micro-op executed once.
    let waited: Vec<u64> = p.pcs.iter().map(|l| l.waits + l.skipped).collect();
    assert_eq!(waited, vec![0, 0, 6, 0]);
    assert!(p.pcs.iter().all(|l| l.executed == 1));
    // Two slots busy at the end of passes 0..=5, none after pass 6's sweep:
    // mean (6 * 2 + 0) / 7 = 12 / 7.
    assert_eq!(p.slots.histogram[2], 6);
    assert_eq!(p.slots.histogram[0], 1);
    assert_eq!(p.slots.max, 2);
    assert!((p.slots.mean - 12.0 / 7.0).abs() < 1e-12);
}

/// Seventeen commands: the seventeenth finds the 16 slots busy.
const SEVENTEEN: &str = "
.stream max_steps=1000 seed=1
        set r1, 17
top:    submit handler=1, group=(0, 1)
        addi r0, r0, 1
        jlt r0, r1, top
        wait 0
        halt r2
";

#[test]
fn a_full_set_of_slots_makes_submit_wait() {
    // Delay 2. Pass 0: SET + 16 * (SUBMIT, ADDI, JLT) = 49 micro-ops, then
    // the 17th SUBMIT at pc 1 waits for a slot. The 16 commands are acked
    // in the sweep of pass 3, so passes 1, 2 wait at pc 1 with nothing run.
    // Pass 3: SUBMIT (slot 0), ADDI, JLT falls through, WAIT 0 waits at
    // pc 4: 3 micro-ops. The 17th is acked in pass 3 + 1 + 2 = 6; passes
    // 4, 5 wait at pc 4; pass 6: WAIT, HALT (2). Total 49 + 3 + 2 = 54.
    let p = prof(SEVENTEEN, &params(64, Delay::Fixed(2)));
    assert_eq!(p.passes, 7);
    assert_eq!(p.commands, 17);
    assert_eq!(p.micro_ops, 54);
    let (ws, wss) = ends(&p, "wait-slots");
    assert_eq!(ws + wss, 3);
    let (w, wsk) = ends(&p, "wait");
    assert_eq!(w + wsk, 3);
    assert_eq!(ends(&p, "halt"), (1, 0));
    assert_eq!(p.turns.taken + p.turns.skipped, 7);
    assert_eq!(p.turns.ran_nothing, 4);
    let h = histogram(&p);
    for ops in [49, 3, 2] {
        assert_eq!(h.iter().find(|r| r.0 == ops), Some(&(ops, 1)), "{ops}");
    }
    let waited: Vec<u64> = p.pcs.iter().map(|l| l.waits + l.skipped).collect();
    assert_eq!(waited, vec![0, 3, 0, 0, 3, 0]);
    let executed: Vec<u64> = p.pcs.iter().map(|l| l.executed).collect();
    assert_eq!(executed, vec![1, 17, 17, 17, 1, 1]);
    // Busy at the end of each pass: 16, 16, 16, 1, 1, 1, 0.
    let mut expect = vec![0u64; 17];
    expect[16] = 3;
    expect[1] = 3;
    expect[0] = 1;
    assert_eq!(p.slots.histogram, expect);
    assert_eq!(p.slots.max, 16);
    assert!((p.slots.mean - 51.0 / 7.0).abs() < 1e-12);
}

#[test]
fn the_queue_depth_follows_the_queues_turns() {
    // Three jobs of the whole grid (119 cores), delay 0. Pass 0 (stream
    // first): SET + 3 ENQUEUEs, WAIT 0 waits at pc 4 (4 micro-ops); the
    // queue's turn places job 0 only (the others find no room). Pass 1
    // (queue first): job 0 acked, job 1 placed; the stream waits. Pass 2:
    // job 1 acked; the stream waits (job 2 still queued); the queue places
    // job 2. Pass 3: job 2 acked; WAIT goes on, HALT ends (2 micro-ops).
    // At the end of passes 0..=3: queue 2, 1, 0, 0; busy 1, 1, 1, 0.
    let src = "
.stream max_steps=1000 seed=1
        set r1, 119
        enqueue r1, handler=2
        enqueue r1, handler=2
        enqueue r1, handler=2
        wait 0
        halt r0
";
    let p = prof(src, &params(64, Delay::Fixed(0)));
    assert_eq!(p.passes, 4);
    assert_eq!(p.commands, 3);
    assert_eq!(p.queue.max, 2);
    assert!((p.queue.mean - 3.0 / 4.0).abs() < 1e-12);
    assert_eq!(p.slots.max, 1);
    assert!((p.slots.mean - 3.0 / 4.0).abs() < 1e-12);
    // The queue moved in passes 1 and 2, so no pass was idle.
    assert_eq!(p.turns.taken, 4);
    assert_eq!(p.turns.skipped, 0);
    assert_eq!(histogram(&p), vec![(0, 2), (2, 1), (4, 1)]);
    assert_eq!(ends(&p, "wait"), (3, 0));
    assert_eq!(p.pcs[4].waits, 3);
    assert_eq!(p.pcs[1].text, "enqueue r1, #0  ; handler 2");
}

#[test]
fn a_failing_micro_op_is_attempted_but_not_executed() {
    // MOD by zero at pc 1 (r1 = 0): the stream ends with `Reason::ModByZero` in pass
    // 0 after one micro-op (the SET); the MOD counts no step (S17).
    let src = "
.stream max_steps=1000 seed=1
        set r0, 5
        mod r0, r0, r1
        halt r0
";
    let p = prof(src, &params(64, Delay::Fixed(0)));
    assert_eq!(p.status, "error");
    assert_eq!(p.micro_ops, 1);
    assert_eq!(histogram(&p), vec![(1, 1)]);
    assert_eq!(ends(&p, "error"), (1, 0));
    let executed: Vec<u64> = p.pcs.iter().map(|l| l.executed).collect();
    assert_eq!(executed, vec![1, 0, 0]);
}

#[test]
fn running_off_the_end_after_a_full_turn() {
    // 64 ADDIs without HALT (S17): pass 0 runs all 64 (budget), pass 1
    // finds pc 64 == op_count and ends with `Reason::BadJump`, running nothing.
    let mut src = String::from(".stream max_steps=1000 seed=1\n");
    for _ in 0..64 {
        src.push_str("addi r0, r0, 1\n");
    }
    let p = prof(&src, &params(64, Delay::Fixed(0)));
    assert_eq!(p.passes, 2);
    assert_eq!(histogram(&p), vec![(0, 1), (64, 1)]);
    assert_eq!(ends(&p, "budget"), (1, 0));
    assert_eq!(ends(&p, "error"), (1, 0));
    assert_eq!(p.turns.zero_op, 1);
    // A 65th line for pc 64 stands for the end of the program, never executed.
    assert_eq!(p.pcs.len(), 65);
    assert_eq!(p.pcs[64].executed, 0);
    assert!(p.pcs[..64].iter().all(|l| l.executed == 1));
}

#[test]
fn passes_after_a_cancel_have_no_turn() {
    // Delay 10: the command is acked in pass 11. WAIT 0 waits from pass 0;
    // the cancel in pass 3 ends the stream before its turn (S15); the run
    // goes on silently until the ack (S16 d), so passes 3..=11 of the
    // kernel have no turn. passes (S16) = 3 + 1 = 4: the error event's pass.
    let src = "
.stream max_steps=1000 seed=1
        submit handler=1, group=(0, 1)
        wait 0
        halt r0
";
    let p = prof(
        src,
        &Params {
            cancel_pass: Some(3),
            ..params(64, Delay::Fixed(10))
        },
    );
    assert_eq!(p.status, "error");
    assert_eq!(p.passes, 4);
    assert_eq!(p.stream_end_pass, Some(3));
    assert_eq!(p.kernel_passes, 12);
    // Turns in passes 0, 1, 2 (waiting from pass 0 on).
    assert_eq!(p.turns.taken + p.turns.skipped, 3);
    assert_eq!(p.turns.without_turn, 9);
    let (w, ws) = ends(&p, "wait");
    assert_eq!(w + ws, 3);
}

#[test]
fn a_rejected_upload_is_not_profiled() {
    // A rejected upload does not run.
    let bad = assemble(".stream max_steps=1 seed=0\nhalt r0\n").unwrap();
    assert!(matches!(
        profile(&bad, &Params::default(), Dispatch::Tail, false),
        Err(kmst_harness::profile::ProfileError::Rejected(_))
    ));
}
