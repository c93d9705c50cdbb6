//! The fast interpreter and the fast kernel.
//!
//! An upload the check accepted is pre-decoded ([`program`]) into 16-byte
//! instructions whose register fields, jump targets and template indexes are
//! in range by construction, so the hot path has no bounds checks. The
//! micro-op bodies exist once ([`ops`], generated from
//! [`for_each_op!`](crate::for_each_op)); three dispatch variants run them:
//!
//! - [`Dispatch::Tail`] (always built, the default): a static table of
//!   handlers, each ending in a guaranteed tail call (`become`) through the
//!   table ([`tail`]);
//! - [`Dispatch::Switch`] (feature `switch`): `loop { match op { .. } }` ([`switch`]);
//! - [`Dispatch::Threaded`] (feature `threaded`): each instruction carries
//!   its handler pointer ([`threaded`]).
//!
//! The reference model is not a dispatch variant: it is
//! [`crate::types::simulate`], and the harness lists it beside these.
//!
//! Around them the fast kernel ([`kernel`], [`machine`]) runs the passes with
//! bit-mask slots, a fixed 64-job queue and an idle skip that jumps over
//! passes where nothing can change. Every variant gives exactly the reference
//! model's [`SimResult`]. See docs/dispatch.md.

pub(crate) mod bodies;
pub(crate) mod chain;
pub(crate) mod handler;
pub(crate) mod hint;
pub(crate) mod host;
pub(crate) mod kernel;
pub mod machine;
pub mod observer;
pub(crate) mod program;
#[cfg(feature = "switch")]
pub(crate) mod switch;
pub(crate) mod tail;
#[cfg(feature = "threaded")]
pub(crate) mod threaded;

use std::fmt;
use std::str::FromStr;

pub use machine::Machine;
pub use observer::{NoObserver, Observer, TurnEnd};

use crate::types::{Params, Scenario, ScenarioResult, SimResult};

/// Which fast dispatch loop runs the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Dispatch {
    /// Tail-call table (the default).
    #[default]
    Tail,
    /// `loop { match }` over the pre-decoded program.
    #[cfg(feature = "switch")]
    Switch,
    /// Direct threading: each instruction stores its handler.
    #[cfg(feature = "threaded")]
    Threaded,
}

impl Dispatch {
    /// Every variant compiled into this build, the default first.
    pub const ALL: &'static [Dispatch] = &[
        Dispatch::Tail,
        #[cfg(feature = "switch")]
        Dispatch::Switch,
        #[cfg(feature = "threaded")]
        Dispatch::Threaded,
    ];

    /// Its name: `tail`, `switch` or `threaded`.
    pub fn name(self) -> &'static str {
        match self {
            Dispatch::Tail => "tail",
            #[cfg(feature = "switch")]
            Dispatch::Switch => "switch",
            #[cfg(feature = "threaded")]
            Dispatch::Threaded => "threaded",
        }
    }
}

impl fmt::Display for Dispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dispatch name that is unknown or not compiled into this build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownDispatch(pub String);

impl fmt::Display for UnknownDispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Dispatch::ALL.iter().map(|d| d.name()).collect();
        write!(
            f,
            "unknown dispatch `{}` (this build has: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownDispatch {}

impl FromStr for Dispatch {
    type Err = UnknownDispatch;

    fn from_str(s: &str) -> Result<Dispatch, UnknownDispatch> {
        Dispatch::ALL
            .iter()
            .copied()
            .find(|d| d.name() == s)
            .ok_or_else(|| UnknownDispatch(s.to_owned()))
    }
}

/// Runs the check and then the stream with `dispatch` (the same answer as
/// [`crate::types::simulate`] for every variant).
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
/// [`crate::types::simulate_scenario`]).
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
