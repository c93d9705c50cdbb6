//! `kmst run|scenario --stop-at-pass N --save STATE`, `kmst state` and
//! `kmst resume` (docs/pause.md): the state worked out from the corpus
//! stream's notes, the resumed answer the whole run's, and a bad snapshot
//! one line and exit 2.

mod common;
use common::{kmst_at_root, s, temp_in, workspace_file};

use serde_json::Value;

/// The corpus stream whose notes say pass by pass what it does: delay 2;
/// pass 0 submits three commands (slots 0..2) and queues jobs of 10, 11
/// and 9 cores, of which the 10 and the 9 are placed at once (slots 3 and
/// 4); the 11 waits until pass 3; HALT in pass 6.
const GAPS: &str = "corpus/streams/allocator_gaps.kms";

fn json(out: &str) -> Value {
    serde_json::from_str(out).expect("JSON")
}

/// A fresh path for a state file of `test`.
fn state_path(test: &str, name: &str) -> String {
    s(&temp_in(test, "", name, b"")).to_owned()
}

#[test]
fn the_state_before_pass_1_is_the_notes() {
    let st = state_path("state_notes", "gaps.state");
    let (code, out, err) = kmst_at_root(&["run", GAPS, "--stop-at-pass", "1", "--save", &st]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("paused before pass 1"), "{out}");
    let (code, out, err) = kmst_at_root(&["state", &st, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(
        (v["pass"].as_u64(), v["over"].as_bool()),
        (Some(1), Some(false))
    );
    let stream = &v["streams"][0];
    // SET r1..r3 are pc 0..2, the submits 3..5, the enqueues 6..8: WAIT 0 is 9.
    assert_eq!(stream["pc"], 9);
    assert_eq!(stream["regs"].as_array().unwrap()[1..4], [10, 11, 9]);
    assert_eq!(stream["standing"], "active");
    // Five commands in flight and the 11-core job queued (S18).
    assert_eq!(stream["pending"], 6);
    let slots = v["slots"].as_array().unwrap();
    assert_eq!(slots.len(), 5);
    // Submitted in pass 0 with delay 2: acknowledged in the sweep of pass 3 (S12).
    assert!(slots.iter().all(|s| s["ack"] == 3), "{slots:?}");
    let queue = v["queue"].as_array().unwrap();
    assert_eq!(queue.len(), 1);
    assert_eq!(
        (queue[0]["handler"].as_u64(), queue[0]["count"].as_u64()),
        (Some(3), Some(11))
    );
    let (code, out, _) = kmst_at_root(&["state", &st]);
    assert_eq!(code, 0);
    assert!(
        out.contains("paused before pass 1") && out.contains("slots:    5 busy"),
        "{out}"
    );
}

#[test]
fn resumed_anywhere_on_any_variant_the_answer_is_the_whole_runs() {
    let (code, whole, _) = kmst_at_root(&["run", GAPS, "--json"]);
    assert_eq!(code, 0);
    let st = state_path("resume_any", "a.state");
    let st2 = state_path("resume_any", "b.state");
    // 7 is past the last pass (the HALT's 6): the finished run is saved.
    for (stop, variant) in [
        (0, "switch"),
        (1, "subroutine"),
        (3, "tail"),
        (7, "switch"),
        (50, "tail"),
    ] {
        let (code, _, err) = kmst_at_root(&[
            "run",
            GAPS,
            "--stop-at-pass",
            &stop.to_string(),
            "--save",
            &st,
        ]);
        assert_eq!(code, 0, "{err}");
        let (code, out, err) = kmst_at_root(&["resume", &st, "--dispatch", variant, "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            json(&out),
            json(&whole),
            "stopped before {stop}, resumed on {variant}"
        );
    }
    // A second stop and save, then the rest.
    kmst_at_root(&["run", GAPS, "--stop-at-pass", "1", "--save", &st]);
    let (code, out, _) = kmst_at_root(&["resume", &st, "--stop-at-pass", "4", "--save", &st2]);
    assert_eq!(code, 0);
    assert!(out.contains("paused before pass 4"), "{out}");
    let (_, out, _) = kmst_at_root(&["resume", &st2, "--json"]);
    assert_eq!(json(&out), json(&whole));
    let (_, out, _) = kmst_at_root(&["state", &st]);
    assert!(out.contains("paused before pass 1"), "{out}");
}

#[test]
fn a_scenario_saved_and_resumed_answers_as_the_whole() {
    let file = workspace_file("corpus/scenario-examples/two_streams.json");
    let (code, whole, _) = kmst_at_root(&["scenario", &file, "--json"]);
    assert_eq!(code, 0);
    let st = state_path("scenario_resume", "s.state");
    for stop in [0, 1, 2, 5, 100] {
        let (code, _, err) = kmst_at_root(&[
            "scenario",
            &file,
            "--stop-at-pass",
            &stop.to_string(),
            "--save",
            &st,
        ]);
        assert_eq!(code, 0, "{err}");
        let (code, out, err) = kmst_at_root(&["resume", &st, "--dispatch", "subroutine", "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(json(&out), json(&whole), "stopped before {stop}");
    }
    // One file at a time with --save.
    let (code, _, err) = kmst_at_root(&[
        "scenario",
        &file,
        &file,
        "--stop-at-pass",
        "1",
        "--save",
        &st,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("one scenario file"), "{err}");
}

#[test]
fn a_bad_snapshot_is_one_line_and_exit_2() {
    let st = state_path("bad_state", "good.state");
    kmst_at_root(&["run", GAPS, "--stop-at-pass", "2", "--save", &st]);
    let good = std::fs::read(&st).unwrap();
    let mut cases: Vec<(String, Vec<u8>, &str)> = vec![
        ("cut".into(), good[..good.len() / 2].to_vec(), "checksum"),
        ("empty".into(), Vec::new(), "truncated"),
        (
            "not one".into(),
            b"{\"params\": {}}".to_vec(),
            "not a kmst snapshot",
        ),
    ];
    let mut flipped = good.clone();
    flipped[good.len() / 3] ^= 0x10;
    cases.push(("flipped".into(), flipped, "checksum"));
    let mut v2 = good.clone();
    v2[8] = 2;
    cases.push(("version 2".into(), v2, "format version 2"));
    for (what, bytes, says) in cases {
        let path = temp_in("bad_state", "", "bad.state", &bytes);
        for cmd in ["resume", "state"] {
            let (code, out, err) = kmst_at_root(&[cmd, s(&path)]);
            assert_eq!(code, 2, "{what}: {out}");
            assert_eq!(err.lines().count(), 1, "{what}: {err}");
            assert!(err.contains(says), "{what}: {err}");
        }
    }
    // The reference model cannot pause; --save needs --stop-at-pass.
    let (code, _, err) = kmst_at_root(&["resume", &st, "--dispatch", "reference"]);
    assert_eq!(code, 2);
    assert!(err.contains("reference"), "{err}");
    let (code, _, _) = kmst_at_root(&["run", GAPS, "--save", &st]);
    assert_eq!(code, 2);
}
