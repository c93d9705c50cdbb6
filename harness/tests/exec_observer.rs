//! The Observer hooks, on a run worked out by hand, and their totals on the
//! 1,000-job example.

mod common;

use common::program;

use kmst::exec::{Dispatch, Observer, TurnEnd, simulate_observed};
use kmst::ops::Opcode::*;
use kmst_harness::fuzzing::{job_example, op, template, upload};
use kmst_reference::{Delay, Params, Reason, StreamError};

#[derive(Default)]
struct Log {
    ops: Vec<u32>,
    turns: Vec<(u64, usize, u32, TurnEnd, u32)>,
    submits: Vec<(u8, u64, u64, bool)>,
    acks: Vec<(u8, u64, u64)>,
    passes: Vec<(u64, u32, u32)>,
    idle: Vec<(u64, u64)>,
}

impl Observer for Log {
    const ENABLED: bool = true;
    fn on_op(&mut self, pc: u32) {
        self.ops.push(pc);
    }
    fn on_turn_end(&mut self, pass: u64, stream: usize, ops: u32, why: TurnEnd, pc: u32) {
        self.turns.push((pass, stream, ops, why, pc));
    }
    fn on_submit(&mut self, slot: u8, seq: u64, pass: u64, queued: bool) {
        self.submits.push((slot, seq, pass, queued));
    }
    fn on_ack(&mut self, slot: u8, seq: u64, pass: u64) {
        self.acks.push((slot, seq, pass));
    }
    fn on_pass_end(&mut self, pass: u64, busy_slots: u32, queue_len: u32) {
        self.passes.push((pass, busy_slots, queue_len));
    }
    fn on_idle(&mut self, from: u64, to: u64) {
        self.idle.push((from, to));
    }
}

#[test]
fn hooks_of_a_submit_wait_halt_run() {
    // SUBMIT (pass 0, slot 0, seq 0; delay 2: acked in the sweep of pass 3);
    // WAIT 0 waits in passes 0 and 1; pass 2 is idle (nothing can change before
    // the ack) and skipped; in pass 3 WAIT goes on, TIME, HALT (status r0 = 3 *
    // 1000 = 3000). Turns: pass 0 ran 1 (SUBMIT) and waits at pc 1; pass 1 ran 0
    // and waits; pass 3 ran 3 (WAIT, TIME, HALT).
    let data = common::submit_wait_time_halt(0, 9, (0, 4));
    let params = Params {
        delay: Delay::Fixed(2),
        ..Params::default()
    };
    for &d in Dispatch::ALL {
        let mut log = Log::default();
        let r = simulate_observed(&data, &params, d, &mut log);
        assert_eq!(r.halt, Some(3000));
        assert_eq!(log.ops, vec![0, 1, 2, 3], "{d}");
        assert_eq!(
            log.turns,
            vec![
                (0, 0, 1, TurnEnd::Wait, 1),
                (1, 0, 0, TurnEnd::Wait, 1),
                (3, 0, 3, TurnEnd::Halt(3000), 3)
            ],
            "{d}"
        );
        assert_eq!(log.submits, vec![(0, 0, 0, false)]);
        assert_eq!(log.acks, vec![(0, 0, 3)]);
        assert_eq!(log.passes, vec![(0, 1, 0), (1, 1, 0), (3, 0, 0)]);
        assert_eq!(log.idle, vec![(2, 3)]);
    }
    // With delay 1 the ack comes in the sweep of pass 2, the pass right
    // after the wait of pass 1: no pass is skipped, so no idle is reported
    // (an idle names the passes skipped, none here), and TIME reads pass 2.
    let params = Params {
        delay: Delay::Fixed(1),
        ..Params::default()
    };
    for &d in Dispatch::ALL {
        let mut log = Log::default();
        let r = simulate_observed(&data, &params, d, &mut log);
        assert_eq!(r.halt, Some(2000), "{d}");
        assert_eq!(log.acks, vec![(0, 0, 2)], "{d}");
        assert_eq!(log.idle, vec![], "{d}");
    }
}

/// RAND then MOD run as one pair (`RandMod`, inst.rs) in every variant
/// that fuses; a MOD by zero (c = 0: `Reason::ModByZero` at the MOD) ends the stream
/// there, and the turn counts the micro-ops that completed before it, SET
/// and RAND (S17), whichever half of the pair stops.
#[test]
fn a_mod_by_zero_right_after_rand_counts_the_two_micro_ops_before_it() {
    let ops = program(
        "set r1, 0
         rand r2
         mod r3, r2, r1
         halt r0",
    );
    let data = upload(10, 0, 1, 0, ops, vec![]).encode();
    let error = StreamError {
        reason: Reason::ModByZero,
        pc: 2,
    };
    for &d in Dispatch::ALL {
        let mut log = Log::default();
        let r = simulate_observed(&data, &Params::default(), d, &mut log);
        assert_eq!(r.halt, None, "{d}");
        assert_eq!(log.ops, vec![0, 1], "{d}");
        assert_eq!(log.turns, vec![(0, 0, 2, TurnEnd::Error(error), 2)], "{d}");
    }
}

/// Seventeen SUBMITs in a row with delay 5: the first sixteen take the
/// sixteen completion slots in pass 0 (S19), the seventeenth waits for one
/// (S18), so the turn ends at pc 16 after 16 micro-ops, waiting for a
/// slot, not for pending commands or at a HALT; and so does the turn of
/// pass 1, where it still waits (0 micro-ops; passes 2 to 5 are idle).
#[test]
fn a_submit_with_every_slot_busy_ends_the_turn_waiting_for_a_slot() {
    let mut ops: Vec<_> = (0..17).map(|_| op(Submit, 0, 0, 0, 0)).collect();
    ops.push(op(Halt, 0, 0, 0, 0));
    let data = upload(100, 0, 1, 0, ops, vec![template(9, 0, (0, 1), &[], &[])]).encode();
    let params = Params {
        delay: Delay::Fixed(5),
        ..Params::default()
    };
    for &d in Dispatch::ALL {
        let mut log = Log::default();
        let r = simulate_observed(&data, &params, d, &mut log);
        assert_eq!(r.halt, Some(0), "{d}");
        assert_eq!(
            log.turns[..2],
            [
                (0, 0, 16, TurnEnd::WaitSlots, 16),
                (1, 0, 0, TurnEnd::WaitSlots, 16)
            ],
            "{d}"
        );
    }
}

/// The hooks of every pass reach an observer that asks for them
/// (`EVERY_PASS`, the default) without hearing each micro-op, and every
/// turn reaches one that hears each micro-op even if it says it needs no
/// pass hooks: the quick passes are run as one chain only for an observer
/// that wants neither (observer.rs). The loop `n = 1000; loop: n -= 1; jnz
/// n loop; halt n` runs 2,003 micro-ops, 64 a turn (S16, S17): one turn in
/// each of its passes, each ended by the budget but the last.
#[test]
fn quick_passes_are_reported_to_an_observer_that_wants_them() {
    use kmst::builder::Stream;
    #[derive(Default)]
    struct Passes(u64);
    impl Observer for Passes {
        fn on_pass_end(&mut self, _: u64, _: u32, _: u32) {
            self.0 += 1;
        }
    }
    #[derive(Default)]
    struct Turns(u64);
    impl Observer for Turns {
        const ENABLED: bool = true;
        const EVERY_PASS: bool = false;
        fn on_turn_end(&mut self, _: u64, _: usize, _: u32, _: TurnEnd, _: u32) {
            self.0 += 1;
        }
    }
    let mut s = Stream::new(0, 1_000_000, 1, 7).unwrap();
    let n = s.registers(1).unwrap()[0];
    s.set(n, 1000).unwrap();
    let top = s.label();
    s.addi(n, n, -1).unwrap();
    s.jnz(n, top);
    s.halt(n);
    let data = s.encode().unwrap();
    let passes = 2003u64.div_ceil(64);
    for &d in Dispatch::ALL {
        let mut p = Passes::default();
        let r = simulate_observed(&data, &Params::default(), d, &mut p);
        assert_eq!((r.halt, r.passes), (Some(0), passes), "{d}");
        assert_eq!(p.0, passes, "{d}");
        let mut t = Turns::default();
        simulate_observed(&data, &Params::default(), d, &mut t);
        assert_eq!(t.0, passes, "{d}");
    }
}

/// A SUBMIT on core 0 (delay 50) and then sixty-five ENQUEUEs of a job of
/// the whole grid (119 cores), with a turn budget of 100: the queue holds
/// 64 jobs (S20) and none can be placed while core 0 is busy, so the 65th
/// ENQUEUE (pc 66, after the builder's SET of the count and the SUBMIT)
/// waits for room in the queue (S18) after 66 micro-ops, and still waits
/// in pass 1's turn (0 micro-ops).
#[test]
fn an_enqueue_into_a_full_queue_ends_the_turn_waiting_for_room() {
    use kmst::builder::{Operand, Stream};
    let mut s = Stream::new(0, 1_000, 1, 7).unwrap();
    s.submit(9, (Operand::Int(0), Operand::Int(1)), &[], false, false)
        .unwrap();
    for _ in 0..65 {
        s.enqueue(9, Operand::Int(119), &[], false, false).unwrap();
    }
    let r = s.registers(1).unwrap()[0];
    s.halt(r);
    let data = s.encode().unwrap();
    let params = Params {
        turn_budget: 100,
        delay: Delay::Fixed(50),
        ..Params::default()
    };
    for &d in Dispatch::ALL {
        let mut log = Log::default();
        simulate_observed(&data, &params, d, &mut log);
        assert_eq!(
            log.turns[..2],
            [
                (0, 0, 66, TurnEnd::WaitQueueFull, 66),
                (1, 0, 0, TurnEnd::WaitQueueFull, 66)
            ],
            "{d}"
        );
    }
}

#[test]
fn hook_totals_on_the_job_example() {
    // 3 SETs, 1000 rounds of 6 micro-ops, WAIT, HALT: 6005 completed micro-ops,
    // as many as the turns report; one submit per job, all queued; every
    // command acknowledged (delay 0) before HALT.
    let data = job_example().encode();
    for &d in Dispatch::ALL {
        let mut log = Log::default();
        let r = simulate_observed(&data, &Params::default(), d, &mut log);
        assert_eq!(log.ops.len(), 6005, "{d}");
        let turn_ops: u32 = log.turns.iter().map(|t| t.2).sum();
        assert_eq!(turn_ops, 6005);
        assert_eq!(log.submits.len(), 1000);
        assert!(log.submits.iter().all(|s| s.3));
        assert_eq!(log.acks.len(), 1000);
        assert!(
            log.passes
                .iter()
                .all(|&(_, busy, queue)| busy <= 16 && queue <= 64)
        );
        assert_eq!(log.passes.last().map(|p| p.0), Some(r.passes - 1));
        assert!(matches!(
            log.turns.last(),
            Some((_, 0, _, TurnEnd::Halt(0), 10))
        ));
    }
}
