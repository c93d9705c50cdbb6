//! The host-command phase of a pass (S26): the commands sent in this pass or
//! earlier, in list order, until one has to wait. RUN (S28, with S3's req
//! for a rejected one), CANCEL (S34), DEADLINE (S31) and the host's own
//! submit and enqueue (S32); each gives an [`Answer`].

use super::{Answer, Kernel, LARGEST_UPLOAD, Life, MAX_STREAMS, Stream};
use crate::check::{self, HEADER_LEN};
use crate::grid::Submitter;
use crate::grid::outside_grid;
use crate::ops::Running;
use crate::program::Program;
use crate::result::{Reason, StreamError, kind};
use crate::scenario::HostCommand;
use crate::scenario::answer::{HostOutcome, Outcome};
use crate::sim::{FLAG_EXCLUSIVE, FLAG_RESULT, QUEUE_CAPACITY};

impl Kernel<'_> {
    /// S26: the commands sent in this pass or earlier, in list order, until
    /// one has to wait.
    pub(super) fn host_commands(&mut self, pass: u64) {
        while let Some(&entry) = self.scenario.host().get(self.next_host) {
            if entry.pass > pass {
                return;
            }
            let answer = match entry.command {
                HostCommand::Run { offset, length } => self.run(offset, length, pass),
                HostCommand::Cancel { req } => self.cancel(req, pass),
                HostCommand::Deadline { us } => self.deadline(us),
                HostCommand::Submit {
                    handler,
                    first,
                    count,
                    args,
                    exclusive,
                    result,
                } => self.host_submit(handler, first, count, args, flags(exclusive, result), pass),
                HostCommand::Enqueue {
                    handler,
                    count,
                    args,
                    exclusive,
                    result,
                } => self.host_enqueue(handler, count, args, flags(exclusive, result)),
            };
            let (outcome, stream) = match answer {
                Answer::Wait => return,
                Answer::Taken(stream) => (Outcome::Taken, stream),
                Answer::Rejected(reason) => (Outcome::Rejected(reason), None),
            };
            self.host[self.next_host] = HostOutcome {
                pass: Some(pass),
                outcome,
                stream,
            };
            self.next_host += 1;
            self.host_mark = None;
        }
    }

    /// S3 for check_run: the header's req when length >= 64 and the header
    /// is inside the region, else 0.
    fn header_req(&self, offset: u64, length: u64) -> u32 {
        let inside = offset
            .checked_add(HEADER_LEN)
            .is_some_and(|end| end <= self.params.region_size);
        if length >= HEADER_LEN && inside {
            let b = self.scenario.region_bytes(offset + 24, 4);
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        } else {
            0
        }
    }

    /// S28: RUN.
    fn run(&mut self, offset: u32, length: u32, pass: u64) -> Answer {
        let (at, len) = (u64::from(offset), u64::from(length));
        let active: Vec<usize> = self.active();
        let bad_header = StreamError {
            reason: Reason::BadHeader,
            pc: 0,
        };
        let mut data = Vec::new();
        // A fifth RUN (S28), or one too long for any header (LARGEST_UPLOAD):
        // `Reason::BadHeader` pc 0 with S3's req, the bytes unread.
        let (error, req) = if active.len() >= MAX_STREAMS || len > LARGEST_UPLOAD {
            (Some(bad_header), self.header_req(at, len))
        } else {
            data = self.scenario.region_bytes(at, len);
            let ranges: Vec<(u64, u64)> = active
                .iter()
                .map(|&s| {
                    let st = &self.streams[s];
                    (u64::from(st.offset), u64::from(st.length))
                })
                .collect();
            let reqs: Vec<u32> = active
                .iter()
                .map(|&s| self.streams[s].program.req)
                .collect();
            check::check_run(&data, at, self.params.region_size, &ranges, &reqs)
        };
        if let Some(e) = error {
            self.post(
                kind::STREAM_ERROR,
                req,
                u32::from(e.reason.number()) | (e.pc << 8),
                pass,
            );
            return Answer::Rejected(e.reason);
        }
        let program = Program::decode(&data);
        let run = Running::new(program.seed);
        self.streams.push(Stream {
            offset,
            length,
            start_pass: pass,
            program,
            life: Life::Active,
            run,
            error: None,
            halt: None,
        });
        Answer::Taken(Some(self.streams.len() - 1))
    }

    /// S34: CANCEL.
    fn cancel(&mut self, req: u32, pass: u64) -> Answer {
        let found = self
            .active()
            .into_iter()
            .find(|&s| self.streams[s].program.req == req);
        match found {
            Some(s) => {
                let pc = self.streams[s].run.pc;
                self.fail(s, Reason::Cancelled, pc, pass);
                Answer::Taken(None)
            }
            None => Answer::Rejected(Reason::Cancelled),
        }
    }

    /// S31: DEADLINE.
    fn deadline(&mut self, us: u32) -> Answer {
        if us == 0 {
            return Answer::Rejected(Reason::BadHeader);
        }
        self.default_deadline = u64::from(us);
        Answer::Taken(None)
    }

    /// S32: a plain command from the host.
    fn host_submit(
        &mut self,
        handler: u32,
        first: u32,
        count: u32,
        args: [u32; 10],
        flags: u8,
        pass: u64,
    ) -> Answer {
        if !(1..=239).contains(&handler) {
            return Answer::Rejected(Reason::BadTemplate);
        }
        if outside_grid(first, count, self.params.core_count) {
            return Answer::Rejected(Reason::BadGroup);
        }
        let mark = *self.host_mark.get_or_insert(self.grid.next_job_id);
        let Some(slot) = self.grid.lowest_free_slot() else {
            return Answer::Wait;
        };
        if flags & FLAG_EXCLUSIVE != 0 && self.grid.exclusive_blocked(mark, first, count) {
            return Answer::Wait;
        }
        self.take_slot(
            slot,
            None,
            handler as u8,
            flags,
            first,
            count,
            args,
            pass,
            0,
            false,
        );
        Answer::Taken(None)
    }

    /// S32: a queued command from the host (it never waits).
    fn host_enqueue(&mut self, handler: u32, count: u32, args: [u32; 10], flags: u8) -> Answer {
        if !(1..=239).contains(&handler) {
            return Answer::Rejected(Reason::BadTemplate);
        }
        if count == 0 || count > self.params.core_count || self.grid.queue.len() >= QUEUE_CAPACITY {
            return Answer::Rejected(Reason::BadEnqueue);
        }
        self.grid
            .push_job(None, handler as u8, flags, count, args, 0);
        Answer::Taken(None)
    }
}

/// The flag byte of a host command (S1: exclusive bit 1, result bit 2).
fn flags(exclusive: bool, result: bool) -> u8 {
    (if exclusive { FLAG_EXCLUSIVE } else { 0 }) | (if result { FLAG_RESULT } else { 0 })
}
