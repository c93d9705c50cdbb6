//! The Perfetto / Chrome trace-event file of a profiled run: valid JSON with
//! the trace-event fields, one slot slice per command from its submit pass
//! to its acknowledgement pass, and a turn slice per turn.

use kmst::asm::assemble;
use kmst::exec::Dispatch;
use kmst_harness::profile::{profile, trace};
use kmst_reference::{Delay, Params};
use serde_json::Value;

/// Seventeen commands, delay 2 (see profile_report.rs for the passes):
/// commands 0..=15 in pass 0 acked in pass 3; command 16 in pass 3 acked in pass 6.
const SEVENTEEN: &str = "
.stream max_steps=1000 seed=1
        set r1, 17
top:    submit handler=7, group=(r0, 1)
        addi r0, r0, 1
        jlt r0, r1, top
        wait 0
        halt r2
";

fn trace_of(src: &str, params: &Params) -> (kmst_harness::profile::Run, Value) {
    let upload = assemble(src).unwrap();
    let run = profile(&upload, params, Dispatch::Tail, true).unwrap();
    let mut bytes = Vec::new();
    trace::write(&run, &mut bytes).unwrap();
    let v: Value = serde_json::from_slice(&bytes).expect("the trace is JSON");
    (run, v)
}

fn events(v: &Value) -> &Vec<Value> {
    v["traceEvents"]
        .as_array()
        .expect("traceEvents is an array")
}

/// The default parameters with this delay.
fn delay(delay: Delay) -> Params {
    Params {
        delay,
        ..Params::default()
    }
}

#[test]
fn every_event_has_the_trace_event_fields() {
    let params = delay(Delay::Fixed(2));
    let (_, v) = trace_of(SEVENTEEN, &params);
    let evs = events(&v);
    assert!(!evs.is_empty());
    for e in evs {
        for key in ["ph", "ts", "pid", "tid", "name"] {
            assert!(e.get(key).is_some(), "{key} missing in {e}");
        }
        let ph = e["ph"].as_str().unwrap();
        assert!(["X", "C", "M"].contains(&ph), "{ph}");
        if ph == "X" {
            assert!(e["dur"].as_f64().unwrap() >= 0.0, "{e}");
            assert!(e["ts"].as_f64().unwrap() >= 0.0, "{e}");
        }
    }
}

#[test]
fn slot_slices_match_the_commands() {
    let params = delay(Delay::Fixed(2));
    let (run, v) = trace_of(SEVENTEEN, &params);
    let slices: Vec<&Value> = events(&v)
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"].as_u64().unwrap() >= 100)
        .collect();
    // One slice per command.
    assert_eq!(slices.len(), 17);
    assert_eq!(run.result.commands.len(), 17);
    for c in &run.result.commands {
        let s = slices
            .iter()
            .find(|s| s["args"]["sequence"] == c.sequence)
            .unwrap_or_else(|| panic!("no slice for command {}", c.sequence));
        // On its slot's track, from the submit pass for 1 + delay passes.
        assert_eq!(s["tid"].as_u64().unwrap(), 100 + u64::from(c.slot));
        assert_eq!(s["ts"].as_u64().unwrap(), c.pass_index);
        assert_eq!(s["dur"].as_u64().unwrap(), 3);
        assert_eq!(s["args"]["ack_pass"].as_u64().unwrap(), c.pass_index + 3);
        // Group (r0, 1) with r0 = the command's index: named by handler and group.
        let name = format!("h7 [{}, {})", c.sequence, c.sequence + 1);
        assert_eq!(s["name"], name.as_str());
    }
    // Worked out by hand: 0..=15 submitted in pass 0 on slots 0..=15,
    // the 17th in pass 3 on slot 0 (all freed by pass 3's sweep).
    let last = slices.iter().find(|s| s["args"]["sequence"] == 16).unwrap();
    assert_eq!(
        (last["ts"].as_u64(), last["tid"].as_u64()),
        (Some(3), Some(100))
    );
    let firsts = slices
        .iter()
        .filter(|s| s["ts"].as_u64() == Some(0))
        .count();
    assert_eq!(firsts, 16);
}

#[test]
fn turn_slices_are_sized_by_micro_ops() {
    // Budget 64: pass 0 runs 49 micro-ops then waits for a slot: a slice
    // of 49/64 of a pass named wait-slots; pass 3 runs 3 and waits (WAIT);
    // pass 6 runs 2 and halts.
    let params = delay(Delay::Fixed(2));
    let (_, v) = trace_of(SEVENTEEN, &params);
    let turns: Vec<(u64, f64, String)> = events(&v)
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == 1)
        .map(|e| {
            (
                e["ts"].as_u64().unwrap(),
                e["dur"].as_f64().unwrap(),
                e["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let at = |pass: u64| turns.iter().find(|t| t.0 == pass).cloned();
    assert_eq!(at(0), Some((0, 49.0 / 64.0, "wait-slots".to_owned())));
    assert_eq!(at(3), Some((3, 3.0 / 64.0, "wait".to_owned())));
    assert_eq!(at(6), Some((6, 2.0 / 64.0, "halt".to_owned())));
    // The busy-slots counter reads 16 after pass 0 and 1 after pass 3.
    let counter = |pass: u64| {
        events(&v)
            .iter()
            .find(|e| e["ph"] == "C" && e["name"] == "busy slots" && e["ts"] == pass)
            .map(|e| e["args"]["slots"].as_u64().unwrap())
    };
    assert_eq!(counter(0), Some(16));
    assert_eq!(counter(3), Some(1));
    assert_eq!(counter(6), Some(0));
}

#[test]
fn a_command_never_acknowledged_runs_to_the_end() {
    // Delay never, deadline 5 passes: the command of pass 0 is late in
    // pass 5 (S13: still busy after the sweep of 0 + 5); the grid stops,
    // the run ends in pass 5, and its slice runs from 0 to 6 (the end).
    let src = "
.stream max_steps=1000 seed=1
        submit handler=4, group=(0, 2)
        wait 0
        halt r0
";
    let params = Params {
        delay: Delay::Never,
        deadline_passes: Some(5),
        ..Params::default()
    };
    let (run, v) = trace_of(src, &params);
    assert!(run.result.stopped);
    let slot: Vec<&Value> = events(&v)
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == 100)
        .collect();
    assert_eq!(slot.len(), 1);
    assert_eq!(slot[0]["ts"], 0);
    assert_eq!(slot[0]["dur"], 6);
    assert_eq!(slot[0]["args"]["ack_pass"], Value::Null);
    assert!(
        slot[0]["name"]
            .as_str()
            .unwrap()
            .contains("never acknowledged")
    );
}
