//! The scenario file and the answer (S36): what the reader accepts, every
//! error naming its entry and field, and the answer's JSON worked out by hand.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::Up;
use common::answers::run;
use kmst_reference::scenario::json::{from_json, read_file};
use kmst_reference::{
    Entry, HostCommand, Params, Problem, Scenario, ScenarioError, ScenarioResult, simulate_scenario,
};
use serde_json::json;

/// HALT r0 with this req (128 bytes).
fn halt(req: u32) -> Vec<u8> {
    let mut u = Up::new();
    u.req = req;
    u.halt(0);
    u.bytes()
}

/// Reads `text` as the file `dir/scenario.json`, with uploads from `files`
/// (keyed by the path the loader is given).
fn read(text: &str, files: &[(&str, Vec<u8>)]) -> Result<Scenario, ScenarioError> {
    let files: HashMap<PathBuf, Vec<u8>> = files
        .iter()
        .map(|(p, b)| (PathBuf::from(p), b.clone()))
        .collect();
    from_json(text, Path::new("dir/scenario.json"), &mut |p: &Path| {
        files
            .get(p)
            .cloned()
            .ok_or_else(|| "no such file".to_string())
    })
}

fn error_of(text: &str) -> (Entry, String, Problem) {
    match read(text, &[("dir/a.bin", halt(1)), ("dir/b.bin", halt(2))]) {
        Err(e) => (e.entry, e.field, e.problem),
        Ok(s) => panic!("accepted {text}: {s:?}"),
    }
}

#[test]
fn a_whole_file() {
    // Uploads relative to the scenario's folder; a run without length takes
    // the placed upload's (128); args padded with 0; exclusive and result
    // default to false; a handler of 0 is read (a run-time rejection, S32).
    let text = r#"{
        "params": {"core_count": 8, "delay": 1},
        "uploads": [{"offset": 0, "file": "a.bin"}, {"offset": 1024, "file": "b.bin"}],
        "host": [
            {"pass": 0, "run": {"offset": 0}},
            {"pass": 0, "run": {"offset": 1024, "length": 64}},
            {"pass": 1, "cancel": 2},
            {"pass": 1, "deadline": 5},
            {"pass": 2, "submit": {"handler": 0, "first": 1, "count": 2, "args": [7, 8]}},
            {"pass": 2, "enqueue": {"handler": 3, "count": 4, "exclusive": true, "result": true}}
        ]
    }"#;
    let s = read(text, &[("dir/a.bin", halt(1)), ("dir/b.bin", halt(2))]).unwrap();
    assert_eq!(s.params().core_count, 8);
    assert_eq!(s.uploads().len(), 2);
    assert_eq!(
        (s.uploads()[1].offset, &s.uploads()[1].bytes),
        (1024, &halt(2))
    );
    let mut args = [0; 10];
    args[0] = 7;
    args[1] = 8;
    let host: Vec<(u64, HostCommand)> = s.host().iter().map(|h| (h.pass, h.command)).collect();
    assert_eq!(
        host,
        vec![
            (0, run(0, 128)),
            (0, run(1024, 64)),
            (1, HostCommand::Cancel { req: 2 }),
            (1, HostCommand::Deadline { us: 5 }),
            (
                2,
                HostCommand::Submit {
                    handler: 0,
                    first: 1,
                    count: 2,
                    args,
                    exclusive: false,
                    result: false
                }
            ),
            (
                2,
                HostCommand::Enqueue {
                    handler: 3,
                    count: 4,
                    args: [0; 10],
                    exclusive: true,
                    result: true
                }
            ),
        ]
    );
    // Each part may be left out (P7).
    let empty = read("{}", &[]).unwrap();
    assert_eq!(empty.params(), &Params::default());
    assert!(empty.uploads().is_empty() && empty.host().is_empty());
}

#[test]
fn every_error_names_its_entry_and_field() {
    use Entry::*;
    let u = |f: &str| f.to_string();
    let cases: Vec<(&str, (Entry, String, Problem))> = vec![
        (r#"{"hosts": []}"#, (File, u("hosts"), Problem::UnknownKey)),
        (r#"[]"#, (File, u(""), Problem::WrongType("a JSON object"))),
        (
            r#"{"params": {"cancel_pass": 3}}"#,
            (Params, u("cancel_pass"), Problem::CancelPass),
        ),
        (
            r#"{"params": {"cancel_pass": null}}"#,
            (Params, u("cancel_pass"), Problem::CancelPass),
        ),
        (
            r#"{"params": {"speed": 3}}"#,
            (Params, u("speed"), Problem::UnknownKey),
        ),
        (
            r#"{"uploads": [{"offset": 0, "file": "a.bin"}, {"offset": 100, "file": "b.bin"}]}"#,
            (Upload(1), u("offset"), Problem::Misaligned(100)),
        ),
        (
            r#"{"uploads": [{"offset": 0, "file": "a.bin"}, {"offset": 64, "file": "b.bin"}]}"#,
            (Upload(1), u("offset"), Problem::Overlaps(0)),
        ),
        (
            r#"{"params": {"region_size": 1000}, "uploads": [{"offset": 896, "file": "a.bin"}]}"#,
            (
                Upload(0),
                u("offset"),
                Problem::OutsideRegion {
                    offset: 896,
                    length: 128,
                    region_size: 1000,
                },
            ),
        ),
        (
            r#"{"uploads": [{"offset": 0}]}"#,
            (Upload(0), u("file"), Problem::Missing),
        ),
        (
            r#"{"uploads": [{"offset": 0, "file": 3}]}"#,
            (Upload(0), u("file"), Problem::WrongType("a string")),
        ),
        (
            r#"{"uploads": [{"offset": 0, "file": "c.bin"}]}"#,
            (
                Upload(0),
                u("file"),
                Problem::File {
                    path: u("dir/c.bin"),
                    message: u("no such file"),
                },
            ),
        ),
        (
            r#"{"host": [{"pass": 0, "cancel": 1}, {"pass": 0, "run": {"offset": 0, "length": 64}, "cancel": 1}]}"#,
            (Host(1), u("cancel"), Problem::TwoKinds("run", "cancel")),
        ),
        (
            r#"{"host": [{"pass": 0}]}"#,
            (Host(0), u(""), Problem::NoKind),
        ),
        (
            r#"{"host": [{"pass": 0, "cancel": 1, "note": "x"}]}"#,
            (Host(0), u("note"), Problem::UnknownKey),
        ),
        (
            r#"{"host": [{"cancel": 1}]}"#,
            (Host(0), u("pass"), Problem::Missing),
        ),
        (
            r#"{"uploads": [{"offset": 0, "file": "a.bin"}], "host": [{"pass": 0, "run": {"offset": 64}}]}"#,
            (Host(0), u("run.length"), Problem::RunWithoutLength(64)),
        ),
        (
            r#"{"host": [{"pass": 0, "run": {"length": 64}}]}"#,
            (Host(0), u("run.offset"), Problem::Missing),
        ),
        (
            r#"{"host": [{"pass": 0, "run": {"offset": 0, "length": 64, "req": 1}}]}"#,
            (Host(0), u("run.req"), Problem::UnknownKey),
        ),
        (
            r#"{"host": [{"pass": -1, "cancel": 1}]}"#,
            (Host(0), u("pass"), Problem::NotU32(u("-1"))),
        ),
        (
            r#"{"host": [{"pass": 4294967296, "cancel": 1}]}"#,
            (Host(0), u("pass"), Problem::NotU32(u("4294967296"))),
        ),
        (
            r#"{"host": [{"pass": 0, "cancel": 1.5}]}"#,
            (Host(0), u("cancel"), Problem::NotU32(u("1.5"))),
        ),
        (
            r#"{"host": [{"pass": 0, "deadline": true}]}"#,
            (Host(0), u("deadline"), Problem::NotU32(u("true"))),
        ),
        (
            r#"{"host": [{"pass": 0, "submit": {"handler": 1, "first": 0, "count": 1, "args": [1, 2, "x"]}}]}"#,
            (Host(0), u("submit.args[2]"), Problem::NotU32(u("\"x\""))),
        ),
        (
            r#"{"host": [{"pass": 0, "enqueue": {"handler": 1, "count": 1, "args": [0,0,0,0,0,0,0,0,0,0,0]}}]}"#,
            (Host(0), u("enqueue.args"), Problem::TooManyArgs(11)),
        ),
        (
            r#"{"host": [{"pass": 0, "submit": {"handler": 1, "first": 0, "count": 1, "exclusive": "yes"}}]}"#,
            (
                Host(0),
                u("submit.exclusive"),
                Problem::WrongType("true or false"),
            ),
        ),
        (
            r#"{"host": [{"pass": 0, "submit": {"handler": 1, "count": 1}}]}"#,
            (Host(0), u("submit.first"), Problem::Missing),
        ),
        (
            r#"{"host": [{"pass": 0, "enqueue": {"handler": 1, "first": 0, "count": 1}}]}"#,
            (Host(0), u("enqueue.first"), Problem::UnknownKey),
        ),
        (
            r#"{"host": [{"pass": 2, "cancel": 1}, {"pass": 1, "cancel": 1}]}"#,
            (
                Host(1),
                u("pass"),
                Problem::OutOfOrder {
                    pass: 1,
                    previous: 2,
                },
            ),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(error_of(text), want, "{text}");
    }
    // A parameter out of range names the parameter (S25).
    let (entry, field, problem) = error_of(r#"{"params": {"core_count": 0}}"#);
    assert_eq!((entry, field.as_str()), (Params, "core_count"));
    assert!(matches!(problem, Problem::Param(_)));
    assert!(matches!(error_of("{").2, Problem::NotJson(_)));
}

#[test]
fn errors_display_the_entry_and_the_field() {
    let e = read(
        r#"{"host": [{"pass": 0, "cancel": 1}, {"pass": 0, "run": {"offset": 64}}]}"#,
        &[],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "host[1]: `run.length`: no `length`, and no upload is placed at offset 64"
    );
    let e = read(r#"{"params": {"cancel_pass": 1}}"#, &[]).unwrap_err();
    assert!(e.to_string().starts_with("params: `cancel_pass`: "), "{e}");
    let e = read(r#"{"host": [{"pass": 0}]}"#, &[]).unwrap_err();
    assert!(e.to_string().starts_with("host[0]: no command"), "{e}");
}

#[test]
fn the_code_api_refuses_what_the_file_does() {
    let with_cancel = Params {
        cancel_pass: Some(1),
        ..Params::default()
    };
    assert_eq!(
        Scenario::new(with_cancel).unwrap_err().problem,
        Problem::CancelPass
    );
    let mut s = Scenario::new(Params::default()).unwrap();
    s.place(128, halt(1)).unwrap();
    // An empty upload overlaps nothing (half-open ranges).
    s.place(128, Vec::new()).unwrap();
    assert_eq!(
        s.place(0, vec![0; 129]).unwrap_err(),
        ScenarioError::new(Entry::Upload(2), "offset", Problem::Overlaps(0))
    );
    s.place(1 << 20, Vec::new()).unwrap();
    assert_eq!(
        s.place(1 << 20, vec![0]).unwrap_err().problem,
        Problem::OutsideRegion {
            offset: 1 << 20,
            length: 1,
            region_size: 1 << 20
        }
    );
    s.push(3, HostCommand::Cancel { req: 1 }).unwrap();
    s.push(3, HostCommand::Cancel { req: 1 }).unwrap();
    assert_eq!(
        s.push(2, HostCommand::Cancel { req: 1 }).unwrap_err(),
        ScenarioError::new(
            Entry::Host(2),
            "pass",
            Problem::OutOfOrder {
                pass: 2,
                previous: 3
            }
        )
    );
    // The region reads as the placements, zero elsewhere.
    let bytes = s.region_bytes(120, 16);
    assert_eq!(&bytes[..8], &[0; 8]);
    assert_eq!(&bytes[8..], &halt(1)[..8]);
}

#[test]
fn read_file_reads_uploads_beside_the_scenario() {
    let dir = std::env::temp_dir().join(format!("kmst-scenario-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.bin"), halt(4)).unwrap();
    let path = dir.join("s.json");
    std::fs::write(
        &path,
        r#"{"uploads": [{"offset": 0, "file": "a.bin"}], "host": [{"pass": 0, "run": {"offset": 0}}]}"#,
    )
    .unwrap();
    let s = read_file(&path).unwrap();
    assert_eq!(s.uploads()[0].bytes, halt(4));
    let missing = read_file(&dir.join("none.json")).unwrap_err();
    assert_eq!((missing.entry, missing.field.as_str()), (Entry::File, ""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_answer_json() {
    // One HALT stream (req 1) at 0; cancel(9) in pass 0 (rejected, reason
    // 10); a host submit in pass 0 (slot 0, seq 0, swept in pass 1); a
    // deadline(3) due in pass 9 keeps the run going until pass 9. Events:
    // the END of pass 0 only; passes 1.
    let mut s = Scenario::new(Params {
        max_passes: 20,
        ..Params::default()
    })
    .unwrap();
    s.place(0, halt(1)).unwrap();
    s.push(0, run(0, 128)).unwrap();
    s.push(0, HostCommand::Cancel { req: 9 }).unwrap();
    s.push(
        0,
        HostCommand::Submit {
            handler: 2,
            first: 3,
            count: 4,
            args: [5, 0, 0, 0, 0, 0, 0, 0, 0, 6],
            exclusive: false,
            result: true,
        },
    )
    .unwrap();
    s.push(9, HostCommand::Deadline { us: 3 }).unwrap();
    let r = simulate_scenario(&s);
    let want = json!({
        "params": {
            "delay": 0,
            "result": "zero",
            "deadline_passes": null,
            "default_deadline_passes": 1_000_000,
            "core_count": 119,
            "ticks_per_pass": 1000,
            "max_passes": 20,
            "region_size": 1_048_576,
            "turn_budget": 64,
        },
        "streams": [
            {"req": 1, "offset": 0, "length": 128, "pass": 0, "status": "ended", "error": null, "halt": 0}
        ],
        "host": [
            {"pass": 0, "outcome": "taken", "reason": null, "stream": 0},
            {"pass": 0, "outcome": "rejected", "reason": 10, "stream": null},
            {"pass": 0, "outcome": "taken", "reason": null, "stream": null},
            {"pass": 9, "outcome": "taken", "reason": null, "stream": null},
        ],
        "commands": [
            {"sequence": 0, "slot": 0, "pass_index": 0, "pc": 0, "queued": false, "handler": 2,
             "first": 3, "count": 4, "flags": 4, "args": [5, 0, 0, 0, 0, 0, 0, 0, 0, 6],
             "stream": null}
        ],
        "events": [{"kind": 5, "req": 1, "auxiliary": 0, "pass_index": 0}],
        "stopped": false,
        "passes": 1,
    });
    let got = r.to_json_value().unwrap();
    assert_eq!(got, want);
    assert_eq!(ScenarioResult::from_json_value(&got).unwrap(), r);
    // The reader refuses what the answer never holds.
    let mut bad = want.clone();
    bad["params"]["cancel_pass"] = json!(null);
    assert!(ScenarioResult::from_json_value(&bad).is_err());
    let mut bad = want.clone();
    bad["host"][1]["reason"] = json!(null);
    assert!(ScenarioResult::from_json_value(&bad).is_err());
    let mut bad = want;
    bad["check"] = json!(null);
    assert!(ScenarioResult::from_json_value(&bad).is_err());
}
