//! Every `kmst` command the README and the docs show runs as written.
//!
//! README.md and docs/cli.md: each `kmst ...` line of their `sh` blocks
//! runs from the workspace root and must exit 0; the placeholder files of
//! docs/cli.md (`stream.kms`, `stream.bin`, `trace.json`, a fuzz artifact)
//! are mapped to real ones. docs/*.md: each `$ kmst ...` line of a `text`
//! block runs from the workspace root, and the lines shown under it must
//! appear in its output in that order (`...` marks lines left out).

mod common;
use common::{fresh_dir, workspace_file};

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;

/// The lines of the fenced blocks of `md` whose info string is `lang`.
fn block_lines(md: &str, lang: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    // Inside a block: whether it is kept, and its lines.
    let mut current: Option<(bool, Vec<String>)> = None;
    for line in md.lines() {
        if let Some(info) = line.strip_prefix("```") {
            match current.take() {
                Some((true, b)) => blocks.push(b),
                Some((false, _)) => {}
                None => current = Some((info.trim() == lang, Vec::new())),
            }
        } else if let Some((_, b)) = &mut current {
            b.push(line.to_owned());
        }
    }
    blocks
}

/// Runs `kmst ARGS` in the workspace root.
fn run(args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kmst"))
        .args(args)
        .current_dir(workspace_file(""))
        .output()
        .expect("kmst runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs every `kmst ...` line of the `sh` blocks of the workspace's file
/// `doc`, in order, each from the workspace root; each must exit 0. The
/// stand-ins live in a fresh folder of their own: a stream (the spec's
/// 1,000-job example), its upload (written by the file's own `kmst asm`
/// line), a trace, and a fuzz input (a seed of the sim_raw target, under a
/// sim_raw directory). A command in `seen` (run for a file before, with
/// the same arguments) is not run again. Returns the folder and the file's
/// commands.
fn run_sh_commands(doc: &str, seen: &mut HashSet<String>) -> (PathBuf, Vec<String>) {
    let md = std::fs::read_to_string(workspace_file(doc)).unwrap();
    let dir = fresh_dir("docs", &doc.replace('/', "-"));
    std::fs::copy(
        workspace_file("corpus/streams/jobs_1000.kms"),
        dir.join("stream.kms"),
    )
    .unwrap();
    let map = |word: &str| -> String {
        match word {
            "stream.kms" | "stream.bin" | "trace.json" => dir.join(word).display().to_string(),
            // A saved run (docs/pause.md) goes to the folder too.
            w if w.ends_with(".state") => dir.join(w).display().to_string(),
            "fuzz/artifacts/sim_raw/crash-..." => workspace_file("fuzz/corpus/sim_raw/jobs_1000"),
            w => w.to_owned(),
        }
    };
    let mut ran = Vec::new();
    for block in block_lines(&md, "sh") {
        for line in block {
            let command = line.split(" #").next().unwrap().trim();
            let Some(rest) = command.strip_prefix("kmst ") else {
                continue;
            };
            let args: Vec<String> = rest.split_whitespace().map(map).collect();
            for a in &args {
                assert!(!a.contains("..."), "{doc}: {command}: no stand-in for {a}");
            }
            if seen.insert(args.join(" ")) {
                let (code, out, err) = run(&args);
                assert_eq!(code, 0, "{doc}: `{command}` exits {code}:\n{out}\n{err}");
            }
            ran.push(command.to_owned());
        }
    }
    (dir, ran)
}

#[test]
fn every_readme_and_cli_doc_command_runs() {
    // One test, so that a command both files show (`kmst compare --quick`)
    // runs once.
    let mut seen = HashSet::new();
    let (_, ran) = run_sh_commands("README.md", &mut seen);
    // run (twice), compare.
    assert!(ran.len() >= 3, "only {ran:?}");
    let (dir, ran) = run_sh_commands("docs/cli.md", &mut seen);
    // asm, disasm, check, run, scenario, profile (four times), compare,
    // explain, corpus check, replay.
    assert!(ran.len() >= 13, "only {ran:?}");
    assert!(dir.join("stream.bin").exists());
    assert!(dir.join("run.state").exists());
    let trace: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("trace.json")).unwrap()).unwrap();
    assert!(
        trace["traceEvents"]
            .as_array()
            .is_some_and(|e| !e.is_empty())
    );
    // docs/pause.md: run, state, resume; scenario, resume and save again.
    let (dir, ran) = run_sh_commands("docs/pause.md", &mut seen);
    assert_eq!(ran.len(), 5, "{ran:?}");
    assert!(dir.join("two9.state").exists());
}

#[test]
fn every_docs_example_reproduces() {
    let mut shown = 0;
    for entry in std::fs::read_dir(workspace_file("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let md = std::fs::read_to_string(&path).unwrap();
        for block in block_lines(&md, "text") {
            let Some(command) = block.first().and_then(|l| l.strip_prefix("$ kmst ")) else {
                continue;
            };
            let args: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
            let (code, out, err) = run(&args);
            assert_eq!(code, 0, "{}: `kmst {command}`:\n{err}", path.display());
            let mut lines = out.lines();
            for want in block[1..].iter().filter(|l| l.trim() != "...") {
                assert!(
                    lines.any(|got| got.trim_end() == want.trim_end()),
                    "{}: `kmst {command}` does not print, in order:\n{want}\n--- it printed:\n{out}",
                    path.display()
                );
            }
            shown += 1;
        }
    }
    // docs/profiling.md: the human report and the sweep.
    assert!(shown >= 2, "only {shown} examples");
}
