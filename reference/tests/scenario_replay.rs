//! Replays the scenario corpus through the reference model alone (no part of
//! `kmst`): every `corpus/scenarios/NAME.json` is read with the S36 reader
//! (each `.kms` upload replaced by the `.bin` assembled beside it) and run,
//! and the answer must be the saved `NAME.answer.json`. Beside it:
//! `corpus/scenario_files.json` (scenario files the reader must reject, with
//! the error, and files it must read) and S35 over the stream corpus (every
//! stream's one-RUN scenario gives its one-stream answer, and a changed answer
//! is noticed).
//!
//! With `corpus_replay.rs` this is what mutation testing runs
//! (`.cargo/mutants.toml`): a slip in the scenario code should change some
//! saved answer or some error.

mod common;

use common::answers::run;
use common::diff::{assert_each_missing_field_is_named, first_difference};
use common::s35::one_run_answer;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kmst_reference::scenario::json::from_json;
use kmst_reference::{
    Outcome, Params, Scenario, ScenarioError, ScenarioResult, SimResult, simulate_scenario,
};
use serde_json::Value;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

/// Reads a scenario file's text as if it were at `path`: a `.kms` upload is
/// its assembled `.bin`, anything else is read as it is.
fn read(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
    from_json(text, path, &mut |p: &Path| {
        let file = if p.extension().is_some_and(|e| e == "kms") {
            p.with_extension("bin")
        } else {
            p.to_owned()
        };
        std::fs::read(file).map_err(|e| format!("cannot be read: {e}"))
    })
}

/// Runs `f` on another thread and gives its answer; if it has not answered
/// after `secs` seconds, the whole test process ends with a failure. A slip
/// in the kernel can loop for ever inside one pass (a host command taken
/// again and again) or run a million idle passes after a run should have
/// ended; the answers alone never show that, and a test stuck in a loop
/// cannot fail, so the replay is watched with a bound far above the seconds
/// it takes.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    match receive.recv_timeout(Duration::from_secs(secs)) {
        Ok(answer) => answer,
        Err(_) => {
            eprintln!("{what} did not end within {secs} s: some run goes on after it should end");
            std::process::exit(1);
        }
    }
}

fn replay(dir: &Path, name: &str) -> Result<(), String> {
    let path = dir.join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let scenario = read(&text, &path).map_err(|e| e.to_string())?;
    let answer_text = std::fs::read_to_string(dir.join(format!("{name}.answer.json")))
        .map_err(|e| format!("{name}.answer.json: {e}"))?;
    let saved: Value = serde_json::from_str(&answer_text).map_err(|e| e.to_string())?;
    let result = simulate_scenario(&scenario);
    let got = result
        .to_json_value()
        .map_err(|e| format!("to_json_value: {e}"))?;
    if let Some(d) = first_difference("", &saved, &got) {
        return Err(d);
    }
    let back =
        ScenarioResult::from_json_value(&saved).map_err(|e| format!("from_json_value: {e}"))?;
    if back != result {
        return Err("the saved answer read back differs from the run".into());
    }
    Ok(())
}

fn scenario_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let p = e.ok()?.path();
            let stem = p.file_stem()?.to_str()?.to_owned();
            (p.extension()? == "json" && !stem.contains('.')).then_some(stem)
        })
        .collect();
    names.sort();
    names
}

#[test]
fn every_saved_scenario_answer_replays() {
    let dir = corpus().join("scenarios");
    let names = scenario_names(&dir);
    assert!(names.len() >= 40, "only {} scenarios", names.len());
    let count = names.len();
    let failures = within(20, "the scenario replay", move || {
        names
            .iter()
            .filter_map(|name| replay(&dir, name).err().map(|d| format!("{name}: {d}")))
            .collect::<Vec<_>>()
    });
    assert!(
        failures.is_empty(),
        "{} of {count} scenarios differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `corpus/scenario_files.json`: each rejected file gives exactly its error
/// (or one that starts as given); each accepted file reads.
#[test]
fn scenario_file_errors() {
    let path = corpus().join("scenario_files.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let cases: Value = serde_json::from_str(&text).unwrap();
    // Upload paths are relative to corpus/scenarios.
    let at = corpus().join("scenarios/cases.json");
    let mut failures = Vec::new();
    for case in cases["rejected"].as_array().unwrap() {
        let text = match &case["scenario"] {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        let got = match read(&text, &at) {
            Ok(_) => {
                failures.push(format!("{text}: read"));
                continue;
            }
            Err(e) => e.to_string(),
        };
        let ok = match (case.get("error"), case.get("starts")) {
            (Some(Value::String(e)), _) => &got == e,
            (_, Some(Value::String(s))) => got.starts_with(s.as_str()),
            _ => false,
        };
        if !ok {
            failures.push(format!("{text}: got `{got}`, want {case}"));
        }
    }
    for case in cases["accepted"].as_array().unwrap() {
        if let Err(e) = read(&case.to_string(), &at) {
            failures.push(format!("{case}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// S35 over the stream corpus: each stream's one-RUN scenario gives the
/// saved one-stream answer's commands, events, stopped, passes and the
/// stream's status, error and halt; and `s35_difference` notices each of
/// those changed.
#[test]
fn every_stream_is_its_one_run_scenario() {
    within(20, "S35 over the stream corpus", one_run_scenarios);
}

fn one_run_scenarios() {
    let dir = corpus().join("streams");
    let mut failures = Vec::new();
    let mut compared = 0;
    for name in scenario_names(&dir) {
        let upload = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let saved: Value = serde_json::from_str(&text).unwrap();
        let params = Params::from_json_value(&saved["params"]).unwrap();
        if upload.len() as u64 > params.region_size {
            continue;
        }
        let want = SimResult::from_json_value(&saved).unwrap();
        compared += 1;
        let got = match one_run_answer(&upload, &params, &want) {
            Ok(got) => got,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        for (what, changed) in changes(&got) {
            if changed.s35_difference(&want).is_none() {
                failures.push(format!("{name}: {what} changed is not noticed"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 150, "only {compared} streams compared");
}

/// The answer with one S35 part changed at a time.
fn changes(r: &ScenarioResult) -> Vec<(&'static str, ScenarioResult)> {
    let mut out = Vec::new();
    let mut c = r.clone();
    c.passes += 1;
    out.push(("passes", c));
    let mut c = r.clone();
    c.stopped = !c.stopped;
    out.push(("stopped", c));
    let mut c = r.clone();
    c.events
        .push(c.events.last().copied().unwrap_or(kmst_reference::Event {
            kind: 4,
            req: 0,
            auxiliary: 0,
            pass_index: 0,
        }));
    out.push(("events", c));
    if let Some(last) = r.commands.last() {
        let mut c = r.clone();
        c.commands.push(*last);
        out.push(("commands", c));
    }
    if let Some(s) = r.streams.first() {
        let mut c = r.clone();
        c.streams[0].halt = Some(s.halt.map_or(1, |h| h.wrapping_add(1)));
        out.push(("halt", c));
        let mut c = r.clone();
        c.streams.clear();
        out.push(("the stream", c));
    } else {
        let mut c = r.clone();
        c.host[0].outcome = Outcome::Taken;
        out.push(("the RUN", c));
    }
    out
}

/// A saved scenario answer with a field taken out is an error naming it.
#[test]
fn a_broken_scenario_answer_names_its_field() {
    let path = corpus().join("scenarios/host_rejections.answer.json");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_each_missing_field_is_named(
        &saved,
        &[
            "params", "streams", "host", "commands", "events", "stopped", "passes",
        ],
        ScenarioResult::from_json_value,
    );
}

/// S35: a run ends after the first pass at whose end nothing is active, in
/// flight, queued, waiting or due; `max_passes` only bounds a run that has
/// not ended. Every scenario whose saved answer has no stuck stream ends by
/// itself, so with `max_passes` 2^40 it must give the same answer (but that
/// `max_passes`) and return at once (a model that ran on to 2^40 passes
/// would never return). Watched from another thread with a bound far above
/// the milliseconds it takes.
#[test]
fn a_scenario_that_ends_ends_at_once() {
    let dir = corpus().join("scenarios");
    let mut runs = Vec::new();
    for name in scenario_names(&dir) {
        let path = dir.join(format!("{name}.json"));
        let scenario = read(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
        let text = std::fs::read_to_string(dir.join(format!("{name}.answer.json"))).unwrap();
        let mut saved = ScenarioResult::from_json_value(&serde_json::from_str(&text).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if saved
            .streams
            .iter()
            .any(|s| s.status == kmst_reference::Status::Stuck)
        {
            continue;
        }
        // The same scenario, rebuilt through the public API with a larger bound.
        let params = Params {
            max_passes: 1 << 40,
            ..scenario.params().clone()
        };
        let mut long = Scenario::new(params.clone()).unwrap();
        for u in scenario.uploads() {
            long.place(u.offset, u.bytes.clone()).unwrap();
        }
        for h in scenario.host() {
            long.push(h.pass, h.command).unwrap();
        }
        saved.params = params;
        runs.push((name, long, saved));
    }
    assert!(
        runs.len() >= 40,
        "only {} scenarios end by themselves",
        runs.len()
    );
    let differing = within(20, "the scenarios with max_passes 2^40", move || {
        runs.iter()
            .filter(|(_, s, want)| simulate_scenario(s) != *want)
            .map(|(name, _, _)| name.clone())
            .collect::<Vec<_>>()
    });
    assert!(differing.is_empty(), "{differing:?}");
}

/// The largest upload any header describes (S2): 65,535 micro-ops and
/// 65,535 templates, 64 + 1,048,576 + 5,242,816 = 6,291,456 bytes. Built here
/// (too large for the corpus): micro-op 0 is HALT r0 and the others too,
/// every template handler 1 on the fixed group (0, 1) with first and count
/// from the command (0xFF). Placed at 0 in a region of exactly its size, its
/// RUN is accepted and halts in pass 0; one byte longer (a RUN of the whole
/// upload and a byte past the region) is rejected with `Reason::BadHeader` pc 0 and the
/// header's req 5.
#[test]
fn the_largest_upload_runs() {
    const OPS: usize = 65_535;
    let ops_len = (OPS * 16).div_ceil(64) * 64;
    let templates_len = (OPS * 80).div_ceil(64) * 64;
    let len = 64 + ops_len + templates_len;
    assert_eq!(len, 6_291_456);
    let mut u = vec![0u8; len];
    let words = [0x4B4D_5354u32, 1, OPS as u32, OPS as u32, 10, 0, 5, 1];
    for (k, w) in words.iter().enumerate() {
        u[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    for op in 0..OPS {
        u[64 + 16 * op] = 20; // HALT r0
    }
    for t in 0..OPS {
        let at = 64 + ops_len + 80 * t;
        u[at] = 1; // handler 1, flags 0
        u[at + 14] = 1; // group count 1
        u[at + 72] = 0xFF; // first_register
        u[at + 73] = 0xFF; // count_register
    }
    let params = Params {
        region_size: len as u64,
        max_passes: 100,
        ..Params::default()
    };
    let mut s = Scenario::new(params).unwrap();
    s.place(0, u).unwrap();
    let length = len as u32;
    s.push(0, kmst_reference::HostCommand::Run { offset: 0, length })
        .unwrap();
    s.push(1, run(0, length + 1)).unwrap();
    let r = simulate_scenario(&s);
    assert_eq!(r.host[0].outcome, Outcome::Taken, "{:?}", r.host);
    assert_eq!(
        r.host[1].outcome,
        Outcome::Rejected(kmst_reference::Reason::BadHeader)
    );
    // HALT r0 in pass 0 (kind 5, aux 0), then the rejected RUN in pass 1
    // (kind 6, aux 1 | 0 << 8, req 5).
    let events: Vec<(u8, u32, u32, u64)> = r
        .events
        .iter()
        .map(|e| (e.kind, e.req, e.auxiliary, e.pass_index))
        .collect();
    assert_eq!(events, [(5, 5, 0, 0), (6, 5, 1, 1)]);
}
