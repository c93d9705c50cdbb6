//! A run cut into pieces at pass boundaries, each piece on another
//! dispatch variant through a snapshot, answers exactly as the reference
//! model's whole run (docs/pause.md).

use kmst::builder::Stream;
use kmst::exec::{Answer, Dispatch, Resumable, Until};
use kmst::scenario::ScenarioBuilder;
use kmst::types::{Delay, Params, ResultModel, Scenario};

/// A stream of every kind of kernel traffic: `n` rounds of a SUBMIT with
/// its result, an ENQUEUE of 40 cores and a WAIT 2, a loop of ADDIs, then
/// WAIT 0 and HALT of the latest result.
fn traffic(n: i64, req: u64) -> Stream {
    let mut s = Stream::new(0, 100_000, 7, req).unwrap();
    let r = s.registers(3).unwrap();
    let (i, j, acc) = (r[0], r[1], r[2]);
    s.set(i, n).unwrap();
    let top = s.label();
    s.submit(3, (0.into(), 30.into()), &[i.into()], false, true)
        .unwrap();
    s.enqueue(4, 40.into(), &[acc.into()], false, false)
        .unwrap();
    s.wait(2).unwrap();
    s.set(j, 50).unwrap();
    let inner = s.label();
    s.addi(acc, acc, 3).unwrap();
    s.addi(j, j, -1).unwrap();
    s.jnz(j, inner);
    s.addi(i, i, -1).unwrap();
    s.jnz(i, top);
    s.wait(0).unwrap();
    s.halt(acc);
    s
}

fn params() -> Params {
    Params {
        delay: Delay::Cycle { base: 1, modulo: 5 },
        result: ResultModel::Sequence,
        turn_budget: 16,
        core_count: 100,
        ..Params::default()
    }
}

fn scenario() -> Scenario {
    let mut b = ScenarioBuilder::new(Params {
        delay: Delay::Table(vec![Some(2), Some(0), None, Some(5)]),
        default_deadline_passes: 40,
        ..params()
    })
    .unwrap();
    b.place_stream(0, &traffic(6, 1)).unwrap();
    b.place_stream(4096, &traffic(4, 2)).unwrap();
    b.run(0, 0).unwrap();
    b.submit(2, 9, (90, 10), &[1, 2], false, true).unwrap();
    b.run(3, 4096).unwrap();
    b.enqueue(5, 8, 20, &[7], true, false).unwrap();
    b.deadline(9, 60).unwrap();
    b.build()
}

/// Every variant of the build, turn about.
fn variant(k: usize) -> Dispatch {
    Dispatch::ALL[k % Dispatch::ALL.len()]
}

/// Runs `fresh` in pieces that stop before each pass of `cuts`, each
/// piece on the next variant after a snapshot and a restore.
fn in_pieces(mut run: Resumable, cuts: &[u64], first: usize) -> Answer {
    for (k, &cut) in cuts.iter().enumerate() {
        run.run(variant(first + k), Until::Pass(cut));
        let bytes = run.snapshot().expect("a snapshot");
        run = Resumable::restore(&bytes).expect("restored");
    }
    run.run(variant(first + cuts.len()), Until::End);
    run.into_answer()
}

#[test]
fn one_stream_cut_at_every_pass_answers_as_the_whole_run() {
    let upload = traffic(5, 9).encode().unwrap();
    let want = kmst_reference::simulate(&upload, &params());
    assert!(want.passes > 20, "a run of some length: {}", want.passes);
    assert_eq!(want.status, kmst::Status::Ended);
    for cut in 0..=want.passes + 1 {
        for first in 0..Dispatch::ALL.len() {
            let got = in_pieces(Resumable::new(&upload, &params()), &[cut], first);
            assert_eq!(got, Answer::Stream(want.clone()), "cut at {cut}");
        }
    }
    // Every pass a piece of its own.
    let cuts: Vec<u64> = (1..=want.passes).collect();
    let got = in_pieces(Resumable::new(&upload, &params()), &cuts, 0);
    assert_eq!(got, Answer::Stream(want));
}

#[test]
fn a_scenario_cut_at_every_pass_answers_as_the_whole_run() {
    let s = scenario();
    let want = kmst_reference::simulate_scenario(&s);
    assert!(want.passes > 20 && want.streams.len() == 2, "{want:?}");
    for cut in 0..=want.passes + 1 {
        let got = in_pieces(Resumable::scenario(&s), &[cut], cut as usize);
        assert_eq!(got, Answer::Scenario(want.clone()), "cut at {cut}");
    }
    let cuts: Vec<u64> = (1..=want.passes).collect();
    let got = in_pieces(Resumable::scenario(&s), &cuts, 1);
    assert_eq!(got, Answer::Scenario(want));
}

/// An ack 62 to 65 passes after the pass a run stops before: the ack
/// wheel holds the acks of the next 64 passes, the rest wait as far
/// slots; each comes back where it belongs (S12). The tables give a
/// command acknowledged in the very next pass beside them, so that a
/// sweep runs there: one put in that pass's bucket would go with it.
#[test]
fn acks_at_the_edge_of_the_wheel_come_back_exact() {
    let fixed = [62, 63, 64, 65].map(Delay::Fixed);
    let tables = [63, 64, 65].map(|d| Delay::Table(vec![Some(0), Some(d)]));
    for delay in fixed.into_iter().chain(tables) {
        let params = Params {
            delay: delay.clone(),
            ..params()
        };
        let upload = traffic(2, 5).encode().unwrap();
        let want = kmst_reference::simulate(&upload, &params);
        for cut in 0..=4 {
            let got = in_pieces(Resumable::new(&upload, &params), &[cut], cut as usize);
            assert_eq!(got, Answer::Stream(want.clone()), "{delay:?}, cut at {cut}");
        }
    }
}
