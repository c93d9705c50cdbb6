//! The golden corpus replayed through every implementation.
//!
//! Each saved answer in `corpus/streams/` must be what the reference model and
//! every compiled dispatch variant give now, each `.bin` must be what its
//! `.kms` assembles to, and each answer must agree with the hand-worked
//! `;@ expect` of its source (values worked out from the specification, not
//! copied from the model). One test per property; each names every failing
//! stream and field at once.

use std::collections::BTreeSet;
use std::path::PathBuf;

use kmst_harness::corpus;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/streams")
}

fn names() -> Vec<String> {
    corpus::stream_names(&dir()).expect("the corpus directory is readable")
}

#[test]
fn every_saved_answer_is_reproduced() {
    let impls = kmst_harness::answers::implementations();
    let mut failures = Vec::new();
    for name in names() {
        match corpus::load_saved(&dir(), &name).and_then(|s| corpus::check_saved(&s, &impls)) {
            Ok(found) => failures.extend(found.iter().map(ToString::to_string)),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_bin_is_its_source_assembled() {
    let mut failures = Vec::new();
    for name in names() {
        let stream = corpus::load(&dir(), &name).unwrap();
        let bin = std::fs::read(dir().join(format!("{name}.bin")));
        match (stream.assemble(), bin) {
            (Ok(a), Ok(b)) if a == b => {}
            (Ok(a), Ok(b)) => failures.push(format!(
                "{name}: the source assembles to {} bytes, the .bin has {}{}",
                a.len(),
                b.len(),
                a.iter()
                    .zip(&b)
                    .position(|(x, y)| x != y)
                    .map(|p| format!(", first difference at byte {p}"))
                    .unwrap_or_default()
            )),
            (Err(e), _) => failures.push(format!("{name}: {e}")),
            (_, Err(e)) => failures.push(format!("{name}.bin: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_stream_has_notes_and_a_hand_worked_expectation() {
    let mut failures = Vec::new();
    for name in names() {
        let s = corpus::load(&dir(), &name).unwrap();
        if s.directives.notes.is_empty() {
            failures.push(format!("{name}: no `;@ notes`"));
        }
        if s.directives.expect.is_none() {
            failures.push(format!("{name}: no `;@ expect`"));
        }
        if s.directives.covers.is_empty() {
            failures.push(format!("{name}: no `;@ covers`"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rules the issue asks the corpus to cover, by `;@ covers` tag
/// (docs/corpus.md has the table).
const REQUIRED: &[&str] = &[
    "check-1",
    "check-2",
    "check-3",
    "check-4",
    "check-5",
    "check-order",
    "check-run",
    "ignored-fields",
    "error-3",
    "error-6",
    "error-7",
    "error-8",
    "error-9",
    "error-10",
    "error-11",
    "error-drops-jobs",
    "event-stream",
    "event-stream-end",
    "event-timeout",
    "rotation",
    "slots-16",
    "queue-full",
    "queue-window",
    "overtake-1024",
    "exclusive-queued",
    "exclusive-overlap",
    "exclusive-plain",
    "exclusive-job",
    "patches",
    "groups-from-registers",
    "result-swept",
    "result-before-any",
    "deadline-header",
    "deadline-param",
    "deadline-default",
    "late-lowest-slot",
    "cancel-waiting",
    "stuck",
    "time",
    "rand",
    "turn-budget",
    "jobs-1000",
    "arith-wrap",
    "shr",
    "mod",
    "delay-fixed",
    "delay-never",
    "delay-cycle",
    "delay-table",
    "result-zero",
    "result-sequence",
    "result-arg",
    "result-table",
    "allocator",
    "wait",
    "branches",
];

#[test]
fn the_corpus_is_large_enough_and_covers_every_rule() {
    let names = names();
    assert!(names.len() >= 90, "only {} streams", names.len());
    let mut covered = BTreeSet::new();
    for name in &names {
        let s = corpus::load(&dir(), name).unwrap();
        covered.extend(s.directives.covers);
    }
    let missing: Vec<_> = REQUIRED.iter().filter(|t| !covered.contains(**t)).collect();
    assert!(missing.is_empty(), "no stream covers {missing:?}");
}

#[test]
fn a_changed_answer_is_reported_with_its_field() {
    // The comparison must notice a slip: take a saved answer, change one
    // command's slot and expect exactly that field to be named.
    let name = "slots_16_busy";
    let mut saved = corpus::load_saved(&dir(), name).unwrap();
    saved.answer["commands"][16]["slot"] = serde_json::json!(4);
    let found = corpus::check_saved(
        &saved,
        &[Box::new(kmst_harness::answers::Implementation::Reference)],
    )
    .unwrap();
    let lines: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert!(
        lines
            .contains(&"slots_16_busy: reference: commands[16].slot: expected 4, got 3".to_owned()),
        "{lines:?}"
    );
    // The hand-worked expectation (slot 3, worked out in the source) catches it too.
    assert!(
        lines.contains(&"slots_16_busy: expect: commands[16].slot: expected 3, got 4".to_owned()),
        "{lines:?}"
    );
}
