//! Bad input and exhaustion: a write that fails is a one-line error with exit
//! 2 for every subcommand; a file the tools replace is replaced whole or not at
//! all; ranges are stated as S25 gives them; no streams found is an error; and
//! clap's usage errors are one line.

mod common;
use common::{fresh_dir, kmst, kmst_in, kmst_to_full, kmst_with_file_limit, s, workspace_file};

use std::path::Path;

/// Exit 2 and exactly one line on stderr, naming what failed.
fn assert_one_line_error(what: &str, code: i32, err: &str, needle: &str) {
    assert_eq!(code, 2, "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: not one line:\n{err}");
    assert!(err.starts_with("kmst: "), "{what}: {err}");
    assert!(err.contains(needle), "{what}: no `{needle}` in {err}");
}

#[test]
fn a_full_stdout_is_a_one_line_error_for_every_subcommand() {
    let jobs = workspace_file("corpus/streams/jobs_1000.kms");
    let bin = workspace_file("corpus/streams/jobs_1000.bin");
    let seed = workspace_file("fuzz/corpus/sim_raw/jobs_1000");
    let corpus = workspace_file("corpus/streams");
    let wait = workspace_file("corpus/bench/long_wait_1.kms");
    let out = fresh_dir("errors-full", "seeds");
    let dict = out.join("kmst.dict");
    let cases: Vec<Vec<&str>> = vec![
        vec!["check", &jobs],
        vec!["check", &jobs, "--json"],
        vec!["disasm", &bin],
        vec!["run", &jobs],
        vec!["run", &jobs, "--json"],
        vec!["profile", &jobs],
        vec!["profile", &jobs, "--sweep", "16,64"],
        vec!["compare", "--quick", "--samples", "1", &wait],
        vec!["replay", &seed],
        vec![
            "fuzz-seeds",
            "--corpus",
            &corpus,
            "--out",
            s(&out),
            "--dict",
            s(&dict),
        ],
    ];
    for args in cases {
        let (code, err) = kmst_to_full(&args);
        assert_one_line_error(&args.join(" "), code, &err, "No space left on device");
    }
}

/// A `.kms` source of `n` SET micro-ops and a HALT: 64 + pad64(16·(n+1)) bytes assembled (S2).
fn long_source(n: usize) -> String {
    let mut text = String::from(".stream max_steps=100000 seed=1\n");
    for i in 0..n {
        text.push_str(&format!("set r1, {i}\n"));
    }
    text.push_str("halt r0\n");
    text
}

/// Every file in `dir` but `keep`: no temporary file is left behind.
fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

/// The write of `file` in `dir` failed and left it whole: its `old` text,
/// and no other file but those of `beside`.
fn assert_left_whole(dir: &Path, file: &str, old: &str, beside: &[&str]) {
    assert_eq!(std::fs::read_to_string(dir.join(file)).unwrap(), old);
    let mut keep = vec![file];
    keep.extend(beside);
    assert_eq!(others(dir, &keep), Vec::<String>::new());
}

#[test]
fn a_write_that_fails_half_way_leaves_the_old_file_whole() {
    // Files may grow to 4 KiB (`ulimit -f 4`): each output below is larger,
    // so its write fails part way through with EFBIG.
    let dir = fresh_dir("errors-replace", "asm");
    // 401 micro-ops: 64 + pad64(16·401 = 6,416) = 64 + 6,464 = 6,528 bytes (S2),
    // over the limit.
    std::fs::write(dir.join("long.kms"), long_source(400)).unwrap();
    std::fs::write(dir.join("long.bin"), "old upload").unwrap();
    let (code, _, err) = kmst_with_file_limit(
        4,
        &[
            "asm",
            s(&dir.join("long.kms")),
            "-o",
            s(&dir.join("long.bin")),
        ],
    );
    assert_one_line_error("asm -o", code, &err, "long.bin");
    assert_left_whole(&dir, "long.bin", "old upload", &["long.kms"]);
    // Without the limit the same command replaces it: 6,528 bytes.
    let (code, _, err) = kmst(&[
        "asm",
        s(&dir.join("long.kms")),
        "-o",
        s(&dir.join("long.bin")),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::metadata(dir.join("long.bin")).unwrap().len(),
        6_528
    );

    // corpus write: jobs_1000's answer (1,000 commands) is far over 4 KiB.
    let dir = fresh_dir("errors-replace", "corpus");
    let src = workspace_file("corpus/streams/jobs_1000.kms");
    std::fs::copy(&src, dir.join("jobs_1000.kms")).unwrap();
    std::fs::write(dir.join("jobs_1000.bin"), "old bin").unwrap();
    std::fs::write(dir.join("jobs_1000.json"), "old answer").unwrap();
    let (code, _, err) = kmst_with_file_limit(4, &["corpus", "write", "--dir", s(&dir)]);
    assert_one_line_error("corpus write", code, &err, "jobs_1000.");
    assert_left_whole(
        &dir,
        "jobs_1000.json",
        "old answer",
        &["jobs_1000.kms", "jobs_1000.bin"],
    );

    // profile --trace: jobs_1000's trace has an event per command.
    let dir = fresh_dir("errors-replace", "trace");
    std::fs::write(dir.join("t.json"), "old trace").unwrap();
    let (code, _, err) =
        kmst_with_file_limit(4, &["profile", &src, "--trace", s(&dir.join("t.json"))]);
    assert_one_line_error("profile --trace", code, &err, "t.json");
    assert_left_whole(&dir, "t.json", "old trace", &[]);

    // compare --plot: an SVG chart is several KiB.
    let dir = fresh_dir("errors-replace", "plot");
    std::fs::write(dir.join("c.svg"), "old chart").unwrap();
    let wait = workspace_file("corpus/bench/long_wait_1.kms");
    let (code, _, err) = kmst_with_file_limit(
        4,
        &[
            "compare",
            "--quick",
            "--samples",
            "1",
            &wait,
            "--plot",
            s(&dir.join("c.svg")),
        ],
    );
    assert_one_line_error("compare --plot", code, &err, "c.svg");
    assert_left_whole(&dir, "c.svg", "old chart", &[]);

    // fuzz-seeds, with files of at most 1 KiB: the `check` seeds of the
    // 64-micro-op turn streams are 1,184 bytes.
    let dir = fresh_dir("errors-replace", "seeds");
    std::fs::create_dir_all(dir.join("check")).unwrap();
    std::fs::write(dir.join("check/step_limit_next_turn.plain"), "old seed").unwrap();
    let corpus = workspace_file("corpus/streams");
    let dict = dir.join("kmst.dict");
    let (code, _, err) = kmst_with_file_limit(
        1,
        &[
            "fuzz-seeds",
            "--corpus",
            &corpus,
            "--out",
            s(&dir),
            "--dict",
            s(&dict),
        ],
    );
    assert_one_line_error("fuzz-seeds", code, &err, "File too large");
    let old = std::fs::read_to_string(dir.join("check/step_limit_next_turn.plain")).unwrap();
    assert_eq!(old, "old seed");
    for sub in std::fs::read_dir(&dir).unwrap() {
        let sub = sub.unwrap().path();
        if sub.is_dir() {
            for f in std::fs::read_dir(&sub).unwrap() {
                let name = f.unwrap().file_name().to_string_lossy().into_owned();
                assert!(!name.contains(".tmp-"), "left behind: {name}");
            }
        }
    }
}

#[test]
fn ranges_are_stated_as_s25_gives_them() {
    let jobs = workspace_file("corpus/streams/jobs_1000.kms");
    // S25: core_count 1..=65535 (the group fields are 16 bits).
    let (code, _, err) = kmst(&["run", &jobs, "--core-count", "4294967296"]);
    assert_one_line_error("--core-count", code, &err, "4294967296 is not in 1..=65535");
    let (code, _, err) = kmst(&["run", &jobs, "--core-count", "0"]);
    assert_one_line_error("--core-count 0", code, &err, "0 is not in 1..=65535");
    // S25: turn_budget ≥ 1, a u32.
    let (code, _, err) = kmst(&["profile", &jobs, "--sweep", "16,0"]);
    assert_one_line_error("--sweep", code, &err, "0 is not in 1..=4294967295");
    // S25: max_passes ≥ 1, a u64.
    let (code, _, err) = kmst(&["run", &jobs, "--max-passes", "0"]);
    assert_one_line_error(
        "--max-passes",
        code,
        &err,
        "0 is not in 1..=18446744073709551615",
    );
    // S25: ticks_per_pass 0..=2^32-1.
    let (code, _, err) = kmst(&["run", &jobs, "--ticks-per-pass", "4294967296"]);
    assert_one_line_error("--ticks-per-pass", code, &err, "is not in 0..=4294967295");
    // S25: arg(k) with k in 0..=9.
    let (code, _, err) = kmst(&["run", &jobs, "--result", "arg:10"]);
    assert_one_line_error("--result", code, &err, "arg(10) is not in 0..=9");
}

#[test]
fn no_streams_found_is_an_error() {
    let empty = fresh_dir("errors-empty", "corpus");
    for action in ["check", "write"] {
        let (code, out, err) = kmst(&["corpus", action, "--dir", s(&empty)]);
        assert_one_line_error(action, code, &err, "no `.kms` streams");
        assert_eq!(out, "");
    }
}

#[test]
fn usage_errors_are_one_line() {
    for args in [
        vec!["run"],
        vec!["run", "x.kms", "--bogus"],
        vec!["bogus"],
        vec!["profile", "x.kms", "--sweep", "16", "--budget", "4"],
        vec!["check", "x", "--region-size", "big"],
    ] {
        let (code, out, err) = kmst(&args);
        assert_one_line_error(&args.join(" "), code, &err, "see --help)");
        assert_eq!(out, "");
    }
    // --help is the whole help, on stdout, exit 0.
    let (code, out, _) = kmst(&["run", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--max-passes"), "{out}");
}

#[test]
fn flag_values_and_conflicts_say_what_is_wrong() {
    let jobs = workspace_file("corpus/streams/jobs_1000.kms");
    // A negative value reaches the flag's own reader, which states the
    // range (S23: a delay is a u32), not clap's `-- -1` tip.
    let (code, _, err) = kmst(&["run", &jobs, "--delay", "-1"]);
    assert_one_line_error(
        "--delay -1",
        code,
        &err,
        "cannot read `-1`: expected N, never",
    );
    assert!(!err.contains("'-- -1'"), "{err}");
    let (code, _, err) = kmst(&["run", &jobs, "--core-count", "-1"]);
    assert_one_line_error("--core-count -1", code, &err, "in 1..=65535");
    // --budget is --turn-budget: both is a conflict, not the first silently.
    let (code, _, err) = kmst(&["profile", &jobs, "--budget", "8", "--turn-budget", "16"]);
    assert_one_line_error("--budget --turn-budget", code, &err, "cannot be used with");
    // --top 0 would list nothing.
    let (code, _, err) = kmst(&["profile", "--pairs", &jobs, "--top", "0"]);
    assert_one_line_error("--top 0", code, &err, "0 is not in 1..=");
    // replay's help lists the targets its error lists.
    let (_, help, _) = kmst(&["replay", "--help"]);
    let (code, _, err) = kmst(&["replay", &jobs, "--target", "x"]);
    assert_one_line_error("--target x", code, &err, "targets: ");
    let list = err
        .split("targets: ")
        .nth(1)
        .unwrap()
        .trim_end_matches(")\n");
    for target in list.split(", ") {
        assert!(
            help.contains(target),
            "replay --help lacks {target}:\n{help}"
        );
    }
    assert!(help.contains("sizes or resume"), "{help}");
}

#[test]
fn corpus_check_away_from_the_root_says_where_to_run_it() {
    let away = fresh_dir("errors-away", "");
    let (code, _, err) = kmst_in(&away, &["corpus", "check"]);
    assert_one_line_error(
        "corpus check",
        code,
        &err,
        "relative to the workspace root: run there, or give --dir",
    );
}

#[test]
fn help_and_version_to_a_full_stdout_are_write_errors() {
    // docs/cli.md: exit 2 for a write error on standard output.
    for args in [vec!["--help"], vec!["--version"], vec!["run", "--help"]] {
        let (code, err) = kmst_to_full(&args);
        assert_one_line_error(&args.join(" "), code, &err, "No space left on device");
    }
}

#[test]
fn a_negative_count_is_refused_with_its_range() {
    let jobs = workspace_file("corpus/streams/jobs_1000.kms");
    // Counts of at least 1 (--top: 0 would list nothing; --samples,
    // --jobs: none would measure or run nothing), stated as such, not
    // clap's tip to pass `-- -1` (which would make -1 a file name).
    for (args, range) in [
        (
            vec!["profile", "--pairs", &jobs, "--top", "-1"],
            "-1 is not in 1..=4294967295",
        ),
        (
            vec!["compare", &jobs, "--samples", "-1"],
            "-1 is not in 1..=4294967295",
        ),
        (
            vec!["corpus", "check", "--jobs", "-2"],
            "-2 is not in 1..=1024",
        ),
        (
            vec!["check", &jobs, "--region-size", "-5"],
            "-5 is not in 0..=18446744073709551615",
        ),
    ] {
        let what = args.join(" ");
        let (code, out, err) = kmst(&args);
        assert_one_line_error(&what, code, &err, range);
        assert!(!err.contains("'-- -1'"), "{what}: {err}");
        assert_eq!(out, "", "{what}");
    }
}
