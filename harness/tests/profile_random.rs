//! Seeded random streams (kmst_harness::fuzzing): the profile's counts agree with
//! each other and with what the spec says of the run's own answer.

use kmst::exec::{Dispatch, simulate};
use kmst::format::Header;
use kmst_harness::fuzzing::case_from_seed;
use kmst_harness::profile::{profile, trace};
use kmst_reference::{Models, Reason, StreamError};

const CASES: u64 = 600;

#[test]
fn profiles_of_random_streams_are_consistent() {
    let mut profiled = 0;
    for seed in 0..CASES {
        let case = case_from_seed(seed);
        let Ok(run) = profile(&case.upload, &case.params, Dispatch::Tail, seed % 10 == 0) else {
            continue; // rejected by the check
        };
        profiled += 1;
        let p = &run.profile;
        let r = &run.result;
        let ctx = format!("seed {seed}");
        assert_eq!(
            r,
            &simulate(&case.upload, &case.params, Dispatch::Tail),
            "{ctx}"
        );
        // Every pass is a turn taken, a skipped waiting turn, or no turn.
        assert_eq!(
            p.turns.taken + p.turns.skipped + p.turns.without_turn,
            p.kernel_passes,
            "{ctx}"
        );
        assert_eq!(
            p.slots.histogram.iter().sum::<u64>(),
            p.kernel_passes,
            "{ctx}"
        );
        let hist: u64 = p.turns.ops_histogram.iter().map(|r| r.turns).sum();
        assert_eq!(hist, p.turns.taken, "{ctx}");
        let ends: u64 = p.turns.ends.iter().map(|e| e.turns).sum();
        assert_eq!(ends, p.turns.taken, "{ctx}");
        let skipped: u64 = p.turns.ends.iter().map(|e| e.skipped).sum();
        assert_eq!(skipped, p.turns.skipped, "{ctx}");
        // No turn runs more than the budget (S17).
        assert!(p.turns.ops_histogram.iter().all(|r| r.ops <= p.turn_budget));
        let executed: u64 = p.pcs.iter().map(|l| l.executed).sum();
        assert_eq!(executed, p.micro_ops, "{ctx}");
        // The step limit (S17): `Reason::StepLimit` after exactly max_steps micro-ops.
        let max_steps = u64::from(Header::from_bytes(&case.upload).unwrap().max_steps);
        assert!(p.micro_ops <= max_steps, "{ctx}");
        if let Some(StreamError {
            reason: Reason::StepLimit,
            ..
        }) = r.error
        {
            assert_eq!(p.micro_ops, max_steps, "{ctx}");
        }
        // Busy slots at the end of pass q, from the commands alone: those
        // submitted in a pass <= q and acknowledged (S12: submit + 1 +
        // delay) after q.
        let ack = |c: &kmst::SubmittedCommand| {
            r.params
                .delay_of(c)
                .map_or(u64::MAX, |d| c.pass_index + 1 + d)
        };
        let mut expect = vec![0u64; 17];
        let mut max = 0;
        for q in 0..p.kernel_passes {
            let busy = r
                .commands
                .iter()
                .filter(|c| c.pass_index <= q && ack(c) > q)
                .count();
            expect[busy] += 1;
            max = max.max(busy as u32);
        }
        assert_eq!(p.slots.histogram, expect, "{ctx}");
        assert_eq!(p.slots.max, max, "{ctx}");
        // The observer saw one span per command, as the answer records it.
        assert_eq!(run.observer.spans.len(), r.commands.len(), "{ctx}");
        for (s, c) in run.observer.spans.iter().zip(&r.commands) {
            assert_eq!(
                (s.seq, s.slot, s.submit),
                (c.sequence, c.slot, c.pass_index)
            );
            if let Some(a) = s.ack {
                assert_eq!(a, ack(c), "{ctx}");
            }
        }
        if seed % 10 == 0 {
            let mut bytes = Vec::new();
            trace::write(&run, &mut bytes).unwrap();
            let v: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
            let slices = v["traceEvents"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["ph"] == "X" && e["tid"].as_u64().unwrap() >= 100)
                .count();
            assert_eq!(slices, r.commands.len(), "{ctx}");
        }
    }
    assert!(profiled > CASES / 4, "only {profiled} cases ran");
}
