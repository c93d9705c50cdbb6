//! `kmst compare` as a program: exit codes and the `--json` output.

mod common;
use common::{kmst, kmst_in, s, workspace_file};

/// `kmst compare --quick --samples SAMPLES --workloads WORKLOADS MORE...`,
/// away from the workspace: the workloads are bundled.
fn compare_bundled(samples: &str, workloads: &str, more: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "compare",
        "--quick",
        "--samples",
        samples,
        "--workloads",
        workloads,
    ];
    args.extend(more);
    kmst_in(std::env::temp_dir(), &args)
}

#[test]
fn quick_compare_of_one_file_exits_0() {
    // A FILE argument: a .kms source whose `;@ params` give its parameters.
    let wait = workspace_file("corpus/bench/long_wait_1.kms");
    let (code, text, err) = kmst(&["compare", "--quick", &wait]);
    assert_eq!(code, 0, "{err}");
    // The workload's line with the 7 micro-ops of the stream, then one row
    // per compiled variant.
    assert!(text.starts_with("long_wait_1: 7 micro-ops, "), "{text}");
    for d in kmst_harness::answers::Implementation::all() {
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().next() == Some(d.name())),
            "no row for {d}:\n{text}"
        );
    }
    // It fits a 100-column terminal.
    assert!(text.lines().all(|l| l.len() <= 100), "{text}");
}

#[test]
fn json_of_a_bundled_workload() {
    let (code, out, err) = compare_bundled("3", "long_wait_1", &["--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["settings"]["samples"], 3);
    let ws = v["workloads"].as_array().unwrap();
    assert_eq!(ws.len(), 1);
    let w = &ws[0];
    assert_eq!(w["name"], "long_wait_1");
    // 4 SUBMITs, WAIT, EVENT, HALT.
    assert_eq!(w["ops"], 7);
    let names: Vec<&str> = w["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["variant"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = kmst_harness::answers::Implementation::all()
        .iter()
        .map(|d| d.name())
        .collect();
    assert_eq!(names, expected);
    for v in w["variants"].as_array().unwrap() {
        assert_eq!(v["ns_per_run"]["n"], 3);
        assert!(v["ns_per_run"]["median"].as_f64().unwrap() > 0.0);
        assert!(v["ops_per_second"].as_f64().unwrap() > 0.0);
    }
    // Each sample's ratio of the reference to itself is exactly 1.
    let reference = w["variants"].as_array().unwrap().last().unwrap();
    assert_eq!(reference["variant"], "reference");
    assert_eq!(reference["speedup_vs_reference"]["median"], 1.0);
}

#[test]
fn the_bundled_scenarios_in_the_table() {
    let (code, text, err) = compare_bundled("1", "four_streams,host_mix", &["--variants", "tail"]);
    assert_eq!(code, 0, "{err}");
    // The micro-op column: four_streams 4 x 20,256; host_mix 25 x (2,560 + 1,204)
    // (worked out in the harness's tests/compare.rs).
    let title = |name: &str| -> String {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} line in\n{text}"))
            .split(',')
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(title("four_streams"), "four_streams: 81");
    assert!(text.contains("four_streams: 81,024 micro-ops, "), "{text}");
    assert!(text.contains("host_mix: 94,100 micro-ops, "), "{text}");
}

#[test]
fn a_scenario_file_is_a_workload() {
    let scenario = workspace_file("corpus/bench/four_streams.json");
    let (code, out, err) = kmst(&["compare", "--quick", "--samples", "1", "--json", &scenario]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["workloads"][0]["name"], "four_streams");
    assert_eq!(v["workloads"][0]["ops"], 81_024);
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = kmst(&["compare", "--quick", "--variants", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("nope"));
    let (code, _, _) = kmst(&["compare", "--quick", "--workloads", "nope"]);
    assert_eq!(code, 2);
    let (code, _, _) = kmst(&["compare", "/nonexistent/x.kms"]);
    assert_eq!(code, 2);
}

#[test]
fn baseline_names_the_speedups_of_the_table_and_the_chart() {
    let svg = std::env::temp_dir().join(format!("kmst-baseline-{}.svg", std::process::id()));
    let (code, text, err) = compare_bundled(
        "3",
        "long_wait_1",
        &[
            "--variants",
            "tail,switch,reference",
            "--baseline",
            "switch",
            "--plot",
            s(&svg),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("x switch"), "{text}");
    // 3 samples: [min, max], covering 1 - 2 / 8 = 75%.
    assert!(text.contains("75.0% interval"), "{text}");
    // The baseline over itself: 1.00, its interval nothing.
    let row = text.lines().find(|l| l.starts_with("  switch ")).unwrap();
    assert!(row.contains(" 1.00  [0%, 0%]"), "{row}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("speed-up over switch (higher is faster)"));
    // The JSON names the baseline and gives each variant's speed-up over it.
    let (_, out, _) = compare_bundled(
        "3",
        "long_wait_1",
        &[
            "--variants",
            "tail,switch",
            "--baseline",
            "switch",
            "--json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["settings"]["baseline"], "switch");
    let variants = v["workloads"][0]["variants"].as_array().unwrap();
    let switch = variants.iter().find(|x| x["variant"] == "switch").unwrap();
    assert_eq!(switch["speedup_vs_baseline"]["median"], 1.0);
    let tail = variants.iter().find(|x| x["variant"] == "tail").unwrap();
    assert!(tail["speedup_vs_baseline"]["median"].as_f64().unwrap() > 0.0);
    assert!(svg.contains("which covers 75.0%"), "{svg}");
    // A baseline that is not timed, or not a variant: exit 2, said plainly.
    for (bad, says) in [
        (
            "threaded",
            "--baseline threaded is not among the timed variants (tail, reference)",
        ),
        ("nope", "--baseline: "),
    ] {
        let (code, _, err) = kmst(&[
            "compare",
            "--quick",
            "--workloads",
            "long_wait_1",
            "--variants",
            "tail,reference",
            "--baseline",
            bad,
        ]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(says), "{err}");
    }
}
