//! Every corpus stream and scenario saved at several passes and resumed on
//! another variant answers as the reference model's whole run (docs/pause.md).
//! With `KMST_EVERY_PASS=1` each run is cut at every pass it has (the
//! measurement of docs/performance.md, "Pausing and resuming"; run it in
//! release).

use std::path::PathBuf;

use kmst::exec::{Answer, Dispatch, Resumable, Until};
use kmst_harness::corpus;
use kmst_harness::corpus::scenario::{load_scenario, scenario_names};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The pass a run ends in (its last pass simulated: a stuck run's goes on
/// past its last event).
fn last_pass(mut run: Resumable) -> u64 {
    run.run(Dispatch::default(), Until::End);
    run.state().pass
}

/// The passes to cut a run whose last pass is `passes` at: each one with
/// `KMST_EVERY_PASS`, else the first ones, a few inside and the end.
fn cuts(passes: u64) -> Vec<u64> {
    if std::env::var_os("KMST_EVERY_PASS").is_some() {
        return (0..=passes + 1).collect();
    }
    let mut c = vec![
        0,
        1,
        2,
        passes / 3,
        passes / 2,
        passes.saturating_sub(1),
        passes,
        passes + 1,
    ];
    c.sort_unstable();
    c.dedup();
    c
}

/// `fresh` stopped before `cut` on variant `k`, saved (every other `k`
/// without its input, then restored with `given`), restored and run to the
/// end on the next variant.
fn resumed(
    mut fresh: Resumable,
    cut: u64,
    k: usize,
    given: impl Fn(&[u8]) -> Result<Resumable, kmst::exec::SnapshotError>,
) -> Answer {
    let all = Dispatch::ALL;
    fresh.run(all[k % all.len()], Until::Pass(cut));
    let mut back = if k.is_multiple_of(2) {
        Resumable::restore(&fresh.snapshot().expect("a snapshot"))
    } else {
        given(&fresh.snapshot_without_input().expect("a snapshot"))
    }
    .expect("restored");
    back.run(all[(k + 1) % all.len()], Until::End);
    back.into_answer()
}

#[test]
fn every_corpus_stream_resumes_to_its_answer() {
    let dir = root().join(corpus::DEFAULT_DIR);
    let mut failures = Vec::new();
    let mut runs = 0;
    for (k, name) in corpus::stream_names(&dir).unwrap().iter().enumerate() {
        let saved = corpus::load_saved(&dir, name).unwrap();
        let params = saved.stream.params().unwrap();
        let want = Answer::Stream(kmst_reference::simulate(&saved.upload, &params));
        for cut in cuts(last_pass(Resumable::new(&saved.upload, &params))) {
            let got = resumed(
                Resumable::new(&saved.upload, &params),
                cut,
                k + cut as usize,
                |b| Resumable::restore_upload(b, &saved.upload),
            );
            runs += 1;
            if got != want {
                failures.push(format!("{name}: cut before pass {cut}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{runs} runs of corpus streams resumed");
    assert!(runs > 100, "only {runs} runs");
}

#[test]
fn every_corpus_scenario_resumes_to_its_answer() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for d in [corpus::scenario::DEFAULT_DIR, "corpus/bench"] {
        let dir = root().join(d);
        let names = match d {
            "corpus/bench" => vec!["four_streams".to_owned(), "host_mix".to_owned()],
            _ => scenario_names(&dir).unwrap(),
        };
        for (k, name) in names.iter().enumerate() {
            let scenario = match d {
                "corpus/bench" => {
                    kmst_reference::scenario::json::read_file(&dir.join(format!("{name}.json")))
                        .unwrap()
                }
                _ => load_scenario(&dir, name).unwrap().scenario,
            };
            let want = Answer::Scenario(kmst_reference::simulate_scenario(&scenario));
            for cut in cuts(last_pass(Resumable::scenario(&scenario))) {
                let got = resumed(Resumable::scenario(&scenario), cut, k + cut as usize, |b| {
                    Resumable::restore_scenario(b, &scenario)
                });
                runs += 1;
                if got != want {
                    failures.push(format!("{d}/{name}: cut before pass {cut}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{runs} runs of corpus scenarios resumed");
    assert!(runs > 20, "only {runs} runs");
}
