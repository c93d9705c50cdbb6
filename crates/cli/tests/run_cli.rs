//! `kmst run`: a `.kms` source's `;@ params` directive gives the base
//! parameters, `--params` and the flags override it, and every `--dispatch`
//! gives the same answer.

mod common;
use common::kmst;

use std::path::PathBuf;

/// One SUBMIT, then WAIT 0 and HALT, with a completion delay of 3 by directive.
fn stream_file() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kmst-run-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("one_submit.kms");
    std::fs::write(
        &path,
        ";@ params {\"delay\": 3}\n\
         .stream max_steps=100 seed=1 req=9\n\
         submit handler=1, group=(0, 1)\n\
         wait 0\n\
         halt r0\n",
    )
    .unwrap();
    path
}

fn passes(json: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(json).expect("--json prints JSON");
    v["passes"].as_u64().expect("passes is a number")
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
    // r0 starts at 0 (S11), so the MOD at pc 1 divides by zero: reason 7 at pc 1.
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
