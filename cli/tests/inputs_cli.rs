//! Inputs are known by their content, not their names; one exit code per
//! verdict; `;@` directives read the same way by every command and carried
//! by `asm` beside the upload; the format's micro-op limit; `-` is standard
//! input.

mod common;
use common::{ONE_SUBMIT, fresh_dir, fresh_dir_with, kmst, kmst_fed, passes, s, workspace_file};

/// Exit 2, one line on stderr, containing every `needle`.
fn refused(args: &[&str], needles: &[&str]) {
    let (code, out, err) = kmst(args);
    let what = args.join(" ");
    assert_eq!(code, 2, "{what}: {out}{err}");
    assert_eq!(out, "", "{what}");
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    for n in needles {
        assert!(err.contains(n), "{what}: no `{n}` in {err}");
    }
}

#[test]
fn a_wrong_kind_of_input_is_named_with_the_command_that_takes_it() {
    let scenario = workspace_file("corpus/scenario-examples/two_streams.json");
    let source = workspace_file("corpus/bench/alu.kms");
    let upload = workspace_file("corpus/streams/jobs_1000.bin");
    let dir = fresh_dir("inputs-kind", "");
    let out = dir.join("x.bin");
    let scenario_is = ["is JSON", "kmst scenario"];
    for cmd in ["run", "check", "disasm"] {
        refused(&[cmd, &scenario], &scenario_is);
    }
    refused(&["asm", &scenario, "-o", s(&out)], &scenario_is);
    refused(
        &["disasm", &source],
        &["is `.kms` assembly text", "kmst asm"],
    );
    refused(
        &["asm", &upload, "-o", s(&out)],
        &["is an upload", "kmst disasm"],
    );
    refused(
        &["scenario", &source],
        &["is `.kms` assembly text", "kmst run"],
    );
    refused(&["scenario", &upload], &["is an upload", "kmst run"]);
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn names_do_not_matter() {
    let dir = fresh_dir("inputs-names", "");
    // An upload named .txt runs as an upload, a source named .txt and a
    // scenario named .dat as what they are.
    let bin = dir.join("jobs.txt");
    std::fs::copy(workspace_file("corpus/streams/jobs_1000.bin"), &bin).unwrap();
    let kms = dir.join("jobs_source.txt");
    std::fs::copy(workspace_file("corpus/streams/jobs_1000.kms"), &kms).unwrap();
    let (code, out, err) = kmst(&["check", s(&bin)]);
    assert_eq!(
        (code, out.ends_with(": accepted\n")),
        (0, true),
        "{out}{err}"
    );
    let (code, out, err) = kmst(&["check", s(&kms)]);
    assert_eq!(
        (code, out.ends_with(": accepted\n")),
        (0, true),
        "{out}{err}"
    );
    // The 1,000 jobs of the spec's example: 1,000 commands whichever file.
    for f in [&bin, &kms] {
        let (code, out, err) = kmst(&["run", s(f), "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["commands"].as_array().map(Vec::len), Some(1000));
    }
    // A scenario named .dat, its uploads beside it.
    let scen_dir = fresh_dir("inputs-names", "scen");
    for entry in std::fs::read_dir(workspace_file("corpus/scenario-examples")).unwrap() {
        let from = entry.unwrap().path();
        std::fs::copy(&from, scen_dir.join(from.file_name().unwrap())).unwrap();
    }
    let dat = scen_dir.join("two_streams.dat");
    std::fs::rename(scen_dir.join("two_streams.json"), &dat).unwrap();
    let (code, _, err) = kmst(&["scenario", s(&dat)]);
    assert_eq!(code, 0, "{err}");
    // compare takes an upload, as run and check do.
    let small = dir.join("small.kms");
    std::fs::write(&small, ".stream max_steps=100 seed=1\nset r1, 1\nhalt r1\n").unwrap();
    let small_bin = dir.join("small.bin");
    let (code, _, err) = kmst(&["asm", s(&small), "-o", s(&small_bin)]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = kmst(&[
        "compare",
        "--quick",
        "--samples",
        "1",
        "--json",
        s(&small_bin),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"small\""), "{out}");
}

/// `jmp @99` in a one-micro-op stream: the check rejects it with `Reason::BadJump`
/// (a jump target out of range, docs/spec.md) at pc 0.
const REJECTED: &str = ".stream max_steps=10 seed=1\njmp @99\n";

#[test]
fn a_rejected_upload_is_exit_1_for_every_command_that_judges_it() {
    let (dir, kms) = fresh_dir_with("inputs-verdict", "jump.kms", REJECTED);
    let bin = dir.join("jump.bin");
    let (code, _, err) = kmst(&["asm", s(&kms), "-o", s(&bin)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("reason 3 at pc 0") || err.contains("reason 3 ("),
        "{err}"
    );
    assert!(bin.exists(), "written all the same");
    for file in [&kms, &bin] {
        let (code, _, err) = kmst(&["check", s(file)]);
        assert_eq!(code, 1, "check: {err}");
        // run prints the answer (the kernel's one error event, S3), exit 1.
        let (code, out, err) = kmst(&["run", s(file)]);
        assert_eq!(code, 1, "run: {err}");
        assert!(out.contains("check:    reason 3"), "{out}");
        assert!(err.contains("the check rejects the upload"), "{err}");
        // compare refuses to time it: no table.
        let (code, out, err) = kmst(&["compare", "--quick", "--samples", "1", s(file)]);
        assert_eq!((code, out.as_str()), (1, ""), "compare: {err}");
        assert!(err.contains("reason 3"), "{err}");
        let (code, _, err) = kmst(&["profile", s(file)]);
        assert_eq!(code, 1, "profile: {err}");
    }
    // A stream that fails at run time still ran: exit 0 (S21).
    let zero = dir.join("mod_zero.kms");
    std::fs::write(
        &zero,
        ".stream max_steps=10 seed=1\nset r1, 5\nmod r2, r1, r0\n",
    )
    .unwrap();
    let (code, out, _) = kmst(&["run", s(&zero)]);
    assert_eq!((code, out.contains("status:   error")), (0, true), "{out}");
}

#[test]
fn the_help_has_the_table_of_exit_codes() {
    let (code, out, _) = kmst(&["--help"]);
    assert_eq!(code, 0);
    for line in [
        "Exit status:",
        "  0  success",
        "  1  a verdict against the input",
        "  2  a usage or I/O error",
    ] {
        assert!(out.contains(line), "no `{line}` in\n{out}");
    }
}

#[test]
fn asm_carries_the_params_directive_beside_the_upload() {
    // ONE_SUBMIT: passes 5 with its delay 3, 2 without.
    let (dir, kms) = fresh_dir_with("inputs-params", "one.kms", ONE_SUBMIT);
    let bin = dir.join("one.bin");
    let params = dir.join("one.params.json");
    let (code, _, err) = kmst(&["asm", s(&kms), "-o", s(&bin)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("one.params.json"),
        "asm says where they went: {err}"
    );
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&params).unwrap()).unwrap();
    assert_eq!(written, serde_json::json!({"delay": 3}));
    // The source and its upload give the same answer: passes 5.
    let (_, from_kms, _) = kmst(&["run", s(&kms), "--json"]);
    let (code, from_bin, err) = kmst(&["run", s(&bin), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(from_bin, from_kms);
    assert_eq!(passes(&from_bin), 5);
    let (_, summary, _) = kmst(&["run", s(&bin)]);
    assert!(summary.starts_with("params:   from "), "{summary}");
    assert!(summary.contains("one.params.json"), "{summary}");
    // disasm gives the directive back, and the text assembles to the same bytes.
    let (code, text, _) = kmst(&["disasm", s(&bin)]);
    assert_eq!(code, 0);
    assert!(text.starts_with(";@ params {\"delay\":3}\n"), "{text}");
    // Without the directive the old parameters file goes: delay 0, passes 2.
    std::fs::write(
        &kms,
        ONE_SUBMIT.replacen(";@ params {\"delay\": 3}\n", "", 1),
    )
    .unwrap();
    let (code, _, err) = kmst(&["asm", s(&kms), "-o", s(&bin)]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("removed"), "{err}");
    assert!(!params.exists());
    let (_, out, _) = kmst(&["run", s(&bin), "--json"]);
    assert_eq!(passes(&out), 2);
}

#[test]
fn every_command_reads_the_directives_alike() {
    let dir = fresh_dir("inputs-directives", "");
    let bin = dir.join("out.bin");
    let cases: [(&str, &str, &str); 4] = [
        (
            "unknown.kms",
            ";@ parms {\"delay\": 3}\n",
            "unknown directive `;@ parms`",
        ),
        ("malformed.kms", ";@ params {\"delay\": 3\n", "params:"),
        (
            "twice.kms",
            ";@ params {\"delay\": 3, \"delay\": 4}\n",
            "the key `delay` is given twice",
        ),
        (
            "badkey.kms",
            ";@ params {\"delya\": 3}\n",
            "did you mean `delay`?",
        ),
    ];
    for (name, directive, needle) in cases {
        let kms = dir.join(name);
        std::fs::write(
            &kms,
            format!("{directive}.stream max_steps=1 seed=1\nhalt r0\n"),
        )
        .unwrap();
        refused(&["asm", s(&kms), "-o", s(&bin)], &[needle]);
        assert!(!bin.exists(), "{name}: nothing written");
        refused(&["run", s(&kms)], &[needle]);
        refused(&["check", s(&kms)], &[needle]);
        refused(&["profile", s(&kms)], &[needle]);
        refused(&["compare", "--quick", s(&kms)], &[needle]);
    }
}

#[test]
fn more_micro_ops_than_the_format_holds_are_refused() {
    // docs/spec.md: a stream has 1 to 65,535 micro-ops.
    let dir = fresh_dir("inputs-limit", "");
    let source = |n: usize| {
        let mut text = String::from(".stream max_steps=100 seed=1\n");
        for _ in 1..n {
            text.push_str("set r1, 1\n");
        }
        text.push_str("halt r1\n");
        text
    };
    let kms = dir.join("most.kms");
    let bin = dir.join("most.bin");
    std::fs::write(&kms, source(65_535)).unwrap();
    let (code, _, err) = kmst(&["asm", s(&kms), "-o", s(&bin)]);
    assert_eq!(code, 0, "{err}");
    // 64 + pad64(16 · 65,535 = 1,048,560) = 64 + 1,048,576 bytes (S2).
    assert_eq!(std::fs::metadata(&bin).unwrap().len(), 1_048_640);
    std::fs::remove_file(&bin).unwrap();
    std::fs::write(&kms, source(65_536)).unwrap();
    refused(
        &["asm", s(&kms), "-o", s(&bin)],
        &["65,536 micro-ops: an upload holds at most 65,535"],
    );
    assert!(!bin.exists());
    // --allow-rejected writes it, for the check to reject with `Reason::BadHeader`
    // (a bad header): 64 + 16 · 65,536 = 1,048,640 bytes, as many as 65,535
    // micro-ops padded to 64 bytes (S2).
    let (code, _, err) = kmst(&["asm", s(&kms), "-o", s(&bin), "--allow-rejected"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("reason 1"), "{err}");
    assert_eq!(std::fs::metadata(&bin).unwrap().len(), 1_048_640);
}

/// A HALT alone: STREAM_END in pass 0, so passes 1 (S16); its upload is the
/// 64-byte header (magic `TSMK` first) and 16 · (1 + 1) = 32 bytes of
/// micro-ops padded to 64 (S2): 128 bytes.
const HALT: &str = ".stream max_steps=10 seed=1\nhalt r0\n";

#[test]
fn json_is_known_by_its_first_character_a_cut_magic_is_an_upload() {
    let dir = fresh_dir("inputs-misread", "");
    // A JSON array, as a JSON object: the commands that take an upload or a
    // source name the one that takes JSON.
    for (name, text) in [("arr", "[1,2,3]"), ("spaced", " \n\t[\n1]"), ("obj", "{}")] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        for cmd in ["run", "check"] {
            refused(&[cmd, s(&path)], &["is JSON", "kmst scenario"]);
        }
    }
    // An upload cut inside its magic (`TSMK`) is an upload with a bad
    // header: the check's `Reason::BadHeader` (docs/spec.md), exit 1.
    for cut in ["T", "TS", "TSM"] {
        let path = dir.join(format!("cut{}", cut.len()));
        std::fs::write(&path, cut).unwrap();
        let (code, out, err) = kmst(&["check", s(&path)]);
        assert_eq!(code, 1, "{cut}: {out}{err}");
        assert!(out.contains("rejected: reason 1 "), "{cut}: {out}");
        let (code, out, err) = kmst(&["run", s(&path)]);
        assert_eq!(code, 1, "{cut}: {err}");
        assert!(
            out.contains("check:    reason 1 (bad header"),
            "{cut}: {out}"
        );
    }
}

#[test]
fn a_byte_order_mark_before_a_source_is_not_part_of_it() {
    let (dir, kms) = fresh_dir_with("inputs-bom", "bom.kms", &format!("\u{FEFF}{HALT}"));
    let (code, out, err) = kmst(&["run", s(&kms)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("status:   ended"), "{out}");
    assert!(out.contains("passes:   1 (S16"), "{out}");
    let bin = dir.join("bom.bin");
    let (code, _, err) = kmst(&["asm", s(&kms), "-o", s(&bin)]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&bin).unwrap();
    assert_eq!((bytes.len(), &bytes[..4]), (128, &b"TSMK"[..]));
    // A scenario's `.kms` upload, and the scenario itself, with one.
    std::fs::write(
        dir.join("sc.json"),
        "\u{FEFF}{\"params\": {}, \"uploads\": [{\"offset\": 0, \"file\": \"bom.kms\"}], \
         \"host\": [{\"pass\": 0, \"run\": {\"offset\": 0}}]}",
    )
    .unwrap();
    let (code, out, err) = kmst(&["scenario", s(&dir.join("sc.json"))]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(" ended "), "{out}");
}

#[test]
fn dash_is_standard_input_for_every_command_that_reads_a_file() {
    let dir = fresh_dir("inputs-stdin", "");
    let upload = std::fs::read(workspace_file("corpus/streams/jobs_1000.bin")).unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    // run, profile and check of a source.
    let (code, out, err) = kmst_fed(&dir, &["run", "-"], HALT.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert!(text(out).contains("passes:   1 (S16"), "{err}");
    let (code, out, err) = kmst_fed(&dir, &["profile", "-"], HALT.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert!(text(out).contains("ended"), "{err}");
    let (code, out, err) = kmst_fed(&dir, &["check", "-"], &upload);
    assert_eq!((code, text(out)), (0, "-: accepted\n".into()), "{err}");
    // asm from standard input to standard output, and back.
    let (code, bin, err) = kmst_fed(&dir, &["asm", "-", "-o", "-"], HALT.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert_eq!((bin.len(), &bin[..4]), (128, &b"TSMK"[..]));
    let (code, out, err) = kmst_fed(&dir, &["disasm", "-"], &bin);
    assert_eq!(code, 0, "{err}");
    assert!(text(out).contains("halt r0"), "{err}");
    // Parameters: delay 3 has no effect on a HALT alone; a bad key is named.
    let kms = dir.join("halt.kms");
    std::fs::write(&kms, HALT).unwrap();
    let (code, out, err) = kmst_fed(
        &dir,
        &["run", "halt.kms", "--params", "-", "--json"],
        b"{\"delay\": 3}",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(passes(&text(out)), 1);
    // A scenario names its uploads from the working folder.
    let examples = std::path::PathBuf::from(workspace_file("corpus/scenario-examples"));
    let json = std::fs::read(examples.join("two_streams.json")).unwrap();
    let (code, out, err) = kmst_fed(&examples, &["scenario", "-"], &json);
    assert_eq!(code, 0, "{err}");
    assert!(text(out).contains("streams: 2"), "{err}");
    // compare times it; replay runs it through a target's comparison.
    let (code, _, err) = kmst_fed(
        &dir,
        &[
            "compare",
            "--quick",
            "--samples",
            "1",
            "--variants",
            "tail",
            "-",
        ],
        HALT.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = kmst_fed(&dir, &["replay", "-", "--target", "check"], &upload);
    assert_eq!(code, 0, "{err}");
    // Errors name it; --counters, which reads each file again, refuses it.
    let (code, _, err) = kmst_fed(&dir, &["run", "-"], b"bogus r0\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("kmst: standard input: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, err) = kmst_fed(&dir, &["compare", "--counters", "-"], HALT.as_bytes());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("standard input"), "{err}");
    // Nothing was written in the folder.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}
