//! What the CLI tests share: running the `kmst` binary, and writing its
//! input files under a directory of their own in the temp dir.
#![allow(dead_code)] // each test crate uses what it needs

use std::path::PathBuf;
use std::process::Command;

/// Runs `kmst ARGS`: the exit code (-1 for a signal), stdout and stderr.
pub fn kmst(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kmst"))
        .args(args)
        .output()
        .expect("kmst runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes `contents` to `name` in `TEMP/kmst-TEST-PID/SUB` (`sub` may be
/// empty) and returns the path.
pub fn temp_in(test: &str, sub: &str, name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("kmst-{test}-{}", std::process::id()))
        .join(sub);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}
