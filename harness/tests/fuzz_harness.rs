//! The fuzz harness itself: a divergence is noticed and reported readably,
//! the input layouts mean what docs/fuzzing.md says, and the targets listed
//! in `fuzz/Cargo.toml` are the library's.

use kmst::format::Upload;
use kmst::format::zero_ignored;
use kmst::{Dispatch, Reason};
use kmst_harness::answers::{DifferentialOracle, Implementation, RunAnswer, RunArgs};
use kmst_harness::fuzzing::input::{CheckPrefix, SIM_PREFIX, SimPrefix};
use kmst_harness::fuzzing::script::{Arg, Call, Script};
use kmst_harness::fuzzing::targets::{
    Observed, builder_with, check_with, observed_for, sim_observed_with, sim_with,
};
use kmst_harness::fuzzing::{Agreement, Target, case_from_seed, job_example, run};
use kmst_reference::{Params, SimResult, StreamError};

/// The reference model with one deliberate slip, to prove the comparison sees it.
struct Slipped {
    /// Which slip: 0 the first command's slot, 1 the check's pc, 2 a panic, 3 the req of check_run.
    slip: u8,
}

impl DifferentialOracle for Slipped {
    fn name(&self) -> String {
        format!("slip{}", self.slip)
    }
    fn check(&self, data: &[u8], region_size: u64) -> Result<(), StreamError> {
        let v = Implementation::Reference.check(data, region_size);
        match (self.slip, v) {
            (1, Err(e)) => Err(StreamError { pc: e.pc + 1, ..e }),
            (_, v) => v,
        }
    }
    fn check_run(&self, data: &[u8], args: &RunArgs) -> RunAnswer {
        let (e, req) = Implementation::Reference.check_run(data, args);
        if self.slip == 3 {
            (e, req ^ 1)
        } else {
            (e, req)
        }
    }
    fn simulate(&self, upload: &[u8], params: &Params) -> SimResult {
        let mut r = Implementation::Reference.simulate(upload, params);
        match self.slip {
            0 => {
                if let Some(c) = r.commands.first_mut() {
                    c.slot += 1;
                }
            }
            2 => panic!("deliberate"),
            _ => {}
        }
        r
    }
}

fn boxed(list: Vec<Box<dyn DifferentialOracle>>) -> Vec<Box<dyn DifferentialOracle>> {
    list
}

#[test]
fn a_wrong_command_is_reported_with_params_and_the_submitting_micro_op() {
    // The 1,000-job example: its first command is the job ENQUEUE at pc 6
    // queued in pass 0 (docs/spec.md "The builder").
    let upload = job_example().encode();
    let params = Params {
        max_passes: 50,
        ..Params::default()
    };
    let impls = boxed(vec![
        Box::new(Implementation::Reference),
        Box::new(Slipped { slip: 0 }),
    ]);
    let d = sim_with(Target::SimStructured, &upload, &params, &impls).unwrap_err();
    println!("{d}");
    assert_eq!(d.target, "sim_structured");
    assert!(d.title.contains("slip0"), "{}", d.title);
    assert!(
        d.body.contains("commands[0].slot: expected 0, got 1"),
        "{}",
        d.body
    );
    assert!(d.body.contains(r#""max_passes":50"#), "{}", d.body);
    // The disassembly marks pc 6, the ENQUEUE, and shows its template.
    assert!(d.body.contains(">     6: enqueue r1, #0"), "{}", d.body);
    assert!(d.body.contains("template #0"), "{}", d.body);
}

#[test]
fn a_panicking_variant_is_a_divergence() {
    let upload = job_example().encode();
    let params = Params {
        max_passes: 5,
        ..Params::default()
    };
    let impls = boxed(vec![
        Box::new(Implementation::Reference),
        Box::new(Slipped { slip: 2 }),
    ]);
    let d = sim_with(Target::SimRaw, &upload, &params, &impls).unwrap_err();
    assert!(d.body.contains("slip2: panicked: deliberate"), "{}", d.body);
}

#[test]
fn checker_slips_are_reported() {
    // An unknown opcode (0) at pc 1: `Reason::UnknownOpcode` at pc 1; the slip says pc 2.
    let mut u = job_example();
    u.ops[1].op = 0;
    let data = u.encode();
    let args = RunArgs {
        region_size: data.len() as u64,
        ..RunArgs::default()
    };
    let pc_slip = boxed(vec![
        Box::new(Implementation::Reference),
        Box::new(Slipped { slip: 1 }),
    ]);
    let d = check_with(Target::Check, &data, data.len() as u64, &args, &pc_slip).unwrap_err();
    assert!(d.title.contains("check verdict"), "{}", d.title);
    assert!(
        d.body.contains("pc: 1") && d.body.contains("pc: 2"),
        "{}",
        d.body
    );
    let req_slip = boxed(vec![
        Box::new(Implementation::Reference),
        Box::new(Slipped { slip: 3 }),
    ]);
    let d = check_with(Target::Check, &data, data.len() as u64, &args, &req_slip).unwrap_err();
    assert!(d.title.contains("check_run"), "{}", d.title);
    // The real pair agrees on it: `Reason::UnknownOpcode` (unknown opcode) at pc 1.
    let real = boxed(vec![
        Box::new(Implementation::Reference),
        Box::new(Implementation::Fast(Dispatch::Tail)),
    ]);
    let a = check_with(Target::Check, &data, data.len() as u64, &args, &real).unwrap();
    assert_eq!(
        a,
        kmst_harness::fuzzing::Agreement::Check {
            check: Some(StreamError {
                reason: Reason::UnknownOpcode,
                pc: 1
            }),
            // The job example's req is 1 (its Stream(..., req=1)).
            run: (
                Some(StreamError {
                    reason: Reason::UnknownOpcode,
                    pc: 1
                }),
                1
            ),
        }
    );
}

#[test]
fn zero_ignored_clears_exactly_the_ignored_bytes() {
    let clean = job_example().encode();
    let mut dirty = clean.clone();
    // docs/spec.md "The upload": the header's last 32 bytes; SET reads only a
    // (S4), so b, c and imm2 of micro-op 0 are ignored; HALT (pc 10) does not
    // read its imm; the template's slot (bytes 2..4), sequence (4..8),
    // landing (8..12), reserved words (56..64), patch entries past
    // patch_count 1 and last 5 bytes; the micro-ops' padding.
    let t0 = 64 + 192; // 11 micro-ops = 176 bytes, padded to 192
    for at in [
        40,
        63,
        64 + 2,
        64 + 3,
        64 + 8,
        64 + 15,
        64 + 10 * 16 + 4,
        64 + 11 * 16,
        t0 + 2,
        t0 + 5,
        t0 + 9,
        t0 + 60,
        t0 + 65,
        t0 + 71,
        t0 + 76,
        t0 + 79,
        t0 + 100,
    ] {
        dirty[at] = 0xA5;
    }
    // The check does not read them: the dirty upload is accepted.
    assert_eq!(kmst::check::check(&dirty, dirty.len() as u64), Ok(()));
    assert_eq!(zero_ignored(&dirty), clean);
    // A byte the layout names is kept: SET's a field, the template's handler.
    let mut named = clean.clone();
    named[64 + 1] = 7;
    named[t0] = 9;
    assert_eq!(zero_ignored(&named), named);
}

/// Each template's ignored bytes, the second's as the first's: three
/// micro-ops (48 bytes, padded to 64) put the templates at 128 and the
/// second at 128 + 80 (docs/spec.md "The upload"); its sequence (bytes
/// 4..8), landing (8..12) and reserved words (56..64) are ignored (S1).
#[test]
fn zero_ignored_clears_the_ignored_bytes_of_every_template() {
    use kmst::builder::{Operand, Stream};
    let mut s = Stream::new(0, 100, 1, 7).unwrap();
    s.submit(1, (Operand::Int(0), Operand::Int(1)), &[], false, false)
        .unwrap();
    s.submit(
        2,
        (Operand::Int(1), Operand::Int(2)),
        &[Operand::Int(5)],
        false,
        true,
    )
    .unwrap();
    let r = s.registers(1).unwrap()[0];
    s.halt(r);
    let clean = s.encode().unwrap();
    assert_eq!(
        clean.len(),
        128 + 2 * 80 + 32,
        "two templates, padded to 64"
    );
    let second = 128 + 80;
    let mut dirty = clean.clone();
    for at in [second + 4, second + 9, second + 60] {
        dirty[at] = 0xA5;
    }
    assert_eq!(kmst::check::check(&dirty, dirty.len() as u64), Ok(()));
    assert_eq!(zero_ignored(&dirty), clean);
    // The second template's handler is named: kept.
    assert_eq!(clean[second], 2);
    assert_eq!(zero_ignored(&clean), clean);
}

#[test]
fn inputs_split_at_their_prefixes() {
    let upload = job_example().encode();
    let mut input = CheckPrefix::plain().0.to_vec();
    input.extend_from_slice(&upload);
    let (prefix, data) = CheckPrefix::split(&input);
    assert_eq!(data, &upload[..]);
    // The plain prefix: region = the upload's length, offset 0, nothing active.
    assert_eq!(prefix.region_size(data), upload.len() as u64);
    assert_eq!(
        prefix.run_args(data),
        RunArgs {
            offset: 0,
            region_size: upload.len() as u64,
            active: vec![],
            active_reqs: vec![],
        }
    );
    let params = Params {
        max_passes: 100,
        ..Params::default()
    };
    let mut sim = SimPrefix::encode(&params).0.to_vec();
    assert_eq!(sim.len(), SIM_PREFIX);
    sim.extend_from_slice(&upload);
    let (p, rest) = SimPrefix::split(&sim);
    assert_eq!(p.params(), params);
    assert_eq!(rest, &upload[..]);
    // The job example ends: 1,000 jobs then HALT r4 = 0; 100 passes are not
    // enough for 1,000 jobs of delay 0 at 16 slots a pass (at least 63
    // passes of submits), but they are stuck or ended, never erring.
    let a = run(Target::SimRaw, &sim).unwrap();
    assert!(
        matches!(
            a,
            kmst_harness::fuzzing::Agreement::Sim {
                check: None,
                error: None,
                ..
            }
        ),
        "{a:?}"
    );
}

#[test]
fn decode_round_trip_holds_for_the_example() {
    // S10 on a builder-made upload with its ignored bytes zero.
    let bytes = job_example().encode();
    assert_eq!(Upload::decode(&bytes).unwrap().encode(), bytes);
}

#[test]
fn the_manifest_lists_every_target() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap();
    for t in Target::ALL {
        assert!(
            manifest.contains(&format!("name = \"{}\"", t.name())),
            "{t} missing from fuzz/Cargo.toml"
        );
        let src = std::fs::read_to_string(root.join(format!("fuzz/fuzz_targets/{}.rs", t.name())))
            .unwrap();
        assert!(src.contains("kmst_harness::fuzzing::fuzz"), "{t}: {src}");
        assert_eq!(t.name().parse::<Target>(), Ok(t));
    }
    assert!("nope".parse::<Target>().is_err());
}

#[test]
fn the_observed_path_is_compared_too() {
    // The profiler's observer runs other code in the same handlers; the
    // answer must not change (S24: the answer is the run's, not the tool's).
    let upload = job_example().encode();
    let params = Params {
        max_passes: 50,
        ..Params::default()
    };
    let want = Implementation::Reference.simulate(&upload, &params);
    for &d in Dispatch::ALL {
        assert_eq!(Observed(d).simulate(&upload, &params), want, "{d:?}");
    }
    // Every variant is the observed one for some upload.
    let mut seen: Vec<Dispatch> = Vec::new();
    for i in 0..200 {
        let d = observed_for(&case_from_seed(i).upload).0;
        if !seen.contains(&d) {
            seen.push(d);
        }
    }
    assert_eq!(seen.len(), Dispatch::ALL.len(), "{seen:?}");
    // A slip in the observed run is a divergence, reported under its name.
    let impls = boxed(vec![Box::new(Implementation::Reference)]);
    let d = sim_observed_with(
        Target::SimRaw,
        &upload,
        &params,
        &impls,
        &Slipped { slip: 0 },
    )
    .unwrap_err();
    assert!(d.title.contains("slip0"), "{}", d.title);
    assert_eq!(Observed(Dispatch::Tail).name(), "tail+observer");
}

fn script(calls: Vec<Call>) -> Script {
    // deadline_us 0, max_steps 100, seed 1, req 0: in P4's ranges.
    Script {
        deadline_us: 0,
        max_steps: 100,
        seed: 1,
        req: 0,
        calls,
    }
}

fn halt() -> Call {
    Call::Op {
        code: kmst::ops::Opcode::Halt,
        regs: [0, 0, 0],
        imm: 0,
        label: 0,
    }
}

#[test]
fn builder_scripts_are_judged_by_the_rules() {
    // The other stream's label 1 (the script keeps the second of the two it
    // makes), then this stream's forward labels 0 and 1. Bind(0) names the
    // other stream's label: refused, although label 1 exists here too. Both
    // own labels stay unbound, so upload() is refused (P4): nothing built.
    let s = script(vec![
        Call::ForeignLabel,
        Call::Forward,
        Call::Forward,
        Call::Bind(0),
        halt(),
    ]);
    let played = s.run().unwrap();
    assert_eq!(
        played.outcomes[3],
        Err(kmst::builder::BuildError::UnknownLabel(1))
    );
    assert_eq!(
        builder_with(&s).unwrap(),
        Agreement::Builder { built: None }
    );
    // A stream that builds: constant 7 (r0) and the enqueue's count 2 (r1)
    // are the prologue's two SETs (S8, S9); then ENQUEUE and HALT: four
    // micro-ops and one template, run alike everywhere.
    let s = script(vec![
        Call::Constant(7),
        Call::Enqueue {
            handler: 3,
            count: Arg::Int(2),
            args: vec![Arg::Reg(0), Arg::Int(77)],
            exclusive: false,
            result: false,
        },
        halt(),
    ]);
    assert_eq!(
        builder_with(&s).unwrap(),
        Agreement::Builder {
            built: Some((4, 1))
        }
    );
}
