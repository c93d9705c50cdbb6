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

/// A file of the workspace (the corpus, the bundled workloads), by its path
/// from the workspace root.
pub fn workspace_file(rel: &str) -> String {
    format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `kmst ARGS` with its standard output going to `/dev/full`, where
/// every write fails with "no space left on device".
pub fn kmst_to_full(args: &[&str]) -> (i32, String) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let out = Command::new(env!("CARGO_BIN_EXE_kmst"))
        .args(args)
        .stdout(full)
        .output()
        .expect("kmst runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `kmst ARGS` allowed to write files of at most `limit_kib` KiB
/// (`ulimit -f`, with SIGXFSZ ignored so a larger write fails with EFBIG
/// half way instead of killing the process).
pub fn kmst_with_file_limit(limit_kib: u32, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {limit_kib}; exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_kmst"))
        .args(args)
        .output()
        .expect("bash runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh, empty directory `TEMP/kmst-TEST-PID/SUB`.
pub fn fresh_dir(test: &str, sub: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("kmst-{test}-{}", std::process::id()))
        .join(sub);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `kmst ARGS` in the folder `dir` with `input` on its standard
/// input: the exit code (-1 for a signal), stdout as bytes, and stderr.
pub fn kmst_fed(dir: &std::path::Path, args: &[&str], input: &[u8]) -> (i32, Vec<u8>, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kmst"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kmst runs");
    let mut stdin = child.stdin.take().expect("a pipe");
    let input = input.to_vec();
    // Fed from a thread: kmst may not read it all (a usage error).
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("kmst ends");
    let _ = feeder.join();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
