//! `kmst compare` as a program: exit codes and the `--json` output.

use std::process::Command;

fn kmst() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kmst"))
}

fn workspace_file(rel: &str) -> String {
    format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn quick_compare_of_one_file_exits_0() {
    // A FILE argument: a .kms source whose `;@ params` give its parameters.
    let out = kmst()
        .args(["compare", "--quick"])
        .arg(workspace_file("corpus/bench/long_wait_1.kms"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // One row per compiled variant, each with the 7 micro-ops of the stream.
    for d in kmst_harness::answers::Implementation::all() {
        let row = text
            .lines()
            .find(|l| l.split_whitespace().take(2).eq(["long_wait_1", d.name()]))
            .unwrap_or_else(|| panic!("no row for {d}:\n{text}"));
        assert_eq!(row.split_whitespace().nth(2), Some("7"));
    }
}

#[test]
fn json_of_a_bundled_workload() {
    let out = kmst()
        .args([
            "compare",
            "--quick",
            "--samples",
            "3",
            "--workloads",
            "long_wait_1",
            "--json",
        ])
        .current_dir(std::env::temp_dir()) // the workloads are bundled
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
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
    let out = kmst()
        .args([
            "compare",
            "--quick",
            "--samples",
            "1",
            "--workloads",
            "four_streams,host_mix",
            "--variants",
            "tail",
        ])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The micro-op column: four_streams 4 x 20,256; host_mix 25 x (2,560 + 1,204)
    // (worked out in the harness's tests/compare.rs).
    let cells = |name: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row in\n{text}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        cells("four_streams")[..3],
        ["four_streams", "tail", "81,024"]
    );
    assert_eq!(cells("host_mix")[..3], ["host_mix", "tail", "94,100"]);
}

#[test]
fn a_scenario_file_is_a_workload() {
    let out = kmst()
        .args([
            "compare",
            "--quick",
            "--samples",
            "1",
            "--json",
            &workspace_file("corpus/bench/four_streams.json"),
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["workloads"][0]["name"], "four_streams");
    assert_eq!(v["workloads"][0]["ops"], 81_024);
}

#[test]
fn usage_errors_exit_2() {
    let out = kmst()
        .args(["compare", "--quick", "--variants", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    let out = kmst()
        .args(["compare", "--quick", "--workloads", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = kmst()
        .args(["compare", "/nonexistent/x.kms"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
