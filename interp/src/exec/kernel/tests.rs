//! Unit tests of the kernel: the models, placement, the sweep and the wheel.

use super::*;
use crate::exec::kernel::template::Arg;
use crate::exec::kernel::template::{BLANK, Tmpl};
use crate::exec::observer::NoObserver;
use crate::format::{NO_REGISTER, flags};
use crate::types::{Delay, Reason, ResultModel};
use crate::types::{Params, SubmittedCommand};

/// S23's cycle(2, 3): command k's delay is 2 + k % 3, so in pass 0
/// (acknowledged in pass 1 + d, S12) commands 0..7 are acknowledged in
/// passes 3, 4, 5, 3, 4, 5, 3; fixed(7) gives 8 for each; never, u64::MAX.
#[test]
fn the_delay_models_counted_in_sequence_order() {
    let cases = [
        (
            Delay::Cycle { base: 2, modulo: 3 },
            vec![3, 4, 5, 3, 4, 5, 3],
        ),
        (Delay::Fixed(7), vec![8; 7]),
        (Delay::Never, vec![u64::MAX; 7]),
        (Delay::Cycle { base: 9, modulo: 1 }, vec![10; 7]),
        (
            Delay::Table(vec![Some(0), None]),
            vec![1, u64::MAX, 1, u64::MAX, 1, u64::MAX, 1],
        ),
    ];
    for (delay, acks) in cases {
        let params = Params {
            delay: delay.clone(),
            ..Params::default()
        };
        let mut k = Kernel::new(&params);
        for _ in 0..7 {
            k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
                .unwrap();
        }
        let got: Vec<u64> = k.slots[..7].iter().map(|s| s.ack).collect();
        assert_eq!(got, acks, "{delay:?}");
    }
}

/// S23's result models on commands 0, 1, 2 with args [10, 11, ..., 19]
/// and the result flag: sequence gives 0, 1, 2; arg(2) gives 12 each
/// time; table([5, 6]) gives 5, 6, 5; arg(12) is out of range (S25) and
/// gives 0; zero gives 0. Without the result flag every result is 0.
#[test]
fn the_result_models_on_the_record() {
    let args: [u32; 10] = std::array::from_fn(|i| 10 + i as u32);
    let cases = [
        (ResultModel::Sequence, [0, 1, 2]),
        (ResultModel::Arg(2), [12, 12, 12]),
        (ResultModel::Table(vec![5, 6]), [5, 6, 5]),
        (ResultModel::Arg(12), [0, 0, 0]),
        (ResultModel::Zero, [0, 0, 0]),
    ];
    for (model, results) in cases {
        let params = Params {
            result: model.clone(),
            ..Params::default()
        };
        for (flag, expected) in [(flags::RESULT, results), (0, [0, 0, 0])] {
            let mut k = Kernel::new(&params);
            for _ in 0..3 {
                k.host_submit(1, 0, 1, args, flag, 0, &mut NoObserver)
                    .unwrap();
            }
            let got: Vec<u32> = k.slots[..3].iter().map(|s| s.result).collect();
            assert_eq!(got, expected, "{model:?}, flag {flag}");
        }
    }
}

/// A queued job's record and deadline, made at its placement (S13,
/// S19, S20, S31). In pass 2, stream 0 (its header's deadline: 7
/// passes) queues A (2 cores, pc 4), stream 1 (no fixed deadline)
/// queues B (3 cores, pc 6) with r1 = 40 patched into argument 1, and
/// the host queues C (1 core). A DEADLINE then sets the default to 30,
/// and the queue's turn in pass 4 places all three in order at the
/// lowest free cores: A on 0..2 in slot 0 (sequence 0, deadline 4 + 7),
/// B on 2..5 in slot 1 (deadline 4 + 30: the default in force now),
/// C on 5..6 in slot 2 (deadline_passes unset: also 4 + 30).
#[test]
fn a_placed_job_records_itself_with_its_owners_deadline() {
    let mut k = Kernel::new(&Params::default());
    let meta = |index, deadline| StreamMeta {
        pc: 0,
        steps: 0,
        max_steps: 100,
        pending: 0,
        latest_result: 0,
        req: 0,
        deadline,
        life: super::stream::Life::Active,
        index,
        program: 0,
        exclusive_mark: None,
        waiting: Waiting::No,
    };
    let (mut s0, mut s1) = (meta(0, Some(7)), meta(1, None));
    let t = Tmpl {
        proto: SubmittedCommand {
            handler: 3,
            args: [10, 11, 12, 0, 0, 0, 0, 0, 0, 0],
            ..BLANK
        },
        patches: [(Arg::A1, 1), (Arg::A0, 0), (Arg::A0, 0), (Arg::A0, 0)],
        patch_count: 0,
        first_register: NO_REGISTER,
        count_register: NO_REGISTER,
    };
    let patched_t = Tmpl {
        patch_count: 1,
        ..t
    };
    let mut regs = [0u32; 16];
    regs[1] = 40;
    k.pass = 2;
    assert!(k.enqueue(&mut s0, &regs, &t, 2, 4).is_ok());
    assert!(k.enqueue(&mut s1, &regs, &patched_t, 3, 6).is_ok());
    assert!(k.host_enqueue(9, 1, [7; 10], 0).is_ok());
    assert_eq!((s0.pending, s1.pending), (1, 1));
    k.default_deadline = 30;
    k.pass = 4;
    k.queue_turn(&mut NoObserver);
    assert_eq!(k.busy, 0b111);
    let record = |sequence, slot, handler, first, count, args, pc| SubmittedCommand {
        sequence,
        slot,
        handler,
        first,
        count,
        flags: 0,
        args,
        pass_index: 4,
        pc,
        queued: true,
    };
    assert_eq!(
        k.commands,
        [
            record(0, 0, 3, 0, 2, [10, 11, 12, 0, 0, 0, 0, 0, 0, 0], 4),
            record(1, 1, 3, 2, 3, [10, 40, 12, 0, 0, 0, 0, 0, 0, 0], 6),
            record(2, 2, 9, 5, 1, [7; 10], 0),
        ]
    );
    let deadlines: Vec<u64> = k.slots[..3].iter().map(|s| s.deadline).collect();
    assert_eq!(deadlines, [11, 34, 34]);
    let owners: Vec<u16> = k.slots[..3].iter().map(|s| s.owner).collect();
    assert_eq!(owners, [0, 1, HOST]);
}

/// Delays 4, 8, 100 by table and deadline_passes 5 (S12, S13): in
/// pass 0 commands 0 and 1 take slots 0 (ack 5, deadline 5) and 1 (ack
/// 9, deadline 5); in pass 2 command 2 takes slot 2 (ack 103, beyond the
/// wheel; deadline 7). Each pass below is swept as if the run went on.
#[test]
fn the_sweep_frees_then_finds_the_late_and_the_next_change() {
    let params = Params {
        delay: Delay::Table(vec![Some(4), Some(8), Some(100)]),
        deadline_passes: Some(5),
        ..Params::default()
    };
    let mut k = Kernel::new(&params);
    let submit = |k: &mut Kernel| {
        k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
            .unwrap()
    };
    submit(&mut k);
    submit(&mut k);
    k.pass = 2;
    submit(&mut k);
    assert_eq!(k.busy, 0b111);
    assert_eq!(k.next_change, 5);
    let sweep = |k: &mut Kernel, pass| {
        k.pass = pass;
        k.sweep(&mut [], &mut NoObserver);
        (k.busy, k.lowest_late(), k.next_change)
    };
    // Pass 5: slot 0 is freed before the deadline phase, so it is not
    // late; slot 1 is (deadline 5). Next: min(9, 103, 5, 7) = 5.
    assert_eq!(sweep(&mut k, 5), (0b110, Some(1), 5));
    // Pass 7: nothing acknowledged; slot 1 still the lowest late.
    assert_eq!(sweep(&mut k, 7), (0b110, Some(1), 5));
    // Pass 9: slot 1 freed; slot 2 late since 7. Next: min(103, 7).
    assert_eq!(sweep(&mut k, 9), (0b100, Some(2), 7));
    // Pass 103: slot 2 freed from beyond the wheel; nothing left.
    assert_eq!(sweep(&mut k, 103), (0, None, u64::MAX));
}

/// The earliest deadline's slot freed while an ack comes first: in pass
/// 0, A (delay 1: ack 2; deadline 5), B (delay 9: ack 10; deadline 8)
/// and C (delay 2: ack 3; deadline 40) take slots 0, 1, 2 (S12, S13).
/// Next change: min(2, 10, 3, 5, 8, 40) = 2. Pass 2 frees A: next is
/// min(3, 8) = 3 (the ack of C), nothing late. Pass 3 frees C: next is
/// min(10, 8) = 8. Pass 8 frees nothing and B is late (8 <= 8).
#[test]
fn the_earliest_deadline_freed_before_the_next_ack() {
    let params = Params {
        delay: Delay::Table(vec![Some(1), Some(9), Some(2)]),
        ..Params::default()
    };
    let mut k = Kernel::new(&params);
    for deadline in [5, 8, 40] {
        k.default_deadline = deadline;
        k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
            .unwrap();
    }
    assert_eq!(k.next_change, 2);
    for (pass, busy, late, next) in [
        (2, 0b110, None, 3),
        (3, 0b010, None, 8),
        (8, 0b010, Some(1), 8),
    ] {
        k.pass = pass;
        k.sweep(&mut [], &mut NoObserver);
        assert_eq!(
            (k.busy, k.lowest_late(), k.next_change),
            (busy, late, next),
            "pass {pass}"
        );
    }
}

/// Acks 1..=63 passes ahead go on the wheel, 64 and more beyond it
/// (`far`): delays 62, 63 and 100 from pass 0 are acks 63, 64 and 101
/// (S12). Swept in pass 63 (slot 0), 64 (slot 1) and 101 (slot 2), each
/// in its own pass and no other; `far` holds the busy slots beyond the
/// wheel, and the next change is the next ack.
#[test]
fn the_wheel_and_beyond_it() {
    let params = Params {
        delay: Delay::Table(vec![Some(62), Some(63), Some(100)]),
        ..Params::default()
    };
    let mut k = Kernel::new(&params);
    for _ in 0..3 {
        k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
            .unwrap();
    }
    assert_eq!((k.wheel_bits, k.far, k.far_next), (1 << 63, 0b110, 64));
    for (pass, busy, far, next) in [
        (62, 0b111, 0b110, 63),
        (63, 0b110, 0b110, 64),
        (64, 0b100, 0b100, 101),
        (100, 0b100, 0b100, 101),
        (101, 0, 0, u64::MAX),
    ] {
        k.pass = pass;
        k.sweep(&mut [], &mut NoObserver);
        assert_eq!(
            (k.busy, k.far, k.next_change),
            (busy, far, next),
            "pass {pass}"
        );
    }
}

/// S18 and S32: the host's submit is rejected with `Reason::BadGroup` when its
/// group is outside the grid of `core_count` cores (119 by default):
/// cores `first .. first + count` must lie in 0..119 with count >= 1.
/// 118 + 1 and 0 + 119 fit; a group starting at 119, past it at 120 or
/// at u32::MAX, of 0 cores, or one core too long does not.
#[test]
fn the_host_submit_rejects_a_group_outside_the_grid() {
    let mut k = Kernel::new(&Params::default());
    let mut submit = |first, count| k.host_submit(1, first, count, [0; 10], 0, 0, &mut NoObserver);
    for (first, count) in [
        (119, 1),
        (120, 1),
        (200, 1),
        (u32::MAX, 1),
        (0, 0),
        (0, 120),
        (118, 2),
    ] {
        assert_eq!(
            submit(first, count),
            Err(Some(Reason::BadGroup)),
            "group {first}+{count}"
        );
    }
    for (first, count) in [(118, 1), (0, 119)] {
        assert_eq!(submit(first, count), Ok(()), "group {first}+{count}");
    }
}

/// A stream at the kernel's interface, for the sweep.
fn stream(index: u16) -> Stream {
    Stream {
        meta: StreamMeta {
            pc: 0,
            steps: 0,
            max_steps: 100,
            pending: 0,
            latest_result: 0,
            req: 0,
            deadline: None,
            life: super::stream::Life::Active,
            index,
            program: 0,
            exclusive_mark: None,
            waiting: Waiting::No,
        },
        regs: [0; 16],
        end: Default::default(),
    }
}

/// The sweep with several streams (S12, S30): each stream's latest result
/// is set only by its own commands that carry the result flag. Result
/// model arg(0) (S23), delays 1, 2, 2, 1 by table; in pass 0 stream A
/// submits command 0 (result flag, arg0 7: slot 0, ack 2) and command 1
/// (no flag: slot 1, ack 3), stream B command 2 (flag, arg0 5: slot 2,
/// ack 3) and command 3 (no flag: slot 3, ack 2), and the host command 4
/// (delay 1: slot 4, ack 2). Pass 2 frees slots 0, 3 and 4: A's latest is
/// 7, B's still 0, one pending each; no host command is in flight and
/// only slot 2's command has the result flag. Pass 3 frees slots 1 and 2:
/// A's latest stays 7 (slot 1 has no result), B's is 5.
#[test]
fn the_sweep_of_several_streams_sets_results_only_from_result_commands() {
    let params = Params {
        delay: Delay::Table(vec![Some(1), Some(2), Some(2), Some(1), Some(1)]),
        result: ResultModel::Arg(0),
        ..Params::default()
    };
    let mut k = Kernel::new(&params);
    let mut streams = [stream(0), stream(1)];
    let tmpl = |flag, arg0| Tmpl {
        proto: SubmittedCommand {
            handler: 3,
            first: 0,
            count: 1,
            flags: flag,
            args: [arg0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            ..BLANK
        },
        patches: [(Arg::A0, 0); 4],
        patch_count: 0,
        first_register: NO_REGISTER,
        count_register: NO_REGISTER,
    };
    let regs = [0u32; 16];
    for (who, flag, arg0) in [
        (0, flags::RESULT, 7),
        (0, 0, 9),
        (1, flags::RESULT, 5),
        (1, 0, 11),
    ] {
        let s: &mut StreamMeta = &mut streams[who].meta;
        assert!(
            k.submit(s, &regs, &tmpl(flag, arg0), None, 4, &mut NoObserver)
                .is_ok()
        );
    }
    k.host_submit(1, 0, 1, [0; 10], 0, 0, &mut NoObserver)
        .unwrap();
    assert_eq!(
        (k.busy, k.host_slots, k.result_slots),
        (0b11111, 0b10000, 0b0101)
    );
    let mut sweep = |k: &mut Kernel, pass| {
        k.pass = pass;
        k.sweep(&mut streams, &mut NoObserver);
        let m = |i: usize| (streams[i].meta.latest_result, streams[i].meta.pending);
        (k.busy, k.host_slots, k.result_slots, m(0), m(1))
    };
    assert_eq!(sweep(&mut k, 2), (0b0110, 0, 0b0100, (7, 1), (0, 1)));
    assert_eq!(sweep(&mut k, 3), (0, 0, 0, (7, 0), (5, 0)));
}

/// S20 after a job starved: on a grid of 3 cores a command holds core 1
/// until pass 2001 (delay 2000, S12), so the host's job H (handler 2, 2
/// cores) finds no room while 1,024 one-core jobs behind it are placed, one
/// a pass, each overtaking it. The kernel in pass 2001, whose sweep freed
/// core 1, with H alone in the queue, overtaken 1,024 times: the window is
/// looked at in order from now on.
fn a_starved_head() -> Kernel {
    starved(None)
}

/// [`a_starved_head`], and when `y_at` is given the host's job Y (handler
/// 5, 2 cores) queued behind H in that pass, before its one-core job: Y is
/// then overtaken 1,024 − `y_at` times.
fn starved(y_at: Option<u64>) -> Kernel {
    let mut delays = vec![Some(2000)];
    delays.extend([Some(0); 1100]);
    let params = Params {
        core_count: 3,
        delay: Delay::Table(delays),
        ..Params::default()
    };
    let mut k = Kernel::new(&params);
    let obs = &mut NoObserver;
    k.host_submit(1, 1, 1, [0; 10], 0, 0, obs).unwrap();
    k.host_enqueue(2, 2, [0; 10], 0).unwrap();
    for pass in 0..1024 {
        k.pass = pass;
        if y_at == Some(pass) {
            k.host_enqueue(5, 2, [0; 10], 0).unwrap();
        }
        k.host_enqueue(3, 1, [0; 10], 0).unwrap();
        k.queue_turn(obs);
        k.pass = pass + 1;
        k.sweep(&mut [], obs);
    }
    let waiting = 1 + usize::from(y_at.is_some());
    assert_eq!((k.busy, k.queue.len()), (0b1, waiting));
    assert_eq!(k.queue.overtaken(k.queue.entry(0), 0), 1024);
    k.pass = 2001;
    k.sweep(&mut [], obs);
    assert_eq!(k.busy, 0);
    k
}

/// The (handler, first, count) of the last `n` commands recorded.
fn last_records(k: &Kernel, n: usize) -> Vec<(u8, u32, u32)> {
    k.commands[k.commands.len() - n..]
        .iter()
        .map(|c| (c.handler, c.first, c.count))
        .collect()
}

/// After a starved head (S20): H is placed on cores 0..2, then the
/// exclusive job X (handler 4, 1 core) behind it, with no job ahead of it
/// waiting any more, on core 2.
#[test]
fn after_a_starved_head_an_exclusive_job_behind_it_is_placed() {
    let mut k = a_starved_head();
    k.host_enqueue(4, 1, [0; 10], flags::EXCLUSIVE).unwrap();
    k.queue_turn(&mut NoObserver);
    assert_eq!(k.queue.len(), 0);
    assert_eq!(last_records(&k, 2), [(2, 0, 2), (4, 2, 1)]);
}

/// After a starved head (S20): H is placed on cores 0..2; Y (handler 5,
/// 2 cores) does not fit in the core left and stays; Z (handler 6, 1 core)
/// behind it is placed on core 2. Y alone waits, at the head.
#[test]
fn after_a_starved_head_the_job_left_between_two_placed_stays() {
    let mut k = a_starved_head();
    k.host_enqueue(5, 2, [0; 10], 0).unwrap();
    k.host_enqueue(6, 1, [0; 10], 0).unwrap();
    k.queue_turn(&mut NoObserver);
    assert_eq!(last_records(&k, 2), [(2, 0, 2), (6, 2, 1)]);
    assert_eq!((k.queue.len(), k.queue.count(0)), (1, 2));
}

/// After a starved head (S20): H is placed on cores 0..2; Y (handler 5,
/// 2 cores) does not fit in the core left and stays; the exclusive job X
/// (handler 4, 1 core) would fit on core 2, but Y ahead of it is still
/// waiting, so it waits too. Only H is recorded; Y and X wait, in order.
#[test]
fn after_a_starved_head_an_exclusive_job_behind_a_waiting_one_waits() {
    let mut k = a_starved_head();
    let before = k.commands.len();
    k.host_enqueue(5, 2, [0; 10], 0).unwrap();
    k.host_enqueue(4, 1, [0; 10], flags::EXCLUSIVE).unwrap();
    k.queue_turn(&mut NoObserver);
    assert_eq!(k.commands.len(), before + 1);
    assert_eq!(last_records(&k, 1), [(2, 0, 2)]);
    assert_eq!(
        (k.queue.len(), k.queue.count(0), k.queue.count(1)),
        (2, 2, 1)
    );
}

/// After a starved head (S20), with Y queued in pass 2 (overtaken 1,022
/// times, below 1,024): H is placed on cores 0..2; Y does not fit in the
/// core left and, not blocking, lets the host's job Z (handler 6, 1 core)
/// behind it be placed on core 2 (Y overtaken once more, 1,023).
#[test]
fn after_a_starved_head_a_job_not_yet_starved_lets_the_next_be_placed() {
    let mut k = starved(Some(2));
    assert_eq!(k.queue.overtaken(k.queue.entry(1), 1), 1022);
    k.host_enqueue(6, 1, [0; 10], 0).unwrap();
    k.queue_turn(&mut NoObserver);
    assert_eq!(last_records(&k, 2), [(2, 0, 2), (6, 2, 1)]);
    assert_eq!((k.queue.len(), k.queue.count(0)), (1, 2));
    assert_eq!(k.queue.overtaken(k.queue.entry(0), 0), 1023);
}

/// Fifteen busy one-core groups, on cores 1, 3, ..., 29 (119 cores, the
/// default grid), leave sixteen free stretches: core 0, the fourteen
/// cores 2, 4, ..., 28 between them, and cores 30..119. A job of 40 cores
/// fits only in the last (S20: its group overlaps no busy one), so the
/// queue's turn places it there, on cores 30..70.
#[test]
fn a_job_fits_in_the_sixteenth_free_stretch() {
    let params = Params {
        delay: Delay::Fixed(100),
        ..Params::default()
    };
    let mut k = Kernel::new(&params);
    let obs = &mut NoObserver;
    for c in 0..15 {
        k.host_submit(1, 1 + 2 * c, 1, [0; 10], 0, 0, obs).unwrap();
    }
    k.host_enqueue(2, 40, [0; 10], 0).unwrap();
    k.queue_turn(obs);
    assert_eq!(last_records(&k, 1), [(2, 30, 40)]);
    assert_eq!(k.queue.len(), 0);
}
