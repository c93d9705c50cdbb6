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

use crate::answers::{
    DifferentialOracle, Implementation, RunAnswer, RunArgs, with_implementations,
};
use crate::fuzzing::divergence::{Divergence, caught, compare_runs};
use crate::profile::ProfileObserver;
use kmst::exec::{Dispatch, simulate_observed};
use kmst_reference::{Params, SimResult, StreamError};

use super::{Agreement, Target, divergence};

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

/// The variant observed for `upload`: `Dispatch::ALL[h % n]` for a hash `h`
/// of its bytes (deterministic, so a saved input replays the same runs).
pub fn observed_for(upload: &[u8]) -> Observed {
    let h = upload.iter().fold(0x811C_9DC5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    Observed(Dispatch::ALL[h as usize % Dispatch::ALL.len()])
}

/// Runs `upload` on every implementation and the variant [`observed_for`]
/// it, and compares with the reference.
pub fn sim_all(target: Target, upload: &[u8], params: &Params) -> Result<Agreement, Divergence> {
    let observed = observed_for(upload);
    with_implementations(|impls| sim_observed_with(target, upload, params, impls, &observed))
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
