//! S35 for one stream: the answer of its one-RUN scenario against its
//! one-stream answer. Shared by the reference model's replay of the stream
//! corpus (through `common`) and, with `#[path]`, by the harness's S35 test,
//! which assembles the same streams from their sources.

use kmst_reference::{Params, Scenario, ScenarioResult, SimResult, simulate_scenario};

/// The answer of `upload`'s one-RUN scenario (S35) when it is `want`'s;
/// otherwise what is wrong: the scenario cannot be made, or where the two
/// answers differ.
pub fn one_run_answer(
    upload: &[u8],
    params: &Params,
    want: &SimResult,
) -> Result<ScenarioResult, String> {
    let scenario = Scenario::one_run(upload, params).map_err(|e| e.to_string())?;
    let got = simulate_scenario(&scenario);
    match got.s35_difference(want) {
        Some(d) => Err(d),
        None => Ok(got),
    }
}
