//! Every seed in `fuzz/corpus/TARGET/` and every kept artifact in
//! `fuzz/regressions/TARGET/` goes through its target's comparison
//! (`kmst_harness::fuzzing::run`, the code the fuzz targets call), so a divergence
//! the fuzzer once found, or one a seed already shows, fails `cargo test`.

use std::path::{Path, PathBuf};

use kmst_harness::fuzzing::seeds::corpus_seeds;
use kmst_harness::fuzzing::{Target, run};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files of `dir` (none if it does not exist), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .filter(|p| {
                    !p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn replay_dir(kind: &str, target: Target) -> usize {
    let dir = repo().join("fuzz").join(kind).join(target.name());
    let all = files(&dir);
    let mut failures = Vec::new();
    for path in &all {
        let data = std::fs::read(path).unwrap();
        if let Err(d) = run(target, &data) {
            failures.push(format!("{}:\n{d}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs diverge:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
    all.len()
}

#[test]
fn seed_corpora_agree() {
    for target in Target::ALL {
        let n = replay_dir("corpus", target);
        // scripts/fuzz-seeds.sh writes seeds for every target; an empty
        // directory means they were never written or were lost.
        assert!(
            n >= 8,
            "only {n} seeds for {target}: run scripts/fuzz-seeds.sh"
        );
    }
}

#[test]
fn regressions_agree() {
    for target in Target::ALL {
        replay_dir("regressions", target);
    }
}

#[test]
fn corpus_seeds_are_up_to_date() {
    // The raw targets' seeds are the saved streams behind their prefixes: a
    // changed stream must be re-seeded (scripts/fuzz-seeds.sh).
    let seeds = corpus_seeds(&repo().join("corpus/streams")).unwrap();
    assert!(seeds.iter().any(|s| s.target == Target::Check));
    assert!(seeds.iter().any(|s| s.target == Target::SimRaw));
    for s in &seeds {
        let path = repo()
            .join("fuzz/corpus")
            .join(s.target.name())
            .join(&s.name);
        let saved = std::fs::read(&path).unwrap_or_default();
        assert!(
            saved == s.bytes,
            "{} is stale or missing: run scripts/fuzz-seeds.sh",
            path.display()
        );
    }
}

#[test]
fn dictionary_is_up_to_date() {
    let saved = std::fs::read_to_string(repo().join("fuzz/kmst.dict")).unwrap_or_default();
    assert!(
        saved == kmst_harness::fuzzing::seeds::dictionary(),
        "fuzz/kmst.dict is stale: run scripts/fuzz-seeds.sh"
    );
    // The header's first eight bytes: "TSMK" (0x4B4D5354 little-endian), version 1.
    assert!(saved.contains(r#"magic_version="\x54\x53\x4d\x4b\x01\x00\x00\x00""#));
    // SUBMIT is opcode 32 (docs/spec.md "Micro-ops").
    assert!(saved.contains(r#"op_submit="\x20\x01\x02\x03""#));
}
