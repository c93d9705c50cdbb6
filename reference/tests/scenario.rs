//! Kernel scenarios (S26..S36), one or more per ruling. Every expected value
//! is worked out by hand from the rulings in the comment beside it. Uploads
//! are written with tests/common; "A", "B", ... are the streams in start
//! order, each with its own req (and seed, where EVENT r15 shows who ran).

mod common;

use std::sync::Arc;

use common::answers::{ev, four_started_fifth_rejected, rejected, run, se, started, taken};
use common::{EXCLUSIVE, R15, RESULT, Tpl, Up};
use kmst_reference::result::kind;
use kmst_reference::{
    Delay, Event, HostCommand, HostOutcome, Params, Reason, ResultModel, Scenario, ScenarioResult,
    Status, StreamError, SubmittedCommand, simulate, simulate_scenario,
};

/// KM_EVENT_STREAM.
fn st(req: u32, aux: u32, pass: u64) -> Event {
    ev(kind::STREAM, req, aux, pass)
}
fn end(req: u32, aux: u32, pass: u64) -> Event {
    ev(kind::STREAM_END, req, aux, pass)
}
fn err(req: u32, reason: u32, pc: u32, pass: u64) -> Event {
    ev(kind::STREAM_ERROR, req, reason | pc << 8, pass)
}
fn timeout(req: u32, slot: u32, pass: u64) -> Event {
    ev(kind::TIMEOUT, req, slot, pass)
}

const WAITING: HostOutcome = HostOutcome::WAITING;

fn submit(handler: u32, first: u32, count: u32) -> HostCommand {
    HostCommand::Submit {
        handler,
        first,
        count,
        args: [0; 10],
        exclusive: false,
        result: false,
    }
}
fn enqueue(handler: u32, count: u32) -> HostCommand {
    HostCommand::Enqueue {
        handler,
        count,
        args: [0; 10],
        exclusive: false,
        result: false,
    }
}

/// An upload with this req and seed (max_steps 100,000, deadline 0).
fn prog(req: u32, seed: u32, build: impl FnOnce(&mut Up)) -> Vec<u8> {
    let mut u = Up::new();
    u.req = req;
    u.seed = seed;
    build(&mut u);
    u.bytes()
}

/// Places every upload at 1024 * i and RUNs each in pass 0 in that order.
fn all_in_pass_0(params: Params, uploads: &[Vec<u8>]) -> Scenario {
    let mut s = Scenario::new(params).unwrap();
    for (i, u) in uploads.iter().enumerate() {
        s.place(1024 * i as u64, u.clone()).unwrap();
    }
    for (i, u) in uploads.iter().enumerate() {
        s.push(0, run(1024 * i as u32, u.len() as u32)).unwrap();
    }
    s
}

fn with(f: impl FnOnce(&mut Params)) -> Params {
    let mut p = Params::default();
    f(&mut p);
    p
}

/// A delay given per sequence number; `other` for the rest.
fn delays(table: &'static [(u64, Option<u32>)], other: Option<u32>) -> Delay {
    Delay::Custom(Arc::new(move |c: &SubmittedCommand| {
        table
            .iter()
            .find(|e| e.0 == c.sequence)
            .map_or(other, |e| e.1)
    }))
}

/// (status, error, halt) of every stream.
fn ends(r: &ScenarioResult) -> Vec<(Status, Option<StreamError>, Option<u32>)> {
    r.streams
        .iter()
        .map(|s| (s.status, s.error, s.halt))
        .collect()
}

/// (sequence, slot, pass_index, pc, queued, first, count, stream) of every command.
type Shape = (u64, u8, u64, u32, bool, u32, u32, Option<usize>);
fn shape(r: &ScenarioResult) -> Vec<Shape> {
    r.commands
        .iter()
        .map(|c| {
            let k = c.command;
            (
                k.sequence,
                k.slot,
                k.pass_index,
                k.pc,
                k.queued,
                k.first,
                k.count,
                c.stream,
            )
        })
        .collect()
}

/// EVENT r15 `n` times, then HALT r0 (halt 0).
fn events_then_halt(req: u32, seed: u32, n: usize) -> Vec<u8> {
    prog(req, seed, |u| {
        for _ in 0..n {
            u.event(R15);
        }
        u.halt(0);
    })
}

/// Streams A, B, ...: `count` of them, the k-th (from 1) with req k and seed
/// 0xA + k - 1, each posting `n` events before it halts.
fn lettered(count: u32, n: usize) -> Vec<Vec<u8>> {
    (1..=count)
        .map(|k| events_then_halt(k, 0x9 + k, n))
        .collect()
}

/// SET r0, 1; JNZ r0, 1: spins at pc 1 until max_steps.
fn spin(req: u32) -> Vec<u8> {
    prog(req, 1, |u| {
        u.set(0, 1).jnz(0, 1);
    })
}

fn budget_1() -> Params {
    with(|p| p.turn_budget = 1)
}

/// Delay never: no command is ever acknowledged, so each is late
/// `deadline_passes` passes after its own (S13).
fn never_acknowledged(deadline_passes: u64) -> Params {
    with(|p| {
        p.delay = Delay::Never;
        p.deadline_passes = Some(deadline_passes);
    })
}

/// SUBMIT (slot 0, pass 0); SET r1, 0; MOD r0, r0, r1: fails with
/// `Reason::ModByZero` at pc 2 in pass 0, its command still in flight.
fn submit_then_mod_by_zero(req: u32) -> Vec<u8> {
    prog(req, 1, |u| {
        let t = u.template(Tpl::group(1, 0, 1));
        u.submit(t).set(1, 0).modr(0, 0, 1);
    })
}

/// The EVENT r15 of `lettered` streams, pass by pass: in pass p one by
/// each stream of `passes[p]` (by k), in that order.
fn posted(passes: &[&[u32]]) -> Vec<Event> {
    let mut out = Vec::new();
    for (p, ks) in passes.iter().enumerate() {
        out.extend(ks.iter().map(|&k| st(k, 0x9 + k, p as u64)));
    }
    out
}

#[test]
fn s29_rotation_with_two_streams() {
    // Budget 1: one micro-op per turn. n = 2, submitters A, B, queue; pass p
    // starts at p % 3: pass 0 A B (Q); pass 1 B (Q) A; pass 2 (Q) A B;
    // pass 3 A B: both HALT (aux 0).
    let s = all_in_pass_0(budget_1(), &lettered(2, 3));
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        [
            posted(&[&[1, 2], &[2, 1], &[1, 2]]),
            vec![end(1, 0, 3), end(2, 0, 3)],
        ]
        .concat()
    );
    assert_eq!((r.passes, r.stopped), (4, false));
    assert_eq!(r.host, vec![started(0, 0), started(0, 1)]);
    let s0 = r.streams[0];
    assert_eq!((s0.req, s0.offset, s0.length, s0.pass), (1, 0, 128, 0));
    let s1 = r.streams[1];
    assert_eq!((s1.req, s1.offset, s1.length, s1.pass), (2, 1024, 128, 0));
    assert_eq!(ends(&r), vec![(Status::Ended, None, Some(0)); 2]);
}

#[test]
fn s29_rotation_with_three_streams() {
    // n = 3, start p % 4: pass 0 A B C; pass 1 B C (Q) A; pass 2 C (Q) A B;
    // pass 3 (Q) A B C; pass 4 A B C halt.
    let s = all_in_pass_0(budget_1(), &lettered(3, 4));
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        [
            posted(&[&[1, 2, 3], &[2, 3, 1], &[3, 1, 2], &[1, 2, 3]]),
            vec![end(1, 0, 4), end(2, 0, 4), end(3, 0, 4)],
        ]
        .concat()
    );
    assert_eq!(r.passes, 5);
}

#[test]
fn s29_rotation_with_four_streams() {
    // n = 4, start p % 5: pass 0 A B C D; pass 1 B C D (Q) A; pass 2 C D (Q)
    // A B, each HALTing (two EVENTs done).
    let s = all_in_pass_0(budget_1(), &lettered(4, 2));
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        [
            posted(&[&[1, 2, 3, 4], &[2, 3, 4, 1]]),
            vec![end(3, 0, 2), end(4, 0, 2), end(1, 0, 2), end(2, 0, 2)],
        ]
        .concat()
    );
}

#[test]
fn s28_a_fifth_run_is_rejected_until_a_stream_ends() {
    // Five HALT-only uploads (reqs 1..5), five RUNs in pass 0: the fifth is
    // rejected in the host phase (`Reason::BadHeader`, pc 0, its header's req 5) before
    // any turn; the four halt in pass 0 in start order. The same RUN again in
    // pass 1 finds no active stream: accepted, stream 4, halts in pass 1.
    let uploads: Vec<Vec<u8>> = (1..=5).map(|req| events_then_halt(req, 1, 0)).collect();
    let mut s = all_in_pass_0(Params::default(), &uploads);
    s.push(1, run(4096, 128)).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        vec![
            err(5, 1, 0, 0),
            end(1, 0, 0),
            end(2, 0, 0),
            end(3, 0, 0),
            end(4, 0, 0),
            end(5, 0, 1),
        ]
    );
    let again = started(1, 4);
    assert_eq!(
        r.host,
        [four_started_fifth_rejected(0), vec![again]].concat()
    );
    assert_eq!(r.streams.len(), 5);
    assert_eq!((r.streams[4].req, r.streams[4].pass), (5, 1));
}

/// U (req 7, 576 bytes): HALT r0 and five templates. Template 3 sits at
/// 128 + 3 * 80 = 368, so its args (from byte 16) start at 384 = 6 * 64: its
/// args 0..7 are the header words of B (req 2, one HALT, no templates, 128
/// bytes); B's micro-op HALT r0 is template 4's first 16 bytes (handler 20,
/// flags 0). U's check reads those bytes as arguments and a valid handler;
/// B's check reads them as its header and micro-op: both accepted.
fn nested() -> Vec<u8> {
    let mut u = Up::new();
    u.halt(0);
    for _ in 0..3 {
        u.template(Tpl::group(1, 0, 1));
    }
    let header_of_b = [0x4B4D_5354, 1, 1, 0, 100, 0, 2, 1];
    let mut t3 = Tpl::group(1, 0, 1).regs(0, 0);
    for (k, w) in header_of_b.iter().enumerate() {
        t3 = t3.arg(k, *w);
    }
    u.template(t3);
    u.template(Tpl::group(20, 0, 0));
    let bytes = u.bytes();
    assert_eq!(bytes.len(), 576);
    bytes
}

#[test]
fn s28_overlap_of_two_accepted_uploads() {
    // Both are accepted alone (the premise, from the check):
    let u = nested();
    assert_eq!(kmst_reference::check(&u, 1 << 20), Ok(()));
    assert_eq!(kmst_reference::check(&u[384..512], 1 << 20), Ok(()));
    // Pass 0: run(384, 128) starts B (req 2); run(0, 576) overlaps B's active
    // range: `Reason::BadHeader` pc 0, event with U's req 7. B halts in pass 0.
    // Pass 1: B is no longer active, run(0, 576) is accepted and halts.
    let mut s = Scenario::new(Params::default()).unwrap();
    s.place(0, u).unwrap();
    s.push(0, run(384, 128)).unwrap();
    s.push(0, run(0, 576)).unwrap();
    s.push(1, run(0, 576)).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(r.events, vec![err(7, 1, 0, 0), end(2, 0, 0), end(7, 0, 1)]);
    assert_eq!(
        r.host,
        vec![started(0, 0), rejected(0, Reason::BadHeader), started(1, 1)]
    );
    assert_eq!(
        (r.streams[0].req, r.streams[0].offset, r.streams[1].req),
        (2, 384, 7)
    );
}

#[test]
fn s28_s34_active_req_and_cancel() {
    // A (req 7) spins: pass 0 runs SET and 63 JNZ, so it sits at pc 1.
    // B (req 7 too, HALT) in pass 0: req active, `Reason::BadHeader`, event req 7.
    // Pass 1: cancel(7) ends A with `Reason::Cancelled` at pc 1; then B's RUN again is
    // accepted (A's req is no longer active) and B halts in pass 1.
    let mut s = Scenario::new(Params::default()).unwrap();
    s.place(0, spin(7)).unwrap();
    s.place(1024, events_then_halt(7, 1, 0)).unwrap();
    s.push(0, run(0, 128)).unwrap();
    s.push(0, run(1024, 128)).unwrap();
    s.push(1, HostCommand::Cancel { req: 7 }).unwrap();
    s.push(1, run(1024, 128)).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        vec![err(7, 1, 0, 0), err(7, 10, 1, 1), end(7, 0, 1)]
    );
    assert_eq!(
        r.host,
        vec![
            started(0, 0),
            rejected(0, Reason::BadHeader),
            taken(1),
            started(1, 1)
        ]
    );
    assert_eq!(
        ends(&r),
        vec![
            (Status::Error, se(Reason::Cancelled, 1), None),
            (Status::Ended, None, Some(0))
        ]
    );
}

#[test]
fn s28_out_of_region_and_misaligned_runs() {
    // Region 1024 bytes; U (HALT, req 3, seed 1, 128 bytes) placed at 896.
    // - run(896, 192): 896 + 192 > 1024, `Reason::BadHeader`; the header (896 + 64 <=
    //   1024) is inside: req 3.
    // - run(1024, 64): offset = region_size, 64 > 0 left: `Reason::BadHeader`; 1024 + 64
    //   > 1024: req 0.
    // - run(900, 128): not a multiple of 64, `Reason::BadHeader`; the "header" at 900 is
    //   inside the region, its req word at 924 = U's byte 28 = U's seed 1.
    // - run(896, 128): accepted, halts in pass 0.
    let mut s = Scenario::new(with(|p| p.region_size = 1024)).unwrap();
    s.place(896, events_then_halt(3, 1, 0)).unwrap();
    for (offset, length) in [(896, 192), (1024, 64), (900, 128), (896, 128)] {
        s.push(0, run(offset, length)).unwrap();
    }
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        vec![
            err(3, 1, 0, 0),
            err(0, 1, 0, 0),
            err(1, 1, 0, 0),
            end(3, 0, 0)
        ]
    );
    let bad = rejected(0, Reason::BadHeader);
    assert_eq!(r.host, vec![bad, bad, bad, started(0, 0)]);
}

#[test]
fn s28_a_run_the_check_rejects_posts_the_checks_reason() {
    // An upload with opcode 0 at pc 1 (`Reason::UnknownOpcode`, pc 1): the RUN is rejected
    // with `Reason::UnknownOpcode`, its event aux 2 | 1 << 8, req 9; no stream.
    let bad = prog(9, 1, |u| {
        u.set(0, 1).op(0, 0, 0, 0, 0);
    });
    let s = all_in_pass_0(Params::default(), &[bad]);
    let r = simulate_scenario(&s);
    assert_eq!(r.events, vec![err(9, 2, 1, 0)]);
    assert_eq!(r.host, vec![rejected(0, Reason::UnknownOpcode)]);
    assert!(r.streams.is_empty());
    assert_eq!(r.passes, 1);
}

#[test]
fn s29_streams_joining_and_leaving() {
    // Budget 1. Pass 0: only A (n = 1, A first): EVENT A. Pass 1: B's RUN in
    // the host phase; n = 2, start 1 % 3 = 1: B (Q) A: EVENT B, EVENT A.
    // Pass 2: start 2: (Q) A B: A HALTs, EVENT B. Pass 3: only B (n = 1),
    // start 3 % 2 = 1: (Q) B: B HALTs.
    let mut s = Scenario::new(budget_1()).unwrap();
    s.place(0, events_then_halt(1, 0xA, 2)).unwrap();
    s.place(1024, events_then_halt(2, 0xB, 2)).unwrap();
    s.push(0, run(0, 128)).unwrap();
    s.push(1, run(1024, 128)).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        vec![
            st(1, 0xA, 0),
            st(2, 0xB, 1),
            st(1, 0xA, 1),
            end(1, 0, 2),
            st(2, 0xB, 2),
            end(2, 0, 3),
        ]
    );
    assert_eq!((r.streams[0].pass, r.streams[1].pass), (0, 1));
    assert_eq!(r.host, vec![started(0, 0), started(1, 1)]);
}

#[test]
fn s30_result_and_wait_are_per_stream() {
    // A: SUBMIT t0 (result, arg0 11, group 0+1); WAIT 0; RESULT r1; EVENT r1; HALT r1.
    // B: the same without result=True (arg0 22, group 1+1).
    // Host: in pass 2 a submit with result=True, args [33], group 2+1.
    // Result model arg(0); delays: seq 0 (A, pass 0) 0 -> swept in pass 1;
    // seq 1 (B, pass 0) 4 -> pass 5; seq 2 (host, pass 2) 1 -> pass 4.
    // Pass 1: A's WAIT counts only A's command (gone): goes on, RESULT = 11,
    // EVENT 11, HALT 11, while B still waits (its own command pending).
    // Pass 4 sweeps the host's result: nobody's. Pass 5: B's WAIT goes on,
    // RESULT = B's own latest, still 0 (none of B's had result=True).
    let a = prog(1, 1, |u| {
        let t = u.template(Tpl::group(1, 0, 1).flags(RESULT).arg(0, 11));
        u.submit(t).wait(0).result(1).event(1).halt(1);
    });
    let b = prog(2, 1, |u| {
        let t = u.template(Tpl::group(1, 1, 1).arg(0, 22));
        u.submit(t).wait(0).result(1).event(1).halt(1);
    });
    let params = with(|p| {
        p.result = ResultModel::Arg(0);
        p.delay = delays(&[(0, Some(0)), (1, Some(4)), (2, Some(1))], Some(0));
    });
    let mut s = all_in_pass_0(params, &[a, b]);
    let mut args = [0; 10];
    args[0] = 33;
    s.push(
        2,
        HostCommand::Submit {
            handler: 3,
            first: 2,
            count: 1,
            args,
            exclusive: false,
            result: true,
        },
    )
    .unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        vec![st(1, 11, 1), end(1, 11, 1), st(2, 0, 5), end(2, 0, 5)]
    );
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 0, false, 0, 1, Some(0)),
            (1, 1, 0, 0, false, 1, 1, Some(1)),
            // Slot 0 is free again in pass 2 (swept in pass 1).
            (2, 0, 2, 0, false, 2, 1, None),
        ]
    );
    let host = r.commands[2].command;
    assert_eq!((host.handler, host.flags, host.args), (3, 4, args));
    assert_eq!(r.host[2], taken(2));
    assert_eq!(r.passes, 6);
}

#[test]
fn s30_an_exclusive_submit_waits_for_a_host_job() {
    // Pass 0 host phase: enqueue(1, 10) joins the queue (job 0). Turns (n = 1,
    // pass 0: A first): A's exclusive SUBMIT on 50+5 is first tried with job
    // 0 queued before it: waits. Then the queue submits job 0 (seq 0, slot 0,
    // first 0, queued, host's). Pass 1 (delay 0): the sweep frees slot 0; the
    // queue is empty and nothing overlaps 50+5, so A's SUBMIT takes slot 0
    // (seq 1, pass 1); WAIT 0 waits. Pass 2 (A first): swept, WAIT goes on,
    // HALT r0 = 0.
    let a = prog(1, 1, |u| {
        let t = u.template(Tpl::group(1, 50, 5).flags(EXCLUSIVE));
        u.submit(t).wait(0).halt(0);
    });
    let mut s = Scenario::new(Params::default()).unwrap();
    let length = a.len() as u32;
    s.place(0, a).unwrap();
    s.push(0, enqueue(1, 10)).unwrap();
    s.push(0, run(0, length)).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 0, true, 0, 10, None),
            (1, 0, 1, 0, false, 50, 5, Some(0)),
        ]
    );
    assert_eq!(r.commands[1].command.flags, EXCLUSIVE);
    assert_eq!(r.events, vec![end(1, 0, 2)]);
    assert_eq!(r.host, vec![taken(0), started(0, 0)]);
}

#[test]
fn s30_s32_an_error_drops_only_its_own_jobs_and_a_host_exclusive_waits() {
    // core_count 8; delays: seq 0 -> 2, the rest 0. Host, pass 0, in order:
    // S1 = submit(1, 0, 4): slot 0, seq 0, swept in pass 3.
    // J = enqueue(1, 8): job 0; no room while S1 holds cores 0..4.
    // run A: SET r0 2; ENQUEUE (count 2: job 1); SET r1 0; MOD -> error 7 at
    //   pc 3 in its pass-0 turn: its own job 1 is dropped, J stays.
    // S2 = submit(1, 4, 4, exclusive): its group overlaps nothing busy, but
    //   job 0 was queued before its first try (pass 0): it waits, in pass 3
    //   too (the host phase comes before the queue's turn, which submits J:
    //   seq 1, slot 0, first 0). Pass 4: J swept, the queue is empty: S2
    //   takes slot 0 (seq 2). The run ends after pass 5.
    let a = prog(1, 1, |u| {
        let t = u.template(Tpl::job(2));
        u.set(0, 2).enqueue(t, 0).set(1, 0).modr(0, 0, 1);
    });
    let params = with(|p| {
        p.core_count = 8;
        p.delay = delays(&[(0, Some(2))], Some(0));
    });
    let mut s = Scenario::new(params).unwrap();
    let length = a.len() as u32;
    s.place(0, a).unwrap();
    s.push(0, submit(1, 0, 4)).unwrap();
    s.push(0, enqueue(1, 8)).unwrap();
    s.push(0, run(0, length)).unwrap();
    s.push(
        0,
        HostCommand::Submit {
            handler: 1,
            first: 4,
            count: 4,
            args: [0; 10],
            exclusive: true,
            result: false,
        },
    )
    .unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(r.events, vec![err(1, 7, 3, 0)]);
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 0, false, 0, 4, None),
            (1, 0, 3, 0, true, 0, 8, None),
            (2, 0, 4, 0, false, 4, 4, None),
        ]
    );
    assert_eq!(r.commands[2].command.flags, EXCLUSIVE);
    assert_eq!(r.host, vec![taken(0), taken(0), started(0, 0), taken(4)]);
}

#[test]
fn s26_s32_a_host_submit_waiting_for_a_slot_blocks_a_cancel() {
    // A (req 1): 16 SUBMITs (slots 0..15, seq 0..15, pass 0, delay 3: swept in
    // pass 4), WAIT 0 at pc 16, HALT. Pass 1: the host's submit finds 16 busy
    // slots and waits; cancel(1) behind it waits too, through passes 2 and 3.
    // Pass 4: the sweep frees every slot; the submit takes slot 0 (seq 16,
    // pass 4, delay 0), then the cancel ends A (still at its WAIT, pc 16)
    // with `Reason::Cancelled`. Pass 5 sweeps seq 16; the run ends there.
    let a = prog(1, 1, |u| {
        let t = u.template(Tpl::group(1, 0, 1));
        for _ in 0..16 {
            u.submit(t);
        }
        u.wait(0).halt(0);
    });
    let params = with(|p| {
        p.delay = Delay::Custom(Arc::new(|c: &SubmittedCommand| {
            Some(if c.sequence < 16 { 3 } else { 0 })
        }))
    });
    let mut s = Scenario::new(params).unwrap();
    let length = a.len() as u32;
    s.place(0, a).unwrap();
    s.push(0, run(0, length)).unwrap();
    s.push(1, submit(5, 100, 1)).unwrap();
    s.push(1, HostCommand::Cancel { req: 1 }).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(r.events, vec![err(1, 10, 16, 4)]);
    assert_eq!(r.host, vec![started(0, 0), taken(4), taken(4)]);
    assert_eq!(r.commands.len(), 17);
    assert_eq!(
        shape(&r)[16],
        (16, 0, 4, 0, false, 100, 1, None),
        "the host's command"
    );
    assert_eq!(
        ends(&r),
        vec![(Status::Error, se(Reason::Cancelled, 16), None)]
    );
    assert_eq!(r.passes, 5);
}

#[test]
fn s32_host_enqueue_into_a_full_queue_and_host_rejections() {
    // Pass 0: 64 host enqueues of count 1 fill the queue (no turn between);
    // the 65th is rejected with `Reason::BadEnqueue`. Then: handler 0 (`Reason::BadTemplate`), count 0
    // and count 120 (`Reason::BadEnqueue`), a submit with handler 240 (`Reason::BadTemplate`) and one
    // on 100+20 (outside the 119-core grid: `Reason::BadGroup`). The queue's turn
    // (no stream: the only turn) submits 16 jobs per pass (window 16, 16
    // slots, delay 0): job k gets seq k, slot k % 16, pass k / 16, first
    // k % 16. Pass 1: one more host enqueue, accepted (48 waiting); it is the
    // 65th job, submitted in pass 4 (seq 64, slot 0, first 0). The run ends
    // after pass 5 (its sweep); no event: passes 0.
    let mut s = Scenario::new(Params::default()).unwrap();
    for _ in 0..65 {
        s.push(0, enqueue(1, 1)).unwrap();
    }
    s.push(0, enqueue(0, 1)).unwrap();
    s.push(0, enqueue(1, 0)).unwrap();
    s.push(0, enqueue(1, 120)).unwrap();
    s.push(0, submit(240, 0, 1)).unwrap();
    s.push(0, submit(1, 100, 20)).unwrap();
    s.push(1, enqueue(1, 1)).unwrap();
    let r = simulate_scenario(&s);
    let mut want = vec![taken(0); 64];
    want.extend([
        rejected(0, Reason::BadEnqueue),
        rejected(0, Reason::BadTemplate),
        rejected(0, Reason::BadEnqueue),
        rejected(0, Reason::BadEnqueue),
        rejected(0, Reason::BadTemplate),
        rejected(0, Reason::BadGroup),
        taken(1),
    ]);
    assert_eq!(r.host, want);
    let mut commands: Vec<Shape> = (0..64u64)
        .map(|k| (k, (k % 16) as u8, k / 16, 0, true, (k % 16) as u32, 1, None))
        .collect();
    commands.push((64, 0, 4, 0, true, 0, 1, None));
    assert_eq!(shape(&r), commands);
    assert!(r.events.is_empty());
    assert_eq!((r.passes, r.stopped), (0, false));
}

#[test]
fn s31_deadline_0_and_a_queued_job_takes_the_default_when_submitted() {
    // default_deadline_passes 10, core_count 4. Pass 0: deadline(0) is
    // rejected (`Reason::BadHeader`); submit(1, 0, 4) takes slot 0 (seq 0, deadline 10,
    // delay 1: swept in pass 2); enqueue(1, 4) waits in the queue (no room
    // until pass 2). Pass 1: deadline(3). Pass 2: the queue submits the job
    // (seq 1, slot 0, first 0) with the default now in force, 3 passes;
    // never acknowledged, it is late in pass 5: TIMEOUT, req 0 (host), aux
    // slot 0, grid stopped. (With the default of its enqueue, 10, it would be
    // late only in pass 12.)
    let params = with(|p| {
        p.default_deadline_passes = 10;
        p.core_count = 4;
        p.delay = delays(&[(0, Some(1))], None);
    });
    let mut s = Scenario::new(params).unwrap();
    s.push(0, HostCommand::Deadline { us: 0 }).unwrap();
    s.push(0, submit(1, 0, 4)).unwrap();
    s.push(0, enqueue(1, 4)).unwrap();
    s.push(1, HostCommand::Deadline { us: 3 }).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(r.events, vec![timeout(0, 0, 5)]);
    assert_eq!((r.stopped, r.passes), (true, 6));
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 0, false, 0, 4, None),
            (1, 0, 2, 0, true, 0, 4, None)
        ]
    );
    assert_eq!(
        r.host,
        vec![rejected(0, Reason::BadHeader), taken(0), taken(0), taken(1)]
    );
}

#[test]
fn s31_deadline_changes_only_later_commands_and_not_a_header_deadline() {
    // default_deadline_passes 10, budget 2, delay never.
    // A (header deadline 0): SET r0 1; SUBMIT (pc 1); SUBMIT (pc 2); WAIT 0; HALT.
    // B (header deadline 20): SUBMIT (pc 0); WAIT 0; HALT.
    // deadline(2) in pass 1: A's second SUBMIT (pass 1) is late in pass 3;
    // A's first keeps the default of its submit (10: pass 10) and B's its
    // header's (20: pass 20).
    let a = prog(1, 1, |u| {
        let t = u.template(Tpl::group(1, 0, 1));
        u.set(0, 1).submit(t).submit(t).wait(0).halt(0);
    });
    let b = {
        let mut u = Up::new();
        u.req = 2;
        u.deadline_us = 20;
        let t = u.template(Tpl::group(1, 1, 1));
        u.submit(t).wait(0).halt(0);
        u.bytes()
    };
    let params = with(|p| {
        p.default_deadline_passes = 10;
        p.turn_budget = 2;
        p.delay = Delay::Never;
    });
    let mut s = all_in_pass_0(params, &[a, b]);
    s.push(1, HostCommand::Deadline { us: 2 }).unwrap();
    let r = simulate_scenario(&s);
    // Pass 0 (A first): A SET, SUBMIT -> seq 0 slot 0; B SUBMIT -> seq 1 slot
    // 1, WAIT waits. Pass 1 (start 1: B, Q, A): B waits; A SUBMIT -> seq 2
    // slot 2 (deadline 2: late in pass 3), WAIT waits.
    assert_eq!(
        shape(&r),
        vec![
            (0, 0, 0, 1, false, 0, 1, Some(0)),
            (1, 1, 0, 0, false, 1, 1, Some(1)),
            (2, 2, 1, 2, false, 0, 1, Some(0)),
        ]
    );
    assert_eq!(r.events, vec![err(1, 8, 2, 3), err(2, 8, 1, 3)]);
    assert_eq!((r.stopped, r.passes), (true, 4));
}

#[test]
fn s33_a_late_host_command_stops_the_grid() {
    // deadline_passes 2, delay never. A and B spin (each sits at pc 1 after
    // pass 0). The host's submit of pass 0 (slot 0) is late in pass 2:
    // TIMEOUT with req 0 and aux 0, then A and B end with `Reason::Deadline` at their
    // current pc 1, in start order. cancel(1) due in pass 2 and a RUN due in
    // pass 5 are never taken: "waiting".
    let mut s = all_in_pass_0(never_acknowledged(2), &[spin(1), spin(2)]);
    s.push(0, submit(1, 0, 1)).unwrap();
    s.push(2, HostCommand::Cancel { req: 1 }).unwrap();
    s.push(5, run(0, 128)).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        vec![timeout(0, 0, 2), err(1, 8, 1, 2), err(2, 8, 1, 2)]
    );
    assert_eq!((r.stopped, r.passes), (true, 3));
    assert_eq!(
        r.host,
        vec![started(0, 0), started(0, 1), taken(0), WAITING, WAITING]
    );
    assert_eq!(
        ends(&r),
        vec![(Status::Error, se(Reason::Deadline, 1), None); 2]
    );
}

#[test]
fn s33_a_late_command_of_an_ended_stream() {
    // deadline_passes 2, delay never. A: SUBMIT (slot 0, pass 0); SET r1 0;
    // MOD r0 r0 r1 (`Reason::ModByZero` at pc 2, pass 0). B spins at pc 1. Pass 2: slot
    // 0 (A's) is late and A has ended: TIMEOUT with A's req 1, aux 0; then B
    // ends with `Reason::Deadline` at pc 1.
    let s = all_in_pass_0(
        never_acknowledged(2),
        &[submit_then_mod_by_zero(1), spin(2)],
    );
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        vec![err(1, 7, 2, 0), timeout(1, 0, 2), err(2, 8, 1, 2)]
    );
    assert_eq!(
        ends(&r),
        vec![
            (Status::Error, se(Reason::ModByZero, 2), None),
            (Status::Error, se(Reason::Deadline, 1), None)
        ]
    );
}

#[test]
fn s34_s35_cancel_of_an_unknown_req_and_the_end_of_a_run() {
    // A halts in pass 0. cancel(99) in pass 7: no such active stream,
    // rejected (`Reason::Cancelled`) in pass 7, no event; the run goes on until that
    // pass (a host command due later) and ends after it. passes = 1.
    // With max_passes 5 the cancel is never due: "waiting".
    for (max_passes, cancel) in [(1_000_000, rejected(7, Reason::Cancelled)), (5, WAITING)] {
        let mut s = all_in_pass_0(
            with(|p| p.max_passes = max_passes),
            &[events_then_halt(1, 1, 0)],
        );
        s.push(7, HostCommand::Cancel { req: 99 }).unwrap();
        let r = simulate_scenario(&s);
        assert_eq!(r.events, vec![end(1, 0, 0)]);
        assert_eq!(r.host, vec![started(0, 0), cancel]);
        assert_eq!(r.passes, 1);
    }
}

#[test]
fn s35_a_command_in_flight_keeps_the_run() {
    // deadline_passes 3, delay never. A: SUBMIT (slot 0, pass 0); SET r1 0;
    // MOD -> error 7 at pc 2 in pass 0. B: EVENT r15; HALT in pass 0. After
    // pass 0 no stream is active and no host command is due, but A's command
    // is in flight: the run goes on silently until it is late in pass 3
    // (TIMEOUT, A's req 1, slot 0).
    let s = all_in_pass_0(
        never_acknowledged(3),
        &[submit_then_mod_by_zero(1), events_then_halt(2, 0xB, 1)],
    );
    let r = simulate_scenario(&s);
    assert_eq!(
        r.events,
        vec![
            err(1, 7, 2, 0),
            st(2, 0xB, 0),
            end(2, 0, 0),
            timeout(1, 0, 3)
        ]
    );
    assert_eq!((r.stopped, r.passes), (true, 4));
}

#[test]
fn s35_max_passes_with_several_streams_stuck() {
    // max_passes 10, delay never. A and B: EVENT r15; SUBMIT; WAIT 0 (forever).
    // Both post their event in pass 0, then wait; the run stops after pass 9
    // with both "stuck". The RUN due in pass 20 stays waiting.
    let waiter = |req: u32, first: u16| {
        prog(req, req, |u| {
            let t = u.template(Tpl::group(1, first, 1));
            u.event(R15).submit(t).wait(0).halt(0);
        })
    };
    let params = with(|p| {
        p.max_passes = 10;
        p.delay = Delay::Never;
    });
    let mut s = all_in_pass_0(params, &[waiter(1, 0), waiter(2, 1)]);
    s.push(20, run(0, 128)).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(r.events, vec![st(1, 1, 0), st(2, 2, 0)]);
    assert_eq!(ends(&r), vec![(Status::Stuck, None, None); 2]);
    assert_eq!(r.host[2], WAITING);
    assert_eq!((r.passes, r.stopped), (1, false));
}

#[test]
fn s35_no_host_command_runs_nothing() {
    let r = simulate_scenario(&Scenario::new(Params::default()).unwrap());
    assert!(r.events.is_empty() && r.streams.is_empty() && r.commands.is_empty());
    assert_eq!(r.passes, 0);
}

#[test]
fn s35_one_run_gives_the_one_stream_answer() {
    // A handful of one-stream runs, each compared whole with simulate:
    // accepted and halting, rejected, erroring with a command in flight, a
    // late command, cancelled, stuck.
    let submit_wait = prog(7, 1, |u| {
        let t = u.template(Tpl::group(1, 0, 1).flags(RESULT).arg(0, 9));
        u.submit(t).wait(0).result(0).halt(0);
    });
    let enqueue_then_mod = prog(7, 1, |u| {
        let t = u.template(Tpl::job(2));
        u.set(0, 3)
            .enqueue(t, 0)
            .enqueue(t, 0)
            .set(1, 0)
            .modr(0, 0, 1);
    });
    let cases: Vec<(Vec<u8>, Params)> = vec![
        (events_then_halt(7, 5, 3), Params::default()),
        (
            submit_wait.clone(),
            with(|p| p.result = ResultModel::Arg(0)),
        ),
        (submit_wait.clone(), with(|p| p.delay = Delay::Fixed(3))),
        (submit_wait.clone(), never_acknowledged(4)),
        (
            enqueue_then_mod.clone(),
            with(|p| p.delay = Delay::Fixed(2)),
        ),
        (
            enqueue_then_mod,
            with(|p| {
                p.delay = Delay::Never;
                p.default_deadline_passes = 3;
            }),
        ),
        (spin(7), with(|p| p.cancel_pass = Some(3))),
        (spin(7), with(|p| p.cancel_pass = Some(0))),
        (spin(7), with(|p| p.max_passes = 50)),
        (vec![0; 64], Params::default()),
        // 256 bytes in a region of 256: accepted (S35 needs len <= region_size).
        (submit_wait, with(|p| p.region_size = 256)),
    ];
    for (i, (upload, params)) in cases.iter().enumerate() {
        let want = simulate(upload, params);
        let scenario = Scenario::one_run(upload, params).unwrap();
        let got = simulate_scenario(&scenario);
        assert_eq!(got.s35_difference(&want), None, "case {i}");
    }
}

#[test]
fn s35_difference_notices_a_different_answer() {
    // The comparison itself can fail: a halting stream against the same
    // upload run with a different seed (another halt value).
    let a = prog(7, 5, |u| {
        u.halt(R15);
    });
    let b = prog(7, 6, |u| {
        u.halt(R15);
    });
    let want = simulate(&a, &Params::default());
    let got = simulate_scenario(&Scenario::one_run(&b, &Params::default()).unwrap());
    assert!(got.s35_difference(&want).is_some());
}
