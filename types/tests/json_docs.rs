//! The JSON shapes the documents show are the shapes the writers produce:
//! S24's and S36's field tables (docs/semantics.md) and the answer example
//! of docs/scenario.md, key by key, against `SimResult::to_json_value` and
//! `ScenarioResult::to_json_value`. A field added to, renamed in or removed
//! from either side fails here until the other follows (CHANGELOG.md,
//! "Versioning", says which version such a change needs).
#![cfg(feature = "json")]

use std::collections::BTreeSet;
use std::path::Path;

use kmst_types::{
    Event, HostOutcome, Outcome, Params, Reason, ScenarioCommand, ScenarioResult, SimResult,
    Status, StreamError, StreamOutcome, SubmittedCommand,
};
use serde_json::Value;

type Keys = BTreeSet<String>;

fn doc(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rows of the first markdown table after `start`: the first column's
/// backticked names, and the second column.
fn table_after(text: &str, start: &str) -> Vec<(Vec<String>, String)> {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("no `{start}` in the document"));
    let mut rows = Vec::new();
    let mut started = false;
    for line in text[from..].lines().skip(1) {
        let is_row = line.starts_with('|');
        if !is_row && started {
            break;
        }
        if !is_row || line.starts_with("|---") {
            continue;
        }
        started = true;
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let names: Vec<String> = cells[0]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        if names.is_empty() {
            continue; // the header row
        }
        rows.push((names, cells[1].to_string()));
    }
    assert!(!rows.is_empty(), "no table after `{start}`");
    rows
}

/// The names a table cell lists after `marker` up to `end` (or the cell's
/// end): `a, b (a note), c`, the notes in parentheses left out.
fn listed(cell: &str, marker: &str, end: Option<char>) -> Keys {
    let at = cell
        .find(marker)
        .unwrap_or_else(|| panic!("`{marker}` not in `{cell}`"));
    let mut list = String::new();
    let mut depth = 0;
    for c in cell[at + marker.len()..].chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if Some(c) == end => break,
            _ if depth == 0 => list.push(c),
            _ => {}
        }
    }
    list.split(',')
        .map(|s| s.trim().trim_matches('`').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The names a table's rows give are the keys of the object `answer`.
fn assert_rows_are_the_keys(rows: &[(Vec<String>, String)], answer: &Value, what: &str) {
    let top: Keys = rows.iter().flat_map(|(n, _)| n.clone()).collect();
    assert_eq!(top, keys(answer), "{what}");
}

fn keys(v: &Value) -> Keys {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .cloned()
        .collect()
}

fn command() -> SubmittedCommand {
    SubmittedCommand {
        sequence: 0,
        slot: 0,
        handler: 2,
        first: 3,
        count: 4,
        flags: 4,
        args: [5, 0, 0, 0, 0, 0, 0, 0, 0, 6],
        pass_index: 0,
        pc: 7,
        queued: false,
    }
}

fn event() -> Event {
    Event {
        kind: 6,
        req: 1,
        auxiliary: 0x0703,
        pass_index: 0,
    }
}

fn error() -> Option<StreamError> {
    Some(StreamError {
        reason: Reason::BadJump,
        pc: 7,
    })
}

/// A run's answer with every optional part present.
fn sim_answer() -> Value {
    SimResult {
        params: Params::default(),
        check: error(),
        commands: vec![command()],
        events: vec![event()],
        status: Status::Error,
        passes: 1,
        error: error(),
        halt: None,
        stopped: false,
    }
    .to_json_value()
    .unwrap()
}

/// A scenario's answer with a stream, a host command and a command.
fn scenario_answer() -> Value {
    ScenarioResult {
        params: Params::default(),
        streams: vec![StreamOutcome {
            req: 1,
            offset: 0,
            length: 128,
            pass: 0,
            status: Status::Error,
            error: error(),
            halt: None,
        }],
        host: vec![HostOutcome {
            pass: Some(0),
            outcome: Outcome::Taken,
            stream: Some(0),
        }],
        commands: vec![ScenarioCommand {
            command: command(),
            stream: None,
        }],
        events: vec![event()],
        stopped: false,
        passes: 1,
    }
    .to_json_value()
    .unwrap()
}

#[test]
fn s24_table_names_every_key_of_a_run_answer() {
    let semantics = doc("semantics.md");
    let rows = table_after(&semantics, "**S24. The JSON of a run**");
    let answer = sim_answer();
    assert_rows_are_the_keys(
        &rows,
        &answer,
        "S24's fields, SimResult::to_json_value's keys",
    );
    for (names, content) in &rows {
        let field = names[0].as_str();
        let value = &answer[field];
        let want = match field {
            "commands" | "events" => listed(content, "objects with", None),
            "params" => listed(content, "every parameter:", None),
            "check" | "error" => listed(content, "{", Some('}')),
            _ => continue,
        };
        let got = if value.is_array() {
            keys(&value[0])
        } else {
            keys(value)
        };
        assert_eq!(want, got, "S24's `{field}`");
    }
}

#[test]
fn s36_table_names_every_key_of_a_scenario_answer() {
    let semantics = doc("semantics.md");
    let at = semantics.find("**S36.").expect("S36 in semantics.md");
    let rows = table_after(&semantics[at..], "The answer:");
    let answer = scenario_answer();
    let run = sim_answer();
    assert_rows_are_the_keys(
        &rows,
        &answer,
        "S36's fields, ScenarioResult::to_json_value's keys",
    );
    let mut run_params = keys(&run["params"]);
    run_params.remove("cancel_pass");
    assert_eq!(
        keys(&answer["params"]),
        run_params,
        "S24's params without cancel_pass"
    );
    for (names, content) in &rows {
        let field = names[0].as_str();
        let want = match field {
            "streams" => listed(content, "in start order:", None),
            "host" => listed(content, "in list order:", None),
            "commands" => {
                let mut want = keys(&run["commands"][0]);
                want.extend(listed(content, "plus", None));
                want
            }
            "events" => keys(&run["events"][0]),
            _ => continue,
        };
        assert_eq!(want, keys(&answer[field][0]), "S36's `{field}`");
    }
    assert_eq!(keys(&answer["streams"][0]["error"]), keys(&run["error"]));
}

#[test]
fn the_answer_example_of_scenario_md_has_the_keys_written() {
    let text = doc("scenario.md");
    let at = text
        .find("## The answer (S36)")
        .expect("the answer section");
    let block = text[at..]
        .split("```json\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a json block in the answer section");
    // The example leaves the rest of params out with `...`.
    let example: Value = serde_json::from_str(&block.replace(", ...}", "}"))
        .unwrap_or_else(|e| panic!("the example does not parse: {e}\n{block}"));
    let answer = scenario_answer();
    assert_eq!(keys(&example), keys(&answer));
    assert!(
        keys(&example["params"]).is_subset(&keys(&answer["params"])),
        "the example's params"
    );
    for part in ["streams", "host", "commands", "events"] {
        let rows = example[part].as_array().expect(part);
        assert!(!rows.is_empty(), "the example's {part} is empty");
        for row in rows {
            assert_eq!(keys(row), keys(&answer[part][0]), "the example's {part}");
        }
    }
}
