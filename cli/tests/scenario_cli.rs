//! `kmst scenario`: the S36 answer with `--json` (the same for every
//! dispatch, and the reference model's), `.kms` uploads assembled, the
//! tables, and exit 2 with one line for every kind of scenario error.

mod common;
use common::{kmst, s, temp_in};

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// EVENT r15, then HALT r0 (r0 = 0): 64 + 64 = 128 bytes.
fn event_then_halt(req: u32, seed: u32) -> String {
    format!(".stream max_steps=100 seed={seed} req={req}\nevent r15\nhalt r0\n")
}

/// Writes the rotation scenario into its own folder: A (req 1, seed 0xA) as
/// `.kms` at 0, B (req 2, seed 0xB) assembled to `.bin` at 1024, both RUN in
/// pass 0 without a length, and `cancel(9)` in pass 0.
fn rotation(test: &str) -> PathBuf {
    temp_in(test, "", "a.kms", event_then_halt(1, 0xA).as_bytes());
    let b = kmst::asm::assemble(&event_then_halt(2, 0xB)).unwrap();
    temp_in(test, "", "b.bin", &b);
    temp_in(
        test,
        "",
        "rotation.json",
        br#"{"params": {"turn_budget": 1},
             "uploads": [{"offset": 0, "file": "a.kms"}, {"offset": 1024, "file": "b.bin"}],
             "host": [{"pass": 0, "run": {"offset": 0}},
                      {"pass": 0, "run": {"offset": 1024}},
                      {"pass": 0, "cancel": 9}]}"#,
    )
}

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).expect("--json prints JSON")
}

/// The fast dispatch variants, each of which prints the reference
/// model's answer.
const FAST: [&str; 6] = [
    "tail",
    "switch",
    "threaded",
    "subroutine",
    "indirect",
    "loop_match",
];

/// `kmst scenario FILE --json` prints the reference model's answer under
/// every fast dispatch.
fn every_dispatch_prints_the_reference_answer(file: &Path) {
    let what = file.display();
    let (code, reference, err) = kmst(&["scenario", s(file), "--dispatch", "reference", "--json"]);
    assert_eq!(code, 0, "{what}: {err}");
    for d in FAST {
        let (code, out, err) = kmst(&["scenario", s(file), "--dispatch", d, "--json"]);
        assert_eq!(code, 0, "{what} {d}: {err}");
        assert_eq!(json_of(&out), json_of(&reference), "{what} {d}");
    }
}

#[test]
fn json_is_the_reference_answer_worked_out_by_hand() {
    let file = rotation("scenario-cli-json");
    let (code, out, err) = kmst(&["scenario", s(&file), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    // The reference model's answer of the same file.
    let scenario = kmst::scenario::read_file(&file).unwrap();
    let reference = kmst_reference::simulate_scenario(&scenario)
        .to_json_value()
        .unwrap();
    assert_eq!(v, reference);
    // By hand, S29 with budget 1 and submitters A, B, the queue: pass 0
    // starts at 0 % 3: A EVENT (aux 0xA = 10, r15 is the seed), B EVENT (11);
    // pass 1 starts at 1 % 3: B HALT, (Q), A HALT. passes = 1 + 1.
    assert_eq!(
        v["events"],
        json!([
            {"kind": 4, "req": 1, "auxiliary": 10, "pass_index": 0},
            {"kind": 4, "req": 2, "auxiliary": 11, "pass_index": 0},
            {"kind": 5, "req": 2, "auxiliary": 0, "pass_index": 1},
            {"kind": 5, "req": 1, "auxiliary": 0, "pass_index": 1},
        ])
    );
    // S36: each stream with its range (the length of the upload at its
    // offset); cancel(9) finds no stream with req 9: rejected, `Reason::Cancelled` (S34).
    assert_eq!(
        v["streams"],
        json!([
            {"req": 1, "offset": 0, "length": 128, "pass": 0, "status": "ended", "error": null, "halt": 0},
            {"req": 2, "offset": 1024, "length": 128, "pass": 0, "status": "ended", "error": null, "halt": 0},
        ])
    );
    assert_eq!(
        v["host"],
        json!([
            {"pass": 0, "outcome": "taken", "reason": null, "stream": 0},
            {"pass": 0, "outcome": "taken", "reason": null, "stream": 1},
            {"pass": 0, "outcome": "rejected", "reason": 10, "stream": null},
        ])
    );
    assert_eq!(
        (v["stopped"].clone(), v["passes"].clone()),
        (json!(false), json!(2))
    );
    assert!(v.get("check").is_none() && v["params"].get("cancel_pass").is_none());
}

#[test]
fn every_dispatch_gives_the_same_json() {
    let file = rotation("scenario-cli-dispatch");
    every_dispatch_prints_the_reference_answer(&file);
    let (code, _, err) = kmst(&["scenario", s(&file), "--dispatch", "fastest"]);
    assert_eq!(code, 2);
    assert!(err.contains("--dispatch"), "{err}");
}

#[test]
fn kms_uploads_are_assembled() {
    // The same stream as `.kms` text and as its assembled bytes gives the same
    // answer; the req in the answer is the one the assembler wrote (7).
    let test = "scenario-cli-kms";
    let text = event_then_halt(7, 3);
    temp_in(test, "", "s.kms", text.as_bytes());
    temp_in(test, "", "s.bin", &kmst::asm::assemble(&text).unwrap());
    let scenario = |file: &str| {
        format!(
            r#"{{"uploads": [{{"offset": 64, "file": "{file}"}}], "host": [{{"pass": 0, "run": {{"offset": 64}}}}]}}"#
        )
    };
    let kms = temp_in(test, "", "kms.json", scenario("s.kms").as_bytes());
    let bin = temp_in(test, "", "bin.json", scenario("s.bin").as_bytes());
    let (code, a, err) = kmst(&["scenario", s(&kms), "--json"]);
    assert_eq!(code, 0, "{err}");
    let (code, b, err) = kmst(&["scenario", s(&bin), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json_of(&a), json_of(&b));
    // Pass 0: EVENT (aux the seed 3), HALT (aux 0): passes 1.
    let v = json_of(&a);
    assert_eq!(v["streams"][0]["req"], 7);
    assert_eq!(v["streams"][0]["offset"], 64);
    assert_eq!(v["passes"], 1);
}

#[test]
fn the_tables() {
    // spin (req 7): `top: jmp top`, pc 0 for ever; cancel(7) in pass 2 ends it
    // with `Reason::Cancelled` at pc 0 (S34), whose micro-op is the JMP; a second RUN of
    // the same range in pass 1 is rejected (its range overlaps the active
    // stream's, S6, `Reason::BadHeader`), deadline(0) too (S31).
    let test = "scenario-cli-tables";
    temp_in(
        test,
        "",
        "spin.kms",
        b".stream max_steps=100000 seed=1 req=7\ntop: jmp top\n",
    );
    let file = temp_in(
        test,
        "",
        "s.json",
        br#"{"uploads": [{"offset": 0, "file": "spin.kms"}],
             "host": [{"pass": 0, "run": {"offset": 0}}, {"pass": 1, "run": {"offset": 0}},
                      {"pass": 1, "deadline": 0}, {"pass": 2, "cancel": 7},
                      {"pass": 2, "submit": {"handler": 3, "first": 0, "count": 2, "args": [5, 6], "exclusive": true}}]}"#,
    );
    let (code, out, err) = kmst(&["scenario", s(&file)]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let row = |start: &str| {
        lines
            .iter()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no row `{start}` in\n{out}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(lines[0], "streams: 1");
    assert_eq!(
        row("0  7"),
        "0 7 0..128 0 error reason 10 (cancelled) at pc 0: jmp @0 -"
    );
    assert!(out.contains("host commands: 5\n"), "{out}");
    assert_eq!(row("0  0"), "0 0 run 0, 128 0 taken: stream 0");
    assert_eq!(row("1  1     run"), "1 1 run 0, 128 1 rejected: reason 1");
    assert_eq!(row("2  1"), "2 1 deadline 0 1 rejected: reason 1");
    assert_eq!(row("3  2"), "3 2 cancel 7 2 taken");
    assert_eq!(
        row("4  2"),
        "4 2 submit handler=3 group=0+2 args=[5, 6] exclusive 2 taken"
    );
    // One command (the host's submit, S32); two events: the rejected RUN's
    // error in pass 1 (S28) and the cancel's in pass 2: passes = 2 + 1.
    for line in [
        "commands: 1",
        "events:   2",
        "stopped:  false",
        "passes:   3",
    ] {
        assert!(lines.contains(&line), "no `{line}` in\n{out}");
    }
}

#[test]
fn scenario_errors_exit_2_with_one_line() {
    let test = "scenario-cli-errors";
    temp_in(test, "", "u.bin", &[0u8; 128]);
    temp_in(
        test,
        "",
        "bad.kms",
        b".stream max_steps=1 seed=1\nfrob r1\n",
    );
    let cases: [(&str, &[u8], &[&str]); 7] = [
        ("not_json.json", b"{\"host\": [", &["scenario: not JSON"]),
        (
            "overlap.json",
            br#"{"uploads": [{"offset": 0, "file": "u.bin"}, {"offset": 64, "file": "u.bin"}]}"#,
            &["uploads[1]: `offset`: overlaps uploads[0]"],
        ),
        (
            "unknown_key.json",
            br#"{"host": [{"pass": 0, "cancel": 1, "colour": "red"}]}"#,
            &["host[0]: `colour`: unknown key"],
        ),
        (
            "missing_upload.json",
            br#"{"uploads": [{"offset": 0, "file": "gone.bin"}]}"#,
            &["uploads[0]: `file`: `", "gone.bin`: cannot be read"],
        ),
        (
            "bad_kms.json",
            br#"{"uploads": [{"offset": 0, "file": "bad.kms"}]}"#,
            &["uploads[0]: `file`", "bad.kms", "line 2, column 1"],
        ),
        (
            "cancel_pass.json",
            br#"{"params": {"cancel_pass": 3}}"#,
            &["params: `cancel_pass`"],
        ),
        (
            "no_length.json",
            br#"{"host": [{"pass": 0, "run": {"offset": 64}}]}"#,
            &["host[0]: `run.length`: no `length`"],
        ),
    ];
    for (name, text, wanted) in cases {
        let file = temp_in(test, "", name, text);
        for json in [false, true] {
            let mut args = vec!["scenario", s(&file)];
            if json {
                args.push("--json");
            }
            let (code, out, err) = kmst(&args);
            assert_eq!(code, 2, "{name}: {out}{err}");
            assert!(
                out.is_empty(),
                "{name}: nothing runs, nothing prints: {out}"
            );
            assert_eq!(err.lines().count(), 1, "{name}: {err}");
            assert!(
                err.starts_with("kmst: ") && err.contains(name),
                "{name}: {err}"
            );
            for w in wanted {
                assert!(err.contains(w), "{name}: `{w}` not in {err}");
            }
        }
    }
    // The scenario file itself missing.
    let gone = std::env::temp_dir().join("kmst-scenario-cli-no-such-file.json");
    let (code, _, err) = kmst(&["scenario", s(&gone)]);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
}

#[test]
fn help_explains() {
    let (code, out, _) = kmst(&["scenario", "--help"]);
    assert_eq!(code, 0);
    for word in [
        "--dispatch",
        "--json",
        "uploads",
        ".kms",
        "Exit status",
        "S36",
    ] {
        assert!(out.contains(word), "`{word}` not in\n{out}");
    }
}

#[test]
fn the_examples_run_alike_everywhere() {
    // corpus/scenario-examples/: each runs (exit 0) and every dispatch prints
    // the reference model's answer.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/scenario-examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        seen += 1;
        every_dispatch_prints_the_reference_answer(&path);
    }
    assert!(seen >= 3, "{seen} examples in {}", dir.display());
}
