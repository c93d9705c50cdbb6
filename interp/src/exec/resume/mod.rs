//! Pause a run, look inside, save it and resume it, exactly
//! (docs/pause.md).
//!
//! A [`Resumable`] is a run of one upload or of a kernel scenario that
//! stops at a pass boundary when asked ([`Until`]): before a given pass,
//! after some passes, after the next pass that posts an event, or at the
//! end. Between two pieces it can be read ([`Resumable::state`]), saved
//! as bytes ([`Resumable::snapshot`]) and restored
//! ([`Resumable::restore`]); each piece may run on any dispatch variant of
//! the build, and the answer is the whole run's. A pass is the unit
//! because nothing of a turn is left between two passes: every variant
//! leaves the same state there, and the passes a run skips or takes on a
//! short path are cut at the stop pass ([`Machine`]'s `limit`).

mod bytes;
mod error;
mod snapshot;
mod state;

pub use error::SnapshotError;
pub use snapshot::VERSION;

use self::snapshot::Input;
pub use state::{JobState, SlotState, Standing, State, StreamState};

use crate::exec::dispatch::Dispatch;
use crate::exec::machine::Machine;
use crate::exec::observer::NoObserver;
use crate::types::{HostEntry, Params, Scenario, ScenarioResult, SimResult};

/// Where [`Resumable::run`] stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// Before this pass: every pass before it has run.
    Pass(u64),
    /// After this many more passes.
    Passes(u64),
    /// After the next pass that posts an event (S22).
    Event,
    /// At the end of the run.
    End,
}

/// The answer of a run: one stream's (S24) or a scenario's (S36).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A one-stream run's.
    Stream(SimResult),
    /// A scenario's.
    Scenario(ScenarioResult),
}

/// A run that stops at a pass boundary when asked, and can be saved and
/// restored there (module doc).
pub struct Resumable {
    input: Input,
    machine: Machine,
}

impl Resumable {
    /// A run of `upload` with `params`, before pass 0 (as
    /// [`simulate`](crate::exec::simulate) runs it).
    pub fn new(upload: &[u8], params: &Params) -> Resumable {
        Resumable {
            input: Input::Stream(upload.to_vec()),
            machine: Machine::new(upload, params),
        }
    }

    /// A run of `scenario`, before pass 0 (as
    /// [`simulate_scenario`](crate::exec::simulate_scenario) runs it).
    pub fn scenario(scenario: &Scenario) -> Resumable {
        Resumable {
            input: Input::Scenario(scenario.clone()),
            machine: Machine::new_scenario(scenario),
        }
    }

    /// Runs on `dispatch` until `until`, and gives the pass the run stands
    /// before (`None` once it is over). A run that is over runs nothing.
    pub fn run(&mut self, dispatch: Dispatch, until: Until) -> Option<u64> {
        let m = &mut self.machine;
        let here = m.resume_at().unwrap_or(0);
        match until {
            Until::Pass(p) => m.run_piece::<NoObserver, false>(dispatch, &mut NoObserver, p),
            Until::Passes(n) => {
                let stop = here.saturating_add(n);
                m.run_piece::<NoObserver, false>(dispatch, &mut NoObserver, stop);
            }
            Until::Event => m.run_piece::<NoObserver, true>(dispatch, &mut NoObserver, u64::MAX),
            Until::End => m.run_piece::<NoObserver, false>(dispatch, &mut NoObserver, u64::MAX),
        }
        m.resume_at()
    }

    /// The pass the run goes on from, `None` once it is over.
    pub fn resume_at(&self) -> Option<u64> {
        self.machine.resume_at()
    }

    /// The parameters of the run.
    pub fn params(&self) -> &Params {
        &self.machine.params
    }

    /// The upload of a one-stream run.
    pub fn input_upload(&self) -> Option<&[u8]> {
        match &self.input {
            Input::Stream(u) => Some(u),
            Input::Scenario(_) => None,
        }
    }

    /// The scenario of a scenario's run (with the run's parameters).
    pub fn input_scenario(&self) -> Option<&Scenario> {
        match &self.input {
            Input::Stream(_) => None,
            Input::Scenario(s) => Some(s),
        }
    }

    /// True for a scenario's run.
    pub fn is_scenario(&self) -> bool {
        matches!(self.input, Input::Scenario(_))
    }

    /// What the run holds now (a copy).
    pub fn state(&self) -> State {
        State::of(self.machine.parts(), host_entries(&self.input))
    }

    /// The answer as it stands: the whole run's once it is over; before,
    /// a stream still active is stuck and a host command not yet taken
    /// is waiting (S16, S35).
    pub fn answer(&self) -> Answer {
        match self.input {
            Input::Stream(_) => Answer::Stream(self.machine.result_so_far()),
            Input::Scenario(_) => Answer::Scenario(self.machine.scenario_result_so_far()),
        }
    }

    /// The answer, as [`Resumable::answer`], without copying it.
    pub fn into_answer(self) -> Answer {
        match self.input {
            Input::Stream(_) => Answer::Stream(self.machine.into_result()),
            Input::Scenario(_) => Answer::Scenario(self.machine.into_scenario_result()),
        }
    }

    /// The run as bytes, carrying its upload or scenario: versioned and
    /// checksummed (docs/pause.md). A completion model that is a closure
    /// cannot be saved: an error.
    pub fn snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        snapshot::write(self.params(), &self.input, &self.machine.parts(), true)
    }

    /// The run as bytes without its upload or scenario (only its
    /// checksum): restored with [`Resumable::restore_upload`] or
    /// [`Resumable::restore_scenario`].
    pub fn snapshot_without_input(&self) -> Result<Vec<u8>, SnapshotError> {
        snapshot::write(self.params(), &self.input, &self.machine.parts(), false)
    }

    /// The run a snapshot that carries its upload or scenario holds.
    pub fn restore(bytes: &[u8]) -> Result<Resumable, SnapshotError> {
        Resumable::restore_given(bytes, None)
    }

    /// The run a one-stream snapshot holds, its upload given: the one it
    /// was taken of, or an error.
    pub fn restore_upload(bytes: &[u8], upload: &[u8]) -> Result<Resumable, SnapshotError> {
        Resumable::restore_given(bytes, Some(Input::Stream(upload.to_vec())))
    }

    /// The run a scenario's snapshot holds, its scenario given: the one it
    /// was taken of (its parameters aside: the snapshot's are the run's),
    /// or an error.
    pub fn restore_scenario(bytes: &[u8], scenario: &Scenario) -> Result<Resumable, SnapshotError> {
        Resumable::restore_given(bytes, Some(Input::Scenario(scenario.clone())))
    }

    fn restore_given(bytes: &[u8], given: Option<Input>) -> Result<Resumable, SnapshotError> {
        let read = snapshot::read(bytes)?;
        let kind = if read.scenario {
            "a scenario"
        } else {
            "one stream"
        };
        if let Some(g) = &given {
            if matches!(g, Input::Scenario(_)) != read.scenario {
                return Err(SnapshotError::Kind { snapshot: kind });
            }
            if bytes::checksum(&snapshot::input_bytes(g)) != read.digest {
                return Err(SnapshotError::OtherInput);
            }
        }
        let input = match (read.input, given) {
            (Some(input), _) => input,
            (None, Some(Input::Scenario(s))) => Input::Scenario(
                s.with_params(read.params.clone())
                    .map_err(|e| SnapshotError::invalid(format!("the parameters: {e}")))?,
            ),
            (None, Some(input)) => input,
            (None, None) => return Err(SnapshotError::NoInput),
        };
        let mut machine = match &input {
            Input::Stream(upload) => Machine::new(upload, &read.params),
            Input::Scenario(s) => Machine::new_scenario(s),
        };
        machine
            .restore(read.parts)
            .map_err(SnapshotError::Invalid)?;
        Ok(Resumable { input, machine })
    }
}
/// A paused run without its machine ([`Resumable::detach`]): plain data
/// that can go to another thread (a machine's compiled code cannot), kept
/// as long as wanted, and made a run again with [`Detached::attach`],
/// which checks and decodes the upload again.
#[derive(Clone, Debug)]
pub struct Detached {
    input: Input,
    params: Params,
    parts: crate::exec::machine::Parts,
}

impl Resumable {
    /// The run as plain data, without its machine.
    pub fn detach(self) -> Detached {
        Detached {
            parts: self.machine.parts(),
            params: self.machine.params.clone(),
            input: self.input,
        }
    }
}

/// The host commands of a run's input (none for one stream).
fn host_entries(input: &Input) -> &[HostEntry] {
    match input {
        Input::Stream(_) => &[],
        Input::Scenario(s) => s.host(),
    }
}

impl Detached {
    /// What the run holds ([`Resumable::state`]), without a machine.
    pub fn state(&self) -> State {
        State::of(self.parts.clone(), host_entries(&self.input))
    }

    /// [`Resumable::snapshot`] without a machine.
    pub fn snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        snapshot::write(&self.params, &self.input, &self.parts, true)
    }

    /// The run again, where it stood.
    pub fn attach(self) -> Resumable {
        let mut machine = match &self.input {
            Input::Stream(upload) => Machine::new(upload, &self.params),
            Input::Scenario(s) => Machine::new_scenario(s),
        };
        machine
            .restore(self.parts)
            .expect("parts taken from a machine of the same input go back");
        Resumable {
            input: self.input,
            machine,
        }
    }
}

#[cfg(test)]
mod tests;
