//! Ctrl-C and SIGTERM: the half-written temporary file of an output is
//! removed and the old file stays as it was.

mod common;
use common::fresh_dir;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn sigterm_during_a_trace_leaves_the_old_file_and_no_temporary_one() {
    let dir = fresh_dir("signals", "trace");
    // A stream that never ends (S16: it runs until max_passes).
    let src = dir.join("spin.kms");
    std::fs::write(&src, ".stream max_steps=4000000000 seed=1\ntop: jmp top\n").unwrap();
    let trace = dir.join("t.json");
    std::fs::write(&trace, "old trace").unwrap();
    for signal in ["TERM", "INT"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kmst"))
            .args([
                "profile",
                src.to_str().unwrap(),
                "--max-passes",
                "18446744073709551615",
            ])
            .args(["--trace", trace.to_str().unwrap(), "--trace-limit", "4G"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("kmst starts");
        // Wait until the temporary file `.t.json.tmp-PID` holds something.
        let temp = dir.join(format!(".t.json.tmp-{}", child.id()));
        let start = Instant::now();
        while std::fs::metadata(&temp).map_or(true, |m| m.len() == 0) {
            assert!(start.elapsed() < Duration::from_secs(30), "no {temp:?}");
            assert!(child.try_wait().unwrap().is_none(), "kmst ended early");
            std::thread::sleep(Duration::from_millis(10));
        }
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(killed.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{signal}: {status:?}");
        assert!(!temp.exists(), "{signal}: {temp:?} is left behind");
        assert_eq!(std::fs::read_to_string(&trace).unwrap(), "old trace");
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{signal}: {names:?}");
    }
}

#[test]
fn the_trace_limit_defaults_to_64_mib_and_a_cut_trace_says_so() {
    let out = Command::new(env!("CARGO_BIN_EXE_kmst"))
        .args(["profile", "--help"])
        .output()
        .expect("kmst runs");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("[default: 64M]"), "{help}");
    let dir = fresh_dir("signals", "limit");
    let src = dir.join("spin.kms");
    std::fs::write(&src, ".stream max_steps=4000000000 seed=1\ntop: jmp top\n").unwrap();
    let trace = dir.join("t.json");
    // A stream that spins for 100,000 passes writes a turn event in each:
    // far more than 64 KiB.
    let out = Command::new(env!("CARGO_BIN_EXE_kmst"))
        .args(["profile", src.to_str().unwrap(), "--max-passes", "100000"])
        .args(["--trace", trace.to_str().unwrap(), "--trace-limit", "64K"])
        .output()
        .expect("kmst runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let len = std::fs::metadata(&trace).unwrap().len();
    assert!(len <= 64 << 10, "{len} bytes");
    assert!(
        err.contains("the trace was cut at --trace-limit (64 KiB) in pass "),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    assert!(!v["otherData"]["truncated"].is_null(), "{}", v["otherData"]);
}
