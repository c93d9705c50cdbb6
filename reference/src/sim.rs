//! The pass-by-pass simulator (docs/spec.md "The kernel", S11..S22).
//!
//! One loop over passes; each pass runs the four phases of docs/spec.md in order:
//! sweep (S12), deadlines (S13, S14), host commands (the RUN in pass 0, the
//! cancel, S11, S15), then the turns (S17, S20) with the rotation of docs/spec.md.
//! Idle passes are simulated one by one. Nothing here is clever: the state is
//! plain arrays and a `VecDeque`, and every rule cites its ruling.
//!
//! Parameters outside their S25 ranges never make it panic (the CLI and the
//! JSON readers validate first). What they do instead: a delay model with
//! modulo 0 or an empty table means never, a result model with an argument
//! above 9 or an empty table gives 0 (see `params.rs`); `turn_budget` 0 gives
//! turns that run nothing; `max_passes` 0 runs no pass at all (status
//! "stuck", though `check` still holds the check's answer); `deadline_passes`
//! 0 makes a command late in the first deadline phase after its submit; a
//! `core_count` of 0 puts every group outside the grid.

use std::collections::VecDeque;

use crate::check::{self, HEADER_LEN};
use crate::models::Models;
use crate::ops;
use crate::params::Params;
use crate::program::{Op, Program, Template};
use crate::result::{Event, Reason, SimResult, Status, StreamError, SubmittedCommand, kind};

/// Completion slots (docs/spec.md "Streams, commands and the grid"; S19).
pub const SLOTS: usize = 16;
/// Most waiting jobs in the queue (S18, S20).
pub const QUEUE_CAPACITY: usize = 64;
/// Jobs the queue looks at per turn (S20).
pub const QUEUE_WINDOW: usize = 16;
/// A job overtaken this many times blocks those behind it (S20).
pub const OVERTAKE_LIMIT: u32 = 1_024;
/// The command's exclusive flag bit (S1).
pub const FLAG_EXCLUSIVE: u8 = 1 << 1;
/// The command's result flag bit (S1).
pub const FLAG_RESULT: u8 = 1 << 2;
/// A first_register/count_register that takes the field from the command (S9).
pub const FROM_COMMAND: u8 = 0xFF;

/// A busy completion slot.
#[derive(Clone, Copy, Debug)]
struct Busy {
    /// Index into the result's `commands`.
    command: usize,
    first: u64,
    count: u64,
    /// The pass whose sweep acknowledges it (S12); `None` for never.
    ack_pass: Option<u64>,
    /// Late when still busy after the sweep of this pass (S13).
    late_pass: u64,
    /// `Some(value)` when it was submitted with result=True (S23).
    result: Option<u32>,
}

/// A job waiting in the queue (its arguments are those of its ENQUEUE, S18).
#[derive(Clone, Copy, Debug)]
struct Job {
    /// Order of enqueue, from 0 (for exclusive SUBMIT's "queued before", S18).
    id: u64,
    handler: u8,
    flags: u8,
    count: u32,
    args: [u32; 10],
    pc: u32,
    overtaken: u32,
}

/// Whether the stream still runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    /// Not yet accepted (before the host-command phase of pass 0).
    NotStarted,
    Active,
    Halted,
    Failed,
}

/// What a micro-op did.
enum Step {
    /// Completed; go to this pc.
    Next(u32),
    /// Has to wait: the turn ends, the micro-op is retried next turn.
    Wait,
    /// HALT ended the stream.
    Halted,
    /// The stream ends with this error.
    Fail(Reason),
}

struct Sim<'p> {
    params: &'p Params,
    ops: Vec<Op>,
    templates: Vec<Template>,
    max_steps: u64,
    req: u32,
    /// The deadline of every command in passes (S13).
    deadline: u64,

    life: Life,
    regs: [u32; 16],
    pc: u32,
    steps: u64,
    latest_result: u32,
    /// For the exclusive SUBMIT the stream waits at: jobs with an id below this
    /// were queued before it was first tried (S18). Cleared when it goes on.
    exclusive_mark: Option<u64>,

    slots: [Option<Busy>; SLOTS],
    queue: VecDeque<Job>,
    next_job_id: u64,

    out: SimResult,
}

/// Runs the check and then the stream as the kernel would (S11..S25; a
/// rejected upload: P1).
pub fn simulate(upload: &[u8], params: &Params) -> SimResult {
    let checked = check::check(upload, params.region_size).err();
    let mut sim = Sim::new(upload, params, checked);
    for pass in 0..params.max_passes {
        if sim.run_pass(pass, checked) {
            break;
        }
    }
    // S16: no end within max_passes: "stuck" if the stream is still active.
    if matches!(sim.life, Life::Active | Life::NotStarted) {
        sim.out.status = Status::Stuck;
    }
    sim.out.passes = sim.out.events.last().map_or(0, |e| e.pass_index + 1);
    sim.out
}

impl<'p> Sim<'p> {
    fn new(upload: &[u8], params: &'p Params, checked: Option<StreamError>) -> Sim<'p> {
        let out = SimResult {
            params: params.clone(),
            check: checked,
            commands: Vec::new(),
            events: Vec::new(),
            status: Status::Stuck,
            passes: 0,
            error: None,
            halt: None,
            stopped: false,
        };
        let mut sim = Sim {
            params,
            ops: Vec::new(),
            templates: Vec::new(),
            max_steps: 0,
            // S3: the header's req when the data is at least 64 bytes long.
            req: if upload.len() as u64 >= HEADER_LEN {
                check::header(upload).req
            } else {
                0
            },
            deadline: 1,
            life: Life::NotStarted,
            regs: [0; 16],
            pc: 0,
            steps: 0,
            latest_result: 0,
            exclusive_mark: None,
            slots: [None; SLOTS],
            queue: VecDeque::new(),
            next_job_id: 0,
            out,
        };
        if checked.is_none() {
            sim.decode(upload);
        }
        sim
    }

    /// Reads an upload the check accepted (so every index is in range).
    fn decode(&mut self, data: &[u8]) {
        let program = Program::decode(data);
        self.max_steps = program.max_steps;
        // S13: deadline_passes, else the header's (one pass per microsecond), else the default.
        self.deadline = match self.params.deadline_passes {
            Some(d) => d,
            None if program.deadline_microseconds != 0 => u64::from(program.deadline_microseconds),
            None => self.params.default_deadline_passes,
        };
        // S11: registers start at 0, except r15 = seed.
        self.regs[15] = program.seed;
        self.ops = program.ops;
        self.templates = program.templates;
    }

    fn post(&mut self, kind: u8, auxiliary: u32, pass: u64) {
        self.out.events.push(Event {
            kind,
            req: self.req,
            auxiliary: auxiliary & 0xFF_FFFF,
            pass_index: pass,
        });
    }

    /// S21: the stream ends with an error at once.
    fn fail(&mut self, reason: Reason, pc: u32, pass: u64) {
        self.post(
            kind::STREAM_ERROR,
            u32::from(reason.number()) | (pc << 8),
            pass,
        );
        self.life = Life::Failed;
        self.out.status = Status::Error;
        self.out.error = Some(StreamError { reason, pc });
        // The stream's queued jobs are dropped; its commands in flight stay.
        self.queue.clear();
        self.exclusive_mark = None;
    }

    fn busy_count(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// S18: commands in flight plus jobs still in the queue (one stream owns them all).
    fn pending(&self) -> u64 {
        (self.busy_count() + self.queue.len()) as u64
    }

    fn lowest_free_slot(&self) -> Option<usize> {
        self.slots.iter().position(|s| s.is_none())
    }

    /// Whether `[first, first + count)` overlaps some busy slot's group.
    fn overlaps_busy(&self, first: u64, count: u64) -> bool {
        self.slots
            .iter()
            .flatten()
            .any(|b| b.first < first + count && first < b.first + b.count)
    }

    /// One pass; true when the run ends after it (S16).
    fn run_pass(&mut self, pass: u64, checked: Option<StreamError>) -> bool {
        // 1. Sweep (S12): slots freed in ascending order; the highest slot's result wins.
        for slot in 0..SLOTS {
            if let Some(busy) = self.slots[slot]
                && busy.ack_pass == Some(pass)
            {
                if let Some(value) = busy.result {
                    self.latest_result = value;
                }
                self.slots[slot] = None;
            }
        }

        // 2. Deadlines (S13, S14): the lowest late slot.
        let late = (0..SLOTS).find(|&s| self.slots[s].is_some_and(|b| pass >= b.late_pass));
        if let Some(slot) = late {
            let busy = self.slots[slot].expect("late slot is busy");
            match self.life {
                Life::Active => {
                    let pc = self.out.commands[busy.command].pc;
                    self.fail(Reason::Deadline, pc, pass);
                }
                _ => self.post(kind::TIMEOUT, slot as u32, pass),
            }
            self.out.stopped = true;
            return true;
        }

        // 3. Host commands: the RUN in pass 0 (S11, P1), then the cancel (S15).
        if pass == 0 {
            match checked {
                Some(e) => {
                    // P1: one error event at pass 0; the stream never ran.
                    self.post(
                        kind::STREAM_ERROR,
                        u32::from(e.reason.number()) | (e.pc << 8),
                        0,
                    );
                    self.out.status = Status::Error;
                    self.out.error = Some(e);
                    self.life = Life::Failed;
                    return true;
                }
                None => self.life = Life::Active,
            }
        }
        if self.params.cancel_pass == Some(pass) && self.life == Life::Active {
            self.fail(Reason::Cancelled, self.pc, pass);
        }

        // 4. Turns: the stream then the queue, the first rotating with the pass.
        if self.life == Life::Active {
            if pass.is_multiple_of(2) {
                self.stream_turn(pass);
                self.queue_turn(pass);
            } else {
                self.queue_turn(pass);
                self.stream_turn(pass);
            }
        } else {
            // No active stream: the queue is the only submitter.
            self.queue_turn(pass);
        }

        // S16: the end of a run.
        match self.life {
            Life::Halted => true,
            Life::Failed => self.busy_count() == 0,
            _ => false,
        }
    }

    /// S17: one turn of the stream.
    fn stream_turn(&mut self, pass: u64) {
        let mut budget_used: u32 = 0;
        while self.life == Life::Active {
            // A turn whose budget is used up ends before the next micro-op's tests.
            if budget_used >= self.params.turn_budget {
                return;
            }
            if self.pc as usize == self.ops.len() {
                self.fail(Reason::BadJump, self.pc, pass);
                return;
            }
            if self.steps >= self.max_steps {
                self.fail(Reason::StepLimit, self.pc, pass);
                return;
            }
            match self.execute(pass) {
                Step::Next(pc) => {
                    self.pc = pc;
                    self.steps += 1;
                    budget_used += 1;
                }
                Step::Wait => return,
                Step::Halted => {
                    self.steps += 1;
                    return;
                }
                Step::Fail(reason) => {
                    self.fail(reason, self.pc, pass);
                    return;
                }
            }
        }
    }

    /// One micro-op at `self.pc` (the table of docs/spec.md "Micro-ops", S18).
    fn execute(&mut self, pass: u64) -> Step {
        let pc = self.pc;
        let this = self.ops[pc as usize];
        let Op { op, a, imm, .. } = this;
        match ops::registers(this, pc, &mut self.regs) {
            Some(Ok(next)) => return Step::Next(next),
            Some(Err(reason)) => return Step::Fail(reason),
            None => {}
        }
        let next = Step::Next(pc + 1);
        let r = self.regs;
        match op {
            20 => {
                if self.pending() != 0 {
                    return Step::Wait;
                }
                self.post(kind::STREAM_END, r[a], pass);
                self.life = Life::Halted;
                self.out.status = Status::Ended;
                self.out.halt = Some(r[a]);
                return Step::Halted;
            }
            32 => return self.submit(imm as usize, pass),
            33 => return self.enqueue(imm as usize, r[a]),
            40 => {
                if self.pending() > u64::from(imm) {
                    return Step::Wait;
                }
            }
            41 => self.regs[a] = self.latest_result,
            48 => self.post(kind::STREAM, r[a], pass),
            49 => {
                let ticks = pass.wrapping_mul(u64::from(self.params.ticks_per_pass));
                self.regs[a] = ticks as u32;
            }
            // The check admits no other opcode.
            _ => return Step::Fail(Reason::UnknownOpcode),
        }
        next
    }

    /// SUBMIT, in the order of S18.
    fn submit(&mut self, index: usize, pass: u64) -> Step {
        let t = self.templates[index];
        let args = t.patched_args(&self.regs);
        let first = match t.first_register {
            FROM_COMMAND => t.first,
            r => self.regs[usize::from(r)],
        };
        let count = match t.count_register {
            FROM_COMMAND => t.count,
            r => self.regs[usize::from(r)],
        };
        // Outside the grid (no sum is formed): error 11 before any waiting.
        let cores = self.params.core_count;
        if count == 0 || first > cores || count > cores - first {
            return Step::Fail(Reason::BadGroup);
        }
        // "first tried": remember which jobs were queued before it.
        let mark = *self.exclusive_mark.get_or_insert(self.next_job_id);
        let Some(slot) = self.lowest_free_slot() else {
            return Step::Wait;
        };
        if t.flags & FLAG_EXCLUSIVE != 0 {
            let queued_before = self.queue.iter().any(|j| j.id < mark);
            if queued_before || self.overlaps_busy(u64::from(first), u64::from(count)) {
                return Step::Wait;
            }
        }
        self.exclusive_mark = None;
        self.take_slot(
            slot, t.handler, t.flags, first, count, args, pass, self.pc, false,
        );
        Step::Next(self.pc + 1)
    }

    /// ENQUEUE, in the order of S18.
    fn enqueue(&mut self, index: usize, count: u32) -> Step {
        if count == 0 || count > self.params.core_count {
            return Step::Fail(Reason::BadEnqueue);
        }
        if self.queue.len() >= QUEUE_CAPACITY {
            return Step::Wait;
        }
        let t = self.templates[index];
        self.queue.push_back(Job {
            id: self.next_job_id,
            handler: t.handler,
            flags: t.flags,
            count,
            args: t.patched_args(&self.regs),
            pc: self.pc,
            overtaken: 0,
        });
        self.next_job_id += 1;
        Step::Next(self.pc + 1)
    }

    /// S19: the command takes `slot` and is recorded; its delay and result are
    /// evaluated on the record now (S23).
    #[allow(clippy::too_many_arguments)]
    fn take_slot(
        &mut self,
        slot: usize,
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
            sequence: self.out.commands.len() as u64,
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
        // S12: acknowledged in the sweep of pass p + 1 + d (never past u64).
        let ack_pass = self
            .params
            .delay_of(&record)
            .and_then(|d| pass.checked_add(1)?.checked_add(d));
        let result = (flags & FLAG_RESULT != 0).then(|| self.params.result_of(&record));
        self.slots[slot] = Some(Busy {
            command: self.out.commands.len(),
            first: u64::from(first),
            count: u64::from(count),
            ack_pass,
            late_pass: pass.saturating_add(self.deadline),
            result,
        });
        self.out.commands.push(record);
    }

    /// The group allocator: the lowest first in 0..=core_count-count whose
    /// range overlaps no busy slot's group.
    ///
    /// Only 0 and the end of a busy group can be that lowest first: if `f > 0`
    /// fits and `f - 1` does not, the only core `f - 1`'s range adds is `f - 1`,
    /// so a busy group holds core `f - 1` but nothing from `f` on: it ends at `f`.
    /// So the candidates are those, tested exactly as the rule says.
    fn allocate(&self, count: u32) -> Option<u32> {
        let last = u64::from(self.params.core_count.checked_sub(count)?);
        let ends = self.slots.iter().flatten().map(|b| b.first + b.count);
        std::iter::once(0)
            .chain(ends)
            .filter(|&first| first <= last && !self.overlaps_busy(first, u64::from(count)))
            .min()
            .map(|first| first as u32)
    }

    /// S20: the queue's turn.
    fn queue_turn(&mut self, pass: u64) {
        if self.queue.is_empty() {
            return;
        }
        // The ids of the first QUEUE_WINDOW jobs as the turn starts (a fixed
        // array: this runs every pass the queue is not empty).
        let mut window = [0u64; QUEUE_WINDOW];
        let n = self.queue.len().min(QUEUE_WINDOW);
        for (w, job) in window.iter_mut().zip(&self.queue) {
            *w = job.id;
        }
        for &id in &window[..n] {
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
