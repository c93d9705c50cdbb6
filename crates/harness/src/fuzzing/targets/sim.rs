//! The simulation targets' comparison: every implementation runs the same
//! upload with the same parameters and must give the reference model's
//! [`SimResult`] (`==`, every field), for a rejected upload the P1 answer.
//! Shared by [`super::sim_raw`] and [`super::sim_structured`].

use crate::answers::DifferentialOracle;
use crate::fuzzing::report::{Divergence, caught, compare_runs};
use kmst::reference::{Params, SimResult};

use super::{Agreement, Target, divergence};

/// Runs `upload` on every implementation and compares with the first.
pub fn sim_with(
    target: Target,
    upload: &[u8],
    params: &Params,
    impls: &[Box<dyn DifferentialOracle>],
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
