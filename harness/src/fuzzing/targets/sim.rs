//! The simulation targets' comparison: every implementation runs the same
//! upload with the same parameters and must give the reference model's
//! [`SimResult`] (`==`, every field), for a rejected upload the P1 answer.
//! Shared by [`super::sim_raw`], [`super::sim_structured`] and
//! [`super::builder`].
//!
//! Besides the plain runs, one fast variant also runs with the profiler's
//! observer ([`Observed`]): with an observer the interpreter's handlers and
//! the kernel call its hooks, which is other code in the same handlers, and
//! the answer must not change. Which variant is observed turns with the
//! upload's bytes ([`observed_for`]), so every variant's observed path is
//! fuzzed for the cost of one more run per input.
//!
//! The `jit` variant compiles every program it runs, which costs more than
//! every other implementation's run of a fuzz input together: it runs on
//! one input in [`JIT_SHARE`] (by the input's hash, so that a saved input
//! replays the same runs), and on every input of the `sizes` target, whose
//! point is the compiled tier at every size (docs/fuzzing.md, "The
//! compiled tier's share").

use crate::answers::{
    DifferentialOracle, Implementation, RunAnswer, RunArgs, with_implementations,
};
use crate::fuzzing::divergence::{Divergence, caught, compare_runs};
use crate::profile::ProfileObserver;
use kmst::exec::{Dispatch, simulate_observed};
use kmst_reference::{Params, SimResult, StreamError};

use super::agreement::{Agreement, Target, divergence};

/// A fast variant run with the profiler's observer
/// (`kmst::exec::simulate_observed` with a [`ProfileObserver`] that keeps
/// no timeline, as `kmst profile` runs it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observed(pub Dispatch);

impl DifferentialOracle for Observed {
    fn name(&self) -> String {
        format!("{}+observer", self.0.name())
    }

    fn check(&self, data: &[u8], region_size: u64) -> Result<(), StreamError> {
        Implementation::Fast(self.0).check(data, region_size)
    }

    fn check_run(&self, data: &[u8], args: &RunArgs) -> RunAnswer {
        Implementation::Fast(self.0).check_run(data, args)
    }

    fn simulate(&self, upload: &[u8], params: &Params) -> SimResult {
        simulate_observed(upload, params, self.0, &mut ProfileObserver::new(false))
    }
}

/// A hash of an input's bytes (FNV-1a): deterministic, so that a saved
/// input replays the same runs.
pub fn input_hash(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811C_9DC5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The variant observed for `upload`: `Dispatch::ALL[h % n]` for its
/// [`input_hash`] `h`.
pub fn observed_for(upload: &[u8]) -> Observed {
    let h = input_hash(upload);
    Observed(Dispatch::ALL[h as usize % Dispatch::ALL.len()])
}

/// One input in how many the `jit` variant runs on, in every target but
/// `sizes` (measured in docs/fuzzing.md, "The compiled tier's share"),
/// unless `KMST_FUZZ_JIT_SHARE` says otherwise ([`jit_share`]).
pub const JIT_SHARE: u32 = 8;

/// The share in force: `KMST_FUZZ_JIT_SHARE` (a number from 1, read once;
/// 1 runs `jit` on every input, as a campaign on the compiled tier would),
/// else [`JIT_SHARE`].
pub fn jit_share() -> u32 {
    static SHARE: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *SHARE.get_or_init(|| {
        std::env::var("KMST_FUZZ_JIT_SHARE")
            .ok()
            .and_then(|s| s.parse().ok())
            .filter(|&n| n >= 1)
            .unwrap_or(JIT_SHARE)
    })
}

/// Whether `target` runs the `jit` variant on the input of hash `hash`:
/// always in `sizes`, else on one in [`jit_share`] (the hash's high bits,
/// independent of the observed variant's choice).
pub fn runs_jit(target: Target, hash: u32) -> bool {
    target == Target::Sizes || (hash >> 16).is_multiple_of(jit_share())
}

/// Whether implementation `name` is one [`runs_jit`] leaves out.
pub fn is_jit(name: &str) -> bool {
    #[cfg(feature = "jit")]
    return name == Dispatch::Jit.name();
    #[cfg(not(feature = "jit"))]
    return {
        let _ = name;
        false
    };
}

/// Runs `upload` on every implementation (the `jit` variant as
/// [`runs_jit`] says) and the variant [`observed_for`] it, and compares
/// with the reference.
pub fn sim_all(target: Target, upload: &[u8], params: &Params) -> Result<Agreement, Divergence> {
    let observed = observed_for(upload);
    let jit = runs_jit(target, input_hash(upload));
    with_implementations(|impls| {
        let mut all: Vec<&dyn DifferentialOracle> = impls
            .iter()
            .map(|i| &**i)
            .filter(|i| jit || !is_jit(&i.name()))
            .collect();
        all.push(&observed);
        compare(target, upload, params, &all)
    })
}

/// [`sim_with`] on `impls` and then `observed`, all compared with the first of `impls`.
pub fn sim_observed_with(
    target: Target,
    upload: &[u8],
    params: &Params,
    impls: &[Box<dyn DifferentialOracle>],
    observed: &dyn DifferentialOracle,
) -> Result<Agreement, Divergence> {
    let mut all: Vec<&dyn DifferentialOracle> = impls.iter().map(|i| &**i).collect();
    all.push(observed);
    compare(target, upload, params, &all)
}

/// Runs `upload` on every implementation and compares with the first.
pub fn sim_with(
    target: Target,
    upload: &[u8],
    params: &Params,
    impls: &[Box<dyn DifferentialOracle>],
) -> Result<Agreement, Divergence> {
    let all: Vec<&dyn DifferentialOracle> = impls.iter().map(|i| &**i).collect();
    compare(target, upload, params, &all)
}

fn compare(
    target: Target,
    upload: &[u8],
    params: &Params,
    impls: &[&dyn DifferentialOracle],
) -> Result<Agreement, Divergence> {
    let (first, rest) = impls.split_first().expect("at least one implementation");
    let want = caught(|| first.simulate(upload, params));
    let got: Vec<Result<SimResult, String>> = rest
        .iter()
        .map(|i| caught(|| i.simulate(upload, params)))
        .collect();
    if got.iter().any(|g| *g != want) {
        let named: Vec<(String, Result<SimResult, String>)> =
            rest.iter().map(|i| i.name()).zip(got).collect();
        if let Some(d) = compare_runs(target.name(), upload, params, &want, &named) {
            return Err(d);
        }
    }
    match want {
        Ok(r) => Ok(Agreement::Sim {
            check: r.check,
            status: r.status,
            error: r.error,
            commands: r.commands.len(),
            events: r.events.len(),
            passes: r.passes,
        }),
        Err(p) => Err(divergence(
            target,
            format!("{} panicked (and so did every variant)", first.name()),
            p,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `jit` variant runs on one input in JIT_SHARE of every target
    /// but `sizes`, on every input of `sizes`, whatever the observed
    /// variant (the hash's low bits) is.
    #[test]
    fn jit_runs_on_one_input_in_its_share_and_on_every_sizes_input() {
        let hashes = 0..(JIT_SHARE << 16) * 4;
        let share = hashes
            .clone()
            .filter(|&h| runs_jit(Target::SimRaw, h))
            .count();
        assert_eq!(share as u32, 4 << 16);
        assert!(hashes.clone().all(|h| runs_jit(Target::Sizes, h)));
        // Every observed variant (h % variants) meets inputs with and
        // without `jit`.
        let n = Dispatch::ALL.len() as u32;
        for v in 0..n {
            let mut seen = hashes
                .clone()
                .filter(|h| h % n == v)
                .map(|h| runs_jit(Target::Scenario, h));
            assert!(seen.clone().any(|j| j) && seen.any(|j| !j), "variant {v}");
        }
    }
}
