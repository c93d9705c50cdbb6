//! The scenario builder and the scenario file with `.bin` and `.kms` uploads
//! (S26..S36). Every expected value is worked out by hand from the rulings in
//! the comment beside it; each scenario runs on the reference model and on
//! every fast dispatch variant, which must agree.

// The expected answer's pieces, shared with the reference model's tests.
#[path = "../../reference/tests/common/answers.rs"]
mod answers;

use std::path::PathBuf;

use answers::{ev, four_started_fifth_rejected, rejected, run, se, started, taken};

use kmst::builder::{BuildError, Reg, Stream};
use kmst::scenario::{Placed, ScenarioBuildError, ScenarioBuilder, read_file};
use kmst::{Dispatch, exec};
use kmst_reference::result::kind;
use kmst_reference::{
    Entry, Params, Problem, Reason, Scenario, ScenarioError, ScenarioResult, Status,
    simulate_scenario,
};

fn scenario_error(entry: Entry, field: &str, problem: Problem) -> ScenarioBuildError {
    ScenarioBuildError::Scenario(ScenarioError::new(entry, field, problem))
}

/// A builder on the default parameters but what `f` sets.
fn builder(f: impl FnOnce(&mut Params)) -> ScenarioBuilder {
    let mut p = Params::default();
    f(&mut p);
    ScenarioBuilder::new(p).unwrap()
}

/// The reference answer, after checking that every fast variant gives it too.
fn answer(s: &Scenario) -> ScenarioResult {
    let r = simulate_scenario(s);
    for &d in Dispatch::ALL {
        assert_eq!(exec::simulate_scenario(s, d), r, "dispatch {d}");
    }
    r
}

/// EVENT r15 twice, then HALT of a constant 0: the prologue `SET r0, 0` (S8)
/// is pc 0, the EVENTs pc 1 and 2, the HALT pc 3. 64 + pad64(4 * 16) = 128 bytes.
fn two_events_then_halt(req: u64, seed: u64) -> Stream {
    let mut s = Stream::new(0, 100_000, seed, req).unwrap();
    let zero = s.constant(0).unwrap();
    s.event(Reg::GENERATOR);
    s.event(Reg::GENERATOR);
    s.halt(zero);
    s
}

/// `top: JMP top`, one micro-op: spins at pc 0. 64 + 64 = 128 bytes.
fn spin(req: u64) -> Stream {
    let mut s = Stream::new(0, 100_000, 1, req).unwrap();
    let top = s.label();
    s.jmp(top);
    s
}

#[test]
fn two_placed_streams_rotate() {
    // S29 with turn budget 1: submitters A (index 0), B (1), the queue; pass p
    // starts at p % 3. Pass 0: A SET, B SET, (Q). Pass 1: B EVENT, (Q), A EVENT.
    // Pass 2: (Q), A EVENT, B EVENT. Pass 3: A HALT, B HALT. EVENT r15 posts
    // the seed (r15 starts as the seed, S11): 0xA for A, 0xB for B.
    let mut b = builder(|p| p.turn_budget = 1);
    let a = b.place_stream(0, &two_events_then_halt(1, 0xA)).unwrap();
    let bb = b.place_stream(1024, &two_events_then_halt(2, 0xB)).unwrap();
    assert_eq!(
        (a, bb),
        (
            Placed {
                index: 0,
                offset: 0,
                length: 128
            },
            Placed {
                index: 1,
                offset: 1024,
                length: 128
            }
        )
    );
    // A run of a placed stream takes its length.
    b.run(0, 0).unwrap().run(0, 1024).unwrap();
    let s = b.build();
    assert_eq!(
        s.host().iter().map(|h| h.command).collect::<Vec<_>>(),
        vec![run(0, 128), run(1024, 128)]
    );
    let r = answer(&s);
    let st = |req, aux, pass| ev(kind::STREAM, req, aux, pass);
    let end = |req, pass| ev(kind::STREAM_END, req, 0, pass);
    assert_eq!(
        r.events,
        vec![
            st(2, 0xB, 1),
            st(1, 0xA, 1),
            st(1, 0xA, 2),
            st(2, 0xB, 2),
            end(1, 3),
            end(2, 3),
        ]
    );
    assert_eq!(r.host, vec![started(0, 0), started(0, 1)]);
    let outcome: Vec<_> = r
        .streams
        .iter()
        .map(|s| (s.req, s.offset, s.length, s.pass, s.status, s.error, s.halt))
        .collect();
    assert_eq!(
        outcome,
        vec![
            (1, 0, 128, 0, Status::Ended, None, Some(0)),
            (2, 1024, 128, 0, Status::Ended, None, Some(0)),
        ]
    );
    assert_eq!((r.passes, r.stopped), (4, false));
}

#[test]
fn a_fifth_run_and_cancels() {
    // S28: five spinning streams RUN in pass 0; the fifth finds four active and
    // is rejected with `Reason::BadHeader` at pc 0: one STREAM_ERROR, aux 1 | 0 << 8, with
    // its header's req 5 (128 >= 64 bytes, 4096 + 64 <= region). S34: cancels
    // in pass 2 end each active stream at its current pc 0 (JMP to itself)
    // with `Reason::Cancelled`, aux 10, in list order; cancel(5) finds no active stream
    // with req 5: rejected with `Reason::Cancelled`, no event. passes = 2 + 1.
    let mut b = ScenarioBuilder::default();
    for i in 0..5u64 {
        b.place_stream(1024 * i, &spin(i + 1)).unwrap();
    }
    for i in 0..5u32 {
        b.run(0, 1024 * i).unwrap();
    }
    for req in [3, 1, 5, 4, 2] {
        b.cancel(2, req).unwrap();
    }
    let r = answer(&b.build());
    let error = |req, reason: u32, pass| ev(kind::STREAM_ERROR, req, reason, pass);
    // The fifth RUN's error, then the cancels' in list order (cancel(5) has none).
    let cancels = [3, 1, 4, 2].map(|req| error(req, 10, 2));
    assert_eq!(r.events, [&[error(5, 1, 0)][..], &cancels].concat());
    let cancels = [
        taken(2),
        taken(2),
        rejected(2, Reason::Cancelled),
        taken(2),
        taken(2),
    ];
    assert_eq!(
        r.host,
        [four_started_fifth_rejected(0), cancels.to_vec()].concat()
    );
    let cancelled = se(Reason::Cancelled, 0);
    for (i, s) in r.streams.iter().enumerate() {
        assert_eq!(
            (s.req, s.offset, s.status, s.error, s.halt),
            (
                i as u32 + 1,
                1024 * i as u32,
                Status::Error,
                cancelled,
                None
            )
        );
    }
    assert_eq!(r.streams.len(), 4);
    assert_eq!((r.passes, r.stopped), (3, false));
}

#[test]
fn host_commands_alone() {
    // No stream; core_count 8. Pass 0: deadline(0) rejected (1, S31);
    // cancel(7) with no such stream rejected (10, S34); submit(5, [0, 4),
    // args 1, 2) takes slot 0 with sequence 0 (S19, S32: stream null, pc 0,
    // flags 0); submit with handler 0 rejected (5); enqueue of count 0
    // rejected (9). The submit (delay 0) is acknowledged in pass 1 (S12).
    // Pass 2: an exclusive enqueue of 2 joins the queue and, the queue
    // taking the only turn (S29), is at its head with no busy slot: the
    // allocator's lowest first is 0, slot 0, sequence 1, flags 2 (S20).
    // Pass 5: submit on [8, 9) leaves a grid of 8: rejected (11). No event:
    // passes 0.
    let mut b = builder(|p| p.core_count = 8);
    b.deadline(0, 0).unwrap().cancel(0, 7).unwrap();
    b.submit(0, 5, (0, 4), &[1, 2], false, false).unwrap();
    b.submit(0, 0, (0, 1), &[], false, false).unwrap();
    b.enqueue(0, 6, 0, &[], false, false).unwrap();
    b.enqueue(2, 6, 2, &[9], true, false).unwrap();
    b.submit(5, 7, (8, 1), &[], false, false).unwrap();
    let r = answer(&b.build());
    assert_eq!(
        r.host,
        vec![
            rejected(0, Reason::BadHeader),
            rejected(0, Reason::Cancelled),
            taken(0),
            rejected(0, Reason::BadTemplate),
            rejected(0, Reason::BadEnqueue),
            taken(2),
            rejected(5, Reason::BadGroup),
        ]
    );
    let commands: Vec<_> = r
        .commands
        .iter()
        .map(|c| {
            let k = c.command;
            (
                k.sequence,
                k.slot,
                k.pass_index,
                k.pc,
                k.queued,
                k.handler,
                k.first,
                k.count,
                k.flags,
                k.args,
                c.stream,
            )
        })
        .collect();
    assert_eq!(
        commands,
        vec![
            (
                0,
                0,
                0,
                0,
                false,
                5,
                0,
                4,
                0,
                [1, 2, 0, 0, 0, 0, 0, 0, 0, 0],
                None
            ),
            (
                1,
                0,
                2,
                0,
                true,
                6,
                0,
                2,
                2,
                [9, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                None
            ),
        ]
    );
    assert!(r.streams.is_empty() && r.events.is_empty());
    assert_eq!((r.passes, r.stopped), (0, false));
}

#[test]
fn the_builder_refuses_what_a_file_would() {
    // S26: cancel_pass.
    assert_eq!(
        ScenarioBuilder::new(Params {
            cancel_pass: Some(3),
            ..Params::default()
        })
        .unwrap_err(),
        scenario_error(Entry::Params, "cancel_pass", Problem::CancelPass)
    );
    let mut b = builder(|p| p.region_size = 4096);
    b.place(1024, vec![1u8; 100]).unwrap();
    // S26: misaligned, outside the region, overlapping [1024, 1124).
    assert_eq!(
        b.place(32, vec![0; 64]).unwrap_err(),
        scenario_error(Entry::Upload(1), "offset", Problem::Misaligned(32))
    );
    assert_eq!(
        b.place(4032, vec![0; 65]).unwrap_err(),
        scenario_error(
            Entry::Upload(1),
            "offset",
            Problem::OutsideRegion {
                offset: 4032,
                length: 65,
                region_size: 4096
            }
        )
    );
    assert_eq!(
        b.place(1088, vec![0; 64]).unwrap_err(),
        scenario_error(Entry::Upload(1), "offset", Problem::Overlaps(0))
    );
    // A stream that does not encode names the upload it would have been.
    let empty = Stream::new(0, 1, 1, 0).unwrap();
    assert_eq!(
        b.place_stream(0, &empty).unwrap_err(),
        ScenarioBuildError::Stream {
            upload: 1,
            error: BuildError::Empty
        }
    );
    // S36: a run without a length where nothing is placed; nothing was pushed.
    assert_eq!(
        b.run(0, 64).unwrap_err(),
        scenario_error(Entry::Host(0), "run.length", Problem::RunWithoutLength(64))
    );
    b.run(3, 1024).unwrap();
    // S27: at most ten args.
    assert_eq!(
        b.enqueue(3, 1, 1, &[0; 11], false, false).unwrap_err(),
        scenario_error(Entry::Host(1), "enqueue.args", Problem::TooManyArgs(11))
    );
    // S26: passes never decrease.
    assert_eq!(
        b.deadline(2, 9).unwrap_err(),
        scenario_error(
            Entry::Host(1),
            "pass",
            Problem::OutOfOrder {
                pass: 2,
                previous: 3
            }
        )
    );
    assert_eq!(
        b.scenario().host().len(),
        1,
        "a refused command is not kept"
    );
    assert_eq!(
        b.build().uploads().len(),
        1,
        "a refused placement is not kept"
    );
    // Errors read like the file reader's.
    assert_eq!(
        scenario_error(Entry::Upload(1), "offset", Problem::Overlaps(0)).to_string(),
        "uploads[1]: `offset`: overlaps uploads[0]"
    );
}

/// A fresh folder of its own under the temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "kmst-scenario-builder-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_file_with_bin_and_kms_uploads() {
    let dir = temp_dir("files");
    let bin = two_events_then_halt(2, 0xB).encode().unwrap();
    std::fs::write(dir.join("b.bin"), &bin).unwrap();
    // The same program as two_events_then_halt(1, 0xA), as assembly text.
    let kms = ".stream max_steps=100000 seed=0xA req=1\n\
               set r0, 0\nevent r15\nevent r15\nhalt r0\n";
    std::fs::write(dir.join("a.kms"), kms).unwrap();
    let json = r#"{"params": {"turn_budget": 1},
        "uploads": [{"offset": 0, "file": "a.kms"}, {"offset": 1024, "file": "b.bin"}],
        "host": [{"pass": 0, "run": {"offset": 0}}, {"pass": 0, "run": {"offset": 1024}}]}"#;
    let path = dir.join("two.json");
    std::fs::write(&path, json).unwrap();
    let s = read_file(&path).unwrap();
    // The .kms upload is assembled: the builder's bytes of the same stream.
    assert_eq!(
        s.uploads()[0].bytes,
        two_events_then_halt(1, 0xA).encode().unwrap()
    );
    assert_eq!(s.uploads()[1].bytes, bin);
    // The same scenario as the builder's (two_placed_streams_rotate).
    let mut b = builder(|p| p.turn_budget = 1);
    b.place_stream(0, &two_events_then_halt(1, 0xA)).unwrap();
    b.place_stream(1024, &two_events_then_halt(2, 0xB)).unwrap();
    b.run(0, 0).unwrap().run(0, 1024).unwrap();
    assert_eq!(s, b.build());
}

#[test]
fn an_upload_that_does_not_assemble_names_its_file() {
    let dir = temp_dir("bad-kms");
    // Line 2, column 1: an unknown mnemonic.
    std::fs::write(dir.join("bad.kms"), ".stream max_steps=1 seed=1\nfrob r0\n").unwrap();
    let path = dir.join("s.json");
    std::fs::write(&path, r#"{"uploads": [{"offset": 0, "file": "bad.kms"}]}"#).unwrap();
    let e = read_file(&path).unwrap_err();
    assert_eq!((e.entry, e.field.as_str()), (Entry::Upload(0), "file"));
    match &e.problem {
        Problem::File { path, message } => {
            assert!(path.ends_with("bad.kms"), "{path}");
            assert!(message.contains("line 2, column 1"), "{message}");
        }
        other => panic!("not a file problem: {other:?}"),
    }
    // A missing upload file is the same entry and field.
    std::fs::write(&path, r#"{"uploads": [{"offset": 0, "file": "gone.bin"}]}"#).unwrap();
    let e = read_file(&path).unwrap_err();
    assert!(
        matches!(&e.problem, Problem::File { path, .. } if path.ends_with("gone.bin")),
        "{e}"
    );
    assert_eq!((e.entry, e.field.as_str()), (Entry::Upload(0), "file"));
}

/// S27: a host command takes up to ten args; ten are kept as given. The
/// host's submit is taken in pass 0 into slot 0 with sequence 0 (S32, S19),
/// its record carrying the ten words.
#[test]
fn ten_args_are_the_most_and_are_kept() {
    let mut b = ScenarioBuilder::new(Params::default()).unwrap();
    let ten: Vec<u32> = (1..=10).collect();
    b.submit(0, 4, (0, 1), &ten, false, false).unwrap();
    let a = answer(&b.build());
    assert_eq!(a.host, [taken(0)]);
    assert_eq!(a.commands.len(), 1);
    assert_eq!(a.commands[0].command.args, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
}
