//! `kmst profile SCENARIO.json`: the scenario profile from the command line
//! (`.kms` uploads assembled), its JSON, `--sweep`, `--trace`, and errors.
//! The scenario is the two-stream one of the harness's
//! tests/profile_scenario.rs, where every value below is worked out by hand.

mod common;
use common::{kmst, row, s, trace_events};

use std::path::PathBuf;

use serde_json::Value;

const A: &str = "
.stream max_steps=1000 seed=1 req=1
        submit handler=1, group=(0, 1)
        submit handler=1, group=(1, 1)
        wait 0
        halt r0
";

const B: &str = "
.stream max_steps=1000 seed=1 req=2
        set r1, 3
top:    addi r0, r0, 1
        jlt r0, r1, top
        halt r0
";

const SCENARIO: &str = r#"{"params": {"delay": 5, "core_count": 4},
 "uploads": [{"offset": 0, "file": "a.kms"}, {"offset": 1024, "file": "b.kms"}],
 "host": [{"pass": 0, "run": {"offset": 0}}, {"pass": 0, "run": {"offset": 1024}},
          {"pass": 1, "enqueue": {"handler": 2, "count": 3}}]}"#;

fn scenario(sub: &str) -> PathBuf {
    common::temp_in("profile-scenario-cli", sub, "a.kms", A.as_bytes());
    common::temp_in("profile-scenario-cli", sub, "b.kms", B.as_bytes());
    common::temp_in("profile-scenario-cli", sub, "two.json", SCENARIO.as_bytes())
}

#[test]
fn json_report_of_a_scenario() {
    let f = scenario("json");
    let (code, out, err) = kmst(&["profile", s(&f), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    // Stream 0 ends in pass 6 (passes 7); the host's job is acked in pass 12.
    assert_eq!(v["passes"], 7);
    assert_eq!(v["kernel_passes"], 13);
    assert_eq!(v["micro_ops"], 12);
    assert_eq!(v["streams"][0]["micro_ops"], 4);
    assert_eq!(v["streams"][1]["micro_ops"], 8);
    assert_eq!(v["streams"][1]["halt"], 3);
    assert_eq!(v["slots_by_source"][0]["slot_passes"], 12);
    assert_eq!(v["slots_by_source"][2]["source"], "host");
    assert_eq!(v["slots_by_source"][2]["slot_passes"], 6);
    assert_eq!(v["queue"]["max"], 1);
}

#[test]
fn human_report_has_a_column_per_stream() {
    let f = scenario("human");
    let (code, out, err) = kmst(&["profile", s(&f)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("scenario profile: tail dispatch, turn budget 64\n"),
        "{out}"
    );
    let cells = |label: &str| -> Vec<&str> { row(&out, label).split_whitespace().collect() };
    // The turns of 8 micro-ops: none of stream 0, one of stream 1.
    assert_eq!(cells("8 "), ["8", "0", "1"]);
    assert_eq!(cells("halt "), ["halt", "1", "1"]);
    // source, commands, queued, slot-passes, mean slots (12 / 13), max.
    assert_eq!(
        cells("stream 0 "),
        ["stream", "0", "2", "0", "12", "0.92", "2"]
    );
    assert_eq!(cells("host  "), ["host", "1", "1", "6", "0.46", "1"]);
    assert!(out.contains("queue depth at the end of a pass: mean 0.38, max 1"));
}

#[test]
fn sweep_and_budget_flags_apply_to_the_scenario() {
    let f = scenario("sweep");
    let (code, out, err) = kmst(&["profile", s(&f), "--sweep", "1,64", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let passes: Vec<u64> = v["sweep"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["passes"].as_u64().unwrap())
        .collect();
    assert_eq!(passes, [9, 7]);
    let (code, out, _) = kmst(&["profile", s(&f), "--budget", "1", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["turn_budget"].as_u64(), v["passes"].as_u64()),
        (Some(1), Some(9))
    );
    // --delay 0 over the file's 5: stream 0's commands are acked in pass 1.
    let (code, out, _) = kmst(&["profile", s(&f), "--delay", "0", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["slots_by_source"][0]["slot_passes"], 2);
}

#[test]
fn trace_of_a_scenario() {
    let f = scenario("trace");
    let t = f.with_file_name("trace.json");
    let (code, _, err) = kmst(&["profile", s(&f), "--trace", s(&t)]);
    assert_eq!(code, 0, "{err}");
    let events = trace_events(&t);
    let slot_names: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"].as_u64().is_some_and(|t| (100..116).contains(&t)))
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(slot_names, ["stream 0", "stream 0", "host"]);
}

#[test]
fn scenario_errors_exit_2_naming_the_entry() {
    let f = scenario("errors");
    let (code, _, err) = kmst(&["profile", s(&f), "--cancel-pass", "3"]);
    assert_eq!(code, 2);
    assert!(err.contains("cancel_pass"), "{err}");
    let bad = common::temp_in(
        "profile-scenario-cli",
        "errors",
        "bad.json",
        br#"{"uploads": [{"offset": 0, "file": "missing.kms"}]}"#,
    );
    let (code, _, err) = kmst(&["profile", s(&bad)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("uploads[0]") && err.contains("missing.kms"),
        "{err}"
    );
}
