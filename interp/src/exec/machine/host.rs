//! The host-command phase of a kernel scenario (S26..S28, S31, S32, S34).
//!
//! [`Host`] holds the scenario's host commands in list order and how far the
//! kernel has got with them. Set-up reads every RUN's bytes from the region
//! and runs the check and the pre-decoder on them once (the region never
//! changes), so that taking a RUN in the pass loop is S6's cheap tests
//! before the check (alignment, range, overlap, active req) and nothing
//! that allocates.

use smallvec::SmallVec;

use crate::check::{CheckedUpload, RUN_REJECTED, RunPlace};
use crate::exec::decode::Program;
use crate::format::{HEADER_LEN, upload_len_u64};
use crate::types::{HostCommand, HostOutcome, Scenario, StreamError};

/// A RUN's upload as set-up found it.
#[derive(Clone, Copy, Debug)]
pub(super) struct RunUpload {
    pub(super) place: RunPlace,
    /// The req of a rejection's event (S3 for check_run).
    pub(super) event_req: u32,
    /// Longer than any header can describe: rejected (`Reason::BadHeader`, pc 0)
    /// before its bytes are read.
    pub(super) too_long: bool,
    /// The check's answer on the bytes: the decoded program's index.
    pub(super) checked: Result<u16, StreamError>,
}

/// The scenario's host commands and the kernel's progress through them.
pub(crate) struct Host {
    pub(super) entries: Vec<(u64, HostCommand)>,
    /// For each entry that is a RUN, its upload.
    pub(super) runs: Vec<Option<RunUpload>>,
    /// The first command neither taken nor rejected (S26).
    pub(super) next: usize,
    /// The job id of the first try of the host submit waiting first in line (S32).
    pub(super) mark: Option<u64>,
    pub(super) outcomes: Vec<HostOutcome>,
}

impl Host {
    /// No host commands (one stream).
    pub fn none() -> Host {
        Host {
            entries: Vec::new(),
            runs: Vec::new(),
            next: 0,
            mark: None,
            outcomes: Vec::new(),
        }
    }

    /// The scenario's host commands; every RUN's upload checked and decoded
    /// into `programs`.
    pub fn new(scenario: &Scenario, programs: &mut SmallVec<[Program; 1]>) -> Host {
        let region_size = scenario.params().region_size;
        // The largest upload a header can describe (S2).
        let largest = upload_len_u64(u64::from(u16::MAX), u64::from(u16::MAX));
        // The RUNs of one place share its check and its program: the
        // region does not change during a scenario, so the same bytes are
        // checked, decoded and (for a compiled tier) compiled once,
        // however many times the host runs them (J13).
        let mut seen: std::collections::HashMap<(u64, u64), Result<u16, StreamError>> =
            std::collections::HashMap::new();
        let runs = scenario
            .host()
            .iter()
            .map(|entry| {
                let HostCommand::Run { offset, length } = entry.command else {
                    return None;
                };
                let (at, len) = (u64::from(offset), u64::from(length));
                let header_inside = at
                    .checked_add(HEADER_LEN as u64)
                    .is_some_and(|end| end <= region_size);
                let header_req = (len >= HEADER_LEN as u64).then(|| {
                    let b = scenario.region_bytes(at + 24, 4);
                    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
                });
                let event_req = if header_inside {
                    header_req.unwrap_or(0)
                } else {
                    0
                };
                let too_long = len > largest;
                let checked = if too_long {
                    Err(RUN_REJECTED)
                } else {
                    *seen.entry((at, len)).or_insert_with(|| {
                        let data = scenario.region_bytes(at, len);
                        CheckedUpload::new(&data, region_size).map(|c| {
                            programs.push(Program::decode(&c));
                            (programs.len() - 1) as u16
                        })
                    })
                };
                Some(RunUpload {
                    place: RunPlace {
                        offset: at,
                        length: len,
                        header_req,
                    },
                    event_req,
                    too_long,
                    checked,
                })
            })
            .collect();
        Host {
            entries: scenario
                .host()
                .iter()
                .map(|e| (e.pass, e.command))
                .collect(),
            runs,
            next: 0,
            mark: None,
            outcomes: vec![HostOutcome::WAITING; scenario.host().len()],
        }
    }

    /// How many streams the RUNs can start at most.
    pub fn run_count(&self) -> usize {
        self.runs.iter().flatten().count()
    }

    /// True when every command was taken or rejected.
    pub fn done(&self) -> bool {
        self.next == self.entries.len()
    }

    /// The pass of the next command not yet taken or rejected (`u64::MAX`
    /// when none): at or before the current pass it is waiting.
    pub fn next_due(&self) -> u64 {
        self.entries.get(self.next).map_or(u64::MAX, |e| e.0)
    }

    /// The outcome of every host command (S36).
    pub fn into_outcomes(self) -> Vec<HostOutcome> {
        self.outcomes
    }
}
