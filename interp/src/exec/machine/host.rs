//! The host-command phase of a kernel scenario (S26..S28, S31, S32, S34).
//!
//! [`Host`] holds the scenario's host commands in list order and how far the
//! kernel has got with them. Set-up reads every RUN's bytes from the region
//! and runs the check and the pre-decoder on them once (the region never
//! changes), so that taking a RUN in the pass loop is S6's cheap tests
//! before the check (alignment, range, overlap, active req) and nothing
//! that allocates.

use smallvec::SmallVec;

use super::Machine;
use crate::check::{CheckedUpload, RUN_REJECTED, RunPlace};
use crate::exec::decode::Program;
use crate::exec::kernel::MAX_STREAMS;
use crate::exec::observer::Observer;
use crate::format::{HEADER_LEN, flags, upload_len_u64};
use crate::types::result::kind;
use crate::types::{HostCommand, HostOutcome, Outcome, Reason, Scenario, StreamError};

/// A RUN's upload as set-up found it.
#[derive(Clone, Copy, Debug)]
struct RunUpload {
    place: RunPlace,
    /// The req of a rejection's event (S3 for check_run).
    event_req: u32,
    /// Longer than any header can describe: rejected (reason 1, pc 0)
    /// before its bytes are read.
    too_long: bool,
    /// The check's answer on the bytes: the decoded program's index.
    checked: Result<u16, StreamError>,
}

/// The scenario's host commands and the kernel's progress through them.
pub(crate) struct Host {
    entries: Vec<(u64, HostCommand)>,
    /// For each entry that is a RUN, its upload.
    runs: Vec<Option<RunUpload>>,
    /// The first command neither taken nor rejected (S26).
    next: usize,
    /// The job id of the first try of the host submit waiting first in line (S32).
    mark: Option<u64>,
    outcomes: Vec<HostOutcome>,
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
                    let data = scenario.region_bytes(at, len);
                    CheckedUpload::new(&data, region_size).map(|c| {
                        programs.push(Program::decode(&c));
                        (programs.len() - 1) as u16
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

/// What the host-command phase did with one command.
enum Answer {
    /// Taken; for a RUN the new stream's index.
    Taken(Option<usize>),
    Rejected(Reason),
    /// It has to wait (a host submit, S32): it and every command behind it.
    Wait,
}

impl Machine {
    /// The host-command phase of pass `p` (S26): the commands sent in this
    /// pass or earlier, in list order, until one has to wait. True when a
    /// command was taken or rejected.
    pub(super) fn host_phase<O: Observer>(&mut self, p: u64, obs: &mut O) -> bool {
        let mut moved = false;
        while let Some(&(pass, command)) = self.host.entries.get(self.host.next) {
            if pass > p {
                break;
            }
            let answer = match command {
                HostCommand::Run { offset, length } => self.host_run(offset, length, p),
                HostCommand::Cancel { req } => self.host_cancel(req),
                HostCommand::Deadline { us } => {
                    // S31: 0 is rejected and changes nothing.
                    if us == 0 {
                        Answer::Rejected(Reason::BadHeader)
                    } else {
                        self.kernel.default_deadline = u64::from(us);
                        Answer::Taken(None)
                    }
                }
                HostCommand::Submit {
                    handler,
                    first,
                    count,
                    args,
                    exclusive,
                    result,
                } => {
                    let mark = *self.host.mark.get_or_insert(self.kernel.job_ids);
                    let flag_byte = flag_byte(exclusive, result);
                    match self
                        .kernel
                        .host_submit(handler, first, count, args, flag_byte, mark, obs)
                    {
                        Ok(()) => Answer::Taken(None),
                        Err(Some(reason)) => Answer::Rejected(reason),
                        Err(None) => Answer::Wait,
                    }
                }
                HostCommand::Enqueue {
                    handler,
                    count,
                    args,
                    exclusive,
                    result,
                } => match self.kernel.host_enqueue(
                    handler,
                    count,
                    args,
                    flag_byte(exclusive, result),
                ) {
                    Ok(()) => Answer::Taken(None),
                    Err(reason) => Answer::Rejected(reason),
                },
            };
            let (outcome, stream) = match answer {
                Answer::Wait => break,
                Answer::Taken(stream) => (Outcome::Taken, stream),
                Answer::Rejected(reason) => (Outcome::Rejected(reason), None),
            };
            self.host.outcomes[self.host.next] = HostOutcome {
                pass: Some(p),
                outcome,
                stream,
            };
            self.host.next += 1;
            self.host.mark = None;
            moved = true;
        }
        moved
    }

    /// S28: RUN.
    fn host_run(&mut self, offset: u32, length: u32, p: u64) -> Answer {
        let Some(run) = self.host.runs[self.host.next] else {
            return Answer::Rejected(Reason::BadHeader);
        };
        let mut ranges = [(0u64, 0u64); MAX_STREAMS];
        let mut reqs = [0u32; MAX_STREAMS];
        let n = self.n_active;
        for (k, &i) in self.active[..n].iter().enumerate() {
            let end = &self.streams[usize::from(i)].end;
            ranges[k] = (u64::from(end.offset), u64::from(end.length));
            reqs[k] = self.streams[usize::from(i)].meta.req;
        }
        let region_size = self.kernel.params.region_size;
        // A fifth RUN, one too long for any header, or one S6's tests before
        // the check reject: reason 1, pc 0; else the check's answer.
        let error = if n >= MAX_STREAMS
            || run.too_long
            || run.place.rejected(region_size, &ranges[..n], &reqs[..n])
        {
            Err(RUN_REJECTED)
        } else {
            run.checked
        };
        match error {
            Ok(program) => Answer::Taken(Some(self.start(program, offset, length, p))),
            Err(e) => {
                let aux = u32::from(e.reason.number()) | e.pc << 8;
                self.kernel.post(kind::STREAM_ERROR, run.event_req, aux);
                Answer::Rejected(e.reason)
            }
        }
    }

    /// S34: CANCEL ends the active stream whose header req is `req`.
    fn host_cancel(&mut self, req: u32) -> Answer {
        let found = self.active[..self.n_active]
            .iter()
            .map(|&i| usize::from(i))
            .find(|&i| self.streams[i].meta.req == req);
        match found {
            Some(i) => {
                let pc = self.streams[i].meta.pc;
                self.fail(i, Reason::Cancelled, pc);
                Answer::Taken(None)
            }
            None => Answer::Rejected(Reason::Cancelled),
        }
    }
}

/// The flag byte of a host command (S1: exclusive bit 1, result bit 2).
fn flag_byte(exclusive: bool, result: bool) -> u8 {
    (if exclusive { flags::EXCLUSIVE } else { 0 }) | (if result { flags::RESULT } else { 0 })
}
