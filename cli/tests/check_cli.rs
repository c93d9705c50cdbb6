//! `kmst check`, `kmst asm` and `kmst disasm` as a user runs them: exit codes 0/1/2 and output.

mod common;
use common::{kmst, s};

use std::path::PathBuf;

fn temp(name: &str, contents: &[u8]) -> PathBuf {
    common::temp_in("check-cli", "", name, contents)
}

const GOOD: &str = ".stream max_steps=10 seed=1 req=5\nhalt r0\n";
// The zero opcode at pc 1 is `Reason::UnknownOpcode`; req 5 from the header (S3).
const BAD: &str = ".stream max_steps=10 seed=1 req=5\nhalt r0\n.op 0, 0, 0, 0, 0\n";

#[test]
fn check_accepts_and_rejects_with_json() {
    let good = temp("good.kms", GOOD.as_bytes());
    let (code, out, _) = kmst(&["check", s(&good), "--json"]);
    assert_eq!((code, out.as_str()), (0, "{\"check\": null}\n"));
    let bad = temp("bad.kms", BAD.as_bytes());
    let (code, out, _) = kmst(&["check", s(&bad), "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"check": {"reason": 2, "pc": 1}, "req": 5})
    );
    let (code, out, _) = kmst(&["check", s(&bad)]);
    assert_eq!(code, 1);
    assert!(out.contains("reason 2 (unknown opcode) at pc 1"), "{out}");
}

#[test]
fn check_region_size() {
    // The upload is 128 bytes: a region of 127 rejects it with `Reason::BadHeader`; the
    // header (64 bytes at offset 0) is inside, so req is 5.
    let good = temp("region.kms", GOOD.as_bytes());
    let (code, out, _) = kmst(&["check", s(&good), "--region-size", "127", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"check": {"reason": 1, "pc": 0}, "req": 5})
    );
    let (code, _, _) = kmst(&["check", s(&good), "--region-size", "128"]);
    assert_eq!(code, 0);
}

/// P5 with S3 and P1: one upload, one req. In a region of 32 bytes even the
/// header does not fit (`Reason::BadHeader` at pc 0), and the upload is 128 bytes, so
/// S3's req for `check` is the header's, 5: `kmst check` reports it, and
/// `kmst run` posts its one error event with it.
#[test]
fn check_and_run_give_one_req() {
    let good = temp("tiny_region.kms", GOOD.as_bytes());
    let path = s(&good);
    let (code, out, _) = kmst(&["check", path, "--region-size", "32", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"check": {"reason": 1, "pc": 0}, "req": 5})
    );
    let (_, out, _) = kmst(&["run", path, "--region-size", "32", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["events"][0]["req"], 5, "{out}");
    assert_eq!(v["events"][0]["kind"], 6, "{out}");
}

#[test]
fn asm_then_disasm_then_check_binary() {
    let src = temp("prog.kms", GOOD.as_bytes());
    let bin = src.with_extension("bin");
    let (code, _, _) = kmst(&["asm", s(&src), "-o", s(&bin)]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read(&bin).unwrap().len(), 128);
    let (code, out, _) = kmst(&["disasm", s(&bin)]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        ".stream max_steps=10 deadline_us=0 req=5 seed=1\n        halt r0\n"
    );
    let (code, _, _) = kmst(&["check", s(&bin)]);
    assert_eq!(code, 0);
    // A rejected upload is written, with a note, and is a verdict (exit 1)
    // unless --allow-rejected (exit 0).
    let bad = temp("bad2.kms", BAD.as_bytes());
    let out_bin = bad.with_extension("bin");
    let (code, _, err) = kmst(&["asm", s(&bad), "-o", s(&out_bin)]);
    assert_eq!(code, 1);
    assert!(err.contains("reason 2"), "{err}");
    assert!(out_bin.exists());
    let (code, _, err) = kmst(&["asm", s(&bad), "-o", s(&out_bin), "--allow-rejected"]);
    assert_eq!(code, 0);
    assert!(err.contains("reason 2"), "{err}");
}

#[test]
fn errors_exit_2_with_one_line() {
    let syn = temp("syn.kms", b".stream max_steps=1 seed=1\nadd r1, r2, r16\n");
    let (code, out, err) = kmst(&["check", s(&syn)]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.ends_with("line 2, column 13: unknown register r16\n"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    let (code, _, err) = kmst(&["check", "/nonexistent/upload.bin"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1);
}
