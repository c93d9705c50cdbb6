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

use crate::check::{self, HEADER_LEN};
use crate::grid::{self, Grid, Submitter};
use crate::ops::Op;
use crate::ops::{self, Running, Step};
use crate::params::Params;
use crate::program::{Program, Template};
use crate::result::{Event, Reason, SimResult, Status, StreamError, SubmittedCommand, kind};

pub use crate::grid::{OVERTAKE_LIMIT, QUEUE_CAPACITY, QUEUE_WINDOW, SLOTS};
pub use crate::program::{FLAG_EXCLUSIVE, FLAG_RESULT, FROM_COMMAND};

/// The one stream, as the owner of its commands and jobs.
const STREAM: usize = 0;

/// Whether the stream still runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    /// Not yet accepted (before the host-command phase of pass 0).
    NotStarted,
    Active,
    Halted,
    Failed,
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
    run: Running,

    grid: Grid<'p>,

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
            run: Running::new(0),
            grid: Grid::new(params),
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
        self.run = Running::new(program.seed);
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
        self.grid.queue.clear();
        self.run.exclusive_mark = None;
    }

    fn busy_count(&self) -> usize {
        self.grid.slots.iter().filter(|s| s.is_some()).count()
    }

    /// S18: commands in flight plus jobs still in the queue (one stream owns them all).
    fn pending(&self) -> u64 {
        (self.busy_count() + self.grid.queue.len()) as u64
    }

    /// One pass; true when the run ends after it (S16).
    fn run_pass(&mut self, pass: u64, checked: Option<StreamError>) -> bool {
        // 1. Sweep (S12): slots freed in ascending order; the highest slot's result wins.
        for slot in 0..SLOTS {
            if let Some(busy) = self.grid.slots[slot]
                && busy.ack_pass == Some(pass)
            {
                if let Some(value) = busy.result {
                    self.run.latest_result = value;
                }
                self.grid.slots[slot] = None;
            }
        }

        // 2. Deadlines (S13, S14): the lowest late slot.
        let late = (0..SLOTS).find(|&s| self.grid.slots[s].is_some_and(|b| pass >= b.late_pass));
        if let Some(slot) = late {
            let busy = self.grid.slots[slot].expect("late slot is busy");
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
            self.fail(Reason::Cancelled, self.run.pc, pass);
        }

        // 4. Turns: the stream then the queue, the first rotating with the pass.
        if self.life == Life::Active {
            if pass.is_multiple_of(2) {
                self.stream_turn(pass);
                grid::queue_turn(self, pass);
            } else {
                grid::queue_turn(self, pass);
                self.stream_turn(pass);
            }
        } else {
            // No active stream: the queue is the only submitter.
            grid::queue_turn(self, pass);
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
            if self.run.pc as usize == self.ops.len() {
                self.fail(Reason::BadJump, self.run.pc, pass);
                return;
            }
            if self.run.steps >= self.max_steps {
                self.fail(Reason::StepLimit, self.run.pc, pass);
                return;
            }
            match self.execute(pass) {
                Step::Next(pc) => {
                    self.run.pc = pc;
                    self.run.steps += 1;
                    budget_used += 1;
                }
                Step::Wait => return,
                Step::Halted => {
                    self.run.steps += 1;
                    return;
                }
                Step::Fail(reason) => {
                    self.fail(reason, self.run.pc, pass);
                    return;
                }
            }
        }
    }

    /// One micro-op at `self.run.pc` (the table of docs/spec.md "Micro-ops", S18).
    fn execute(&mut self, pass: u64) -> Step {
        let pc = self.run.pc;
        let this = self.ops[pc as usize];
        let Op { op, a, imm, .. } = this;
        match ops::registers(this, pc, &mut self.run.regs) {
            Some(Ok(next)) => return Step::Next(next),
            Some(Err(reason)) => return Step::Fail(reason),
            None => {}
        }
        let next = Step::Next(pc + 1);
        let r = self.run.regs;
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
            32 => return grid::submit(self, STREAM, self.templates[imm as usize], pass),
            33 => return grid::enqueue(self, STREAM, self.templates[imm as usize], r[a]),
            40 => {
                if self.pending() > u64::from(imm) {
                    return Step::Wait;
                }
            }
            41 => self.run.regs[a] = self.run.latest_result,
            48 => self.post(kind::STREAM, r[a], pass),
            49 => {
                let ticks = pass.wrapping_mul(u64::from(self.params.ticks_per_pass));
                self.run.regs[a] = ticks as u32;
            }
            // The check admits no other opcode.
            _ => return Step::Fail(Reason::UnknownOpcode),
        }
        next
    }
}

impl<'p> Submitter<'p> for Sim<'p> {
    fn grid(&mut self) -> &mut Grid<'p> {
        &mut self.grid
    }

    fn recorded(&self) -> usize {
        self.out.commands.len()
    }

    fn deadline(&self, _: Option<usize>) -> u64 {
        self.deadline
    }

    fn record(&mut self, command: SubmittedCommand, _: Option<usize>) {
        self.out.commands.push(command);
    }

    fn running(&mut self, _: usize) -> &mut Running {
        &mut self.run
    }
}
