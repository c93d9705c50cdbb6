//! The whole kernel, pass by pass (S26..S35, with S11..S22 for each stream).
//!
//! One loop over passes; each pass runs the phases of S29 in order: the sweep
//! (S12), the deadline phase (S33), the host commands in list order (S26..S28,
//! S31, S32, S34), then the turns of the active streams and the queue in the
//! rotation `p % (n + 1)`. Every pass is simulated, idle or not, as
//! [`crate::simulate`] does. The state is plain: the accepted streams in start
//! order with their own registers, pc, steps, latest result; the shared
//! slots, queue, sequence counter (the length of `commands`) and event log.
//! Each slot and job remembers its stream (`None` for the host), which is all
//! the pending counts, the sweep's results and S33 need.

use std::collections::VecDeque;

use super::answer::{HostOutcome, Outcome, ScenarioCommand, ScenarioResult, StreamOutcome};
use super::{HostCommand, Scenario};
use crate::check::{self, HEADER_LEN};
use crate::models::Models;
use crate::params::Params;
use crate::program::Program;
use crate::result::{Event, Reason, Status, StreamError, SubmittedCommand, kind};
use crate::sim::{
    FLAG_EXCLUSIVE, FLAG_RESULT, FROM_COMMAND, OVERTAKE_LIMIT, QUEUE_CAPACITY, QUEUE_WINDOW, SLOTS,
};

/// At most this many streams run at once (docs/spec.md "The upload").
pub const MAX_STREAMS: usize = 4;

/// The largest upload any header can describe (S2):
/// `64 + pad64(65,535 * 16) + pad64(65,535 * 80)` = 64 + 1,048,576 + 5,242,816.
/// A RUN longer than this is rejected with reason 1 pc 0 by whichever test of
/// S6 comes first (all of them give reason 1 pc 0 here, the last being the
/// check's size test), so its bytes need not be read.
pub const LARGEST_UPLOAD: u64 = 6_291_456;

/// A stream accepted by a RUN (S28).
struct Stream {
    offset: u32,
    length: u32,
    start_pass: u64,
    program: Program,
    life: Life,
    regs: [u32; 16],
    pc: u32,
    steps: u64,
    latest_result: u32,
    /// For the exclusive SUBMIT the stream waits at: jobs with an id below this
    /// were queued before it was first tried (S18). Cleared when it goes on.
    exclusive_mark: Option<u64>,
    error: Option<StreamError>,
    halt: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Active,
    Halted,
    Failed,
}

/// A busy completion slot.
#[derive(Clone, Copy, Debug)]
struct Busy {
    /// Index into `commands`.
    command: usize,
    /// The stream that made it; `None` for the host (S32).
    owner: Option<usize>,
    first: u64,
    count: u64,
    /// The pass whose sweep acknowledges it (S12); `None` for never.
    ack_pass: Option<u64>,
    /// Late when still busy after the sweep of this pass (S13, S31).
    late_pass: u64,
    /// `Some(value)` when it was submitted with result=True (S23).
    result: Option<u32>,
}

/// A job waiting in the queue (its arguments are those of its ENQUEUE, S18).
#[derive(Clone, Copy, Debug)]
struct Job {
    /// Order of enqueue over every source, from 0 (S30's "queued before").
    id: u64,
    /// The stream that queued it; `None` for the host.
    owner: Option<usize>,
    handler: u8,
    flags: u8,
    count: u32,
    args: [u32; 10],
    pc: u32,
    overtaken: u32,
}

/// What a micro-op did.
enum Step {
    Next(u32),
    Wait,
    Halted,
    Fail(Reason),
}

/// What the host-command phase did with one command.
enum Answer {
    /// Taken; for a RUN the new stream's index.
    Taken(Option<usize>),
    Rejected(Reason),
    /// It has to wait (a host submit, S32): it and every command behind it.
    Wait,
}

struct Kernel<'s> {
    scenario: &'s Scenario,
    params: &'s Params,
    streams: Vec<Stream>,
    slots: [Option<Busy>; SLOTS],
    queue: VecDeque<Job>,
    next_job_id: u64,
    /// The kernel's default deadline in passes (S31).
    default_deadline: u64,
    /// The first host command not yet taken or rejected (S26: the ones
    /// before it are all done, the ones after it wait behind it).
    next_host: usize,
    /// For the host submit waiting first in line: its first try's mark (S32).
    host_mark: Option<u64>,
    host: Vec<HostOutcome>,
    commands: Vec<ScenarioCommand>,
    events: Vec<Event>,
    stopped: bool,
}

/// Runs a scenario as the kernel would (S26..S35).
pub fn simulate_scenario(scenario: &Scenario) -> ScenarioResult {
    let params = scenario.params();
    let mut kernel = Kernel {
        scenario,
        params,
        streams: Vec::new(),
        slots: [None; SLOTS],
        queue: VecDeque::new(),
        next_job_id: 0,
        default_deadline: params.default_deadline_passes,
        next_host: 0,
        host_mark: None,
        host: vec![HostOutcome::WAITING; scenario.host().len()],
        commands: Vec::new(),
        events: Vec::new(),
        stopped: false,
    };
    for pass in 0..params.max_passes {
        if kernel.run_pass(pass) {
            break;
        }
    }
    kernel.finish()
}

impl Kernel<'_> {
    fn finish(self) -> ScenarioResult {
        let streams = self
            .streams
            .iter()
            .map(|s| StreamOutcome {
                req: s.program.req,
                offset: s.offset,
                length: s.length,
                pass: s.start_pass,
                // S35: a stream still active when the run stops is "stuck".
                status: match s.life {
                    Life::Active => Status::Stuck,
                    Life::Halted => Status::Ended,
                    Life::Failed => Status::Error,
                },
                error: s.error,
                halt: s.halt,
            })
            .collect();
        ScenarioResult {
            params: self.params.clone(),
            streams,
            host: self.host,
            passes: self.events.last().map_or(0, |e| e.pass_index + 1),
            commands: self.commands,
            events: self.events,
            stopped: self.stopped,
        }
    }

    /// One pass; true when the run ends after it (S33, S35).
    fn run_pass(&mut self, pass: u64) -> bool {
        self.sweep(pass);
        if self.deadlines(pass) {
            return true;
        }
        self.host_commands(pass);
        self.turns(pass);
        // S35: nothing active, in flight, queued, waiting or due later.
        let active = self.streams.iter().any(|s| s.life == Life::Active);
        let in_flight = self.slots.iter().any(Option::is_some);
        !active
            && !in_flight
            && self.queue.is_empty()
            && self.next_host == self.scenario.host().len()
    }

    /// S12: slots freed in ascending order; a result goes to the stream that
    /// made the command (S30), the highest slot's last.
    fn sweep(&mut self, pass: u64) {
        for slot in 0..SLOTS {
            if let Some(busy) = self.slots[slot]
                && busy.ack_pass == Some(pass)
            {
                if let (Some(value), Some(s)) = (busy.result, busy.owner) {
                    self.streams[s].latest_result = value;
                }
                self.slots[slot] = None;
            }
        }
    }

    /// S33: the lowest late slot decides; true when the grid is stopped.
    fn deadlines(&mut self, pass: u64) -> bool {
        let late = (0..SLOTS).find_map(|s| {
            self.slots[s]
                .filter(|b| pass >= b.late_pass)
                .map(|b| (s, b))
        });
        let Some((slot, busy)) = late else {
            return false;
        };
        match busy.owner {
            Some(s) if self.streams[s].life == Life::Active => {
                let pc = self.commands[busy.command].command.pc;
                self.fail(s, Reason::Deadline, pc, pass);
            }
            owner => {
                let req = owner.map_or(0, |s| self.streams[s].program.req);
                self.post(kind::TIMEOUT, req, slot as u32, pass);
            }
        }
        self.stopped = true;
        // Every other active stream ends at its current pc, in start order.
        for s in 0..self.streams.len() {
            if self.streams[s].life == Life::Active {
                let pc = self.streams[s].pc;
                self.fail(s, Reason::Deadline, pc, pass);
            }
        }
        true
    }

    /// S26: the commands sent in this pass or earlier, in list order, until
    /// one has to wait.
    fn host_commands(&mut self, pass: u64) {
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
        // reason 1 pc 0 with S3's req, the bytes unread.
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
        let mut regs = [0; 16];
        // S11: registers start at 0, except r15 = seed.
        regs[15] = program.seed;
        self.streams.push(Stream {
            offset,
            length,
            start_pass: pass,
            program,
            life: Life::Active,
            regs,
            pc: 0,
            steps: 0,
            latest_result: 0,
            exclusive_mark: None,
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
                let pc = self.streams[s].pc;
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
        let mark = *self.host_mark.get_or_insert(self.next_job_id);
        let Some(slot) = self.lowest_free_slot() else {
            return Answer::Wait;
        };
        if flags & FLAG_EXCLUSIVE != 0 && self.exclusive_blocked(mark, first, count) {
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
        if count == 0 || count > self.params.core_count || self.queue.len() >= QUEUE_CAPACITY {
            return Answer::Rejected(Reason::BadEnqueue);
        }
        self.push_job(None, handler as u8, flags, count, args, 0);
        Answer::Taken(None)
    }

    /// S29: the turns of the streams active now, in start order, then the
    /// queue, the first being submitter `pass % (n + 1)`.
    fn turns(&mut self, pass: u64) {
        let submitters = self.active();
        let n = submitters.len();
        let first = (pass % (n as u64 + 1)) as usize;
        for k in 0..=n {
            let who = (first + k) % (n + 1);
            if who == n {
                self.queue_turn(pass);
            } else {
                self.stream_turn(submitters[who], pass);
            }
        }
    }

    /// The active streams' indexes, in start order.
    fn active(&self) -> Vec<usize> {
        (0..self.streams.len())
            .filter(|&s| self.streams[s].life == Life::Active)
            .collect()
    }

    fn post(&mut self, kind: u8, req: u32, auxiliary: u32, pass: u64) {
        self.events.push(Event {
            kind,
            req,
            auxiliary: auxiliary & 0xFF_FFFF,
            pass_index: pass,
        });
    }

    /// S21: stream `s` ends with an error at once; its own queued jobs are
    /// dropped (S30), its commands in flight stay.
    fn fail(&mut self, s: usize, reason: Reason, pc: u32, pass: u64) {
        let req = self.streams[s].program.req;
        self.post(
            kind::STREAM_ERROR,
            req,
            u32::from(reason.number()) | (pc << 8),
            pass,
        );
        let stream = &mut self.streams[s];
        stream.life = Life::Failed;
        stream.error = Some(StreamError { reason, pc });
        stream.exclusive_mark = None;
        self.queue.retain(|j| j.owner != Some(s));
    }

    /// S18, S30: the stream's own commands in flight plus its own jobs queued.
    fn pending(&self, s: usize) -> u64 {
        let busy = self.slots.iter().flatten().filter(|b| b.owner == Some(s));
        let queued = self.queue.iter().filter(|j| j.owner == Some(s));
        (busy.count() + queued.count()) as u64
    }

    fn lowest_free_slot(&self) -> Option<usize> {
        self.slots.iter().position(Option::is_none)
    }

    /// Whether `[first, first + count)` overlaps some busy slot's group.
    fn overlaps_busy(&self, first: u64, count: u64) -> bool {
        self.slots
            .iter()
            .flatten()
            .any(|b| b.first < first + count && first < b.first + b.count)
    }

    /// S18, S30: an exclusive command waits while a job queued (by anyone)
    /// before its first try is still queued, or a busy group overlaps its own.
    fn exclusive_blocked(&self, mark: u64, first: u32, count: u32) -> bool {
        self.queue.iter().any(|j| j.id < mark)
            || self.overlaps_busy(u64::from(first), u64::from(count))
    }

    /// S17: one turn of stream `s`.
    fn stream_turn(&mut self, s: usize, pass: u64) {
        let mut budget_used: u32 = 0;
        while self.streams[s].life == Life::Active {
            // A turn whose budget is used up ends before the next micro-op's tests.
            if budget_used >= self.params.turn_budget {
                return;
            }
            let stream = &self.streams[s];
            let pc = stream.pc;
            if pc as usize == stream.program.ops.len() {
                self.fail(s, Reason::BadJump, pc, pass);
                return;
            }
            if stream.steps >= stream.program.max_steps {
                self.fail(s, Reason::StepLimit, pc, pass);
                return;
            }
            match self.execute(s, pass) {
                Step::Next(next) => {
                    let stream = &mut self.streams[s];
                    stream.pc = next;
                    stream.steps += 1;
                    budget_used += 1;
                }
                Step::Wait => return,
                Step::Halted => {
                    self.streams[s].steps += 1;
                    return;
                }
                Step::Fail(reason) => {
                    self.fail(s, reason, pc, pass);
                    return;
                }
            }
        }
    }

    /// One micro-op of stream `s` at its pc (docs/spec.md "Micro-ops", S18).
    fn execute(&mut self, s: usize, pass: u64) -> Step {
        let stream = &self.streams[s];
        let pc = stream.pc;
        let op = stream.program.ops[pc as usize];
        let (a, b, c, imm) = (op.a, op.b, op.c, op.imm);
        let r = stream.regs;
        let jump = |taken: bool| Step::Next(if taken { imm } else { pc + 1 });
        let value = match op.op {
            1 => imm,
            2 => r[b],
            3 => r[b].wrapping_add(r[c]),
            4 => r[b].wrapping_add(imm),
            5 => r[b].wrapping_sub(r[c]),
            6 => r[b].wrapping_mul(r[c]),
            7 => r[b] & r[c],
            8 => r[b] >> (imm & 31),
            9 => {
                if r[c] == 0 {
                    return Step::Fail(Reason::ModByZero);
                }
                r[b] % r[c]
            }
            10 => {
                let mut x = r[15];
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                self.streams[s].regs[15] = x;
                x
            }
            16 => return jump(true),
            17 => return jump(r[a] < r[b]),
            18 => return jump(r[a] == r[b]),
            19 => return jump(r[a] != 0),
            20 => {
                if self.pending(s) != 0 {
                    return Step::Wait;
                }
                let req = self.streams[s].program.req;
                self.post(kind::STREAM_END, req, r[a], pass);
                let stream = &mut self.streams[s];
                stream.life = Life::Halted;
                stream.halt = Some(r[a]);
                return Step::Halted;
            }
            32 => return self.submit(s, imm as usize, pass),
            33 => return self.enqueue(s, imm as usize, r[a]),
            40 => {
                if self.pending(s) > u64::from(imm) {
                    return Step::Wait;
                }
                return Step::Next(pc + 1);
            }
            // S30: the stream's own latest result.
            41 => stream.latest_result,
            48 => {
                let req = stream.program.req;
                self.post(kind::STREAM, req, r[a], pass);
                return Step::Next(pc + 1);
            }
            49 => pass.wrapping_mul(u64::from(self.params.ticks_per_pass)) as u32,
            // The check admits no other opcode.
            _ => return Step::Fail(Reason::UnknownOpcode),
        };
        self.streams[s].regs[a] = value;
        Step::Next(pc + 1)
    }

    /// SUBMIT of stream `s`, in the order of S18.
    fn submit(&mut self, s: usize, index: usize, pass: u64) -> Step {
        let stream = &self.streams[s];
        let t = stream.program.templates[index];
        let pc = stream.pc;
        let args = t.patched_args(&stream.regs);
        let first = match t.first_register {
            FROM_COMMAND => t.first,
            r => stream.regs[usize::from(r)],
        };
        let count = match t.count_register {
            FROM_COMMAND => t.count,
            r => stream.regs[usize::from(r)],
        };
        // Outside the grid: error 11 before any waiting.
        if outside_grid(first, count, self.params.core_count) {
            return Step::Fail(Reason::BadGroup);
        }
        // "first tried": remember which jobs were queued before it.
        let mark = *self.streams[s]
            .exclusive_mark
            .get_or_insert(self.next_job_id);
        let Some(slot) = self.lowest_free_slot() else {
            return Step::Wait;
        };
        if t.flags & FLAG_EXCLUSIVE != 0 && self.exclusive_blocked(mark, first, count) {
            return Step::Wait;
        }
        self.streams[s].exclusive_mark = None;
        self.take_slot(
            slot,
            Some(s),
            t.handler,
            t.flags,
            first,
            count,
            args,
            pass,
            pc,
            false,
        );
        Step::Next(pc + 1)
    }

    /// ENQUEUE of stream `s`, in the order of S18.
    fn enqueue(&mut self, s: usize, index: usize, count: u32) -> Step {
        if count == 0 || count > self.params.core_count {
            return Step::Fail(Reason::BadEnqueue);
        }
        if self.queue.len() >= QUEUE_CAPACITY {
            return Step::Wait;
        }
        let stream = &self.streams[s];
        let t = stream.program.templates[index];
        let (args, pc) = (t.patched_args(&stream.regs), stream.pc);
        self.push_job(Some(s), t.handler, t.flags, count, args, pc);
        Step::Next(pc + 1)
    }

    fn push_job(
        &mut self,
        owner: Option<usize>,
        handler: u8,
        flags: u8,
        count: u32,
        args: [u32; 10],
        pc: u32,
    ) {
        self.queue.push_back(Job {
            id: self.next_job_id,
            owner,
            handler,
            flags,
            count,
            args,
            pc,
            overtaken: 0,
        });
        self.next_job_id += 1;
    }

    /// S19: the command takes `slot` and is recorded; its delay and result
    /// are evaluated on the record now (S23), its deadline is S31's.
    #[allow(clippy::too_many_arguments)]
    fn take_slot(
        &mut self,
        slot: usize,
        owner: Option<usize>,
        handler: u8,
        flags: u8,
        first: u32,
        count: u32,
        args: [u32; 10],
        pass: u64,
        pc: u32,
        queued: bool,
    ) {
        let record = SubmittedCommand {
            sequence: self.commands.len() as u64,
            slot: slot as u8,
            handler,
            first,
            count,
            flags,
            args,
            pass_index: pass,
            pc,
            queued,
        };
        // S31: deadline_passes; else the stream header's when not 0; else the
        // default in force now.
        let header = owner.map_or(0, |s| self.streams[s].program.deadline_microseconds);
        let deadline = match self.params.deadline_passes {
            Some(d) => d,
            None if header != 0 => u64::from(header),
            None => self.default_deadline,
        };
        // S12: acknowledged in the sweep of pass p + 1 + d (never past u64).
        let ack_pass = self
            .params
            .delay_of(&record)
            .and_then(|d| pass.checked_add(1)?.checked_add(d));
        let result = (flags & FLAG_RESULT != 0).then(|| self.params.result_of(&record));
        self.slots[slot] = Some(Busy {
            command: self.commands.len(),
            owner,
            first: u64::from(first),
            count: u64::from(count),
            ack_pass,
            late_pass: pass.saturating_add(deadline),
            result,
        });
        self.commands.push(ScenarioCommand {
            command: record,
            stream: owner,
        });
    }

    /// The group allocator: the lowest first in 0..=core_count-count whose
    /// range overlaps no busy slot's group (candidates: 0 and the end of each
    /// busy group, as in [`crate::sim`]).
    fn allocate(&self, count: u32) -> Option<u32> {
        let last = u64::from(self.params.core_count.checked_sub(count)?);
        let ends = self.slots.iter().flatten().map(|b| b.first + b.count);
        std::iter::once(0)
            .chain(ends)
            .filter(|&first| first <= last && !self.overlaps_busy(first, u64::from(count)))
            .min()
            .map(|first| first as u32)
    }

    /// S20: the queue's turn, over the jobs of every source.
    fn queue_turn(&mut self, pass: u64) {
        let window: Vec<u64> = self.queue.iter().take(QUEUE_WINDOW).map(|j| j.id).collect();
        for id in window {
            let Some(slot) = self.lowest_free_slot() else {
                return;
            };
            let Some(at) = self.queue.iter().position(|j| j.id == id) else {
                continue;
            };
            let job = self.queue[at];
            // An exclusive job only at the head of the queue.
            let allowed = job.flags & FLAG_EXCLUSIVE == 0 || at == 0;
            let first = if allowed {
                self.allocate(job.count)
            } else {
                None
            };
            match first {
                Some(first) => {
                    // Every job ahead of it still waiting is overtaken once more.
                    for ahead in self.queue.iter_mut().take(at) {
                        ahead.overtaken = ahead.overtaken.saturating_add(1);
                    }
                    self.queue.remove(at);
                    self.take_slot(
                        slot,
                        job.owner,
                        job.handler,
                        job.flags,
                        first,
                        job.count,
                        job.args,
                        pass,
                        job.pc,
                        true,
                    );
                }
                None if job.overtaken >= OVERTAKE_LIMIT => return,
                None => {}
            }
        }
    }
}

/// A group is outside the grid when `count == 0 || first > core_count ||
/// count > core_count - first` (no sum is formed).
fn outside_grid(first: u32, count: u32, core_count: u32) -> bool {
    count == 0 || first > core_count || count > core_count - first
}

/// The flag byte of a host command (S1: exclusive bit 1, result bit 2).
fn flags(exclusive: bool, result: bool) -> u8 {
    (if exclusive { FLAG_EXCLUSIVE } else { 0 }) | (if result { FLAG_RESULT } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_upload_is_s2_for_the_largest_counts() {
        let ops = check::pad64(65_535 * check::OP_LEN);
        let templates = check::pad64(65_535 * check::TEMPLATE_LEN);
        assert_eq!(LARGEST_UPLOAD, HEADER_LEN + ops + templates);
    }
}
