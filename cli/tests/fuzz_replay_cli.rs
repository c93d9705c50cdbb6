//! `kmst replay` as a user runs it: the target from the path or `--target`,
//! exit 0 when every implementation agrees, 2 on a usage or I/O error, and
//! `--disasm` printing what the input stands for. (Exit 1, a divergence, is
//! the report of `kmst_harness::fuzzing::run`; `fuzz_harness.rs` tests the reports.)

mod common;
use common::kmst;

use std::path::{Path, PathBuf};

use kmst_harness::fuzzing::input::{CheckPrefix, SimPrefix};
use kmst_harness::fuzzing::job_example;
use kmst_reference::Params;

/// A file `name` under a fresh directory `sub` of the temp dir.
fn temp(sub: &str, name: &str, contents: &[u8]) -> PathBuf {
    common::temp_in("replay-cli", sub, name, contents)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn the_target_comes_from_the_directory_name() {
    // A `check` input under .../check/: the plain prefix and the job example,
    // which both checkers accept.
    let mut input = CheckPrefix::plain().0.to_vec();
    input.extend_from_slice(&job_example().encode());
    let path = temp("artifacts/check", "crash-1", &input);
    let (code, out, err) = kmst(&["replay", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("every implementation agrees"), "{out}");
    assert!(out.contains("check: none"), "{out}");
}

#[test]
fn target_flag_and_disasm() {
    let params = Params {
        max_passes: 40,
        ..Params::default()
    };
    let mut input = SimPrefix::encode(&params).0.to_vec();
    input.extend_from_slice(&job_example().encode());
    let path = temp("elsewhere", "input", &input);
    let (code, out, err) = kmst(&["replay", s(&path), "--target", "sim_raw", "--disasm"]);
    assert_eq!(code, 0, "{out}{err}");
    // The parameters as S24 JSON, then the upload as .kms: the example's
    // header (max_steps 100,000, deadline 200,000 µs, req 1, seed 1).
    assert!(out.contains(r#""max_passes":40"#), "{out}");
    assert!(
        out.contains(".stream max_steps=100000 deadline_us=200000 req=1 seed=1"),
        "{out}"
    );
}

#[test]
fn usage_and_io_errors_exit_2() {
    let path = temp("nowhere", "input", b"");
    // No directory named like a target, no --target.
    let (code, _, err) = kmst(&["replay", s(&path)]);
    assert_eq!(code, 2);
    assert!(err.contains("--target"), "{err}");
    let (code, _, err) = kmst(&["replay", s(&path), "--target", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown fuzz target `nope`"), "{err}");
    let (code, _, _) = kmst(&["replay", "/nonexistent/check/x"]);
    assert_eq!(code, 2);
}

#[test]
fn keep_makes_the_input_a_regression_input() {
    let mut input = CheckPrefix::plain().0.to_vec();
    input.extend_from_slice(&job_example().encode());
    let path = temp("keep/artifacts/check", "crash-abc", &input);
    let regressions = common::fresh_dir("replay-cli", "keep-regressions");
    let args = [
        "replay",
        s(&path),
        "--keep",
        "--regressions",
        s(&regressions),
    ];
    let (code, out, err) = kmst(&args);
    assert_eq!(code, 0, "{out}{err}");
    // Under its target's directory, by its file name, byte for byte.
    let kept = regressions.join("check/crash-abc");
    assert_eq!(std::fs::read(&kept).unwrap(), input);
    assert!(
        err.contains("cargo test -p kmst-harness --test fuzz_corpus"),
        "{err}"
    );
    // Again: the same bytes are already kept, fine.
    let (code, _, err) = kmst(&args);
    assert_eq!(code, 0, "{err}");
    // Another input by the same name is not overwritten.
    let other = temp("keep/artifacts/check", "crash-abc", b"other");
    let (code, _, err) = kmst(&[
        "replay",
        s(&other),
        "--keep",
        "--regressions",
        s(&regressions),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("exists with other contents"), "{err}");
    assert_eq!(std::fs::read(&kept).unwrap(), input);
}
