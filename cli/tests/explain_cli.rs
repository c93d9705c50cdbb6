//! `kmst explain` as a user runs it: every unit under every variant, the
//! dispatch each variant's handler ends in, the code compiled for an
//! upload, and the errors.
//!
//! The machine code of `cargo test`'s kmst is unoptimized. With
//! `KMST_EXPLAIN_BIN` naming a release build (`KMST_EXPLAIN_RELEASE=1 bash
//! .ci/run`, as the newest-nightly workflow runs it; CONTRIBUTING.md "Before
//! you push"), each variant's ADD must end in that variant's dispatch (the
//! dispatch styles of docs/dispatch.md).

mod common;
use common::{kmst, s, workspace_file};

use std::process::Command;

/// Runs the kmst under judgement: `KMST_EXPLAIN_BIN` when set (a release
/// build), else the test build's.
fn explain(args: &[&str]) -> (i32, String, String, bool) {
    match std::env::var_os("KMST_EXPLAIN_BIN") {
        Some(bin) => {
            let out = Command::new(bin)
                .arg("explain")
                .args(args)
                .output()
                .expect("kmst runs");
            (
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
                true,
            )
        }
        None => {
            let mut all = vec!["explain"];
            all.extend_from_slice(args);
            let (code, out, err) = kmst(&all);
            (code, out, err, false)
        }
    }
}

/// The listing of the handler named `name` (its lines after its heading,
/// up to the next heading).
fn listing<'a>(out: &'a str, name: &str) -> Vec<&'a str> {
    let start = out
        .find(&format!("== {name} under"))
        .unwrap_or_else(|| panic!("no listing of {name}:\n{out}"));
    out[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("== ") && !l.is_empty())
        .filter(|l| {
            // `   OFFSET  INSTRUCTION`: the offset, then two spaces.
            let t = l.trim_start();
            let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            l.starts_with("   ") && digits > 0 && t[digits..].starts_with("  ")
        })
        .collect()
}

/// The path through a listing from its first instruction when no
/// conditional branch is taken (where the compiler puts the common case):
/// each `jmp +OFFSET` followed, up to the first jump that leaves (an
/// indirect one, or one to another function) or return.
fn hot_path<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let offset = |l: &str| {
        l.split_whitespace()
            .next()
            .and_then(|w| w.parse::<u64>().ok())
    };
    let mut path = Vec::new();
    let mut k = 0;
    while k < lines.len() && path.len() <= lines.len() {
        let l = lines[k];
        path.push(l);
        let op: Vec<&str> = l.split_whitespace().skip(1).take(2).collect();
        match op.as_slice() {
            ["jmp", target] if target.starts_with('+') => {
                let to: u64 = target[1..].parse().unwrap();
                match lines.iter().position(|l| offset(l) == Some(to)) {
                    Some(next) => k = next,
                    None => break,
                }
            }
            ["jmp", ..] | ["ret", ..] => break,
            _ => k += 1,
        }
    }
    path
}

/// The variants this kmst has, from `kmst run --help`'s list.
fn variants() -> Vec<String> {
    let (code, out, _, _) = explain(&["add", "--dispatch", "all"]);
    assert_eq!(code, 0);
    let header = out.lines().next().expect("a table");
    header
        .split_whitespace()
        .skip(1)
        .take_while(|w| !w.starts_with('('))
        .map(str::to_owned)
        .collect()
}

#[cfg(target_arch = "x86_64")]
#[test]
fn add_under_tail_names_its_three_handlers_and_their_lines() {
    let (code, out, err, _) = explain(&["add", "--dispatch", "tail"]);
    assert_eq!(code, 0, "{err}");
    // ADD's handlers in handlers.rs: the line each heading names holds
    // that handler's `fn`.
    let source = out
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("source: interp/src/exec/dispatch/handlers.rs:")
        })
        .expect("a source line");
    let line: usize = source.split(';').next().unwrap().parse().unwrap();
    let file =
        std::fs::read_to_string(workspace_file("interp/src/exec/dispatch/handlers.rs")).unwrap();
    let rows: Vec<&str> = file.lines().collect();
    assert!(
        rows[line - 1].contains("fn add_counted<"),
        "{}",
        rows[line - 1]
    );
    for kind in ["counted", "charged", "head"] {
        let lines = listing(&out, &format!("add_{kind}"));
        assert!(!lines.is_empty(), "add_{kind}");
        // Every handler of the chain hands over to the next through the
        // table: the dispatch is marked.
        assert!(
            lines
                .iter()
                .any(|l| l.contains("jmp") && l.contains("; dispatch:")),
            "add_{kind}: {lines:#?}"
        );
    }
}

/// Each variant's ADD ends in its dispatch: an indirect jump for tail
/// and threaded (through the table, through the instruction), the loop's
/// indirect jump for switch, loop_match and indirect (whose ring of
/// `become`s LLVM inlines into one function: a jump table), a return for
/// subroutine. Judged on the
/// listing of the handler inside a block (charged) or the arm's path; on an
/// unoptimized build only that the dispatch is marked.
#[cfg(target_arch = "x86_64")]
#[test]
fn each_variants_add_ends_in_its_dispatch() {
    for d in variants() {
        let (code, out, err, release) = explain(&["add", "--dispatch", &d]);
        assert_eq!(code, 0, "{d}: {err}");
        let (name, last_is): (&str, fn(&str) -> bool) = match d.as_str() {
            "tail" => ("add_charged", |l| {
                l.contains("jmp qword ptr [") && l.contains("load the next handler and jump")
            }),
            "threaded" => ("add_charged", |l| {
                l.contains("jmp r") && l.contains("dispatch: jump to it")
            }),
            "switch" => ("add_switch, inlined into switch::run", |l| {
                l.contains("jmp r") && l.contains("dispatch: jump to it")
            }),
            "loop_match" => ("add_loop_match, inlined into loop_match::run", |l| {
                l.contains("jmp r") && l.contains("dispatch: jump to it")
            }),
            "subroutine" | "jit" | "stencil" => ("add_sub", |l| {
                l.contains("ret") && l.contains("return to the loop")
            }),
            // The ring of `become`s inlined into the central dispatch: its
            // arm, back through its jump table.
            "indirect" => ("add_indirect, inlined into indirect::central", |l| {
                l.contains("jmp r") && l.contains("dispatch: jump to it")
            }),
            // tiered shows tail's handlers.
            "tiered" => ("add_charged", |l| l.contains("dispatch:")),
            other => panic!("a variant this test does not know: {other}"),
        };
        let arm = name.contains("inlined into");
        let lines = listing(&out, name);
        if release {
            let lines = if arm { lines } else { hot_path(&lines) };
            let last = lines.last().unwrap_or_else(|| panic!("{d}: no listing"));
            assert!(last_is(last), "{d}: {name} ends in {last}\n{lines:#?}");
            if d == "threaded" {
                // The load of the next handler from the next instruction.
                let before = lines[lines.len() - 3..].join("\n");
                assert!(
                    before.contains("dispatch: load the next handler"),
                    "{before}"
                );
            }
        } else if !arm {
            let mark = if matches!(d.as_str(), "subroutine" | "jit" | "stencil") {
                "return to the loop"
            } else {
                "; dispatch: jump"
            };
            assert!(lines.iter().any(|l| l.contains(mark)), "{d}: {lines:#?}");
        } else {
            assert!(out.contains("the arm's path"), "{d}: {out}");
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn every_unit_under_every_variant_has_code() {
    let (code, out, err, _) = explain(&["all", "--dispatch", "all"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("not found"), "{out}");
    // The table: a row per unit and kind; each of the 50 units (21
    // micro-ops, End, 6 superinstructions, 22 variants: ops.rs, inst.rs)
    // has one under the chained variants.
    let table: Vec<&str> = out.lines().take_while(|l| !l.is_empty()).collect();
    let counted = table
        .iter()
        .filter(|l| l.split_whitespace().nth(1) == Some("counted"))
        .count();
    assert_eq!(counted, 50, "{}", table.join("\n"));
    for row in &table[1..] {
        // Every cell is a count or `-` (a variant without that kind).
        for cell in row.split_whitespace().skip(2) {
            assert!(
                cell == "-" || cell.parse::<usize>().is_ok_and(|n| n > 0),
                "{row}"
            );
        }
    }
    // A fused pair and a mnemonic name their units.
    let (code, out, _, _) = explain(&["addi+jlt", "--dispatch", "subroutine"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("== addi_jlt_sub under subroutine: The superinstruction ADDI"),
        "{out}"
    );
    let (code, out, _, _) = explain(&["result", "--dispatch", "indirect"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("== read_result_indirect, inlined into indirect::central"),
        "{out}"
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
fn an_upload_is_explained_region_by_region_with_jit() {
    if !variants().iter().any(|d| d == "jit") {
        return;
    }
    // A loop of ADDIs and a JLT: one region (a region holds up to 1,024
    // micro-ops), micro-ops 0..N.
    let kms = ".stream max_steps=1000 seed=1 req=1\nset r1, 0\nset r2, 10\ntop:\naddi r1, r1, 1\njlt r1, r2, top\nhalt r1\n";
    let path = common::temp_in("explain-cli", "", "loop.kms", kms.as_bytes());
    let (code, out, err, _) = explain(&[s(&path), "--dispatch", "jit"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("== region 0: micro-ops 0.."), "{out}");
    assert_eq!(out.matches("== region").count(), 1, "{out}");
    assert!(out.contains("ret"), "{out}");
    // The region's entry table and constants are shown as data, not as
    // instructions decoded from their bytes (zeros read as `add [rax], al`).
    assert!(out.contains("(jump table: "), "{out}");
    assert!(!out.contains("add [rax], al"), "{out}");
    // An upload the check rejects (an unknown opcode at pc 1, S5): a
    // verdict against the input, exit 1, as `kmst check`'s.
    let bad = ".stream max_steps=10 seed=1 req=5\nhalt r0\n.op 0, 0, 0, 0, 0\n";
    let bad = common::temp_in("explain-cli", "", "bad.kms", bad.as_bytes());
    let (code, out, err, _) = explain(&[s(&bad), "--dispatch", "jit"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("the check rejects the upload"), "{err}");
    // Another variant: its handlers are every upload's.
    let (code, _, err, _) = explain(&[s(&path), "--dispatch", "tail"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("kmst: an upload is explained with --dispatch jit or --dispatch stencil"),
        "{err}"
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
fn an_upload_is_explained_micro_op_by_micro_op_with_stencil() {
    if !variants().iter().any(|d| d == "stencil") || !cfg!(target_os = "linux") {
        return;
    }
    // SET r1, 0; SET r2, 10; top: ADDI r1, r1, 1; JLT r1, r2, top; HALT
    // r1: the two exits, then a section for each of the 5 micro-ops and
    // `End`; the JLT jumps to pc 2 (the loop's head), and HALT and `End`
    // leave for the interpreter.
    let kms = ".stream max_steps=1000 seed=1 req=1\nset r1, 0\nset r2, 10\ntop:\naddi r1, r1, 1\njlt r1, r2, top\nhalt r1\n";
    let path = common::temp_in("explain-cli", "", "stencil-loop.kms", kms.as_bytes());
    let (code, out, err, _) = explain(&[s(&path), "--dispatch", "stencil"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("== the exits"), "{out}");
    assert_eq!(out.matches("\n== pc ").count(), 6, "{out}");
    assert!(out.contains("== pc 3: jlt r1, r2, "), "{out}");
    assert!(out.contains("; to pc 2"), "{out}");
    assert!(out.contains("== pc 5: End"), "{out}");
    assert_eq!(
        out.matches("; leave: the interpreter runs this micro-op")
            .count(),
        2,
        "{out}"
    );
}

#[test]
fn unknown_units_and_variants_are_one_line_naming_the_known_ones() {
    let (code, out, err, _) = explain(&["frob", "--dispatch", "tail"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("kmst: unknown micro-op or unit `frob` (the units: set, mov, add,"),
        "{err}"
    );
    assert!(
        err.contains("addi_jlt_in_place") && err.contains("submit_group"),
        "{err}"
    );
    let (code, out, err, _) = explain(&["add", "--dispatch", "fastest"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("kmst: unknown dispatch `fastest` (this build has: tail"),
        "{err}"
    );
    assert!(err.trim_end().ends_with(", or all"), "{err}");
}

#[cfg(not(target_arch = "x86_64"))]
#[test]
fn a_host_without_a_disassembler_says_so_in_one_line() {
    let (code, out, err, _) = explain(&["add"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no disassembler for this host"), "{err}");
}
