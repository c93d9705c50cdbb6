//! What the messages say: counts with thousands separators and the right
//! noun for one, a file named once, the corpus summary naming what it
//! compared, `--pairs --json` naming its straight-line count and share, and
//! host commands that wait at the same time drawn side by side, not nested,
//! in the Perfetto trace.

mod common;
use common::{counting_loop, kmst, kmst_at_root, row, s, trace_events, workspace_file};

use serde_json::Value;

/// `set; (addi; jlt) x TIMES; halt`, in turns of up to 1,000 micro-ops.
fn budget_1000_loop(times: u32) -> String {
    counting_loop(times, r#"{"turn_budget": 1000}"#)
}

#[test]
fn profile_groups_thousands_and_counts_in_the_singular_for_one() {
    // `set r1, 600; (addi; jlt) x 600; halt`: 1 + 2 * 600 + 1 = 1,202
    // micro-ops. Budget 1,000: pass 0 runs 1,000 (a budget turn), pass 1 the
    // other 202 and halts: 2 passes, 2 turns.
    let long = budget_1000_loop(600);
    let file = common::temp_in("messages", "", "long.kms", long.as_bytes());
    let (code, out, err) = kmst(&["profile", s(&file)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("turn budget 1,000\n"), "{out}");
    assert!(out.contains("micro-ops     1,202\n"), "{out}");
    // No turn ran nothing: 0 of everything, in the plural.
    assert!(
        out.contains("ran nothing   0 passes: 0 turns of 0 micro-ops + 0 idle passes skipped"),
        "{out}"
    );
    // The turn lengths 202 and 1,000, one turn each.
    let thousand = row(&out, "1,000 ");
    assert_eq!(thousand.split_whitespace().nth(1), Some("1"), "{thousand}");

    // The sweep: budget 2,000 runs all 1,202 in one pass.
    let (code, out, err) = kmst(&["profile", s(&file), "--sweep", "1000,2000"]);
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
    let (code, _, err) = kmst_at_root(&["corpus", "check", "jobs_1000"]);
    assert_eq!(code, 0, "{err}");
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
        let (code, _, err) = kmst(&[command, s(&scenario)]);
        assert_eq!(code, 2, "{command}: {err}");
        assert_eq!(err.matches("frob.kms").count(), 1, "{command}: {err}");
        assert!(
            err.contains("frob.kms`: does not assemble: line 2, column 1"),
            "{err}"
        );
        assert!(!err.contains("cannot read"), "{err}");
    }
    // Through the corpus reader too (`kmst corpus check --scenario-dir`).
    let (code, _, err) =
        kmst_at_root(&["corpus", "check", "--scenario-dir", s(dir), "frob_scenario"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.matches("frob_scenario").count(), 1, "{err}");
    assert_eq!(err.matches("frob.kms").count(), 1, "{err}");
    assert!(
        err.contains("frob.kms`: does not assemble: line 2, column 1"),
        "{err}"
    );
}

#[test]
fn pairs_json_names_the_straight_count_and_share() {
    // `set; (addi; jlt) x 100; halt`: addi (pc 1) -> jlt (pc 2) 100 times,
    // all straight; jlt -> addi 99 times, all jumps back.
    let looped = budget_1000_loop(100);
    let file = common::temp_in("messages", "", "loop.kms", looped.as_bytes());
    let (code, out, err) = kmst(&["profile", "--pairs", s(&file), "--top", "2", "--json"]);
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
    let (_, out, _) = kmst(&["profile", "--pairs", s(&file), "--top", "2"]);
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
        s(&trace),
    ]);
    assert_eq!(code, 0, "{err}");
    let events = trace_events(&trace);
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
    let (code, out, err) = kmst(&["replay", "--target", "check", s(&one)]);
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
    let (code, out, err) = kmst(&["scenario", s(&file)]);
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
