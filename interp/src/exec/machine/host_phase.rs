//! The host-command phase of a pass (S26..S28, S31, S32, S34): the
//! scenario's commands sent by now, in list order, until one has to wait.

use super::Machine;
use crate::check::RUN_REJECTED;
use crate::exec::kernel::MAX_STREAMS;
use crate::exec::observer::Observer;
use crate::format::flags;
use crate::types::result::kind;
use crate::types::{HostCommand, HostOutcome, Outcome, Reason};

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
        // the check reject: `Reason::BadHeader`, pc 0; else the check's answer.
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
