//! What the messages say: counts with thousands separators and the right
//! noun for one, a file named once, the corpus summary naming what it
//! compared, `--pairs --json` naming its straight-line count and share, and
//! host commands that wait at the same time drawn side by side, not nested,
//! in the Perfetto trace.

mod common;
use common::{kmst, workspace_file};

use std::process::Command;

use serde_json::Value;

/// `set r1, 600; (addi; jlt) x 600; halt`: 1 + 2 * 600 + 1 = 1,202
/// micro-ops. Budget 1,000: pass 0 runs 1,000 (a budget turn), pass 1 the
/// other 202 and halts: 2 passes, 2 turns.
const LONG: &str = r#";@ params {"turn_budget": 1000}
.stream max_steps=100000 seed=1
        set r1, 600
top:    addi r0, r0, 1
        jlt r0, r1, top
        halt r2
"#;

#[test]
fn profile_groups_thousands_and_counts_in_the_singular_for_one() {
    let file = common::temp_in("messages", "", "long.kms", LONG.as_bytes());
    let (code, out, err) = kmst(&["profile", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("turn budget 1,000\n"), "{out}");
    assert!(out.contains("micro-ops     1,202\n"), "{out}");
    // No turn ran nothing: 0 of everything, in the plural.
    assert!(
        out.contains("ran nothing   0 passes: 0 turns of 0 micro-ops + 0 idle passes skipped"),
        "{out}"
    );
    // The turn lengths 202 and 1,000, one turn each.
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("1,000 "))
        .unwrap_or_else(|| panic!("no row for 1,000 micro-ops: {out}"));
    assert_eq!(row.split_whitespace().nth(1), Some("1"), "{row}");

    // The sweep: budget 2,000 runs all 1,202 in one pass.
    let (code, out, err) = kmst(&["profile", file.to_str().unwrap(), "--sweep", "1000,2000"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0][..6], ["1,000", "ended", "2", "2", "0", "1,202"]);
    assert_eq!(rows[1][..6], ["2,000", "ended", "1", "1", "0", "1,202"]);
}

#[test]
fn corpus_check_says_what_it_compared_and_counts_one_stream() {
    let out = Command::new(env!("CARGO_BIN_EXE_kmst"))
        .args(["corpus", "check", "jobs_1000"])
        .current_dir(workspace_file(""))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.starts_with("checked 1 stream: "), "{err}");
    // Every implementation by name, the reference model and each fast variant.
    for d in kmst::exec::Dispatch::ALL {
        assert!(
            err.contains(&format!(" {},", d.name())) || err.contains(&format!(" {}:", d.name())),
            "{err}"
        );
    }
    assert!(err.contains("reference"), "{err}");
    assert!(
        err.contains("`.bin`") && err.contains("`;@ expect`"),
        "{err}"
    );
    assert!(err.trim_end().ends_with(": it matches"), "{err}");
}

#[test]
fn an_upload_that_does_not_assemble_is_named_once() {
    let bad = common::temp_in(
        "messages",
        "named-once",
        "frob.kms",
        b".stream max_steps=1 seed=1\nfrob r0\n",
    );
    let dir = bad.parent().unwrap();
    let scenario = dir.join("frob_scenario.json");
    std::fs::write(
        &scenario,
        br#"{"uploads": [{"offset": 0, "file": "frob.kms"}]}"#,
    )
    .unwrap();
    for command in ["scenario", "profile", "compare"] {
        let (code, _, err) = kmst(&[command, scenario.to_str().unwrap()]);
        assert_eq!(code, 2, "{command}: {err}");
        assert_eq!(err.matches("frob.kms").count(), 1, "{command}: {err}");
        assert!(
            err.contains("frob.kms`: does not assemble: line 2, column 1"),
            "{err}"
        );
        assert!(!err.contains("cannot read"), "{err}");
    }
    // Through the corpus reader too (`kmst corpus check --scenario-dir`).
    let out = Command::new(env!("CARGO_BIN_EXE_kmst"))
        .args([
            "corpus",
            "check",
            "--scenario-dir",
            dir.to_str().unwrap(),
            "frob_scenario",
        ])
        .current_dir(workspace_file(""))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("frob_scenario").count(), 1, "{err}");
    assert_eq!(err.matches("frob.kms").count(), 1, "{err}");
    assert!(
        err.contains("frob.kms`: does not assemble: line 2, column 1"),
        "{err}"
    );
}

/// `set; (addi; jlt) x 100; halt`: addi (pc 1) -> jlt (pc 2) 100 times, all
/// straight; jlt -> addi 99 times, all jumps back.
const LOOP: &str = r#";@ params {"turn_budget": 1000}
.stream max_steps=100000 seed=1
        set r1, 100
top:    addi r0, r0, 1
        jlt r0, r1, top
        halt r2
"#;

#[test]
fn pairs_json_names_the_straight_count_and_share() {
    let file = common::temp_in("messages", "", "loop.kms", LOOP.as_bytes());
    let (code, out, err) = kmst(&[
        "profile",
        "--pairs",
        file.to_str().unwrap(),
        "--top",
        "2",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let top = &v["top_pairs"];
    assert_eq!(top[0]["ops"], serde_json::json!(["addi", "jlt"]));
    assert_eq!(
        (&top[0]["straight_count"], &top[0]["straight_share"]),
        (&Value::from(100), &Value::from(1.0))
    );
    assert_eq!(top[1]["ops"], serde_json::json!(["jlt", "addi"]));
    assert_eq!(
        (&top[1]["straight_count"], &top[1]["straight_share"]),
        (&Value::from(0), &Value::from(0.0))
    );
    assert!(top[0].get("straight").is_none(), "{out}");
    // The table prints the same share as a percentage.
    let (_, out, _) = kmst(&["profile", "--pairs", file.to_str().unwrap(), "--top", "2"]);
    let row = |ops: &str| {
        out.lines()
            .find(|l| l.contains(ops))
            .unwrap_or_else(|| panic!("{ops}: {out}"))
            .to_owned()
    };
    assert!(row("addi -> jlt").contains("100.0%"), "{out}");
    assert!(
        row("jlt -> addi").split_whitespace().any(|c| c == "0.0%"),
        "{out}"
    );
}

#[test]
fn host_commands_waiting_together_are_not_nested_in_the_trace() {
    // corpus/scenarios/host_submit_blocks_cancel: the run is taken in pass
    // 0; the submit and the cancel are both sent in pass 1 and both taken
    // in pass 4 (its expect.json works it out). Two commands waiting over
    // the same passes: two lanes, one slice each, none inside another.
    let trace = common::temp_in("messages", "", "host.trace.json", b"");
    let (code, _, err) = kmst(&[
        "profile",
        &workspace_file("corpus/scenarios/host_submit_blocks_cancel.json"),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let host_tids: Vec<u64> = events
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .filter(|e| {
            e["args"]["name"]
                .as_str()
                .unwrap()
                .starts_with("host commands")
        })
        .map(|e| e["tid"].as_u64().unwrap())
        .collect();
    assert_eq!(host_tids.len(), 2, "{host_tids:?}");
    let mut slices: Vec<(u64, f64, f64, String)> = events
        .iter()
        .filter(|e| e["ph"] == "X" && host_tids.contains(&e["tid"].as_u64().unwrap()))
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["ts"].as_f64().unwrap(),
                e["dur"].as_f64().unwrap(),
                e["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    slices.sort_by(|a, b| (a.0, a.1).partial_cmp(&(b.0, b.1)).unwrap());
    assert_eq!(slices.len(), 3, "{slices:?}");
    for w in slices.windows(2) {
        if w[0].0 == w[1].0 {
            assert!(w[0].1 + w[0].2 < w[1].1, "overlapping on one track: {w:?}");
        }
    }
    let tid_of = |name: &str| slices.iter().find(|s| s.3 == name).map(|s| s.0).unwrap();
    assert_ne!(tid_of("submit taken"), tid_of("cancel taken"));
    let submit = slices.iter().find(|s| s.3 == "submit taken").unwrap();
    assert_eq!((submit.1, submit.2), (1.0, 3.0));
}

#[test]
fn replay_counts_one_byte_in_the_singular() {
    // One byte: an upload too short for its header, which every
    // implementation's check rejects alike (`Reason::BadHeader`).
    let one = common::temp_in("messages", "", "one_byte", b"\x07");
    let (code, out, err) = kmst(&["replay", "--target", "check", one.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("one_byte (1 byte): every implementation agrees"),
        "{out}"
    );
}

#[test]
fn scenario_tables_group_passes_by_thousands() {
    // A CANCEL of an unknown req sent in pass 1,500: rejected in the pass
    // it is sent in (S26, `Reason::Cancelled`), nothing else runs.
    let file = common::temp_in(
        "messages",
        "",
        "late.json",
        br#"{"host": [{"pass": 1500, "cancel": 7}]}"#,
    );
    let (code, out, err) = kmst(&["scenario", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.contains("cancel 7")).expect(&out);
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "0",
            "1,500",
            "cancel",
            "7",
            "1,500",
            "rejected:",
            "reason",
            "10"
        ],
        "{out}"
    );
}
