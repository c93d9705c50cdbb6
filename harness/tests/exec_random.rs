//! Seeded random programs (kmst_harness::fuzzing) on every dispatch variant: each fast
//! variant must give exactly the reference model's SimResult. And the
//! reference model's two paths agree on each case (S35): its one-stream
//! `simulate` and its whole kernel running the one-RUN scenario, which it
//! keeps apart on purpose (docs/semantics.md, P10).

mod common;

use kmst::exec::{Dispatch, simulate};
use kmst_harness::answers::run_difference;
use kmst_harness::fuzzing::{Case, any_case_from_seed, case_from_seed};
use kmst_reference::{Params, Scenario, SimResult, simulate_scenario};

/// The first difference between two answers, for the failure message.
fn first_difference(want: &SimResult, got: &SimResult) -> String {
    run_difference(want, got).map_or_else(String::new, |(d, _)| d.to_string())
}

const CASES: u64 = 2_000;

/// The reference answer of `case`, after asserting that every dispatch
/// variant gives it; a failure names the seed, the variant, the first
/// difference, the parameters, the check's answer and what `more` adds.
fn every_variant_agrees(seed: u64, case: &Case, more: impl Fn() -> String) -> SimResult {
    let want = kmst_reference::simulate(&case.upload, &case.params);
    for &d in Dispatch::ALL {
        let got = simulate(&case.upload, &case.params, d);
        assert!(
            got == want,
            "seed {seed}, {d}: {}\nparams {:?}\ncheck {:?}{}",
            first_difference(&want, &got),
            case.params,
            want.check,
            more()
        );
    }
    want
}

/// S35 on one case: the reference model's kernel, running the one-RUN
/// scenario of `upload` and `params`, gives the one-stream answer `want`.
/// `None` when S35 does not cover the case: an upload larger than the
/// region cannot be placed in it, and parameters out of range make no
/// scenario.
fn s35_holds(seed: u64, upload: &[u8], params: &Params, want: &SimResult) -> Option<()> {
    if upload.len() as u64 > params.region_size {
        return None;
    }
    let scenario = Scenario::one_run(upload, params).ok()?;
    if let Some(d) = simulate_scenario(&scenario).s35_difference(want) {
        panic!("seed {seed}: S35: the one-RUN scenario differs: {d}\nparams {params:?}");
    }
    Some(())
}

#[test]
fn every_variant_agrees_with_the_reference() {
    let mut ended = 0;
    let mut commands = 0;
    let mut s35 = 0;
    for seed in 0..CASES {
        let case = case_from_seed(seed);
        let want = every_variant_agrees(seed, &case, || {
            format!(
                "\nupload {:?}",
                kmst::format::Upload::read_checked(&case.upload)
            )
        });
        ended += usize::from(want.status == kmst_reference::Status::Ended);
        commands += want.commands.len();
        s35 += usize::from(s35_holds(seed, &case.upload, &case.params, &want).is_some());
    }
    assert!(s35 > CASES as usize / 2, "S35 held on only {s35} cases");
    // The generator reaches the interesting paths: some runs end, some submit.
    assert!(ended > CASES as usize / 20, "only {ended} runs ended");
    assert!(commands > CASES as usize, "only {commands} commands");
}

#[test]
fn faulty_uploads_and_out_of_range_params_agree_too() {
    let mut rejected = 0;
    let mut s35 = 0;
    for seed in 0..CASES / 2 {
        let case = any_case_from_seed(seed);
        let want = every_variant_agrees(seed, &case, String::new);
        rejected += usize::from(want.check.is_some());
        s35 += usize::from(s35_holds(seed, &case.upload, &case.params, &want).is_some());
    }
    assert!(s35 > CASES as usize / 4, "S35 held on only {s35} cases");
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
    let n = common::cases_from_env();
    for seed in 0..n {
        for case in [
            case_from_seed(seed + 1_000_000),
            any_case_from_seed(seed + 1_000_000),
        ] {
            every_variant_agrees(seed, &case, String::new);
        }
    }
}
