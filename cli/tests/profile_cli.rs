//! `kmst profile` as a user runs it: the flags of `kmst run`, `--budget`,
//! `--sweep`, `--trace`, `--json`, and the exit codes.

mod common;
use common::{counting_loop, kmst, row, s, trace_events};

use std::path::PathBuf;

use serde_json::Value;

fn temp(name: &str, contents: &[u8]) -> PathBuf {
    common::temp_in("profile-cli", "", name, contents)
}

/// Two commands then WAIT 0 (pc 2) and HALT: with delay D both are acked
/// in pass 1 + D, and the stream halts there (passes = 2 + D).
const TWO: &str = "
.stream max_steps=1000 seed=1
        submit handler=1, group=(0, 1)
        submit handler=1, group=(1, 1)
        wait 0
        halt r0
";

/// 202 micro-ops, no waiting: passes = ceil(202 / budget).
fn counting_loop_100() -> String {
    counting_loop(100, "")
}

#[test]
fn json_report_takes_the_run_flags() {
    let f = temp("two.kms", TWO.as_bytes());
    let (code, out, err) = kmst(&["profile", s(&f), "--delay", "5", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    // Delay 5: acked in pass 6, halts there: 7 passes, 4 micro-ops.
    assert_eq!(v["passes"], 7);
    assert_eq!(v["micro_ops"], 4);
    assert_eq!(v["dispatch"], "tail");
    assert_eq!(v["turn_budget"], 64);
    assert_eq!(v["turns"]["ran_nothing"], 5);
    assert_eq!(v["slots"]["max"], 2);
    assert_eq!(v["slots"]["histogram"].as_array().unwrap().len(), 17);
    assert_eq!(v["pcs"][2]["text"], "wait 0");
    let ends = v["turns"]["ends"].as_array().unwrap();
    let names: Vec<&str> = ends.iter().map(|e| e["why"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "budget",
            "wait-slots",
            "wait-queue-full",
            "wait-exclusive",
            "wait",
            "halt-pending",
            "error",
            "halt"
        ]
    );
}

#[test]
fn human_report_has_the_tables() {
    let f = temp("loop.kms", counting_loop_100().as_bytes());
    // tail is in every build (the library tests run the other variants).
    let (code, out, err) = kmst(&["profile", s(&f), "--dispatch", "tail"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("profile: tail dispatch, turn budget 64"),
        "{out}"
    );
    assert!(out.contains("micro-ops per turn"));
    assert!(out.contains("why turns ended"));
    assert!(out.contains("busy slots at the end of a pass"));
    // Three full turns: the 64 row has 3 turns and the longest bar.
    let full = row(&out, "64 ");
    assert!(
        full.contains(" 3 ") && full.ends_with(&"#".repeat(40)),
        "{full}"
    );
    // The loop body is marked hottest.
    let body = out.lines().find(|l| l.ends_with("addi r0, r0, 1")).unwrap();
    assert!(body.trim_start().starts_with("*1"), "{body}");
}

#[test]
fn budget_and_sweep() {
    let f = temp("loop2.kms", counting_loop_100().as_bytes());
    let path = s(&f);
    // --budget 50: ceil(202 / 50) = 5 passes.
    let (code, out, _) = kmst(&["profile", path, "--budget", "50", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["turn_budget"].as_u64(), v["passes"].as_u64()),
        (Some(50), Some(5))
    );
    // The sweep: 1 -> 202, 101 -> 2, 64 -> 4.
    let (code, out, _) = kmst(&["profile", path, "--sweep", "1,101,64", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let rows: Vec<(u64, u64)> = v["sweep"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["turn_budget"].as_u64().unwrap(),
                r["passes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows, vec![(1, 202), (101, 2), (64, 4)]);
    let (code, out, _) = kmst(&["profile", "--sweep", "1,101", path]);
    assert_eq!(code, 0);
    assert!(out.lines().next().unwrap().contains("budget"));
    assert!(out.lines().nth(2).unwrap().contains("101"));
}

#[test]
fn trace_file_is_written() {
    let f = temp("two2.kms", TWO.as_bytes());
    let t = temp("two2.trace.json", b"");
    let (code, _, err) = kmst(&["profile", s(&f), "--delay", "1", "--trace", s(&t)]);
    assert_eq!(code, 0, "{err}");
    // Two commands, each from pass 0 to its ack in pass 0 + 1 + 1 = 2.
    let events = trace_events(&t);
    let slots: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"].as_u64().unwrap() >= 100)
        .collect();
    assert_eq!(slots.len(), 2);
    assert!(slots.iter().all(|s| s["ts"] == 0 && s["dur"] == 2));
}

#[test]
fn usage_errors_exit_2_and_a_rejected_upload_1() {
    let f = temp("two3.kms", TWO.as_bytes());
    let path = s(&f);
    let (code, _, err) = kmst(&["profile", path, "--dispatch", "reference"]);
    assert_eq!(code, 2);
    assert!(err.contains("tail"), "{err}");
    let (code, _, _) = kmst(&["profile", path, "--budget", "0"]);
    assert_eq!(code, 2);
    let (code, _, _) = kmst(&["profile", path, "--sweep", "4,0"]);
    assert_eq!(code, 2);
    let (code, _, _) = kmst(&["profile", path, "--dispatch", "fastest"]);
    assert_eq!(code, 2);
    let bad = temp("bad.kms", b".stream max_steps=10 seed=0\nhalt r0\n");
    // An upload the check rejects (seed 0, S1) is a verdict: exit 1.
    let (code, _, err) = kmst(&["profile", s(&bad)]);
    assert_eq!(code, 1);
    assert!(err.contains("check rejects"), "{err}");
}
