//! Everything the binding takes from the engine, in one place.
//!
//! The rest of the crate names the engine only through this module: the
//! builder (S7..S9), the upload format, the optimized checker, the fast
//! interpreter's entry point and the reference crate's spec-level types
//! (`Params`, `SimResult`, ...). When the engine's modules move, this file is
//! the one to adapt.

pub use kmst::builder::{BuildError, Label, Operand, Reg, Stream as Builder};
// The kernel's check (docs/spec.md "The check") and what the kernel answers
// a `KM_HANDLER_RUN` (S3, S6).
pub use kmst::check::{StreamFormatError, check, check_run};
// A run paused between two passes, saved and resumed (docs/pause.md).
pub use kmst::Dispatch;
pub use kmst::exec::resume::{Answer, Detached, Resumable, SnapshotError, Standing, State, Until};
pub use kmst::for_each_op;
pub use kmst::format::{Header, Upload};
// An upload file (`.kms` assembled, anything else its bytes) and a scenario
// file read with its uploads, as the CLI reads them.
pub use kmst::scenario::{load_upload, read_file as read_scenario_file};
pub use kmst_reference::scenario::answer::params_json as scenario_params_json;
pub use kmst_reference::{
    Delay, Event, HostCommand, HostOutcome, Outcome, Params, ParamsError, Reason, ResultModel,
    Scenario, ScenarioCommand, ScenarioError, ScenarioResult, SimResult, Status, StreamError,
    StreamOutcome, SubmittedCommand,
};

/// Which implementation runs a stream: one of the fast dispatch variants
/// (every one the engine was built with, `kmst::Dispatch::ALL`), or the
/// reference model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Fast(kmst::Dispatch),
    Reference,
}

impl Variant {
    /// Every variant's `dispatch=` name, the default first.
    pub fn names() -> Vec<&'static str> {
        let mut names: Vec<&str> = kmst::Dispatch::ALL.iter().map(|d| d.name()).collect();
        names.push("reference");
        names
    }

    /// The variant called `name`.
    pub fn from_name(name: &str) -> Option<Variant> {
        if name == "reference" {
            return Some(Variant::Reference);
        }
        name.parse().ok().map(Variant::Fast)
    }
}

/// Runs the check and then the stream (docs/spec.md "The simulator"). Every
/// variant gives the same answer.
pub fn simulate(upload: &[u8], params: &Params, variant: Variant) -> SimResult {
    match variant {
        Variant::Fast(dispatch) => kmst::simulate_with(upload, params, dispatch),
        Variant::Reference => kmst_reference::simulate(upload, params),
    }
}

/// Runs a kernel scenario (S26..S36). Every variant gives the same answer.
pub fn simulate_scenario(scenario: &Scenario, variant: Variant) -> ScenarioResult {
    match variant {
        Variant::Fast(dispatch) => kmst::exec::simulate_scenario(scenario, dispatch),
        Variant::Reference => kmst_reference::simulate_scenario(scenario),
    }
}

/// Reads a scenario file's JSON text (S36); `path` is the file's (uploads
/// are relative to its folder). An upload whose name ends in `.kms` is
/// assembled, as the CLI does; any other is read as raw bytes. `given`
/// supplies the bytes of the uploads in file order that the caller already
/// has (`Some`), instead of a file (`None`, or past its end).
pub fn scenario_from_json(
    text: &str,
    path: &std::path::Path,
    given: &mut [Option<Vec<u8>>],
) -> Result<Scenario, ScenarioError> {
    let mut next = 0;
    let mut load = |p: &std::path::Path| -> Result<Vec<u8>, String> {
        let slot = given.get_mut(next).and_then(Option::take);
        next += 1;
        match slot {
            Some(bytes) => Ok(bytes),
            None => load_upload(p),
        }
    };
    kmst_reference::scenario::json::from_json(text, path, &mut load)
}

/// The S36 JSON of a scenario's answer (an error when the parameters hold a
/// callable, which JSON cannot carry).
pub fn scenario_result_json(result: &ScenarioResult) -> Result<String, ParamsError> {
    let value = result.to_json_value()?;
    Ok(serde_json::to_string_pretty(&value).expect("a JSON value prints"))
}

/// The S24 JSON of a run, exactly as `kmst run --json` prints it (an error
/// when the parameters hold a callable, which JSON cannot carry).
pub fn result_json(result: &SimResult) -> Result<String, ParamsError> {
    let value = result.to_json_value()?;
    Ok(serde_json::to_string_pretty(&value).expect("a JSON value prints"))
}
