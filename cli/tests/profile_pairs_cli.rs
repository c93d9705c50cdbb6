//! `kmst profile --pairs`: adjacent micro-ops over a set of files (their
//! `;@ params` taken), or by default over the corpus and the bundled
//! workloads; `--top`, `--json`, and the usage errors.

mod common;
use common::{counting_loop, kmst, kmst_at_root, s};

use serde_json::Value;

/// `set; (addi; jlt) x 100; halt` in one turn (budget 1,000): addi->jlt 100
/// times, jlt->addi 99, set->addi 1, jlt->halt 1.
fn counting_loop_100() -> String {
    counting_loop(100, r#"{"turn_budget": 1000}"#)
}

/// `set; (addi r1, r1, -1; jnz) x 5; halt`: 12 micro-ops in one turn,
/// 11 pairs (addi->jnz 5, jnz->addi 4, set->addi 1, jnz->halt 1).
const DOWN: &str = "
.stream max_steps=1000 seed=1
        set r1, 5
top:    addi r1, r1, -1
        jnz r1, top
        halt r1
";

#[test]
fn pairs_of_two_files_as_json() {
    let a = common::temp_in("pairs-cli", "", "loop.kms", counting_loop_100().as_bytes());
    let b = common::temp_in("pairs-cli", "", "down.kms", DOWN.as_bytes());
    let (code, out, err) = kmst(&["profile", "--pairs", s(&a), s(&b), "--top", "2", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    // 202 + (1 + 2 * 5 + 1) = 214 micro-ops; pairs 201 + 11.
    assert_eq!(v["micro_ops"], 214);
    assert_eq!(v["pairs"], 212);
    assert_eq!(v["sources"].as_array().unwrap().len(), 2);
    let top = v["top_pairs"].as_array().unwrap();
    assert_eq!(top.len(), 2);
    assert_eq!(top[0]["ops"], serde_json::json!(["addi", "jlt"]));
    assert_eq!(top[0]["count"], 100);
    assert_eq!(top[1]["ops"], serde_json::json!(["jlt", "addi"]));
    assert_eq!(top[1]["count"], 99);
    // The run flags apply over each file's own: budget 64 cuts three
    // addi->jlt pairs (tests/profile_pairs.rs in the harness).
    let (code, out, _) = kmst(&["profile", "--pairs", s(&a), "--turn-budget", "64", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let addi_jlt = v["top_pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ops"] == serde_json::json!(["addi", "jlt"]))
        .unwrap();
    assert_eq!(addi_jlt["count"], 97);
}

#[test]
fn the_default_set_is_the_corpus_and_the_bench_workloads() {
    let (code, text, err) = kmst_at_root(&["profile", "--pairs", "--top", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.starts_with("adjacent micro-ops executed within one turn: tail dispatch, "));
    // Three rows in each table.
    for rank in ["1 ", "2 ", "3 "] {
        assert_eq!(
            text.lines()
                .filter(|l| l.trim_start().starts_with(rank))
                .count(),
            2,
            "{text}"
        );
    }
    assert!(!text.lines().any(|l| l.trim_start().starts_with("4 ")));
    assert!(text.contains("bench:"), "{text}");
}

#[test]
fn several_files_without_pairs_are_profiled_each() {
    let a = common::temp_in("pairs-cli", "", "one.kms", counting_loop_100().as_bytes());
    let a = s(&a);
    // Each file's profile under its name (tests/jobs_cli.rs: in order,
    // whatever --jobs).
    let (code, out, err) = kmst(&["profile", a, a]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches(&format!("== {a}\n")).count(), 2, "{out}");
    // A trace is one file's.
    let (code, _, err) = kmst(&["profile", a, a, "--trace", "/tmp/kmst-never-written.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("one FILE"), "{err}");
    let (code, _, _) = kmst(&["profile", "--pairs", "--sweep", "1,2"]);
    assert_eq!(code, 2);
}
