//! Seeded random programs (kmst_harness::fuzzing) on every dispatch variant: each fast
//! variant must give exactly the reference model's SimResult.

use kmst::exec::{Dispatch, simulate};
use kmst_harness::answers::run_difference;
use kmst_harness::fuzzing::{any_case_from_seed, case_from_seed};
use kmst_reference::SimResult;

/// The first difference between two answers, for the failure message.
fn first_difference(want: &SimResult, got: &SimResult) -> String {
    run_difference(want, got).map_or_else(String::new, |(d, _)| d.to_string())
}

const CASES: u64 = 2_000;

#[test]
fn every_variant_agrees_with_the_reference() {
    let mut ended = 0;
    let mut commands = 0;
    for seed in 0..CASES {
        let case = case_from_seed(seed);
        let want = kmst_reference::simulate(&case.upload, &case.params);
        for &d in Dispatch::ALL {
            let got = simulate(&case.upload, &case.params, d);
            assert!(
                got == want,
                "seed {seed}, {d}: {}\nparams {:?}\nupload {:?}",
                first_difference(&want, &got),
                case.params,
                kmst::format::Upload::read_checked(&case.upload)
            );
        }
        ended += usize::from(want.status == kmst_reference::Status::Ended);
        commands += want.commands.len();
    }
    // The generator reaches the interesting paths: some runs end, some submit.
    assert!(ended > CASES as usize / 20, "only {ended} runs ended");
    assert!(commands > CASES as usize, "only {commands} commands");
}

#[test]
fn faulty_uploads_and_out_of_range_params_agree_too() {
    let mut rejected = 0;
    for seed in 0..CASES / 2 {
        let case = any_case_from_seed(seed);
        let want = kmst_reference::simulate(&case.upload, &case.params);
        for &d in Dispatch::ALL {
            let got = simulate(&case.upload, &case.params, d);
            assert!(
                got == want,
                "seed {seed}, {d}: {}\nparams {:?}\ncheck {:?}",
                first_difference(&want, &got),
                case.params,
                want.check
            );
        }
        rejected += usize::from(want.check.is_some());
    }
    assert!(rejected > 20, "only {rejected} uploads rejected");
}

#[test]
fn fast_variants_agree_with_each_other() {
    for seed in CASES..2 * CASES {
        let case = case_from_seed(seed);
        let want = simulate(&case.upload, &case.params, Dispatch::Tail);
        for &d in &Dispatch::ALL[1..] {
            let got = simulate(&case.upload, &case.params, d);
            assert!(
                got == want,
                "seed {seed}, {d} vs tail: {}",
                first_difference(&want, &got)
            );
        }
    }
}

#[test]
fn the_generator_reaches_every_runtime_outcome() {
    use kmst_reference::{Reason, Status};
    use std::collections::BTreeMap;
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for seed in 0..CASES {
        let case = case_from_seed(seed);
        let r = simulate(&case.upload, &case.params, Dispatch::Tail);
        let key = match (r.status, r.error) {
            (Status::Error, Some(e)) => format!("error {}", e.reason.number()),
            (s, _) => format!("{s:?}"),
        };
        *outcomes.entry(key).or_default() += 1;
        if r.stopped {
            *outcomes.entry("stopped".into()).or_default() += 1;
        }
        if r.commands.iter().any(|c| c.queued) {
            *outcomes.entry("queued".into()).or_default() += 1;
        }
    }
    eprintln!("{outcomes:?}");
    for reason in [
        Reason::BadJump,
        Reason::StepLimit,
        Reason::ModByZero,
        Reason::Deadline,
        Reason::BadEnqueue,
        Reason::Cancelled,
        Reason::BadGroup,
    ] {
        let key = format!("error {}", reason.number());
        assert!(
            outcomes.get(&key).copied().unwrap_or(0) > 0,
            "no run ends with {key}"
        );
    }
    for key in ["Ended", "Stuck", "stopped", "queued"] {
        assert!(
            outcomes.get(key).copied().unwrap_or(0) > 0,
            "no run is {key}"
        );
    }
}

/// A longer hunt (ignored): `KMST_CASES=200000 cargo test --release -p kmst-harness
/// --test exec_random -- --ignored`.
#[test]
#[ignore]
fn many_more_cases() {
    let n: u64 = std::env::var("KMST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    for seed in 0..n {
        for case in [
            case_from_seed(seed + 1_000_000),
            any_case_from_seed(seed + 1_000_000),
        ] {
            let want = kmst_reference::simulate(&case.upload, &case.params);
            for &d in Dispatch::ALL {
                let got = simulate(&case.upload, &case.params, d);
                assert!(
                    got == want,
                    "seed {seed}, {d}: {}\nparams {:?}",
                    first_difference(&want, &got),
                    case.params
                );
            }
        }
    }
}
