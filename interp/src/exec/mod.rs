//! The fast interpreter and the fast kernel.
//!
//! An upload the check accepted is pre-decoded (`decode`) into 16-byte
//! instructions whose register fields, jump targets and template indexes are
//! in range by construction, so the hot path has no bounds checks. The
//! micro-op bodies exist once (`bodies`, generated from
//! [`for_each_op!`](crate::for_each_op)); the dispatch variants run them,
//! each a cargo feature ([`dispatch`], the one place a variant is chosen;
//! [`Dispatch::ALL`] lists those of a build, the default first, `Tail`
//! when built; docs/dispatch.md compares them).
//!
//! The reference model is not a dispatch variant: it is
//! `kmst_reference::simulate` (crate `kmst-reference`, which the engine does
//! not depend on), and the harness lists it beside these.
//!
//! Around them the fast kernel (`kernel`, [`machine`]) runs the passes with
//! bit-mask slots, a fixed 64-job queue and an idle skip that jumps over
//! passes where nothing can change. Every variant gives exactly the reference
//! model's [`SimResult`]. See docs/dispatch.md ("Layers" for the modules
//! below, lowest first).

// The layers, lowest first: no module imports one above it
// (scripts/layers.py checks it in CI; docs/dispatch.md "Layers").
// L0, leaf types:
#[cfg(test)]
pub(crate) mod entered;
pub(crate) mod handler;
pub(crate) mod hint;
pub(crate) mod inst;
pub mod observer;
pub(crate) mod operand;
// L1, the kernel:
pub(crate) mod kernel;
// L2, the bodies and the fuel of one step:
pub(crate) mod bodies;
pub(crate) mod step;
// L3, the decoder and the compiled tiers (compiled/: its lower.rs is a
// leaf type, its loops are dispatch loops, L4):
#[cfg(feature = "compiled")]
pub(crate) mod compiled;
pub(crate) mod decode;
// L4, the dispatch loops and the one place a variant is chosen:
pub mod dispatch;
// L5, the machine: streams, turns, passes, the host phase:
pub mod machine;
// L6, a run paused, saved and resumed:
pub mod resume;

pub use dispatch::{Dispatch, UnknownDispatch};
pub use machine::{Machine, Prepared};
pub use observer::{NoObserver, Observer, TurnEnd};
pub use resume::{Answer, Detached, Resumable, SnapshotError, State, Until};

use crate::types::{Params, Scenario, ScenarioResult, SimResult};

/// Whether the compiled tier (`Dispatch::Jit`) compiles on this host: `Err`
/// names the host when Cranelift has no backend for it (the variant then
/// runs its programs with the subroutine loop).
#[cfg(feature = "jit")]
pub fn jit_available() -> Result<(), String> {
    compiled::cranelift::available()
}

/// Whether the copy-and-patch tier (`Dispatch::Stencil`) has stencils for
/// this host (x86-64 Linux): `Err` names the host where it has none (the
/// variant then runs its programs with the subroutine loop).
#[cfg(feature = "stencil")]
pub fn stencil_available() -> Result<(), String> {
    compiled::stencil::available()
}

/// Runs the check and then the stream with `dispatch` (the same answer as
/// `kmst_reference::simulate` for every variant). `params` is not validated:
/// parameters filled in by hand outside their S25 ranges are answered as
/// docs/semantics.md P3 says; call [`Params::validate`] first to refuse them
/// with an error naming the parameter.
pub fn simulate(upload: &[u8], params: &Params, dispatch: Dispatch) -> SimResult {
    simulate_observed(upload, params, dispatch, &mut NoObserver)
}

/// [`simulate`] calling `obs`'s hooks.
pub fn simulate_observed<O: Observer>(
    upload: &[u8],
    params: &Params,
    dispatch: Dispatch,
    obs: &mut O,
) -> SimResult {
    let mut m = Machine::new(upload, params);
    m.run(dispatch, obs);
    m.into_result()
}

/// Runs a kernel scenario (S26..S36) with `dispatch`: every stream its RUNs
/// start runs on that dispatch loop (the same answer as
/// `kmst_reference::simulate_scenario`).
pub fn simulate_scenario(scenario: &Scenario, dispatch: Dispatch) -> ScenarioResult {
    simulate_scenario_observed(scenario, dispatch, &mut NoObserver)
}

/// [`simulate_scenario`] calling `obs`'s hooks.
pub fn simulate_scenario_observed<O: Observer>(
    scenario: &Scenario,
    dispatch: Dispatch,
    obs: &mut O,
) -> ScenarioResult {
    let mut m = Machine::new_scenario(scenario);
    m.run(dispatch, obs);
    m.into_scenario_result()
}
