//! Snapshots refused, and where a run stops. Each bad snapshot is one
//! clear [`SnapshotError`]: never a panic, never a machine that runs out
//! of range.

use super::snapshot::{self, VERSION};
use super::*;
use crate::builder::Stream;
use crate::types::{Delay, kind};

/// `n` rounds of a SUBMIT (delay 3) and an EVENT of the round, then WAIT
/// 0 and HALT: events in passes the test can work out.
fn rounds(n: i64) -> Vec<u8> {
    let mut s = Stream::new(0, 10_000, 1, 5).unwrap();
    let i = s.registers(1).unwrap()[0];
    s.set(i, n).unwrap();
    let top = s.label();
    s.submit(2, (0.into(), 4.into()), &[i.into()], false, false)
        .unwrap();
    s.wait(0).unwrap();
    s.event(i);
    s.addi(i, i, -1).unwrap();
    s.jnz(i, top);
    s.halt(i);
    s.encode().unwrap()
}

fn params() -> Params {
    Params {
        delay: Delay::Fixed(3),
        ..Params::default()
    }
}

/// A run stopped before pass 5 of `rounds(3)`.
fn paused() -> Resumable {
    let mut r = Resumable::new(&rounds(3), &params());
    assert_eq!(r.run(Dispatch::default(), Until::Pass(5)), Some(5));
    r
}

/// The submit of round k is in pass 4k (S12: acknowledged in the sweep of
/// pass 4k + 4, after a delay of 3), its WAIT and EVENT in pass 4k + 4:
/// each `Until::Event` stops before the pass after an event.
#[test]
fn until_an_event_stops_after_its_pass() {
    let mut r = Resumable::new(&rounds(3), &params());
    let mut stops = Vec::new();
    while let Some(p) = r.run(Dispatch::default(), Until::Event) {
        stops.push(p);
        let state = r.state();
        let last = state.events.last().expect("an event");
        assert_eq!(last.pass_index + 1, p);
    }
    assert_eq!(stops, [5, 9]);
    let Answer::Stream(a) = r.into_answer() else {
        panic!("one stream")
    };
    let kinds: Vec<(u8, u32, u64)> = a
        .events
        .iter()
        .map(|e| (e.kind, e.auxiliary, e.pass_index))
        .collect();
    assert_eq!(
        kinds,
        [
            (kind::STREAM, 3, 4),
            (kind::STREAM, 2, 8),
            (kind::STREAM, 1, 12),
            (kind::STREAM_END, 0, 12)
        ]
    );
}

/// `Until::Passes` counts from where the run stands; the state names the
/// stream's pc, its command in flight and the pass.
#[test]
fn until_passes_counts_from_here_and_the_state_shows_the_slot() {
    let mut r = paused();
    assert_eq!(r.run(Dispatch::default(), Until::Passes(1)), Some(6));
    let s = r.state();
    assert_eq!((s.pass, s.over), (6, false));
    // Round 2's SUBMIT in pass 4 (its WAIT holds until pass 8's sweep).
    assert_eq!(s.slots.len(), 1);
    let slot = s.slots[0];
    assert_eq!((slot.slot, slot.sequence, slot.ack), (0, 1, Some(8)));
    assert_eq!(slot.owner, Some(0));
    assert_eq!(s.streams[0].regs[0], 2);
    assert_eq!(s.streams[0].pending, 1);
    assert_eq!(s.commands.len(), 2);
}

fn fix_checksum(bytes: &mut [u8]) {
    let n = bytes.len() - 8;
    let sum = bytes::checksum(&bytes[..n]);
    bytes[n..].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn every_cut_and_every_flipped_byte_is_refused() {
    let bytes = paused().snapshot().unwrap();
    for n in 0..bytes.len() {
        let e = Resumable::restore(&bytes[..n]).err().expect("refused");
        // Under the frame (magic, version, checksum: 20 bytes) a cut is
        // truncated; from it on its checksum does not match.
        let want = if n < 20 {
            SnapshotError::Truncated
        } else {
            SnapshotError::Checksum
        };
        assert_eq!(e, want, "cut at {n}");
    }
    for at in 0..bytes.len() {
        let mut b = bytes.clone();
        b[at] ^= 0x40;
        assert!(Resumable::restore(&b).is_err(), "byte {at} flipped");
    }
    let mut b = bytes.clone();
    b[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
    fix_checksum(&mut b);
    assert_eq!(
        Resumable::restore(&b).err(),
        Some(SnapshotError::Version {
            found: VERSION + 1,
            reads: VERSION
        })
    );
    assert_eq!(
        Resumable::restore(b"PNG\x89...").err(),
        Some(SnapshotError::NotASnapshot)
    );
}

#[test]
fn another_upload_or_none_is_refused() {
    let r = paused();
    let bare = r.snapshot_without_input().unwrap();
    assert_eq!(
        Resumable::restore(&bare).err(),
        Some(SnapshotError::NoInput)
    );
    assert_eq!(
        Resumable::restore_upload(&bare, &rounds(4)).err(),
        Some(SnapshotError::OtherInput)
    );
    let scenario = crate::types::Scenario::one_run(&rounds(3), &params()).unwrap();
    assert!(matches!(
        Resumable::restore_scenario(&bare, &scenario).err(),
        Some(SnapshotError::Kind { .. })
    ));
    let mut back = Resumable::restore_upload(&bare, &rounds(3)).unwrap();
    back.run(Dispatch::default(), Until::End);
    let whole = crate::exec::simulate(&rounds(3), &params(), Dispatch::default());
    assert_eq!(back.into_answer(), Answer::Stream(whole));
}

#[test]
fn a_closure_model_cannot_be_saved() {
    let p = Params {
        delay: Delay::Custom(std::sync::Arc::new(|_| Some(1))),
        ..params()
    };
    let r = Resumable::new(&rounds(1), &p);
    assert_eq!(
        r.snapshot().err(),
        Some(SnapshotError::Custom { model: "delay" })
    );
}

/// `parts` of the paused run changed by `change`, written and restored.
fn restored_with(change: impl FnOnce(&mut crate::exec::machine::Parts)) -> SnapshotError {
    let r = paused();
    let mut parts = r.machine.parts();
    change(&mut parts);
    let bytes = snapshot::write(r.params(), &r.input, &parts, true).unwrap();
    Resumable::restore(&bytes).err().expect("refused")
}

fn says(e: SnapshotError, what: &str) {
    let text = e.to_string();
    assert!(
        matches!(e, SnapshotError::Invalid(_)) && text.contains(what),
        "{text}"
    );
}

#[test]
fn fields_out_of_range_are_refused() {
    // rounds(3) has 7 micro-ops (SET in the prologue, S8): pc 8 is past them.
    says(restored_with(|p| p.streams[0].meta.pc = 8), "pc 8");
    says(restored_with(|p| p.streams[0].meta.steps = 10_001), "steps");
    says(restored_with(|p| p.kernel.slots[0].0 = 16), "slot 16");
    says(
        restored_with(|p| p.kernel.slots.push(p.kernel.slots[0])),
        "twice",
    );
    says(restored_with(|p| p.kernel.slots[0].1.owner = 1), "owner 1");
    says(restored_with(|p| p.kernel.slots[0].1.seq = 9), "command 9");
    // Paused before pass 5: an ack or a deadline before it cannot be.
    says(
        restored_with(|p| p.kernel.slots[0].1.ack = 4),
        "before pass 5",
    );
    says(
        restored_with(|p| p.kernel.slots[0].1.deadline = 4),
        "before pass 5",
    );
    says(restored_with(|p| p.kernel.delay_at = 1), "position 1");
    says(restored_with(|p| p.streams.push(p.streams[0])), "2 streams");
    says(
        restored_with(|p| p.resume_at = Some(1_000_000)),
        "pass 1000000",
    );
    says(restored_with(|p| p.host_next = 1), "host commands");
    says(restored_with(|p| p.streams.clear()), "0 streams");
    says(restored_with(|p| p.pass = 3), "from pass 5");
    says(
        restored_with(|p| p.outcomes.push(crate::types::HostOutcome::WAITING)),
        "host commands",
    );
    let job = (crate::exec::kernel::Job::default(), 0);
    says(restored_with(|p| p.kernel.jobs = vec![job; 65]), "65 jobs");
    says(
        restored_with(|p| p.kernel.jobs = vec![(job.0, 1 << 41)]),
        "overtaken",
    );
    // The most overtakes a snapshot takes is 2^40.
    let r = paused();
    let mut parts = r.machine.parts();
    parts.kernel.jobs = vec![(job.0, 1 << 40)];
    let bytes = snapshot::write(r.params(), &r.input, &parts, true).unwrap();
    assert!(Resumable::restore(&bytes).is_ok());
}

/// A paused run restored exactly: the same state, the same bytes again,
/// and detached the same state and bytes.
#[test]
fn a_snapshot_restores_the_same_state() {
    let r = paused();
    assert_eq!(r.resume_at(), Some(5));
    assert_eq!(
        (r.input_upload(), r.is_scenario()),
        (Some(&rounds(3)[..]), false)
    );
    assert!(r.input_scenario().is_none());
    let bytes = r.snapshot().unwrap();
    let back = Resumable::restore(&bytes).unwrap();
    assert_eq!(back.state(), r.state());
    assert_eq!(back.snapshot().unwrap(), bytes);
    let detached = back.detach();
    assert_eq!(detached.state(), r.state());
    assert_eq!(detached.snapshot().unwrap(), bytes);
}

/// Core count 100, one command holding cores 0..50 for ever; jobs of 60
/// and 70 cores queued (neither fits, S20), then two of 1 core, each
/// placed past both: the two wait, each overtaken twice. A scenario with a
/// host command still to come: its state and snapshot come back whole.
#[test]
fn a_queue_and_a_host_come_back_whole() {
    let mut s = Stream::new(0, 10_000, 1, 4).unwrap();
    let r = s.registers(1).unwrap()[0];
    s.submit(1, (0.into(), 50.into()), &[], false, false)
        .unwrap();
    for cores in [60, 70, 1, 1] {
        s.enqueue(2, cores.into(), &[r.into()], false, false)
            .unwrap();
    }
    s.wait(0).unwrap();
    s.halt(r);
    let params = Params {
        delay: Delay::Never,
        core_count: 100,
        max_passes: 50,
        ..Params::default()
    };
    let mut b = crate::scenario::ScenarioBuilder::new(params).unwrap();
    b.place_stream(0, &s).unwrap();
    b.run(0, 0).unwrap();
    // A host command on cores 90..100 in pass 1: a slot of the host's.
    b.submit(1, 9, (90, 10), &[], false, false).unwrap();
    b.deadline(30, 7).unwrap();
    let scenario = b.build();
    let mut run = Resumable::scenario(&scenario);
    assert_eq!(run.run(Dispatch::default(), Until::Pass(3)), Some(3));
    assert!(run.is_scenario() && run.input_scenario() == Some(&scenario));
    let state = run.state();
    let queued: Vec<(u32, u64)> = state
        .queue
        .iter()
        .map(|j| (j.command.count, j.overtaken))
        .collect();
    assert_eq!(queued, [(60, 2), (70, 2)]);
    assert_eq!(state.host_waiting.len(), 1);
    assert_eq!(state.host_waiting[0].0, 2);
    let owners: Vec<Option<usize>> = state.slots.iter().map(|s| s.owner).collect();
    // Slots 0 (cores 0..50), 1 and 2 (the 1-core jobs) the stream's, 3 the host's.
    assert_eq!(owners, [Some(0), Some(0), Some(0), None]);
    let bytes = run.snapshot().unwrap();
    let back = Resumable::restore(&bytes).unwrap();
    assert_eq!(back.state(), state);
    assert_eq!(back.detach().snapshot().unwrap(), bytes);
}

/// A detached run is plain data another thread can take, and goes on
/// where it stood.
#[test]
fn a_detached_run_goes_on_in_another_thread() {
    let detached = paused().detach();
    let answer = std::thread::spawn(move || {
        let mut r = detached.attach();
        r.run(Dispatch::default(), Until::End);
        r.into_answer()
    })
    .join()
    .unwrap();
    let whole = crate::exec::simulate(&rounds(3), &params(), Dispatch::default());
    assert_eq!(answer, Answer::Stream(whole));
}

/// An upload the check rejects is a run over before pass 0 (P1): its
/// snapshot restores, and detaches, to the check's one error event.
#[test]
fn a_rejected_upload_is_over_and_saves() {
    let mut upload = rounds(1);
    upload[0] ^= 1; // the magic (S2)
    let r = Resumable::new(&upload, &params());
    assert_eq!(r.resume_at(), None);
    let whole = crate::exec::simulate(&upload, &params(), Dispatch::default());
    let back = Resumable::restore(&r.snapshot().unwrap()).unwrap();
    assert_eq!(back.into_answer(), Answer::Stream(whole.clone()));
    let mut again = r.detach().attach();
    assert_eq!(again.run(Dispatch::default(), Until::End), None);
    assert_eq!(again.into_answer(), Answer::Stream(whole));
}

/// A cycle of delays (S23) goes on where it stood: each round's SUBMIT
/// waits for the one before, so a cycle started again would move every
/// later round's pass.
#[test]
fn a_delay_cycle_goes_on_where_it_stood() {
    let params = Params {
        delay: Delay::Cycle { base: 0, modulo: 3 },
        ..params()
    };
    let whole = crate::exec::simulate(&rounds(5), &params, Dispatch::default());
    for cut in 1..12 {
        let mut r = Resumable::new(&rounds(5), &params);
        r.run(Dispatch::default(), Until::Pass(cut));
        let mut back = Resumable::restore(&r.snapshot().unwrap()).unwrap();
        back.run(Dispatch::default(), Until::End);
        assert_eq!(
            back.into_answer(),
            Answer::Stream(whole.clone()),
            "cut {cut}"
        );
    }
}

/// A run of an upload the check rejects cannot go on from a pass.
#[test]
fn a_rejected_upload_never_goes_on() {
    let mut upload = rounds(1);
    upload[0] ^= 1;
    let r = Resumable::new(&upload, &params());
    let mut parts = r.machine.parts();
    parts.resume_at = Some(0);
    let bytes = snapshot::write(r.params(), &r.input, &parts, true).unwrap();
    says(
        Resumable::restore(&bytes).err().expect("refused"),
        "from pass 0",
    );
}
