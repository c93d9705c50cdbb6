//! `kmst_harness::profile::scenario`: the profile and the trace of a small
//! two-stream scenario, every value worked out by hand from S26..S36.
//!
//! The scenario (delay 5, core_count 4, budget 64):
//! - stream 0 (req 1) at offset 0: `submit (0,1); submit (1,1); wait 0; halt r0`;
//! - stream 1 (req 2) at offset 1024: `set r1, 3; top: addi; jlt top; halt r0`;
//! - host: `run` both in pass 0, `enqueue(handler 2, count 3)` in pass 1.
//!
//! Pass 0: both RUNs start (S28). Turns (S29, n = 2, first 0 % 3 = stream
//! 0): stream 0 submits seq 0 (slot 0) and seq 1 (slot 1), waits at pc 2
//! (2 micro-ops); stream 1 runs set + 3 * (addi, jlt) + halt = 8 and ends
//! (halt 3); the queue is empty. End of pass: 2 busy, queue 0.
//! Pass 1: the host's job joins the queue; the queue's turn finds no room
//! (core_count 4, count 3: first 0 or 1, both overlap [0, 2)); stream 0
//! waits (0). End: 2 busy, 1 queued.
//! Pass 2: the same: 2 busy, 1 queued. Passes 3, 4, 5: nothing can change
//! before the sweep of pass 0 + 1 + 5 = 6 (S12): stream 0 waits (0) and
//! the counts stay 2 and 1.
//! Pass 6: the sweep frees slots 0 and 1; n = 1, first 6 % 2 = stream 0:
//! wait goes on, halt r0 ends it (2 micro-ops); then the queue submits the
//! job: first 0, slot 0, seq 2, acknowledged in pass 6 + 1 + 5 = 12.
//! End: 1 busy, 0 queued. Passes 7..11: 1 busy. Pass 12: the sweep frees
//! it: 0 busy, the run ends (S35). 13 passes in all; `passes` = stream 0's
//! end event in pass 6, + 1 = 7.

mod common;

use kmst::exec::Dispatch;
use kmst_harness::profile::scenario::{self, ScenarioProfile};
use kmst_harness::profile::trace;
use kmst_reference::{HostCommand, Params, Scenario};
use serde_json::Value;

fn two_streams(budget: u32) -> Scenario {
    let mut s = common::two_streams(Params {
        delay: kmst::Delay::Fixed(5),
        core_count: 4,
        turn_budget: budget,
        ..Params::default()
    });
    s.push(
        1,
        HostCommand::Enqueue {
            handler: 2,
            count: 3,
            args: [0; 10],
            exclusive: false,
            result: false,
        },
    )
    .unwrap();
    s
}

fn profile_of(s: &Scenario, d: Dispatch) -> ScenarioProfile {
    scenario::profile(s, d).unwrap().profile
}

#[test]
fn the_turns_of_each_stream() {
    for &d in Dispatch::ALL {
        let p = profile_of(&two_streams(64), d);
        assert_eq!(p.passes, 7, "{d}");
        assert_eq!(p.kernel_passes, 13);
        assert!(!p.stopped);
        assert_eq!(p.commands, 3);
        assert_eq!(p.micro_ops, 2 + 8 + 2);
        assert_eq!(p.streams.len(), 2);

        let s0 = &p.streams[0];
        assert_eq!((s0.req, s0.offset, s0.start_pass), (1, 0, 0));
        assert_eq!((s0.status.as_str(), s0.halt), ("ended", Some(0)));
        assert_eq!(s0.micro_ops, 4);
        // Active in passes 0..=6: seven turns of the pass-by-pass model, two
        // of 2 micro-ops (passes 0 and 6), five of none (passes 1..=5).
        let t = &s0.turns;
        assert_eq!(t.taken + t.skipped, 7);
        assert_eq!(t.ran_nothing, 5);
        let two = t.ops_histogram.iter().find(|r| r.ops == 2).unwrap();
        assert_eq!(two.turns, 2);
        // Six of them wait at `wait 0`, the last halts.
        let wait = t.ends.iter().find(|e| e.why == "wait").unwrap();
        assert_eq!(wait.turns + wait.skipped, 6);
        let halt = t.ends.iter().find(|e| e.why == "halt").unwrap();
        assert_eq!((halt.turns, halt.skipped), (1, 0));
        // Passes 7..=12 have no turn of it.
        assert_eq!(t.without_turn, 6);

        let s1 = &p.streams[1];
        assert_eq!((s1.req, s1.offset, s1.halt), (2, 1024, Some(3)));
        assert_eq!(s1.micro_ops, 8);
        assert_eq!(s1.turns.taken, 1);
        assert_eq!(s1.turns.ops_histogram.len(), 1);
        assert_eq!(s1.turns.ops_histogram[0].ops, 8);
        assert_eq!(s1.turns.without_turn, 12);
    }
}

#[test]
fn slots_by_source_and_the_queue() {
    let p = profile_of(&two_streams(64), Dispatch::Tail);
    // Busy at the end of passes 0..=12: 2,2,2,2,2,2 (0..=5), 1 x 6 (6..=11), 0.
    assert_eq!(p.slots.max, 2);
    assert_eq!(p.slots.histogram[..3], [1, 6, 6]);
    assert!((p.slots.mean - 18.0 / 13.0).abs() < 1e-12);
    // Stream 0's two commands hold slots at the end of passes 0..=5: 2 x 6.
    // The host's job holds slot 0 at the end of passes 6..=11: 6.
    let by: Vec<(&str, u64, u64, u64, u32)> = p
        .slots_by_source
        .iter()
        .map(|r| {
            (
                r.source.as_str(),
                r.commands,
                r.queued,
                r.slot_passes,
                r.max,
            )
        })
        .collect();
    assert_eq!(
        by,
        [
            ("stream 0", 2, 0, 12, 2),
            ("stream 1", 0, 0, 0, 0),
            ("host", 1, 1, 6, 1)
        ]
    );
    let total: f64 = p.slots_by_source.iter().map(|r| r.mean).sum();
    assert!((total - p.slots.mean).abs() < 1e-12);
    // One job waits at the end of passes 1..=5.
    assert_eq!(p.queue.max, 1);
    assert!((p.queue.mean - 5.0 / 13.0).abs() < 1e-12);
    let run = p.host.iter().find(|h| h.kind == "run").unwrap();
    assert_eq!((run.sent, run.taken), (2, 2));
    let enqueue = p.host.iter().find(|h| h.kind == "enqueue").unwrap();
    assert_eq!((enqueue.sent, enqueue.taken), (1, 1));
}

#[test]
fn a_sweep_runs_the_whole_scenario_per_budget() {
    let rows = scenario::sweep(&two_streams(64), Dispatch::Tail, &[1, 64]).unwrap();
    assert_eq!(rows.len(), 2);
    // Budget 64: as above.
    assert_eq!(
        (rows[1].turn_budget, rows[1].passes, rows[1].micro_ops),
        (64, 7, 12)
    );
    // Budget 1: pass 0: stream 0 submits seq 0, stream 1 sets r1; pass 1
    // (first 1 % 3 = stream 1): addi, then stream 0 submits seq 1 (ack in
    // 1 + 6 = 7), the job joins in pass 1 but finds no room. Stream 1 needs
    // 8 turns: passes 0..=7, halting in pass 7. Stream 0 waits until
    // pass 7's sweep, then one micro-op per pass: wait (pass 7), halt
    // (pass 8): passes = 9.
    assert_eq!(
        (rows[0].turn_budget, rows[0].passes, rows[0].micro_ops),
        (1, 9, 12)
    );
    assert_eq!(rows[0].statuses, ["ended", "ended"]);
}

#[test]
fn the_trace_has_a_track_per_stream_the_host_and_each_slot() {
    let mut out = Vec::new();
    let (run, end) =
        trace::profile_scenario_traced(&two_streams(64), Dispatch::Tail, &mut out, u64::MAX)
            .unwrap();
    assert_eq!(end.limited_at, None);
    assert_eq!(run.profile, profile_of(&two_streams(64), Dispatch::Tail));
    let v: Value = serde_json::from_slice(&out).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let names: Vec<(u64, &str)> = events
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["args"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    for want in [
        (1000, "stream 0"),
        (1001, "stream 1"),
        (1, "host commands"),
        (100, "slot 0"),
        (101, "slot 1"),
    ] {
        assert!(names.contains(&want), "{want:?} in {names:?}");
    }
    let slices = |tid: u64| -> Vec<(u64, f64, String)> {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["tid"] == tid)
            .map(|e| {
                (
                    e["ts"].as_u64().unwrap(),
                    e["dur"].as_f64().unwrap(),
                    e["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    // Slot 0: stream 0's seq 0 from pass 0 to 6, the host's job from 6 to 12.
    assert_eq!(
        slices(100),
        [(0, 6.0, "stream 0".to_owned()), (6, 6.0, "host".to_owned())]
    );
    assert_eq!(slices(101), [(0, 6.0, "stream 0".to_owned())]);
    // Stream 1: one turn of 8 micro-ops of 64, ended by halt.
    assert_eq!(slices(1001), [(0, 0.125, "halt".to_owned())]);
    // Stream 0: 2 micro-ops in pass 0 and pass 6; the passes in between are
    // turns of 0 or skipped, waiting; together they cover passes 1..=5.
    let s0 = slices(1000);
    assert_eq!(s0.first().unwrap(), &(0, 2.0 / 64.0, "wait".to_owned()));
    assert_eq!(s0.last().unwrap(), &(6, 2.0 / 64.0, "halt".to_owned()));
    let between: f64 = s0[1..s0.len() - 1]
        .iter()
        .map(|(_, dur, name)| {
            if name.starts_with("skipped") {
                *dur
            } else {
                1.0
            }
        })
        .sum();
    assert_eq!(between, 5.0);
    // The host: two RUNs in pass 0 (streams 0 and 1), the enqueue in pass 1.
    // The second RUN is taken in the same pass as the first: on one track
    // it would be drawn inside it, so it goes on a second lane; the
    // enqueue, a pass later, finds the first lane free again.
    assert!(
        names.contains(&(2_000_000, "host commands (lane 2)")),
        "{names:?}"
    );
    assert_eq!(
        slices(1),
        [
            (0, 0.0, "run: stream 0".to_owned()),
            (1, 0.0, "enqueue taken".to_owned())
        ]
    );
    assert_eq!(slices(2_000_000), [(0, 0.0, "run: stream 1".to_owned())]);
    // The counters are written together when either changes: (busy, queue)
    // is (2, 0) after pass 0, (2, 1) from pass 1, (1, 0) from pass 6, (0, 0)
    // in pass 12; so the queue depth reads 0, 1, 0, 0.
    let depth: Vec<(u64, u64)> = events
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == "queue depth")
        .map(|e| {
            (
                e["ts"].as_u64().unwrap(),
                e["args"]["jobs"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(depth, [(0, 0), (1, 1), (6, 0), (12, 0)]);
    assert_eq!(v["otherData"]["streams"], 2);
}

#[test]
fn a_limited_scenario_trace_is_still_json() {
    let mut out = Vec::new();
    let (_, end) =
        trace::profile_scenario_traced(&two_streams(1), Dispatch::Tail, &mut out, 1024).unwrap();
    assert!(out.len() <= 1024, "{}", out.len());
    assert!(end.limited_at.is_some());
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(v["otherData"]["truncated"].as_str().is_some());
}
