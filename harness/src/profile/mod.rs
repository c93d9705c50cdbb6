//! How a stream spends its turns: the profiling behind `kmst profile`.
//!
//! A kernel engineer tuning the per-pass turn budget (S17, 64 micro-ops by
//! default) wants to see where a stream waits, how full the completion slots
//! and the job queue are, and which micro-ops run hot. [`profile`] runs a
//! stream on a fast dispatch variant with a [`ProfileObserver`] plugged into
//! the kernel's [`Observer`](kmst::exec::Observer) hooks and builds a
//! [`Profile`] from the counts and the run's [`SimResult`]; [`sweep`] repeats
//! the run for several budgets. [`render`] prints a profile as aligned tables
//! (serde gives the JSON), [`trace`] writes a Chrome trace-event / Perfetto
//! file. [`scenario`] does the same for a kernel scenario (several streams
//! and the host), and [`pairs`] counts the adjacent micro-ops executed, the
//! candidates for superinstructions. Plain runs use `NoObserver` and pay nothing for any of this (see
//! docs/profiling.md).

/// The [`Observer`](kmst::exec::Observer) methods of an observer that
/// wraps another and only hands these events on to it (`self.$to`): the
/// trace writers and the scenario's collector add to the other events.
macro_rules! hand_on {
    ($to:ident: $($method:ident),*) => { $(hand_on!(@ $to $method);)* };
    (@ $to:ident on_op) => {
        fn on_op(&mut self, pc: u32) {
            self.$to.on_op(pc);
        }
    };
    (@ $to:ident on_submit) => {
        fn on_submit(&mut self, slot: u8, seq: u64, pass: u64, queued: bool) {
            self.$to.on_submit(slot, seq, pass, queued);
        }
    };
    (@ $to:ident on_ack) => {
        fn on_ack(&mut self, slot: u8, seq: u64, pass: u64) {
            self.$to.on_ack(slot, seq, pass);
        }
    };
}

pub mod collect;
pub mod pairs;
pub mod render;
pub mod report;
pub mod scenario;
pub mod trace;

use std::fmt;

pub use collect::{IdleRange, PassSample, ProfileObserver, SlotSpan, TURN_END_NAMES, TurnRecord};
pub use report::{EndRow, OpsRow, PcLine, Profile, QueueDepth, SlotOccupancy, SweepRow, Turns};

use kmst::exec::{Dispatch, simulate_observed};
use kmst_reference::{Params, SimResult, StreamError};

/// Why a stream cannot be profiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileError {
    /// The check rejected the upload: the stream never ran.
    Rejected(StreamError),
    /// A turn budget of 0 (S25: at least 1).
    ZeroBudget,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::Rejected(e) => write!(
                f,
                "the check rejects the upload (reason {}, pc {}): nothing runs",
                e.reason, e.pc
            ),
            ProfileError::ZeroBudget => write!(f, "turn_budget must be at least 1"),
        }
    }
}

impl std::error::Error for ProfileError {}

/// One profiled run: the answer, the raw counts and the report built from them.
#[derive(Clone, Debug)]
pub struct Run {
    pub result: SimResult,
    pub observer: ProfileObserver,
    pub profile: Profile,
}

/// Runs `upload` with `params` on `dispatch`, observed. `timeline` keeps
/// every turn and pass sample (what [`trace::write`] needs).
pub fn profile(
    upload: &[u8],
    params: &Params,
    dispatch: Dispatch,
    timeline: bool,
) -> Result<Run, ProfileError> {
    if params.turn_budget == 0 {
        return Err(ProfileError::ZeroBudget);
    }
    let mut observer = ProfileObserver::new(timeline);
    let result = simulate_observed(upload, params, dispatch, &mut observer);
    if let Some(e) = result.check {
        return Err(ProfileError::Rejected(e));
    }
    let profile = Profile::build(upload, &result, &observer, dispatch);
    Ok(Run {
        result,
        observer,
        profile,
    })
}

/// Runs `upload` once per turn budget in `budgets` (the other parameters
/// as `params` gives them) and tabulates each run.
pub fn sweep(
    upload: &[u8],
    params: &Params,
    dispatch: Dispatch,
    budgets: &[u32],
) -> Result<Vec<SweepRow>, ProfileError> {
    per_budget(params, budgets, |p| {
        Ok(SweepRow::of(&profile(upload, &p, dispatch, false)?.profile))
    })
}

/// `run` once per turn budget in `budgets`, on `params` with that budget:
/// the sweeps of a stream and of a scenario.
fn per_budget<T, E>(
    params: &Params,
    budgets: &[u32],
    mut run: impl FnMut(Params) -> Result<T, E>,
) -> Result<Vec<T>, E> {
    budgets
        .iter()
        .map(|&turn_budget| {
            run(Params {
                turn_budget,
                ..params.clone()
            })
        })
        .collect()
}
