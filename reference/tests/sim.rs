//! Scenario tests of the simulator, one per ruling S11..S22, every error reason
//! and every event kind. Every expected value is worked out by hand from the
//! spec in the comment beside it (header req is 7 and seed 1 unless said).

mod common;

use std::sync::Arc;

use common::{EXCLUSIVE, R15, RESULT, Tpl, Up, up};
use kmst_reference::result::kind;
use kmst_reference::{
    Delay, Event, Params, Reason, ResultModel, SimResult, Status, StreamError, SubmittedCommand,
    simulate,
};

fn ev(kind: u8, auxiliary: u32, pass_index: u64) -> Event {
    Event {
        kind,
        req: 7,
        auxiliary,
        pass_index,
    }
}
fn end(aux: u32, pass: u64) -> Event {
    ev(kind::STREAM_END, aux, pass)
}
fn error_ev(reason: u32, pc: u32, pass: u64) -> Event {
    ev(kind::STREAM_ERROR, reason | pc << 8, pass)
}
fn se(reason: Reason, pc: u32) -> Option<StreamError> {
    Some(StreamError { reason, pc })
}

/// (sequence, slot, pass_index, pc, queued, first, count) of every command.
fn shape(r: &SimResult) -> Vec<(u64, u8, u64, u32, bool, u32, u32)> {
    r.commands
        .iter()
        .map(|c| {
            (
                c.sequence,
                c.slot,
                c.pass_index,
                c.pc,
                c.queued,
                c.first,
                c.count,
            )
        })
        .collect()
}

/// A delay given per sequence number; others 0.
fn delays(table: &'static [(u64, Option<u32>)]) -> Delay {
    Delay::Custom(Arc::new(move |c: &SubmittedCommand| {
        table
            .iter()
            .find(|e| e.0 == c.sequence)
            .map_or(Some(0), |e| e.1)
    }))
}

/// `u` run with the default parameters.
fn run(u: &Up) -> SimResult {
    simulate(&u.bytes(), &Params::default())
}

/// `u` run with the parameters `f` sets, the others the defaults.
fn run_with(u: &Up, f: impl FnOnce(&mut Params)) -> SimResult {
    simulate(&u.bytes(), &with(f))
}

fn with(f: impl FnOnce(&mut Params)) -> Params {
    let mut p = Params::default();
    f(&mut p);
    p
}

#[test]
fn s11_halt_in_pass_0() {
    // SET r0,5; HALT r0: both run in pass 0's turn; one END event, aux 5.
    let u = up([], "set r0, 5; halt r0");
    let r = run(&u);
    assert_eq!(r.check, None);
    assert_eq!(r.status, Status::Ended);
    assert_eq!(r.events, vec![end(5, 0)]);
    assert_eq!(
        (r.passes, r.halt, r.error, r.stopped),
        (1, Some(5), None, false)
    );
    assert!(r.commands.is_empty());
}

#[test]
fn s11_registers_start_at_zero_and_r15_at_seed() {
    // HALT r3 gives 0; HALT r15 gives the seed.
    let u = up([], "halt r3");
    assert_eq!(run(&u).halt, Some(0));
    let mut u = Up::new();
    u.seed = 0xDEAD_BEEF;
    u.halt(R15);
    assert_eq!(run(&u).halt, Some(0xDEAD_BEEF));
}

#[test]
fn arithmetic_wraps_shr_masks_and_rand_is_xorshift() {
    // 0xFFFFFFFF + 2 = 1; 0 - 1 = 0xFFFFFFFF; 0x10000 * 0x10000 = 0 (low 32 bits);
    // 0x80000000 >> (33 & 31) = 0x40000000; AND; MOV.
    let cases = [
        ("set r0, 0xFFFF_FFFF; addi r1, r0, 2", 1),
        ("set r2, 1; sub r1, r0, r2", u32::MAX),
        ("set r0, 0x10000; mul r1, r0, r0", 0),
        ("set r0, 0x10001; set r2, 3; mul r1, r0, r2", 0x30003),
        ("set r0, 0x8000_0000; shr r1, r0, 33", 0x4000_0000),
        ("set r0, 0x8000_0000; shr r1, r0, 31", 1),
        ("set r0, 0xF0F0; set r2, 0x3C3C; and r1, r0, r2", 0x3030),
        ("set r0, 42; mov r1, r0", 42),
        ("set r0, 17; set r2, 5; modr r1, r0, r2", 2),
        ("set r0, 3; set r2, 4; add r1, r0, r2", 7),
        // RAND with seed 1: x = 1 ^ (1 << 13) = 8193; 8193 >> 17 = 0;
        // 8193 ^ (8193 << 5) = 8193 ^ 262176 = 270369.
        ("rand r1", 270_369),
    ];
    for (code, want) in cases {
        let u = up([], &format!("{code}; halt r1"));
        let halt = run(&u).halt;
        assert_eq!(halt, Some(want), "{code}");
    }
    // RAND updates r15 too: RAND r1 then HALT r15 gives the same 270369.
    let u = up([], "rand r1; halt r15");
    assert_eq!(run(&u).halt, Some(270_369));
}

#[test]
fn jumps() {
    // r0 counts to 3 with JLT; JEQ and JNZ skip the SET r1,99 when taken.
    // pc 0..10: 2 is back while r0 < 3; 3 and 5 are taken; 4, 6 and 8 skipped;
    // 9 is r1 = 0 + 3.
    let u = up(
        [],
        "set r2, 3; addi r0, r0, 1; jlt r0, r2, 1; jeq r0, r2, 5; set r1, 99; jnz r0, 7
         set r1, 99; jmp 9; set r1, 99; add r1, r1, r0; halt r1",
    );
    assert_eq!(run(&u).halt, Some(3));
    // JLT is unsigned: 0xFFFFFFFF < 1 is false.
    let u = up(
        [],
        "set r0, 0xFFFF_FFFF; set r1, 1; jlt r0, r1, 4; set r2, 5; halt r2",
    );
    assert_eq!(run(&u).halt, Some(5));
}

#[test]
fn rejected_upload_is_one_error_event_at_pass_0() {
    // P1: bad magic; `Reason::BadHeader` pc 0, the header's req 7, passes 1.
    let mut u = Up::new();
    u.magic = 0;
    u.halt(0);
    let r = run(&u);
    assert_eq!(r.check, se(Reason::BadHeader, 0));
    assert_eq!(r.error, se(Reason::BadHeader, 0));
    assert_eq!(r.status, Status::Error);
    assert_eq!(r.events, vec![error_ev(1, 0, 0)]);
    assert_eq!((r.passes, r.halt, r.stopped), (1, None, false));
    // Too short to read: req 0 (S3).
    let r = simulate(&[0; 10], &Params::default());
    assert_eq!(
        r.events,
        vec![Event {
            kind: 6,
            req: 0,
            auxiliary: 1,
            pass_index: 0
        }]
    );
    // `Reason::UnknownOpcode` at pc 1: aux 2 | 1 << 8.
    let mut u = Up::new();
    u.halt(0).op(77, 0, 0, 0, 0);
    let r = run(&u);
    assert_eq!(r.events, vec![error_ev(2, 1, 0)]);
    // The region_size parameter is the check's: a 128-byte upload in a 64-byte region.
    let u = up([], "halt r0");
    let r = run_with(&u, |p| p.region_size = 64);
    assert_eq!(r.check, se(Reason::BadHeader, 0));
}

#[test]
fn check_reasons_3_4_5_through_simulate() {
    let u = up([], "jmp 5; halt r0");
    assert_eq!(run(&u).events, vec![error_ev(3, 0, 0)]);
    let u = up([], "set r0, 0; halt r16");
    assert_eq!(run(&u).events, vec![error_ev(4, 1, 0)]);
    let u = up([], "set r0, 0; set r0, 0; submit t0; halt r0");
    assert_eq!(run(&u).events, vec![error_ev(5, 2, 0)]);
}

#[test]
fn s12_s19_submit_records_and_the_sweep() {
    // SUBMIT of template 0 (handler 9, group (3, 4), args [5, r1 -> arg 2, ...],
    // result flag), r1 = 11. Delay 2: acked in the sweep of pass 0 + 1 + 2 = 3;
    // WAIT 0 goes on in pass 3's turn, HALT ends there.
    let u = up(
        [Tpl::group(9, 3, 4)
            .flags(RESULT)
            .arg(0, 5)
            .arg(9, 6)
            .patch(2, 1)],
        "set r1, 11; submit t0; wait 0; halt r0",
    );
    let r = run_with(&u, |p| p.delay = Delay::Fixed(2));
    let c = r.commands[0];
    assert_eq!(r.commands.len(), 1);
    assert_eq!(
        c,
        SubmittedCommand {
            sequence: 0,
            slot: 0,
            handler: 9,
            first: 3,
            count: 4,
            flags: RESULT,
            args: [5, 0, 11, 0, 0, 0, 0, 0, 0, 6],
            pass_index: 0,
            pc: 1,
            queued: false,
        }
    );
    assert_eq!(r.events, vec![end(0, 3)]);
    assert_eq!(r.passes, 4);
}

#[test]
fn patches_later_wins_and_group_registers() {
    // Patches (0, r1) then (0, r2): arg 0 = r2 = 22. first from r3 = 10, count from r4 = 2.
    let u = up(
        [Tpl::group(4, 0, 0).patch(0, 1).patch(0, 2).regs(3, 4)],
        "set r1, 11; set r2, 22; set r3, 10; set r4, 2; submit t0; wait 0; halt r0",
    );
    let r = run(&u);
    assert_eq!(r.commands[0].args[0], 22);
    assert_eq!((r.commands[0].first, r.commands[0].count), (10, 2));
    assert_eq!(r.status, Status::Ended);
}

#[test]
fn rotation_stream_first_in_even_passes_queue_first_in_odd() {
    // core_count 2, turn_budget 1 (one micro-op per turn).
    // pc0 SUBMIT t0 (0,2)  pc1 ENQUEUE t1 count r15 = seed 1  pc2 SUBMIT t2 (0,1)
    // pc3 SUBMIT t2 (0,1)  pc4 WAIT 0  pc5 HALT r0. Delays: seq0 2, others 0.
    // pass 0 (even): stream: seq0 slot0 (0,2), acked in pass 3. queue: empty.
    // pass 1 (odd):  queue: empty; stream: ENQUEUE job A.
    // pass 2 (even): stream first: seq1 slot1 (0,1), acked in 3. queue: A (1 core)
    //                finds no room: [0,2) is busy.
    // pass 3 (odd):  sweep frees slots 0, 1. queue first: A -> seq2 slot0 first 0;
    //                then the stream: seq3 slot1 (0,1).
    // pass 4: sweep frees both; WAIT 0 goes on.  pass 5: HALT -> END.
    let u = up(
        [Tpl::group(3, 0, 2), Tpl::job(4), Tpl::group(5, 0, 1)],
        "submit t0; enqueue t1, r15; submit t2; submit t2; wait 0; halt r0",
    );
    let r = run_with(&u, |p| {
        p.core_count = 2;
        p.turn_budget = 1;
        p.delay = delays(&[(0, Some(2))]);
    });
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 0, false, 0, 2),
            (1, 1, 2, 2, false, 0, 1),
            (2, 0, 3, 1, true, 0, 1),
            (3, 1, 3, 3, false, 0, 1),
        ]
    );
    assert_eq!(r.commands[2].handler, 4);
    assert_eq!(r.events, vec![end(0, 5)]);
}

#[test]
fn sixteen_slots_then_submit_waits() {
    // r1 = 17; loop: SUBMIT (0,1); ADDI r0; JLT r0 < 17. Delay 5.
    // pass 0: SET + 16 * 3 = 49 micro-ops; the 17th SUBMIT finds all 16 slots busy
    // and waits (not counted). The 16 are acked in the sweep of pass 6; then
    // seq16 takes slot 0 in pass 6 and is acked in pass 12, where HALT ends.
    let u = up(
        [Tpl::group(3, 0, 1)],
        "set r1, 17; submit t0; addi r0, r0, 1; jlt r0, r1, 1; wait 0; halt r0",
    );
    let r = run_with(&u, |p| p.delay = Delay::Fixed(5));
    assert_eq!(r.commands.len(), 17);
    for (i, c) in r.commands.iter().take(16).enumerate() {
        assert_eq!((c.sequence, c.slot, c.pass_index), (i as u64, i as u8, 0));
    }
    assert_eq!(shape(&r)[16], (16, 0, 6, 1, false, 0, 1));
    assert_eq!(r.events, vec![end(17, 12)]);
}

#[test]
fn plain_submits_may_overlap() {
    // Two plain SUBMITs on the same group both go in pass 0, slots 0 and 1.
    let u = up(
        [Tpl::group(3, 0, 119)],
        "submit t0; submit t0; wait 0; halt r0",
    );
    let r = run(&u);
    assert_eq!(
        shape(&r),
        vec![(0, 0, 0, 0, false, 0, 119), (1, 1, 0, 1, false, 0, 119)]
    );
}

#[test]
fn queue_full_at_64() {
    // Jobs of 119 cores (the whole grid), delay 0, turn_budget 1000.
    // pc0 SET r1,119  pc1 SET r2,66  loop pc2 ENQUEUE; pc3 ADDI r0; pc4 EVENT r0;
    // pc5 JLT r0 < 66 -> pc2; pc6 HALT r3.
    // pass 0 (stream first): 2 + 64 * 4 micro-ops, 64 jobs, EVENTs 1..64; the
    // 65th ENQUEUE finds the queue full and waits. queue: job 0 takes the whole
    // grid; the others find no room.
    // pass 1 (odd): sweep frees job 0. queue first: job 1 (queue 62). stream:
    // jobs 65, 66 (EVENTs 65, 66), HALT waits.
    // Then one job per pass: job k in pass k; job 65 acked in pass 66, HALT there.
    let u = up(
        [Tpl::job(3).patch(0, 0)],
        "set r1, 119; set r2, 66; enqueue t0, r1; addi r0, r0, 1; event r0; jlt r0, r2, 2; halt r3",
    );
    let r = run_with(&u, |p| p.turn_budget = 1000);
    let mut want: Vec<Event> = (1..=64).map(|i| ev(kind::STREAM, i, 0)).collect();
    want.push(ev(kind::STREAM, 65, 1));
    want.push(ev(kind::STREAM, 66, 1));
    want.push(end(0, 66));
    assert_eq!(r.events, want);
    assert_eq!(r.commands.len(), 66);
    for (k, c) in r.commands.iter().enumerate() {
        assert_eq!(
            (c.pass_index, c.slot, c.first, c.count, c.queued),
            (k as u64, 0, 0, 119, true)
        );
        assert_eq!(
            c.args[0], k as u32,
            "jobs keep their ENQUEUE-time arguments"
        );
    }
}

#[test]
fn queue_window_is_16_jobs() {
    // pc3 plain SUBMIT (0,100), delay 3 (acked in pass 4); 16 jobs of 100 cores
    // (args[0] = their number 0..15, pc4), then one job of 1 core (args[0] = 16, pc7).
    // pass 0: 4 + 16 * 3 + 1 = 53 micro-ops, WAIT waits. The queue's window is jobs
    // 0..15; none fits (19 free cores); job 16 would fit at 100 but is not looked at.
    // pass 4 (even): sweep frees seq0; queue: job 0 -> seq1 slot0 first 0.
    // pass 5 (odd): seq1 acked; queue first, window jobs 1..16: job 1 -> seq2 slot0
    // first 0; jobs 2..15 no room; job 16 -> seq3 slot1 first 100.
    let mut u = Up::new();
    let t0 = u.template(Tpl::group(3, 0, 100));
    let t1 = u.template(Tpl::job(4).patch(0, 0));
    u.set(1, 100).set(2, 1).set(3, 16); // 0..2
    u.submit(t0); // 3
    u.enqueue(t1, 1).addi(0, 0, 1).jlt(0, 3, 4); // 4..6
    u.enqueue(t1, 2).wait(0).halt(4); // 7..9
    let r = run_with(&u, |p| p.delay = delays(&[(0, Some(3))]));
    let s = shape(&r);
    assert_eq!(s[0], (0, 0, 0, 3, false, 0, 100));
    assert_eq!(s[1], (1, 0, 4, 4, true, 0, 100));
    assert_eq!(s[2], (2, 0, 5, 4, true, 0, 100));
    assert_eq!(s[3], (3, 1, 5, 7, true, 100, 1));
    assert_eq!(
        (
            r.commands[1].args[0],
            r.commands[2].args[0],
            r.commands[3].args[0]
        ),
        (0, 1, 16)
    );
    assert_eq!(r.commands.len(), 18);
    assert_eq!(r.status, Status::Ended);
}

#[test]
fn allocator_takes_the_lowest_first() {
    // Plain (2,3) busy (delay 5); jobs of 2, 3 and 2 cores in pass 0:
    // job a: [0,2) is free -> 0. job b: 0 overlaps a, 2..4 overlap [2,5) -> 5.
    // job c: 0 overlaps, 2 overlaps, 5 overlaps b, 8 is free -> 8? Lowest first
    // with [f, f+2) free of [0,2),[2,5),[5,8): f = 8.
    let u = up(
        [Tpl::group(3, 2, 3), Tpl::job(4)],
        "set r1, 2; set r2, 3; submit t0
         enqueue t1, r1; enqueue t1, r2; enqueue t1, r1; wait 0; halt r0",
    );
    let r = run_with(&u, |p| p.delay = Delay::Fixed(5));
    let firsts: Vec<(u32, u32)> = r.commands.iter().map(|c| (c.first, c.count)).collect();
    assert_eq!(firsts, vec![(2, 3), (0, 2), (5, 3), (8, 2)]);
    // At the grid's end: core_count 10, busy (0,8): a job of 2 fits at 8, of 3 not.
    let u = up(
        [Tpl::group(3, 0, 8), Tpl::job(4)],
        "set r1, 2; submit t0; enqueue t1, r1; wait 0; halt r0",
    );
    let r = run_with(&u, |p| p.core_count = 10);
    assert_eq!((r.commands[1].first, r.commands[1].pass_index), (8, 0));
}

#[test]
fn a_job_overtaken_1024_times_blocks_those_behind_it() {
    // Plain (0,1) busy until pass 3001 (delay 3000). Big job of 119 cores
    // (handler 9) cannot fit while it is busy; small 1-core jobs (handler 3) fit
    // at 1.. and each one submitted overtakes the big job. S20: once its
    // overtaken count is >= 1024 when it is looked at (it is at the head, so in
    // every window first), the queue's turn ends there: no small job goes until
    // the big one fits, in pass 3001 when the plain command is acked.
    let mut u = Up::new();
    let plain = u.template(Tpl::group(5, 0, 1));
    let big = u.template(Tpl::job(9));
    let small = u.template(Tpl::job(3));
    u.set(1, 119).set(2, 1).set(3, 2000); // 0..2
    u.submit(plain).enqueue(big, 1); // 3, 4
    u.enqueue(small, 2).addi(0, 0, 1).jlt(0, 3, 5); // 5..7
    u.wait(0).halt(4); // 8, 9
    let r = run_with(&u, |p| p.delay = delays(&[(0, Some(3000))]));
    assert_eq!(r.status, Status::Ended);
    assert_eq!(r.commands.len(), 2002);
    let big_at = r.commands.iter().position(|c| c.handler == 9).unwrap();
    let big_cmd = r.commands[big_at];
    assert_eq!(
        (big_cmd.pass_index, big_cmd.first, big_cmd.count),
        (3001, 0, 119)
    );
    // Every small job before it overtook it once; their last submission pass is
    // the one in which the count reached 1024, so that pass's jobs brought it
    // from below 1024 to 1024 or more.
    let before = &r.commands[1..big_at];
    assert!(before.iter().all(|c| c.handler == 3));
    let n = before.len();
    let last_pass = before[n - 1].pass_index;
    let in_last = before.iter().filter(|c| c.pass_index == last_pass).count();
    assert!(
        n >= 1024 && n - in_last < 1024,
        "n = {n}, in last pass {in_last}"
    );
    assert!(last_pass < 1000, "the block starts long before pass 3001");
    // Nothing behind it was submitted in between.
    assert!(r.commands[big_at + 1..].iter().all(|c| c.pass_index > 3001));
}

#[test]
fn exclusive_queued_job_only_at_the_head() {
    // core_count 4. Plain (0,2) busy until pass 3 (delay 2). Job A (2 cores,
    // plain) cannot fit? It can: [2,4) is free -> first 2 in pass 0. So use
    // A of 3 cores (no room), then exclusive job X of 1 core behind it: X would
    // fit at 2 but is not at the head, so it waits; in pass 3 the plain is
    // acked: A -> first 0 (seq1); X is now at the head -> allocator: [0,3) busy,
    // 3 is free -> first 3 (seq2), both in pass 3.
    let u = up(
        [
            Tpl::group(3, 0, 2),
            Tpl::job(4),
            Tpl::job(5).flags(EXCLUSIVE),
        ],
        "set r1, 3; set r2, 1; submit t0; enqueue t1, r1; enqueue t2, r2; wait 0; halt r0",
    );
    let r = run_with(&u, |p| {
        p.core_count = 4;
        p.delay = delays(&[(0, Some(2))]);
    });
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 2, false, 0, 2),
            (1, 0, 3, 3, true, 0, 3),
            (2, 1, 3, 4, true, 3, 1)
        ]
    );
    assert_eq!(r.commands[2].flags, EXCLUSIVE);
}

#[test]
fn exclusive_submit_waits_for_jobs_queued_before_it() {
    // core_count 4. pc1 plain (0,1), delay 3 (acked pass 4). pc2 ENQUEUE A of 4
    // cores: no room while (0,1) is busy. pc3 exclusive SUBMIT (2,1): its group
    // overlaps nothing busy, but A was queued before it: it waits.
    // pass 4 (even): sweep frees seq0; stream first: A still queued -> wait;
    // queue: A -> seq1 slot0 first 0 (acked pass 5).
    // pass 5 (odd): A acked; queue empty; stream: exclusive goes: seq2 slot0 (2,1);
    // WAIT 0 waits. pass 6: acked; WAIT, HALT.
    let u = up(
        [
            Tpl::group(3, 0, 1),
            Tpl::job(4),
            Tpl::group(5, 2, 1).flags(EXCLUSIVE),
        ],
        "set r1, 4; submit t0; enqueue t1, r1; submit t2; wait 0; halt r0",
    );
    let r = run_with(&u, |p| {
        p.core_count = 4;
        p.delay = delays(&[(0, Some(3))]);
    });
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 1, false, 0, 1),
            (1, 0, 4, 2, true, 0, 4),
            (2, 0, 5, 3, false, 2, 1)
        ]
    );
    assert_eq!(r.events, vec![end(0, 6)]);
}

#[test]
fn exclusive_submit_waits_for_overlapping_busy_groups() {
    // pc0 plain (0,2) delay 2 (acked pass 3). pc1 exclusive (2,1): no overlap ->
    // seq1 slot1 in pass 0 (acked pass 1). pc2 exclusive (1,1): overlaps [0,2) ->
    // waits in passes 0, 1, 2. pass 3 (odd): sweep frees slot 0; queue first
    // (empty), then the stream: seq2 slot0 (1,1). WAIT 0; pass 4: HALT.
    let u = up(
        [
            Tpl::group(3, 0, 2),
            Tpl::group(4, 2, 1).flags(EXCLUSIVE),
            Tpl::group(5, 1, 1).flags(EXCLUSIVE),
        ],
        "submit t0; submit t1; submit t2; wait 0; halt r0",
    );
    let r = run_with(&u, |p| p.delay = delays(&[(0, Some(2))]));
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 0, false, 0, 2),
            (1, 1, 0, 1, false, 2, 1),
            (2, 0, 3, 2, false, 1, 1)
        ]
    );
    assert_eq!(r.events, vec![end(0, 4)]);
    // An exclusive SUBMIT does not stop a later plain one from overlapping it:
    // exclusive (0,2) then plain (0,2), both in pass 0.
    let u = up(
        [Tpl::group(3, 0, 2).flags(EXCLUSIVE), Tpl::group(3, 0, 2)],
        "submit t0; submit t1; wait 0; halt r0",
    );
    let r = run(&u);
    assert_eq!(
        r.commands.iter().map(|c| c.pass_index).collect::<Vec<_>>(),
        vec![0, 0]
    );
}

#[test]
fn results_swept_together_highest_slot_wins() {
    // Result model = sequence. pc0 SUBMIT t0 (no result) -> seq0 slot0, delay 0;
    // pc1 SUBMIT t1 (result) -> seq1 slot1, delay 2 (acked pass 3); pc2 WAIT 1 waits.
    // pass 1: seq0 acked; WAIT 1 goes on; pc3 SUBMIT t1 -> seq2 slot0, delay 1
    // (acked pass 3); pc4 WAIT 0 waits.
    // pass 3: the sweep frees slot 0 (seq2, result 2) then slot 1 (seq1, result 1):
    // the latest result is 1 (the highest slot), not 2 (the latest submitted).
    let u = up(
        [Tpl::group(3, 0, 1), Tpl::group(3, 0, 1).flags(RESULT)],
        "submit t0; submit t1; wait 1; submit t1; wait 0; result r1; event r1; halt r1",
    );
    let r = run_with(&u, |p| {
        p.result = ResultModel::Sequence;
        p.delay = delays(&[(1, Some(2)), (2, Some(1))]);
    });
    assert_eq!(shape(&r)[2], (2, 0, 1, 3, false, 0, 1));
    assert_eq!(r.events, vec![ev(kind::STREAM, 1, 3), end(1, 3)]);
    assert_eq!(r.halt, Some(1));
}

#[test]
fn result_is_zero_before_any_and_the_model_is_used() {
    // RESULT before any completed result=True command gives 0.
    let u = up([], "set r1, 5; result r1; halt r1");
    assert_eq!(run(&u).halt, Some(0));
    // arg(3) with args[3] = r2 = 1234; a command without the result flag leaves it.
    let u = up(
        [
            Tpl::group(3, 0, 1).flags(RESULT).patch(3, 2),
            Tpl::group(3, 0, 1).arg(3, 99),
        ],
        "set r2, 1234; submit t0; submit t1; wait 0; result r1; halt r1",
    );
    let r = run_with(&u, |p| p.result = ResultModel::Arg(3));
    assert_eq!(r.halt, Some(1234));
    // table([10, 20, 30]): seq 4 -> entry 1 = 20.
    let u = up(
        [Tpl::group(3, 0, 1), Tpl::group(3, 0, 1).flags(RESULT)],
        "submit t0; submit t0; submit t0; submit t0; submit t1; wait 0; result r1; halt r1",
    );
    let r = run_with(&u, |p| p.result = ResultModel::Table(vec![10, 20, 30]));
    assert_eq!(r.halt, Some(20));
}

#[test]
fn delay_models_cycle_and_table() {
    // cycle(1, 3): delays 1, 2, 3, 1 for seq 0..3, submitted in pass 0:
    // acked in passes 2, 3, 4, 2. The stream waits with WAIT 0 and EVENTs each
    // time the pending count drops (WAIT k chain): WAIT 3 -> pass 2 (two acked,
    // pending 2); WAIT 1 -> pass 3; WAIT 0 -> pass 4.
    let u = up(
        [Tpl::group(3, 0, 1)],
        "submit t0; submit t0; submit t0; submit t0
         wait 2; event r0; wait 1; event r0; wait 0; halt r0",
    );
    let r = run_with(&u, |p| p.delay = Delay::Cycle { base: 1, modulo: 3 });
    assert_eq!(
        r.events,
        vec![ev(kind::STREAM, 0, 2), ev(kind::STREAM, 0, 3), end(0, 4)]
    );
    // table([0, None]): seq 1 is never acked: WAIT 0 never goes on -> stuck.
    let u = up(
        [Tpl::group(3, 0, 1)],
        "submit t0; submit t0; wait 1; event r0; wait 0; halt r0",
    );
    let r = run_with(&u, |p| {
        p.delay = Delay::Table(vec![Some(0), None]);
        p.max_passes = 50;
    });
    // pass 1: seq0 acked, pending 1: WAIT 1 goes on, EVENT; then WAIT 0 forever.
    assert_eq!(r.events, vec![ev(kind::STREAM, 0, 1)]);
    assert_eq!((r.status, r.passes), (Status::Stuck, 2));
}

#[test]
fn s13_deadline_from_the_header() {
    // Header deadline 3 passes (3 µs). Delay 2: acked in pass 3's sweep before
    // the deadline test of pass 3: not late, ends in pass 3.
    let mut u = Up::new();
    u.deadline_us = 3;
    let t = u.template(Tpl::group(3, 0, 1));
    u.set(0, 0).submit(t).wait(0).halt(0);
    let r = run_with(&u, |p| p.delay = Delay::Fixed(2));
    assert_eq!(r.events, vec![end(0, 3)]);
    // Delay 3 (acked in pass 4): still busy after pass 3's sweep -> `Reason::Deadline` at
    // pc 1 (the SUBMIT), in pass 3, stopped.
    let r = run_with(&u, |p| p.delay = Delay::Fixed(3));
    assert_eq!(r.events, vec![error_ev(8, 1, 3)]);
    assert_eq!(
        (r.status, r.error, r.stopped, r.passes),
        (Status::Error, se(Reason::Deadline, 1), true, 4)
    );
    // deadline_passes 2 replaces the header's 3: delay 2 is now late, in pass 2.
    let r = run_with(&u, |p| {
        p.delay = Delay::Fixed(2);
        p.deadline_passes = Some(2);
    });
    assert_eq!(r.events, vec![error_ev(8, 1, 2)]);
    // Never acked: late in pass 3.
    let r = run_with(&u, |p| p.delay = Delay::Never);
    assert_eq!(r.events, vec![error_ev(8, 1, 3)]);
}

#[test]
fn s13_default_deadline_for_a_header_of_0() {
    let u = up([Tpl::group(3, 0, 1)], "submit t0; wait 0; halt r0");
    // default_deadline_passes 4: delay 3 acked in pass 4 -> fine; delay 4 -> late in pass 4.
    let p = |d| {
        with(|p| {
            p.default_deadline_passes = 4;
            p.delay = Delay::Fixed(d);
        })
    };
    assert_eq!(simulate(&u.bytes(), &p(3)).events, vec![end(0, 4)]);
    assert_eq!(simulate(&u.bytes(), &p(4)).events, vec![error_ev(8, 0, 4)]);
    // The default default is 1,000,000 (max_passes raised past it, S16): delay
    // 999,999 is acked in pass 1,000,000 in time; delay 1,000,000 is late there.
    let p = |d| {
        with(|p| {
            p.delay = Delay::Fixed(d);
            p.max_passes = 2_000_000;
        })
    };
    assert_eq!(
        simulate(&u.bytes(), &p(999_999)).events,
        vec![end(0, 1_000_000)]
    );
    assert_eq!(
        simulate(&u.bytes(), &p(1_000_000)).events,
        vec![error_ev(8, 0, 1_000_000)]
    );
    // With the default max_passes 1,000,000 the run stops before pass 1,000,000: stuck.
    let r = run_with(&u, |p| p.delay = Delay::Fixed(999_999));
    assert_eq!((r.status, r.passes), (Status::Stuck, 0));
}

#[test]
fn s14_several_late_lowest_slot_wins() {
    // pc0 JMP 3; pc1 SUBMIT; pc2 JMP 5; pc3 SUBMIT; pc4 JMP 1; pc5 WAIT 0; pc6 HALT.
    // pc3's SUBMIT takes slot 0, pc1's slot 1, both in pass 0, never acked;
    // deadline 2: both late in pass 2; the lowest slot's is pc 3 (not the lowest pc).
    let u = up(
        [Tpl::group(3, 0, 1)],
        "jmp 3; submit t0; jmp 5; submit t0; jmp 1; wait 0; halt r0",
    );
    let r = run_with(&u, |p| {
        p.delay = Delay::Never;
        p.deadline_passes = Some(2);
    });
    assert_eq!(
        shape(&r),
        vec![(0, 0, 0, 3, false, 0, 1), (1, 1, 0, 1, false, 0, 1)]
    );
    assert_eq!(r.events, vec![error_ev(8, 3, 2)]);
    assert!(r.stopped);
}

#[test]
fn s14_late_after_an_error_is_a_timeout() {
    // pc0, pc1 SUBMIT (seq0 slot0 delay 0, seq1 slot1 never); pc2 MOD r0 = r0 % r1
    // with r1 = 0: `Reason::ModByZero` at pc 2 in pass 0. The stream has ended; seq1 stays
    // in flight and is late in pass 5 (deadline 5): one TIMEOUT with aux 1 (the
    // slot) and the stream's req, stopped.
    let u = up(
        [Tpl::group(3, 0, 1)],
        "submit t0; submit t0; modr r0, r0, r1; halt r0",
    );
    let r = run_with(&u, |p| {
        p.delay = delays(&[(1, None)]);
        p.deadline_passes = Some(5);
    });
    assert_eq!(r.events, vec![error_ev(7, 2, 0), ev(kind::TIMEOUT, 1, 5)]);
    assert_eq!(
        (r.status, r.error, r.stopped, r.passes),
        (Status::Error, se(Reason::ModByZero, 2), true, 6)
    );
    // All acked in time after the error: no TIMEOUT; the run ends silently.
    let r = run_with(&u, |p| p.delay = Delay::Fixed(3));
    assert_eq!(r.events, vec![error_ev(7, 2, 0)]);
    assert_eq!((r.status, r.stopped, r.passes), (Status::Error, false, 1));
}

#[test]
fn s15_cancel() {
    // pc0 SUBMIT (delay 5); pc1 WAIT 0. Cancel in pass 2: `Reason::Cancelled` at pc 1 (the
    // WAIT it is waiting at). The command stays in flight (acked in pass 6), silently.
    let u = up([Tpl::group(3, 0, 1)], "submit t0; wait 0; halt r0");
    let r = run_with(&u, |p| {
        p.delay = Delay::Fixed(5);
        p.cancel_pass = Some(2);
    });
    assert_eq!(r.events, vec![error_ev(10, 1, 2)]);
    assert_eq!(
        (r.status, r.error, r.passes),
        (Status::Error, se(Reason::Cancelled, 1), 3)
    );
    // cancel_pass 0: the RUN is taken and cancelled right after: pc 0, nothing ran.
    let r = run_with(&u, |p| p.cancel_pass = Some(0));
    assert_eq!(r.events, vec![error_ev(10, 0, 0)]);
    assert!(r.commands.is_empty());
    // With delay 0, the command is acked in pass 1's sweep, but the cancel of
    // pass 1 comes in the host-command phase, before the turn: still active, pc 1.
    let r = run_with(&u, |p| p.cancel_pass = Some(1));
    assert_eq!(r.events, vec![error_ev(10, 1, 1)]);
    // A cancel after HALT ended the stream does nothing (the run ended in pass 0).
    let mut h = Up::new();
    h.set(0, 4).halt(0);
    let r = run_with(&h, |p| p.cancel_pass = Some(1));
    assert_eq!(r.events, vec![end(4, 0)]);
    // A cancel after an error does nothing either: MOD by zero in pass 0 with a
    // command in flight until pass 4; cancel in pass 2.
    let u = up([Tpl::group(3, 0, 1)], "submit t0; modr r0, r0, r0; halt r0");
    let r = run_with(&u, |p| {
        p.delay = Delay::Fixed(3);
        p.cancel_pass = Some(2);
    });
    assert_eq!(r.events, vec![error_ev(7, 1, 0)]);
}

#[test]
fn s16_stuck() {
    // WAIT 0 on a command never acked, deadline far away: stuck after max_passes 10.
    let u = up([Tpl::group(3, 0, 1)], "submit t0; wait 0; halt r0");
    let r = run_with(&u, |p| {
        p.delay = Delay::Never;
        p.max_passes = 10;
    });
    assert_eq!(
        (r.status, r.passes, r.error, r.halt),
        (Status::Stuck, 0, None, None)
    );
    assert!(r.events.is_empty());
    // An endless loop: with max_steps 100,000 and 64 per pass, 10 passes are not enough.
    let u = up([], "jmp 0");
    let r = run_with(&u, |p| p.max_passes = 10);
    assert_eq!(r.status, Status::Stuck);
    // An error with a command never acked before max_passes keeps status "error".
    let u = up([Tpl::group(3, 0, 1)], "submit t0; modr r0, r0, r0; halt r0");
    let r = run_with(&u, |p| {
        p.delay = Delay::Never;
        p.max_passes = 10;
    });
    assert_eq!((r.status, r.passes, r.stopped), (Status::Error, 1, false));
    // The endless loop runs into the step limit: max_steps 640 = 10 passes of 64;
    // in pass 10's turn the 641st micro-op is refused: `Reason::StepLimit` at pc 0.
    let mut u = Up::new();
    u.max_steps = 640;
    u.jmp(0);
    let r = run(&u);
    assert_eq!(r.events, vec![error_ev(6, 0, 10)]);
}

#[test]
fn s17_step_limit_at_exactly_max_steps() {
    // max_steps 3: SET, SET, SET complete; before HALT (the 4th) the limit: pc 3.
    let mut u = Up::new();
    u.max_steps = 3;
    u.set(0, 1).set(0, 2).set(0, 3).halt(0);
    assert_eq!(run(&u).events, vec![error_ev(6, 3, 0)]);
    // max_steps 4: HALT is the 4th micro-op and runs.
    u.max_steps = 4;
    assert_eq!(run(&u).events, vec![end(3, 0)]);
    // turn_budget 3, max_steps 3: the budget ends pass 0's turn first; the limit
    // test belongs to the next micro-op, in pass 1.
    u.max_steps = 3;
    let r = run_with(&u, |p| p.turn_budget = 3);
    assert_eq!(r.events, vec![error_ev(6, 3, 1)]);
    // A waiting micro-op does not count: max_steps 2: SUBMIT (1), WAIT 0 waits in
    // pass 0 (not counted), goes on in pass 1 (2), HALT is refused: pc 2, pass 1.
    let mut u = Up::new();
    u.max_steps = 2;
    let t = u.template(Tpl::group(3, 0, 1));
    u.submit(t).wait(0).halt(0);
    assert_eq!(run(&u).events, vec![error_ev(6, 2, 1)]);
}

#[test]
fn s17_running_off_the_end() {
    // Five SETs without HALT: pc reaches op_count 5 in pass 0: `Reason::BadJump` at pc 5.
    let mut u = Up::new();
    for _ in 0..5 {
        u.set(0, 0);
    }
    assert_eq!(run(&u).events, vec![error_ev(3, 5, 0)]);
    // Exactly 64 micro-ops: pass 0's budget is used up first, the error comes in pass 1.
    let mut u = Up::new();
    for _ in 0..64 {
        u.set(0, 0);
    }
    let r = run(&u);
    assert_eq!(r.events, vec![error_ev(3, 64, 1)]);
    assert_eq!(r.passes, 2);
    // 63: the 64th test fits the budget of pass 0.
    u.ops.pop();
    assert_eq!(run(&u).events, vec![error_ev(3, 63, 0)]);
}

#[test]
fn s17_turn_budget_64() {
    // An EVENT loop: 1 SET, then (EVENT, ADDI, JMP)... Each pass 64 micro-ops;
    // pass 0: SET + 21 full loops (63) = 64: EVENTs r0 = 0..20 in pass 0; pass 1
    // starts at EVENT with r0 = 21.
    let u = up([], "set r0, 0; event r0; addi r0, r0, 1; jmp 1");
    let r = run_with(&u, |p| p.max_passes = 2);
    let pass0: Vec<u32> = r
        .events
        .iter()
        .filter(|e| e.pass_index == 0)
        .map(|e| e.auxiliary)
        .collect();
    assert_eq!(pass0, (0..21).collect::<Vec<_>>());
    assert_eq!(r.events[21], ev(kind::STREAM, 21, 1));
    // In pass 1 all 64 go to loops: 21 more EVENTs + EVENT, ADDI -> 22 events (21..42).
    assert_eq!(r.events.len(), 21 + 22);
}

#[test]
fn s18_time_with_ticks_per_pass() {
    // TIME r0 in pass 0 = 0; after a command acked in pass 3, TIME r1 = 3 * 7 = 21.
    let u = up(
        [Tpl::group(3, 0, 1)],
        "time r0; event r0; submit t0; wait 0; time r1; event r1; halt r1",
    );
    let r = run_with(&u, |p| {
        p.delay = Delay::Fixed(2);
        p.ticks_per_pass = 7;
    });
    assert_eq!(
        r.events,
        vec![ev(kind::STREAM, 0, 0), ev(kind::STREAM, 21, 3), end(21, 3)]
    );
    // ticks_per_pass 0x80000000: 3 * 2^31 = 0x1_8000_0000, low 32 bits 0x80000000;
    // the END event's aux is its low 24 bits (0) and halt is the full register.
    let r = run_with(&u, |p| {
        p.delay = Delay::Fixed(2);
        p.ticks_per_pass = 0x8000_0000;
    });
    assert_eq!(r.halt, Some(0x8000_0000));
    assert_eq!(r.events[2], end(0, 3));
    // The default is 1,000 ticks per pass.
    let r = run_with(&u, |p| p.delay = Delay::Fixed(2));
    assert_eq!(r.halt, Some(3000));
}

#[test]
fn s18_event_aux_is_24_bits() {
    let u = up([], "set r0, 0x1234_5678; event r0; halt r0");
    let r = run(&u);
    assert_eq!(
        r.events,
        vec![ev(kind::STREAM, 0x34_5678, 0), end(0x34_5678, 0)]
    );
    assert_eq!(r.halt, Some(0x1234_5678));
}

#[test]
fn s18_wait_and_halt_count_jobs_too() {
    // A job of 119 cores behind a plain (0,1) busy until pass 3: WAIT 1 sees
    // pending 2 (the command and the job) until pass 3; then the job goes (pass 3)
    // and is acked in 4: WAIT 0 / HALT in pass 4.
    let u = up(
        [Tpl::group(3, 0, 1), Tpl::job(4)],
        "set r1, 119; submit t0; enqueue t1, r1; wait 1; event r1; halt r0",
    );
    let r = run_with(&u, |p| p.delay = delays(&[(0, Some(2))]));
    // pass 3 (odd): sweep frees seq0 -> pending 1 (the job), queue first: job goes
    // (pending still 1), stream: WAIT 1 goes on, EVENT, HALT waits. pass 4: HALT.
    assert_eq!(r.events, vec![ev(kind::STREAM, 119, 3), end(0, 4)]);
    assert_eq!(shape(&r)[1], (1, 0, 3, 2, true, 0, 119));
}

#[test]
fn reason_9_bad_enqueue_count() {
    // count 0, and count 120 > core_count 119; 119 itself is fine.
    for (count, want) in [(0u32, Some(9u32)), (120, Some(9)), (119, None)] {
        let mut u = Up::new();
        let t = u.template(Tpl::job(3));
        u.set(1, count).enqueue(t, 1).wait(0).halt(0);
        let r = run(&u);
        match want {
            Some(reason) => assert_eq!(r.events, vec![error_ev(reason, 1, 0)], "count {count}"),
            None => assert_eq!(r.status, Status::Ended),
        }
    }
    // core_count 8: count 9 fails.
    let u = up([Tpl::job(3)], "set r1, 9; enqueue t0, r1; halt r0");
    let r = run_with(&u, |p| p.core_count = 8);
    assert_eq!(r.error, se(Reason::BadEnqueue, 1));
}

#[test]
fn reason_11_group_outside_the_grid() {
    // count == 0 || first > core_count || count > core_count - first.
    for (first, count, bad) in [
        (0u32, 0u32, true),
        (0, 119, false),
        (0, 120, true),
        (118, 1, false),
        (119, 1, true),
        (120, 0, true),
        (u32::MAX, 2, true), // no sum is formed: it cannot wrap into range
        (1, u32::MAX, true),
    ] {
        let mut u = Up::new();
        let t = u.template(Tpl::group(3, 0, 0).regs(1, 2));
        u.set(1, first).set(2, count).submit(t).wait(0).halt(0);
        let r = run(&u);
        if bad {
            assert_eq!(r.events, vec![error_ev(11, 2, 0)], "({first}, {count})");
            assert!(r.commands.is_empty());
        } else {
            assert_eq!(r.status, Status::Ended, "({first}, {count})");
        }
    }
}

#[test]
fn reason_11_comes_before_waiting_for_a_slot() {
    // 16 commands busy (delay 5), then a SUBMIT with count 0: error in pass 0,
    // not a wait; the 16 stay in flight silently (acked in pass 6).
    let mut u = Up::new();
    let good = u.template(Tpl::group(3, 0, 1));
    let bad = u.template(Tpl::group(3, 0, 0));
    for _ in 0..16 {
        u.submit(good);
    }
    u.submit(bad).halt(0);
    let r = run_with(&u, |p| p.delay = Delay::Fixed(5));
    assert_eq!(r.events, vec![error_ev(11, 16, 0)]);
    assert_eq!(r.commands.len(), 16);
}

#[test]
fn s21_errors_drop_the_queued_jobs() {
    // Plain (0,1) busy until pass 3; a job of 119 cores waits; MOD by zero in pass 0.
    // The job is dropped (never submitted); the plain command is acked in pass 3.
    let u = up(
        [Tpl::group(3, 0, 1), Tpl::job(4)],
        "set r1, 119; submit t0; enqueue t1, r1; modr r0, r0, r2; halt r0",
    );
    let r = run_with(&u, |p| p.delay = Delay::Fixed(2));
    assert_eq!(r.commands.len(), 1);
    assert_eq!(r.events, vec![error_ev(7, 3, 0)]);
}

#[test]
fn s19_sequence_counts_every_source() {
    // A SUBMIT then a job in pass 0: the stream goes first (even pass): seq0 the
    // SUBMIT, seq1 the job (queued true, pc of the ENQUEUE, flags without the queue bit).
    let u = up(
        [Tpl::group(3, 0, 1), Tpl::job(4).flags(RESULT)],
        "set r1, 1; enqueue t1, r1; submit t0; wait 0; halt r0",
    );
    let r = run(&u);
    assert_eq!(
        shape(&r),
        vec![(0, 0, 0, 2, false, 0, 1), (1, 1, 0, 1, true, 1, 1)]
    );
    assert_eq!(r.commands[1].flags, RESULT);
}

#[test]
fn out_of_range_params_do_not_panic() {
    // P3: every one of these runs without a panic.
    let u = up(
        [Tpl::group(3, 0, 1).flags(RESULT), Tpl::job(3)],
        "set r1, 1; submit t0; enqueue t1, r1; wait 0; result r2; halt r2",
    );
    let b = u.bytes();
    let cases: Vec<Params> = vec![
        with(|p| p.delay = Delay::Cycle { base: 0, modulo: 0 }),
        with(|p| p.delay = Delay::Table(vec![])),
        with(|p| {
            p.delay = Delay::Cycle {
                base: u32::MAX,
                modulo: u32::MAX,
            }
        }),
        with(|p| p.delay = Delay::Fixed(u32::MAX)),
        with(|p| p.result = ResultModel::Table(vec![])),
        with(|p| p.result = ResultModel::Arg(200)),
        with(|p| p.turn_budget = 0),
        with(|p| p.max_passes = 0),
        with(|p| p.deadline_passes = Some(0)),
        with(|p| p.default_deadline_passes = 0),
        with(|p| p.core_count = 0),
        with(|p| p.core_count = u32::MAX),
        with(|p| p.cancel_pass = Some(u64::MAX)),
        with(|p| p.ticks_per_pass = u32::MAX),
    ];
    for p in &cases {
        // Short runs: a never-acked command would otherwise run 1,000,000 idle passes.
        let p = &Params {
            max_passes: p.max_passes.min(1000),
            ..p.clone()
        };
        let r = simulate(&b, p);
        assert!(r.passes <= p.max_passes.max(1));
    }
    // turn_budget 0 runs nothing: stuck.
    let r = simulate(
        &b,
        &with(|p| {
            p.turn_budget = 0;
            p.max_passes = 5;
        }),
    );
    assert_eq!(r.status, Status::Stuck);
    // max_passes 0 runs no pass.
    let r = simulate(&b, &with(|p| p.max_passes = 0));
    assert_eq!((r.status, r.passes, r.check), (Status::Stuck, 0, None));
}

/// The xorshift of docs/spec.md, for the expected values.
fn xorshift(x: &mut u32) -> u32 {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    *x
}

#[test]
fn the_spec_1000_job_example() {
    // The builder example of docs/spec.md, laid out by S7/S8: job = r0, count = r1
    // (registers(2)), then constants in first-asked order: const(119) -> r2,
    // const(1000) -> r3, const(0) -> r4, emitted as a SET prologue (pc 0..2);
    // `top` is pc 3. addi takes an imm, 77 is an integer argument.
    let mut u = Up::new();
    u.deadline_us = 200_000;
    u.max_steps = 100_000;
    u.seed = 1;
    u.req = 1;
    let t = u.template(Tpl::job(3).arg(1, 77).patch(0, 0));
    u.set(2, 119).set(3, 1000).set(4, 0); // 0..2
    u.rand(1) // 3: top
        .modr(1, 1, 2) // 4
        .addi(1, 1, 1) // 5
        .enqueue(t, 1) // 6
        .addi(0, 0, 1) // 7
        .jlt(0, 3, 3) // 8
        .wait(0) // 9
        .halt(4); // 10
    let start = std::time::Instant::now();
    let r = run(&u);
    let elapsed = start.elapsed();
    assert_eq!(r.status, Status::Ended);
    assert_eq!(r.halt, Some(0));
    assert_eq!(r.events.len(), 1);
    assert_eq!((r.events[0].kind, r.events[0].req), (kind::STREAM_END, 1));
    assert_eq!(r.commands.len(), 1000);
    // Job j's count is 1 + (the (j+1)th xorshift output from seed 1) % 119.
    let mut x = 1u32;
    let want: Vec<u32> = (0..1000).map(|_| 1 + xorshift(&mut x) % 119).collect();
    let mut seen = [false; 1000];
    for c in &r.commands {
        let j = c.args[0] as usize;
        assert!(!seen[j], "job {j} submitted twice");
        seen[j] = true;
        assert_eq!(c.count, want[j], "job {j}");
        assert!((1..=119).contains(&c.count));
        assert_eq!(
            (c.handler, c.args[1], c.pc, c.queued, c.flags),
            (3, 77, 6, true, 0)
        );
        assert!(c.first + c.count <= 119);
    }
    // With delay 0 a command is busy only in its own pass: the groups submitted in
    // one pass never overlap and at most 16 go per pass.
    for p in 0..r.passes {
        let in_pass: Vec<_> = r.commands.iter().filter(|c| c.pass_index == p).collect();
        assert!(in_pass.len() <= 16);
        for (i, a) in in_pass.iter().enumerate() {
            for b in &in_pass[i + 1..] {
                assert!(a.first + a.count <= b.first || b.first + b.count <= a.first);
            }
        }
    }
    // Sequence numbers run 0..1000 in order.
    assert!(
        r.commands
            .iter()
            .enumerate()
            .all(|(i, c)| c.sequence == i as u64)
    );
    if !cfg!(debug_assertions) {
        assert!(elapsed.as_millis() < 500, "took {elapsed:?}");
    }
}
