//! `--jobs N`: the commands that make many independent runs (`corpus
//! check`, `profile --sweep`, several files to `scenario` or `profile`,
//! `profile --pairs`) print the same, in the same order, whatever N.

mod common;
use common::{kmst_at_root, workspace_file};

/// The same command with `--jobs 1` and `--jobs 2` (and `-j 3`) prints the
/// same; returns it.
fn same_whatever_the_jobs(args: &[&str]) -> (i32, String, String) {
    let with = |j: &str| {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--jobs", j]);
        kmst_at_root(&a)
    };
    let one = with("1");
    assert_eq!(with("2"), one, "{args:?}");
    assert_eq!(with("3"), one, "{args:?}");
    one
}

/// `kmst COMMAND FILES...`, the same whatever the jobs: exit 0, each
/// file's report under its `== FILE` head, in the order given; returns
/// stdout.
fn each_file_in_order(command: &str, files: &[&str]) -> String {
    let mut args = vec![command];
    args.extend(files);
    let (code, out, err) = same_whatever_the_jobs(&args);
    assert_eq!(code, 0, "{err}");
    let heads: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("== ")).collect();
    assert_eq!(heads, files);
    out
}

#[test]
fn corpus_check_reports_in_name_order_whatever_the_jobs() {
    // Three streams, two of them with a wrong saved answer: their
    // mismatches come in name order (a_..., then c_...), whichever
    // finishes first.
    let dir = std::env::temp_dir().join(format!("kmst-jobs-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (from, to, break_it) in [
        ("jobs_1000", "a_jobs", true),
        ("overtake_1024", "b_overtake", false),
        ("arith_ops", "c_arith", true),
    ] {
        for ext in ["kms", "bin", "json"] {
            let src = workspace_file(&format!("corpus/streams/{from}.{ext}"));
            let mut bytes = std::fs::read(src).unwrap();
            if ext == "json" && break_it {
                let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                let passes = v["passes"].as_u64().unwrap();
                v["passes"] = (passes + 1).into();
                bytes = serde_json::to_vec_pretty(&v).unwrap();
            }
            std::fs::write(dir.join(format!("{to}.{ext}")), bytes).unwrap();
        }
    }
    let (code, out, err) = same_whatever_the_jobs(&[
        "corpus",
        "check",
        "--dir",
        dir.to_str().unwrap(),
        "--scenario-dir",
        &workspace_file("corpus/scenarios"),
    ]);
    assert_eq!(code, 1, "{err}");
    let first_a = out.find("a_jobs").expect(&out);
    let first_c = out.find("c_arith").expect(&out);
    assert!(first_a < first_c, "{out}");
    assert!(!out.contains("b_overtake"), "{out}");
    assert!(
        err.contains("checked 3 streams: ") && err.contains(": 2 of 3 do not match"),
        "{err}"
    );
}

#[test]
fn a_sweep_lists_its_budgets_in_order_whatever_the_jobs() {
    // A stream's sweep and a scenario's: a row per budget, in the order given.
    for (file, sweep) in [
        ("corpus/streams/jobs_1000.kms", "64,1,16,2,8,4"),
        ("corpus/bench/four_streams.json", "16,32,64"),
    ] {
        let (code, out, err) = same_whatever_the_jobs(&["profile", file, "--sweep", sweep]);
        assert_eq!(code, 0, "{file}: {err}");
        let budgets: Vec<&str> = out
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(budgets, sweep.split(',').collect::<Vec<_>>(), "{file}");
    }
}

#[test]
fn several_files_print_in_the_order_given_whatever_the_jobs() {
    let files = [
        "corpus/scenarios/host_submit_blocks_cancel.json",
        "corpus/bench/four_streams.json",
        "corpus/scenarios/empty_scenario.json",
    ];
    each_file_in_order("scenario", &files);
    let mut args = vec!["scenario"];
    args.extend(files);
    args.push("--json");
    let (code, out, _) = same_whatever_the_jobs(&args);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let named: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap())
        .collect();
    assert_eq!(named, files);
    // Each answer is the one the file gives alone.
    let (_, alone, _) = kmst_at_root(&["scenario", files[1], "--json"]);
    assert_eq!(
        v[1]["answer"],
        serde_json::from_str::<serde_json::Value>(&alone).unwrap()
    );

    // kmst profile: streams and scenarios mixed.
    let files = [
        "corpus/streams/jobs_1000.kms",
        "corpus/bench/four_streams.json",
        "corpus/streams/arith_ops.kms",
    ];
    let out = each_file_in_order("profile", &files);
    let (_, alone, _) = kmst_at_root(&["profile", files[2]]);
    assert!(out.ends_with(&alone), "{out}");
    // A bad file among them: what comes before it, then its error (exit 2).
    let (code, out, err) = same_whatever_the_jobs(&["profile", files[0], "no/such.kms", files[2]]);
    assert_eq!(code, 2);
    assert!(
        out.starts_with("== corpus/streams/jobs_1000.kms\n") && !out.contains("arith_ops"),
        "{out}"
    );
    assert!(err.contains("no/such.kms"), "{err}");
    // --trace writes one file's trace.
    let (code, _, err) =
        kmst_at_root(&["profile", files[0], files[2], "--trace", "/tmp/never.json"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn pairs_are_the_same_whatever_the_jobs() {
    let (code, _, err) = same_whatever_the_jobs(&[
        "profile",
        "--pairs",
        "corpus/streams/jobs_1000.kms",
        "corpus/bench/four_streams.json",
        "corpus/streams/arith_ops.kms",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn jobs_takes_1_and_up() {
    let (code, _, err) = kmst_at_root(&["corpus", "check", "--jobs", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("0 is not in 1..=1024"), "{err}");
}
