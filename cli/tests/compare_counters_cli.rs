//! `kmst compare --counters` as a program: the JSON and the table under
//! callgrind (only where valgrind is on the PATH), and the one-line message
//! and exit 2 where it is not.

mod common;
use common::{fresh_dir, kmst, kmst_command, kmst_in, outcome, workspace_file};

use std::path::Path;

/// Whether `valgrind` is on the PATH; prints a note for the skipped test
/// when it is not.
fn have_valgrind(test: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("valgrind").is_file()));
    if !found {
        eprintln!("{test}: skipped, no valgrind on the PATH");
    }
    found
}

/// `kmst compare --counters ARGS` with nothing on the PATH but `dir`.
fn counters_with_path(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["compare", "--counters"];
    all.extend(args);
    outcome(kmst_command().args(all).env("PATH", dir))
}

/// `kmst compare --counters ARGS` in the folder `dir`, or `None` (the test
/// skipped) where valgrind is not on the PATH.
fn under_callgrind(
    test: &str,
    dir: impl AsRef<Path>,
    args: &[&str],
) -> Option<(i32, String, String)> {
    if !have_valgrind(test) {
        return None;
    }
    let mut all = vec!["compare", "--counters"];
    all.extend(args);
    Some(kmst_in(dir, &all))
}

#[test]
fn counters_json_of_alu_on_switch() {
    // Away from the workspace: the workloads are bundled.
    let Some((code, out, err)) = under_callgrind(
        "counters_json_of_alu_on_switch",
        std::env::temp_dir(),
        &[
            "--runs",
            "1",
            "--workloads",
            "alu",
            "--variants",
            "switch",
            "--json",
        ],
    ) else {
        return;
    };
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["settings"]["mode"], "counters");
    assert_eq!(v["settings"]["runs"], 1);
    assert!(
        v["settings"]["tool"]
            .as_str()
            .unwrap()
            .starts_with("callgrind")
    );
    let w = &v["workloads"][0];
    assert_eq!(w["name"], "alu");
    let ops = w["ops"].as_u64().unwrap();
    assert!(ops > 0);
    let variants = w["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 1);
    assert_eq!(variants[0]["variant"], "switch");
    let c = &variants[0]["counters"];
    assert_eq!(c["runs"], 1);
    let per_op = |key: &str| -> f64 {
        c["per_op"][key]
            .as_f64()
            .unwrap_or_else(|| panic!("no per_op.{key} in {c}"))
    };
    let instructions = per_op("instructions");
    assert!(
        instructions.is_finite() && instructions > 0.0,
        "{instructions}"
    );
    // The switch loop takes one indirect jump a unit, and a unit is one
    // micro-op or a superinstruction's two (alu's loop closes with
    // ADDI+JLT): at least one every two micro-ops.
    assert!(per_op("indirect_branches") >= 0.5, "{c}");
    assert!(per_op("conditional_mispredictions") <= per_op("conditional_branches"));
    assert!(per_op("indirect_mispredictions") <= per_op("indirect_branches"));
    // One run: the totals are the per-run figures, and per_op is them
    // divided by the micro-ops.
    for key in kmst_harness::compare::COUNTER_NAMES {
        let total = c["total"][key].as_u64().unwrap();
        assert_eq!(c["per_run"][key].as_f64().unwrap(), total as f64);
        // (serde_json reads a float back to within an ulp or so.)
        let want = total as f64 / ops as f64;
        assert!((per_op(key) - want).abs() <= 1e-12 * want, "{key}: {c}");
    }
}

#[test]
fn counters_table_of_a_file_given_by_a_relative_path() {
    // The child process reads the same FILE, relative to the same directory.
    let Some((code, text, err)) = under_callgrind(
        "counters_table_of_a_file_given_by_a_relative_path",
        workspace_file(""),
        &[
            "--quick",
            "--variants",
            "tail,reference",
            "corpus/bench/long_wait_1.kms",
        ],
    ) else {
        return;
    };
    assert_eq!(code, 0, "{err}");
    let header: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "workload",
            "variant",
            "micro-ops",
            "instr/op",
            "branches/op",
            "mispred/op",
            "indirect/op",
            "ind.mispred/op"
        ]
    );
    for variant in ["tail", "reference"] {
        let row: Vec<&str> = text
            .lines()
            .find(|l| l.split_whitespace().take(2).eq(["long_wait_1", variant]))
            .unwrap_or_else(|| panic!("no row for {variant}:\n{text}"))
            .split_whitespace()
            .collect();
        // 4 SUBMITs, WAIT, EVENT, HALT; then five numbers with 2 decimals.
        assert_eq!(row[2], "7", "{text}");
        for cell in &row[3..] {
            let (_, decimals) = cell.split_once('.').unwrap();
            assert_eq!(decimals.len(), 2, "{cell} in\n{text}");
        }
        let instr: f64 = row[3].replace(',', "").parse().unwrap();
        assert!(instr > 0.0);
    }
    assert!(text.contains("1 run per cell"), "{text}");
}

#[test]
fn without_valgrind_one_line_and_exit_2() {
    let empty = fresh_dir("counters-no-valgrind", "bin");
    let (code, out, err) = counters_with_path(
        &empty,
        &["--workloads", "alu", "--variants", "switch", "--json"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("needs valgrind"), "{err}");
    assert!(err.contains("apt install valgrind"), "{err}");
}

#[test]
fn a_failing_valgrind_is_reported_with_its_stderr_tail() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in `valgrind` that fails as valgrind does on a bad option.
    let dir = fresh_dir("counters-failing-valgrind", "bin");
    let fake = dir.join("valgrind");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'valgrind: Unknown option: --branch-sim=yes' >&2\necho 'valgrind: Use --help for more information.' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, _, err) =
        counters_with_path(&dir, &["--workloads", "long_wait_1", "--variants", "tail"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("workload long_wait_1, tail: valgrind exit status: 1: valgrind: Unknown option: --branch-sim=yes | valgrind: Use --help"), "{err}");
}

#[test]
fn counters_usage_errors_exit_2() {
    for args in [
        &["compare", "--runs", "2"][..], // --runs needs --counters
        &["compare", "--counters", "--samples", "3"], // samples are for timing
        &["compare", "--counters", "--plot", "x.svg"], // so is the chart
        &["compare", "--counters", "--runs", "0"], // at least one run
        &["compare", "--counters", "--variants", "nope"], // an unknown variant
    ] {
        let (code, _, err) = kmst(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}");
    }
    // The child process is no command for people.
    let (_, help, _) = kmst(&["--help"]);
    assert!(!help.contains("counters-child"));
}
