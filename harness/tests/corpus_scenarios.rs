//! The scenario corpus (`corpus/scenarios/`) replayed through every
//! implementation that runs scenarios, as `kmst corpus check` does: each
//! saved answer must be what they give now, each `.bin` beside a `.kms`
//! upload must be that source assembled, and each answer must agree with the
//! hand-worked `expect` of its `NAME.expect.json`. Every ruling S26..S36 is
//! covered by some scenario.

use std::collections::BTreeSet;
use std::path::PathBuf;

use kmst_harness::answers::{DifferentialOracle, Implementation, implementations};
use kmst_harness::corpus::scenario::{
    check_saved_scenario, load_saved_scenario, load_scenario, scenario_implementations,
    scenario_names,
};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/scenarios")
}

fn names() -> Vec<String> {
    scenario_names(&dir()).expect("the scenario directory is readable")
}

#[test]
fn every_saved_scenario_answer_is_reproduced() {
    let impls = implementations();
    let mut failures = Vec::new();
    for name in names() {
        match load_saved_scenario(&dir(), &name).and_then(|s| check_saved_scenario(&s, &impls)) {
            Ok(found) => failures.extend(found.iter().map(ToString::to_string)),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_scenario_corpus_is_large_enough_and_covers_every_ruling() {
    let names = names();
    assert!(names.len() >= 40, "only {} scenarios", names.len());
    let mut covered = BTreeSet::new();
    let mut failures = Vec::new();
    for name in &names {
        let s = load_scenario(&dir(), name).unwrap();
        if s.about.notes.is_empty() || s.about.covers.is_empty() || s.about.expect.is_none() {
            failures.push(format!("{name}: notes, covers and expect are all required"));
        }
        covered.extend(s.about.covers);
    }
    // S36's reader errors are covered by corpus/scenario_files.json.
    for n in 26..=35 {
        if !covered.contains(&format!("S{n}")) {
            failures.push(format!("no scenario covers S{n}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A changed saved answer is reported with its field, by the reference, by
/// every fast variant (each runs scenarios and gives the reference's answer)
/// and by the hand-worked expectation.
#[test]
fn a_changed_scenario_answer_is_reported_with_its_field() {
    let mut saved = load_saved_scenario(&dir(), "rotation_two").unwrap();
    saved.answer["events"][2]["req"] = serde_json::json!(1);
    let found = check_saved_scenario(&saved, &implementations()).unwrap();
    let lines: Vec<String> = found.iter().map(ToString::to_string).collect();
    // Worked out in rotation_two's notes: pass 1 goes to B (req 2) first.
    let mut want = vec![
        "rotation_two: expect: events[2].req: expected 2, got 1".to_owned(),
        "rotation_two: reference: events[2].req: expected 1, got 2".to_owned(),
    ];
    let fast: Vec<Implementation> = Implementation::all()
        .into_iter()
        .filter(|i| *i != Implementation::Reference)
        .collect();
    for i in &fast {
        want.push(format!(
            "rotation_two: {}: events[2].req: expected 1, got 2",
            i.name()
        ));
    }
    assert_eq!(lines, want);
    let mut names = vec!["reference".to_owned()];
    names.extend(fast.iter().map(|i| i.name().to_owned()));
    assert_eq!(scenario_implementations(&implementations()), names);
    let first: Box<dyn DifferentialOracle> = Box::new(fast[0]);
    assert!(first.simulate_scenario(&saved.loaded.scenario).is_some());
}
