//! What the CLI tests share: running the `kmst` binary, writing its input
//! files under a directory of their own in the temp dir, and reading what
//! it prints.
#![allow(dead_code)] // each test crate uses what it needs

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `kmst` binary, to give arguments, a folder or an environment to.
pub fn kmst_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kmst"))
}

/// Runs `command`: the exit code (-1 for a signal), stdout and stderr.
pub fn outcome(command: &mut Command) -> (i32, String, String) {
    let out = command.output().expect("the command runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `kmst ARGS`: the exit code (-1 for a signal), stdout and stderr.
pub fn kmst(args: &[&str]) -> (i32, String, String) {
    outcome(kmst_command().args(args))
}

/// Runs `kmst ARGS` in the folder `dir`.
pub fn kmst_in(dir: impl AsRef<Path>, args: &[&str]) -> (i32, String, String) {
    outcome(kmst_command().args(args).current_dir(dir))
}

/// Runs `kmst ARGS` in the workspace root, where the corpus paths are
/// relative to.
pub fn kmst_at_root(args: &[&str]) -> (i32, String, String) {
    kmst_in(workspace_file(""), args)
}

/// A path as an argument.
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
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
    let (code, _, err) = outcome(kmst_command().args(args).stdout(full));
    (code, err)
}

/// Runs `kmst ARGS` allowed to write files of at most `limit_kib` KiB
/// (`ulimit -f`, with SIGXFSZ ignored so a larger write fails with EFBIG
/// half way instead of killing the process).
pub fn kmst_with_file_limit(limit_kib: u32, args: &[&str]) -> (i32, String, String) {
    outcome(
        Command::new("bash")
            .arg("-c")
            .arg(format!(
                "trap '' XFSZ; ulimit -f {limit_kib}; exec \"$0\" \"$@\""
            ))
            .arg(env!("CARGO_BIN_EXE_kmst"))
            .args(args),
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
pub fn kmst_fed(dir: &Path, args: &[&str], input: &[u8]) -> (i32, Vec<u8>, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = kmst_command()
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

/// A fresh directory `TEMP/kmst-TEST-PID` holding one file, `name` with
/// `contents`: the directory and the file.
pub fn fresh_dir_with(test: &str, name: &str, contents: &str) -> (PathBuf, PathBuf) {
    let dir = fresh_dir(test, "");
    let file = dir.join(name);
    std::fs::write(&file, contents).unwrap();
    (dir, file)
}

/// `set r1, TIMES; top: addi r0, r0, 1; jlt r0, r1, top; halt r2`: the
/// loop body TIMES times, 2 + 2 * TIMES micro-ops; with a `;@ params`
/// line of `params` first when it is not empty.
pub fn counting_loop(times: u32, params: &str) -> String {
    let directive = if params.is_empty() {
        String::new()
    } else {
        format!(";@ params {params}\n")
    };
    format!(
        "{directive}.stream max_steps=100000 seed=1
        set r1, {times}
top:    addi r0, r0, 1
        jlt r0, r1, top
        halt r2
"
    )
}

/// One SUBMIT, WAIT 0 and HALT with a completion delay of 3 by directive:
/// acknowledged in the sweep of pass 0 + 1 + 3 = 4 (S12), HALT in pass 4,
/// passes 5 (S16); with the default delay 0, passes 2.
pub const ONE_SUBMIT: &str = ";@ params {\"delay\": 3}\n\
    .stream max_steps=100 seed=1 req=9\n\
    submit handler=1, group=(0, 1)\n\
    wait 0\n\
    halt r0\n";

/// S16's `passes` of a `kmst run --json` answer.
pub fn passes(json: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(json).expect("--json prints JSON");
    v["passes"].as_u64().expect("passes is a number")
}

/// The line of `text` that starts with `label` after its indent.
pub fn row<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` row in\n{text}"))
}

/// The events of a Perfetto trace file.
pub fn trace_events(path: &Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["traceEvents"].as_array().expect("traceEvents").clone()
}
