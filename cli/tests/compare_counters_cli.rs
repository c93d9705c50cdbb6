//! `kmst compare --counters` as a program: the JSON and the table under
//! callgrind (only where valgrind is on the PATH), and the one-line message
//! and exit 2 where it is not.

mod common;
use common::{fresh_dir, workspace_file};

use std::process::{Command, Output};

fn kmst() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kmst"))
}

fn code_and_stderr(out: &Output) -> String {
    format!(
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    )
}

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

#[test]
fn counters_json_of_alu_on_switch() {
    if !have_valgrind("counters_json_of_alu_on_switch") {
        return;
    }
    let out = kmst()
        .args([
            "compare",
            "--counters",
            "--runs",
            "1",
            "--workloads",
            "alu",
            "--variants",
            "switch",
            "--json",
        ])
        .current_dir(std::env::temp_dir()) // the workloads are bundled
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", code_and_stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
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
    // The switch loop takes at least one indirect jump a micro-op.
    assert!(per_op("indirect_branches") >= 1.0 - 1e-3, "{c}");
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
    if !have_valgrind("counters_table_of_a_file_given_by_a_relative_path") {
        return;
    }
    // The child process reads the same FILE, relative to the same directory.
    let out = kmst()
        .args([
            "compare",
            "--counters",
            "--quick",
            "--variants",
            "tail,reference",
            "corpus/bench/long_wait_1.kms",
        ])
        .current_dir(workspace_file(""))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", code_and_stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
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
    let out = kmst()
        .args([
            "compare",
            "--counters",
            "--workloads",
            "alu",
            "--variants",
            "switch",
            "--json",
        ])
        .env("PATH", &empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", code_and_stderr(&out));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
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
    let out = kmst()
        .args([
            "compare",
            "--counters",
            "--workloads",
            "long_wait_1",
            "--variants",
            "tail",
        ])
        .env("PATH", &dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", code_and_stderr(&out));
    let err = String::from_utf8(out.stderr).unwrap();
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
        let out = kmst().args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            code_and_stderr(&out)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).lines().count(),
            1,
            "{args:?}"
        );
    }
    // The child process is no command for people.
    let help = kmst().arg("--help").output().unwrap();
    assert!(!String::from_utf8_lossy(&help.stdout).contains("counters-child"));
}
