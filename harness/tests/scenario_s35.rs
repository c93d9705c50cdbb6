//! S35 over the whole golden corpus: every stream of `corpus/streams`, run by
//! the one-stream reference `simulate` with its `;@ params`, gives the same
//! answer as its one-RUN scenario (the upload at offset 0, `run(0, len)` in
//! pass 0, and `cancel(req)` in pass c for a `cancel_pass` c) run by
//! `simulate_scenario`.

// The comparison of one stream, shared with the reference model's replay.
#[path = "../../reference/tests/common/s35.rs"]
mod s35;

use std::path::PathBuf;

use kmst_harness::corpus;
use kmst_reference::simulate;
use s35::one_run_answer;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/streams")
}

#[test]
fn every_corpus_stream_is_its_one_run_scenario() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for name in corpus::stream_names(&dir()).expect("the corpus directory is readable") {
        let stream = corpus::load(&dir(), &name).expect("the stream loads");
        let params = stream.params().expect("its params read");
        let upload = stream.assemble().expect("its source assembles");
        // S35 covers uploads of at most region_size bytes (a larger one
        // cannot be placed in the region).
        if upload.len() as u64 > params.region_size {
            continue;
        }
        compared += 1;
        if let Err(e) = one_run_answer(&upload, &params, &simulate(&upload, &params)) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus holds about 180 streams; nearly all fit their region.
    assert!(compared >= 150, "only {compared} streams compared");
}
