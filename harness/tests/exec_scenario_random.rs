//! Every fast variant runs generated kernel scenarios (several streams, RUN
//! rejections, host commands, S26..S36) exactly as the reference model does.

mod common;

use kmst::exec::{Dispatch, simulate_scenario};
use kmst_harness::fuzzing::scenario::scenario_from_seed;
use kmst_reference::{Outcome, Reason, Status};

const CASES: u64 = 3_000;

#[test]
fn every_variant_agrees_with_the_reference_on_scenarios() {
    let (mut streams, mut two_at_once, mut rejected_runs, mut host_taken) = (0, 0, 0, 0);
    let (mut two_submitters, mut bad_groups) = (0, 0);
    for seed in 0..CASES {
        let scenario = scenario_from_seed(seed);
        let want = kmst_reference::simulate_scenario(&scenario);
        for &d in Dispatch::ALL {
            let got = simulate_scenario(&scenario, d);
            if got != want {
                let json = |r: &kmst_reference::ScenarioResult| {
                    r.to_json_value().map(|v| v.to_string()).unwrap_or_default()
                };
                panic!(
                    "seed {seed}, {d}:\nscenario {scenario:?}\nreference {}\n      got {}",
                    json(&want),
                    json(&got)
                );
            }
        }
        streams += want.streams.len();
        two_at_once += usize::from(
            want.streams
                .iter()
                .filter(|s| s.status != Status::Error || s.halt.is_some())
                .count()
                >= 2,
        );
        rejected_runs += want
            .host
            .iter()
            .filter(|h| matches!(h.outcome, Outcome::Rejected(_)) && h.stream.is_none())
            .count();
        let owners: std::collections::BTreeSet<usize> =
            want.commands.iter().filter_map(|c| c.stream).collect();
        two_submitters += usize::from(owners.len() >= 2);
        bad_groups += want
            .host
            .iter()
            .filter(|h| h.outcome == Outcome::Rejected(Reason::BadGroup))
            .count();
        host_taken += want
            .host
            .iter()
            .filter(|h| h.outcome == Outcome::Taken && h.stream.is_none())
            .count();
    }
    // The generator reaches the paths that matter.
    assert!(streams > CASES as usize, "{streams} streams");
    assert!(
        two_at_once > 100,
        "{two_at_once} scenarios with two streams"
    );
    assert!(rejected_runs > 100, "{rejected_runs} rejections");
    assert!(host_taken > 100, "{host_taken} host commands taken");
    // Host submits whose group starts at the grid's end or past it (S32).
    assert!(
        bad_groups > 100,
        "{bad_groups} host submits with a bad group"
    );
    assert!(
        two_submitters > 150,
        "{two_submitters} with two streams' commands"
    );
}

/// A longer hunt (ignored): `KMST_CASES=300000 cargo test --release -p
/// kmst-harness --test exec_scenario_random -- --ignored`, from seeds past
/// the ones above.
#[test]
#[ignore]
fn many_more_scenarios() {
    let n = common::cases_from_env();
    for seed in CASES..CASES + n {
        let scenario = scenario_from_seed(seed);
        let want = kmst_reference::simulate_scenario(&scenario);
        for &d in Dispatch::ALL {
            assert!(
                simulate_scenario(&scenario, d) == want,
                "seed {seed}, {d}: scenario {scenario:?}"
            );
        }
    }
}
