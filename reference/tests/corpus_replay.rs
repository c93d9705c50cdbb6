//! Replays every saved answer of the golden corpus through the reference model
//! alone (no part of `kmst`): each `corpus/streams/NAME.bin` is simulated with
//! the parameters of `NAME.json` and the answer (S24) must be the saved one;
//! the `check_run` cases saved beside some streams are replayed too.
//!
//! This is the test mutation testing runs (`.cargo/mutants.toml`): every slip
//! in the reference model should change some saved answer. One test, which
//! names every stream that no longer matches and its first differing field.

mod common;

use common::diff::{assert_each_missing_field_is_named, first_difference};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use kmst_reference::{Params, SimResult, StreamError, check_run, simulate};
use serde_json::{Value, json};

/// The answer fields a replay must reproduce, in the saved order.
const FIELDS: [&str; 8] = [
    "check", "commands", "events", "status", "passes", "error", "halt", "stopped",
];

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/streams")
}

fn error_json(e: Option<StreamError>) -> Value {
    e.map_or(
        Value::Null,
        |e| json!({"reason": e.reason.number(), "pc": e.pc}),
    )
}

fn as_u64(v: &Value, what: &str) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{what} is not an unsigned integer"))
}

/// Replays one stream; `Err` names the first difference.
fn replay(name: &str, upload: &[u8], saved: &Value) -> Result<(), String> {
    let params = Params::from_json_value(&saved["params"]).map_err(|e| format!("params: {e}"))?;
    let result = simulate(upload, &params);
    // An error's text names its reason number and pc.
    for e in [result.check, result.error].into_iter().flatten() {
        let text = e.to_string();
        let want = [
            format!("reason {}", e.reason.number()),
            format!("pc {}", e.pc),
        ];
        if !want.iter().all(|w| text.contains(w.as_str())) {
            return Err(format!("the error's text `{text}` does not name {want:?}"));
        }
    }
    let got = result
        .to_json_value()
        .map_err(|e| format!("to_json_value: {e}"))?;
    for field in FIELDS {
        let want = saved
            .get(field)
            .ok_or_else(|| format!("{field} is missing from {name}.json"))?;
        let have = got.get(field).unwrap_or(&Value::Null);
        if let Some(d) = first_difference(field, want, have) {
            return Err(d);
        }
    }
    // The saved answer read back is the run itself (S24 JSON both ways), and
    // the params survive a round trip.
    let back = SimResult::from_json_value(saved).map_err(|e| format!("from_json_value: {e}"))?;
    if back != result {
        return Err("the saved answer read back differs from the run".into());
    }
    let again = params
        .to_json_value()
        .and_then(|v| Params::from_json_value(&v))
        .map_err(|e| format!("params round trip: {e}"))?;
    if again != params {
        return Err("params differ after a JSON round trip".into());
    }
    if let Some(Value::Array(cases)) = saved.get("check_run") {
        for (i, case) in cases.iter().enumerate() {
            let active: Vec<(u64, u64)> = case["active"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| {
                            (
                                as_u64(&r[0], "active offset"),
                                as_u64(&r[1], "active length"),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let reqs: Vec<u32> = case["active_reqs"]
                .as_array()
                .map(|a| a.iter().map(|r| as_u64(r, "active req") as u32).collect())
                .unwrap_or_default();
            let (error, req) = check_run(
                upload,
                as_u64(&case["offset"], "offset"),
                as_u64(&case["region_size"], "region_size"),
                &active,
                &reqs,
            );
            let p = format!("check_run[{i}]");
            if let Some(d) =
                first_difference(&format!("{p}.error"), &case["error"], &error_json(error))
            {
                return Err(d);
            }
            if let Some(d) = first_difference(&format!("{p}.req"), &case["req"], &json!(req)) {
                return Err(d);
            }
        }
    }
    Ok(())
}

#[test]
fn every_saved_answer_replays() {
    let dir = corpus_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "json").then(|| p.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    // The corpus is about a hundred streams; a handful would mean a lost directory.
    assert!(
        names.len() >= 90,
        "only {} saved answers in {}",
        names.len(),
        dir.display()
    );
    let mut failures = Vec::new();
    let mut saved_params = Vec::new();
    // A slip can make runs very long (a command never completing runs to
    // max_passes): once something differs and the replay has taken a while,
    // stop and say how many were left, so that the failure is reported soon.
    let started = Instant::now();
    let mut skipped = 0;
    for name in &names {
        if !failures.is_empty() && started.elapsed() > Duration::from_secs(5) {
            skipped += 1;
            continue;
        }
        let upload = std::fs::read(dir.join(format!("{name}.bin")))
            .unwrap_or_else(|e| panic!("{name}.bin: {e}"));
        let text = std::fs::read_to_string(dir.join(format!("{name}.json")))
            .unwrap_or_else(|e| panic!("{name}.json: {e}"));
        let saved: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}.json: {e}"));
        if let Err(d) = replay(name, &upload, &saved) {
            failures.push(format!("{name}: {d}"));
        }
        saved_params.push(saved["params"].clone());
    }
    // Parameters that are saved differently must read as different parameters
    // (and the same ones as the same, above).
    let mut distinct: Vec<(String, Params)> = Vec::new();
    for v in &saved_params {
        if let Ok(p) = Params::from_json_value(v) {
            distinct.push((v.to_string(), p));
        }
    }
    for v in edges()["accepted"]
        .as_array()
        .expect("accepted is an array")
    {
        if let Ok(p) = Params::from_json_value(v) {
            distinct.push((p.to_json_value().unwrap().to_string(), p));
        }
    }
    distinct.sort_by(|a, b| a.0.cmp(&b.0));
    distinct.dedup_by(|a, b| a.0 == b.0);
    for (i, (ja, a)) in distinct.iter().enumerate() {
        for (jb, b) in &distinct[i + 1..] {
            if a == b {
                failures.push(format!("params {ja} and {jb} read as equal"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} streams differ ({skipped} not replayed):\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}

fn edges() -> Value {
    let path = corpus_dir().join("../params.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `corpus/params.json`: parameters at the edges of their S25 ranges. Each
/// accepted object reads and survives a round trip; each rejected one is an
/// error naming its parameter.
#[test]
fn parameter_edges() {
    let edges = edges();
    let mut failures = Vec::new();
    for v in edges["accepted"].as_array().expect("accepted is an array") {
        match Params::from_json_value(v) {
            Ok(p) => match p.to_json_value().map(|j| Params::from_json_value(&j)) {
                Ok(Ok(q)) if q == p => {}
                _ => failures.push(format!("{v}: does not survive a JSON round trip")),
            },
            Err(e) => failures.push(format!("{v}: rejected: {e}")),
        }
    }
    for case in edges["rejected"].as_array().expect("rejected is an array") {
        let param = case["param"].as_str().expect("param is a string");
        let mentions = case
            .get("mentions")
            .and_then(Value::as_str)
            .unwrap_or(param);
        match Params::from_json_value(&case["params"]) {
            Ok(_) => failures.push(format!("{}: accepted", case["params"])),
            Err(e) => {
                if e.param != param || !e.to_string().contains(mentions) {
                    failures.push(format!(
                        "{}: the error `{e}` (parameter `{}`) should name `{param}` and mention `{mentions}`",
                        case["params"], e.param
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A saved answer with a field taken out is an error that names the field.
#[test]
fn a_broken_answer_names_its_field() {
    let path = corpus_dir().join("slots_16_busy.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let saved: Value = serde_json::from_str(&text).unwrap();
    let fields = [&FIELDS[..], &["params"]].concat();
    assert_each_missing_field_is_named(&saved, &fields, SimResult::from_json_value);
}

/// S16: a run ends after the pass in which HALT ended the stream, or in which
/// it failed with nothing in flight; `max_passes` only bounds a run that has
/// not ended. `halt_value` halts in pass 0 and `mod_by_zero` fails in pass 0
/// with no command submitted, so with `max_passes` 2^40 each must end after
/// pass 0 (a model that ran on to 2^40 passes would give the same answer but
/// never return). The run is watched from another thread with a bound far
/// above the microseconds it takes.
#[test]
fn a_run_that_ends_in_its_first_pass_ends_at_once() {
    for (name, status) in [("halt_value", "ended"), ("mod_by_zero", "error")] {
        let upload = std::fs::read(corpus_dir().join(format!("{name}.bin")))
            .unwrap_or_else(|e| panic!("{name}.bin: {e}"));
        let params = Params {
            max_passes: 1 << 40,
            ..Params::default()
        };
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(simulate(&upload, &params));
        });
        let result = receive
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("{name}: the run did not end after its first pass"));
        // Both post their one event in pass 0: passes = 0 + 1.
        assert_eq!(result.status.as_str(), status, "{name}");
        assert_eq!(result.passes, 1, "{name}");
    }
}
