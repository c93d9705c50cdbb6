//! `kmst run`: a `.kms` source's `;@ params` directive gives the base
//! parameters, `--params` and the flags override it, and every `--dispatch`
//! gives the same answer.

mod common;
use common::{ONE_SUBMIT, kmst, passes};

use std::path::PathBuf;

/// One SUBMIT, then WAIT 0 and HALT, with a completion delay of 3 by directive.
fn stream_file() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kmst-run-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("one_submit.kms");
    std::fs::write(&path, ONE_SUBMIT).unwrap();
    path
}

#[test]
fn the_directive_gives_the_delay_and_a_flag_overrides_it() {
    let file = stream_file();
    let file = file.to_str().unwrap();
    // Delay 3: the SUBMIT of pass 0 is acknowledged in the sweep of pass
    // 0 + 1 + 3 = 4 (S12); WAIT 0 goes on and HALT posts STREAM_END in pass 4,
    // so passes = 4 + 1 = 5 (S16).
    let (code, out, err) = kmst(&["run", file, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(passes(&out), 5);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["params"]["delay"], 3);
    // --delay 0: acknowledged in pass 1, HALT in pass 1, passes = 2.
    let (code, out, err) = kmst(&["run", file, "--delay", "0", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(passes(&out), 2);
}

#[test]
fn every_dispatch_gives_the_same_answer() {
    let file = stream_file();
    let file = file.to_str().unwrap();
    let (_, reference, _) = kmst(&["run", file, "--dispatch", "reference", "--json"]);
    // Every fast variant this build has (`--no-default-features`: tail alone).
    for d in kmst::Dispatch::ALL {
        let d = d.to_string();
        let (code, out, err) = kmst(&["run", file, "--dispatch", &d, "--json"]);
        assert_eq!(code, 0, "{d}: {err}");
        assert_eq!(out, reference, "{d}");
    }
    let (code, _, err) = kmst(&["run", file, "--dispatch", "bogus"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown dispatch `bogus`"), "{err}");
}

#[test]
fn the_summary_names_the_error_and_its_micro_op() {
    let dir = std::env::temp_dir().join(format!("kmst-run-cli-mod-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mod_zero.kms");
    // r0 starts at 0 (S11), so the MOD at pc 1 divides by zero: `Reason::ModByZero` at pc 1.
    std::fs::write(
        &path,
        ".stream max_steps=10 seed=1\nset r1, 5\nmod r2, r1, r0\n",
    )
    .unwrap();
    let (code, out, err) = kmst(&["run", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("status:   error"), "{out}");
    assert!(
        out.contains("reason 7 (MOD by zero) at pc 1: mod r2, r1, r0"),
        "{out}"
    );
}

/// `top: jmp top`: never ends, posts no event.
fn forever_file(params: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kmst-run-cli-forever-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("forever.kms");
    std::fs::write(
        &path,
        format!("{params}.stream max_steps=4000000000 seed=1\ntop: jmp top\n"),
    )
    .unwrap();
    path
}

#[test]
fn the_summary_says_how_many_passes_ran() {
    // Stuck in passes 0..=1199 (max_passes 1200 by directive, S16): no event,
    // so S16's `passes` is 0, and 1,200 passes were simulated; the line
    // says both, with or without --count-passes.
    let file = forever_file(";@ params {\"max_passes\": 1200}\n");
    let file = file.to_str().unwrap();
    let line = "passes:   0 (S16: the last event's pass + 1; no event happened in the \
                1,200 passes simulated)\n";
    for turn_budget in ["64", "1"] {
        let (code, out, err) = kmst(&["run", file, "--turn-budget", turn_budget]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("status:   stuck"), "{out}");
        assert!(out.contains(line), "--turn-budget {turn_budget}: {out}");
        // Piped, stderr shows no progress line.
        assert_eq!(err, "");
        let (_, counted, _) = kmst(&["run", file, "--turn-budget", turn_budget, "--count-passes"]);
        assert_eq!(counted, out);
    }
    // The reference model has no hooks: it counts them with --count-passes
    // (the fast kernel runs the stream again), else the line says how.
    let (_, reference, _) = kmst(&["run", file, "--dispatch", "reference", "--count-passes"]);
    assert!(reference.contains(line), "{reference}");
    let (code, plain, _) = kmst(&["run", file, "--dispatch", "reference"]);
    assert_eq!(code, 0);
    assert!(
        plain.contains(
            "passes:   0 (S16: the last event's pass + 1; no event happened; \
             --count-passes counts the passes simulated)\n"
        ),
        "{plain}"
    );
    // With an event, S16's count alone, unless asked: the one-SUBMIT
    // stream's HALT is in pass 4 (delay 3), its last pass simulated.
    let one = stream_file();
    let one = one.to_str().unwrap();
    let (_, out, _) = kmst(&["run", one]);
    assert!(
        out.contains("passes:   5 (S16: the last event's pass + 1)\n"),
        "{out}"
    );
    let (_, out, _) = kmst(&["run", one, "--count-passes"]);
    assert!(
        out.contains("passes:   5 (S16: the last event's pass + 1; 5 simulated)\n"),
        "{out}"
    );
}

#[test]
fn params_merge_key_by_key() {
    let file = stream_file(); // `;@ params {"delay": 3}`
    let file = file.to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("kmst-run-cli-params-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let other = dir.join("other.json");
    std::fs::write(&other, r#"{"core_count": 8}"#).unwrap();
    // The file names core_count only: the directive's delay 3 stays, passes 5
    // (worked out in the_directive_gives_the_delay_and_a_flag_overrides_it).
    let (code, out, err) = kmst(&["run", file, "--params", other.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            v["params"]["delay"].as_u64(),
            v["params"]["core_count"].as_u64()
        ),
        (Some(3), Some(8))
    );
    assert_eq!(passes(&out), 5);
    // The file's delay 0 over the directive's 3: passes 2.
    let zero = dir.join("zero.json");
    std::fs::write(&zero, r#"{"delay": 0}"#).unwrap();
    let (_, out, _) = kmst(&["run", file, "--params", zero.to_str().unwrap(), "--json"]);
    assert_eq!(passes(&out), 2);
    // A flag over both: delay 1 acknowledges the SUBMIT of pass 0 in the
    // sweep of pass 0 + 1 + 1 = 2 (S12); HALT in pass 2, passes 3.
    let (_, out, _) = kmst(&[
        "run",
        file,
        "--params",
        zero.to_str().unwrap(),
        "--delay",
        "1",
        "--json",
    ]);
    assert_eq!(passes(&out), 3);
    // A bad key in the file is an error naming it.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"speed": 1}"#).unwrap();
    let (code, _, err) = kmst(&["run", file, "--params", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("speed"), "{err}");
}

#[test]
fn a_long_run_shows_progress_on_a_terminal() {
    // `script` gives the run a terminal; `timeout` ends it after 2 s. The
    // stream spins alone (quick passes, which a run in a pipe takes in long
    // spans), and the count moves pass by pass.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("no `script` here: skipped");
        return;
    }
    let file = forever_file("");
    let cmd = format!(
        "{} run {} --max-passes 18446744073709551615 --turn-budget 1 >/dev/null",
        env!("CARGO_BIN_EXE_kmst"),
        file.display()
    );
    let out = std::process::Command::new("timeout")
        .args(["2", "script", "-qec", &cmd, "/dev/null"])
        .output()
        .expect("timeout and script run");
    let text = String::from_utf8_lossy(&out.stdout);
    // The passes against max_passes, the rate, and the time left at that
    // rate: some hundreds of billions of years for 2^64 - 1 passes.
    assert!(
        text.contains("pass ") && text.contains("of at most 18,446,744,073,709,551,615"),
        "{text}"
    );
    assert!(text.contains(" passes/s, at most "), "{text}");
    assert!(text.contains(" years left"), "{text}");
}

/// Every command that takes `--dispatch` lists, in its help, every variant
/// the build has (`Dispatch::ALL`, which the binary and this test share),
/// and `run` and `scenario` the reference model too.
#[test]
fn every_dispatch_help_lists_every_variant_of_the_build() {
    for (command, reference) in [("run", true), ("scenario", true), ("profile", false)] {
        let (code, out, err) = kmst(&[command, "--help"]);
        assert_eq!(code, 0, "{command}: {err}");
        // The option's line and the next (long help puts the text there).
        let line: String = out
            .lines()
            .skip_while(|l| !l.contains("--dispatch <"))
            .take(2)
            .collect();
        for d in kmst::exec::Dispatch::ALL {
            assert!(line.contains(d.name()), "{command} --help: {line}");
        }
        assert_eq!(line.contains("reference"), reference, "{command}: {line}");
    }
}
