//! Everything the binding takes from the engine, in one place.
//!
//! The rest of the crate names the engine only through this module: the
//! builder (S7..S9), the upload format, the optimized checker, the fast
//! interpreter's entry point and the reference crate's spec-level types
//! (`Params`, `SimResult`, ...). When the engine's modules move, this file is
//! the one to adapt.

pub use kmst::builder::{BuildError, Label, Operand, Reg, Stream as Builder};
pub use kmst::for_each_op;
pub use kmst::check::StreamFormatError;
pub use kmst::format::{Header, Upload};
pub use kmst::reference::{
    Delay, Event, Params, ParamsError, Reason, ResultModel, SimResult, StreamError,
    SubmittedCommand,
};

/// Which implementation runs a stream: one of the fast dispatch variants, or
/// the reference model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Tail,
    Switch,
    Threaded,
    Reference,
}

impl Variant {
    /// Every variant by its `dispatch=` name, the default first.
    pub const ALL: [(&'static str, Variant); 4] = [
        ("tail", Variant::Tail),
        ("switch", Variant::Switch),
        ("threaded", Variant::Threaded),
        ("reference", Variant::Reference),
    ];

    /// The variant called `name`.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }
}

/// Runs the check and then the stream (docs/spec.md "The simulator"). Every
/// variant gives the same answer.
pub fn simulate(upload: &[u8], params: &Params, variant: Variant) -> SimResult {
    use kmst::Dispatch;
    let dispatch = match variant {
        Variant::Tail => Dispatch::Tail,
        Variant::Switch => Dispatch::Switch,
        Variant::Threaded => Dispatch::Threaded,
        Variant::Reference => return kmst::reference::simulate(upload, params),
    };
    kmst::simulate_with(upload, params, dispatch)
}

/// The kernel's check (docs/spec.md "The check").
pub fn check(data: &[u8], region_size: u64) -> Result<(), StreamError> {
    kmst::check::check(data, region_size)
}

/// What the kernel answers a `KM_HANDLER_RUN`: the error, if any, and the req of its event (S3, S6).
pub fn check_run(
    data: &[u8],
    offset: u64,
    region_size: u64,
    active: &[(u64, u64)],
    active_reqs: &[u32],
) -> (Option<StreamError>, u32) {
    kmst::check::check_run(data, offset, region_size, active, active_reqs)
}

/// The S24 JSON of a run, exactly as `kmst run --json` prints it (an error
/// when the parameters hold a callable, which JSON cannot carry).
pub fn result_json(result: &SimResult) -> Result<String, ParamsError> {
    let value = result.to_json_value()?;
    Ok(serde_json::to_string_pretty(&value).expect("a JSON value prints"))
}
