//! The pass loop of the fast kernel (docs/spec.md "The kernel", S11..S22),
//! the stream turn around the dispatch loops, and the idle skip.
//!
//! [`Machine::new`] does every allocation (decoding, the result vectors'
//! reserve); [`Machine::run`] allocates nothing of its own, pass after pass,
//! except when the result vectors outgrow what was reserved.
//!
//! **Idle passes cost nothing.** When in some pass no stream ran a micro-op
//! (each active stream's turn stopped at once at a micro-op that waits) and
//! the queue placed no job, the turns left the kernel state exactly as they
//! found it. The waits (SUBMIT on slots or exclusivity, ENQUEUE on a full
//! queue, WAIT and HALT on pending work) and the queue's placements depend
//! only on that state (slots, groups, queue contents, pending counts), never
//! on the pass number, and the turn order within a pass cannot matter when no
//! turn changes anything. So every later pass repeats the same non-event
//! until the sweep, the deadline phase or the host phase changes the state:
//! the next acknowledgement or deadline of a busy slot (`next_change`), the
//! cancel pass, or `max_passes`. The loop jumps straight to the first of
//! them; pass indexes, TIME (computed from the pass) and the rotation
//! (`p % (n + 1)`, computed from the pass) are those of the pass-by-pass model.
//! See docs/dispatch.md.

use super::Dispatch;
use super::bodies::Ctx;
use super::handler::Exit;
use super::kernel::{Kernel, Life, MAX_STREAMS, StreamMeta, Waiting};
use super::observer::{NoObserver, Observer, TurnEnd};
use super::program::Program;
use crate::check::CheckedUpload;
use crate::reference::result::kind;
use crate::reference::{Params, Reason, SimResult, Status, StreamError};

/// A run of the fast kernel, set up and ready (or finished).
pub struct Machine {
    params: Params,
    check: Option<StreamError>,
    program: Option<Program>,
    kernel: Kernel,
    streams: [StreamMeta; MAX_STREAMS],
    regs: [[u32; 16]; MAX_STREAMS],
    n_streams: usize,
    halt: Option<u32>,
    error: Option<StreamError>,
    /// True once the passes have run (a second `run` does nothing).
    ran: bool,
}

fn blank_stream(index: u8) -> StreamMeta {
    StreamMeta {
        pc: 0,
        steps: 0,
        max_steps: 0,
        pending: 0,
        in_flight: 0,
        latest_result: 0,
        req: 0,
        deadline: 1,
        life: Life::Ended,
        index,
        exclusive_mark: None,
        waiting: Waiting::No,
    }
}

impl Machine {
    /// Checks and pre-decodes `upload` and sets up the kernel (S11: the RUN
    /// is taken in pass 0). A rejected upload gives a machine whose result
    /// is the check's error (P1).
    pub fn new(upload: &[u8], params: &Params) -> Machine {
        let mut m = Machine {
            params: params.clone(),
            check: None,
            program: None,
            kernel: Kernel::new(params),
            streams: [0, 1, 2, 3].map(blank_stream),
            regs: [[0; 16]; MAX_STREAMS],
            n_streams: 0,
            halt: None,
            error: None,
            ran: false,
        };
        let decoded = CheckedUpload::new(upload, params.region_size).map(|checked| {
            Program::decode(&checked, &|i| {
                super::tail::Tail::<NoObserver>::TABLE[i as usize]
            })
        });
        match decoded {
            Err(e) => {
                // P1: one error event at pass 0 with the req of S3.
                let req = crate::format::check_req(upload);
                m.check = Some(e);
                // The RUN is taken in pass 0 (S11): with no pass at all
                // (max_passes 0, out of range) there is no event.
                if params.max_passes > 0 {
                    m.error = Some(e);
                    let aux = u32::from(e.reason.number()) | e.pc << 8;
                    m.kernel.post(kind::STREAM_ERROR, req, aux);
                }
            }
            Ok(program) => {
                let h = program.head;
                // S13: the deadline of every command of this stream.
                let deadline = params.deadline_passes.unwrap_or(if h.deadline_us != 0 {
                    u64::from(h.deadline_us)
                } else {
                    params.default_deadline_passes
                });
                m.streams[0] = StreamMeta {
                    max_steps: h.max_steps,
                    req: h.req,
                    deadline,
                    life: Life::Active,
                    ..blank_stream(0)
                };
                m.regs[0][15] = h.seed; // S11
                // Some room for the answer up front, so that short runs do
                // not grow the vectors in the pass loop (more would cost
                // every tiny run a large allocation; `reserve` gives more).
                m.kernel.commands.reserve(32);
                m.kernel.events.reserve(4);
                m.n_streams = 1;
                m.program = Some(program);
            }
        }
        m
    }

    /// Reserves room in the result vectors and the whole job queue (so a
    /// run of known size allocates nothing).
    pub fn reserve(&mut self, commands: usize, events: usize) {
        self.kernel.commands.reserve(commands);
        self.kernel.events.reserve(events);
        self.kernel.queue.reserve_all();
    }

    /// Runs the passes with the given fast variant, calling `obs`'s hooks.
    /// A machine runs once; calling `run` again does nothing.
    pub fn run<O: Observer>(&mut self, dispatch: Dispatch, obs: &mut O) {
        #[cfg(feature = "threaded")]
        if dispatch == Dispatch::Threaded
            && let Some(p) = &mut self.program
        {
            for inst in &mut p.insts {
                // SAFETY: `op` was written by Program::decode from an OpIndex.
                let index = unsafe { super::handler::OpIndex::from_byte(inst.op) };
                inst.handler = super::threaded::Threaded::<O>::of(index);
            }
        }
        if self.program.is_some() && !self.ran {
            self.ran = true;
            self.passes(dispatch, obs);
        }
    }

    /// The answer of the run (S24).
    pub fn into_result(self) -> SimResult {
        let status = match (self.check, self.error, self.streams[0].life) {
            (Some(_), None, _) => Status::Stuck, // no pass ran (max_passes 0)
            (Some(_), Some(_), _) | (None, _, Life::Failed) => Status::Error,
            (None, _, Life::Ended) => Status::Ended,
            (None, _, Life::Active) => Status::Stuck,
        };
        let passes = self.kernel.events.last().map_or(0, |e| e.pass_index + 1);
        SimResult {
            params: self.params,
            check: self.check,
            commands: self.kernel.commands,
            events: self.kernel.events,
            status,
            passes,
            error: self.error,
            halt: self.halt,
            stopped: self.kernel.stopped,
        }
    }

    /// Ends stream `i` with an error (S21).
    fn fail(&mut self, i: usize, reason: Reason, pc: u32) -> StreamError {
        let e = StreamError { reason, pc };
        let s = &mut self.streams[i];
        s.life = Life::Failed;
        let req = s.req;
        self.kernel.drop_jobs(&mut self.streams[i]);
        self.kernel.post(
            kind::STREAM_ERROR,
            req,
            u32::from(reason.number()) | pc << 8,
        );
        if i == 0 {
            self.error = Some(e);
        }
        e
    }

    /// The tests before the next micro-op, when the folded counter says the
    /// steps ran out (S17): the end of the program first, then the step limit.
    fn step_limit(&mut self, i: usize) -> TurnEnd {
        let op_count = self.program.as_ref().map_or(0, |p| p.head.op_count);
        let pc = self.streams[i].pc;
        let e = if pc == op_count {
            self.fail(i, Reason::BadJump, op_count)
        } else {
            self.fail(i, Reason::StepLimit, pc)
        };
        TurnEnd::Error(e)
    }

    /// One turn of stream `i` (S17). Returns the micro-ops it ran and why it ended.
    fn turn<O: Observer>(&mut self, i: usize, dispatch: Dispatch, obs: &mut O) -> (u32, TurnEnd) {
        let budget = self.params.turn_budget;
        if budget == 0 {
            // Out of range (S25); like the reference model, a turn that runs nothing.
            return (0, TurnEnd::Budget);
        }
        let s = &self.streams[i];
        // A micro-op that waited and whose condition still holds waits again
        // (its operands cannot have changed); no need to dispatch it.
        if s.waiting.holds(&self.kernel, s) {
            let why = match s.waiting {
                Waiting::Slots => TurnEnd::WaitSlots,
                Waiting::QueueFull => TurnEnd::WaitQueueFull,
                Waiting::Pending(_) => TurnEnd::Wait,
                _ => TurnEnd::HaltPending,
            };
            return (0, why);
        }
        // The one counter of the hot path: the budget and the steps left.
        let fuel = budget.min(s.max_steps - s.steps);
        if fuel == 0 {
            return (0, self.step_limit(i));
        }
        let Some(program) = &self.program else {
            return (0, TurnEnd::Budget);
        };
        let base = program.insts.as_ptr();
        let obs_ptr: *mut O = obs;
        let mut ctx = Ctx::<O> {
            kernel: &mut self.kernel,
            stream: &mut self.streams[i],
            obs: obs_ptr,
            base,
            templates: program.templates.as_ptr(),
            exit_ip: base,
            exit_fuel: 0,
            reason: Reason::BadJump,
            halt: 0,
        };
        let regs = self.regs[i].as_mut_ptr();
        // SAFETY: the stream's pc is at most op_count (it starts at 0 and only
        // handlers move it, always inside the program, End at op_count).
        let ip = unsafe { base.add(self.streams[i].pc as usize) };
        let erased = &mut ctx as *mut Ctx<O> as *mut ();
        // SAFETY: `ip` in the decoded program, `regs` the stream's 16
        // registers, `erased` the live `Ctx<O>` above whose pointers are
        // disjoint, `fuel >= 1`; a threaded program had its handlers set for
        // `O` by `run`.
        let exit = unsafe {
            match dispatch {
                #[cfg(feature = "switch")]
                Dispatch::Switch => super::switch::run::<O>(ip, regs, erased, fuel),
                #[cfg(feature = "threaded")]
                Dispatch::Threaded => super::threaded::run::<O>(ip, regs, erased, fuel),
                Dispatch::Tail => super::tail::run::<O>(ip, regs, erased, fuel),
            }
        };
        let pc = ctx.pc(ctx.exit_ip);
        let (left, reason, halt) = (ctx.exit_fuel, ctx.reason, ctx.halt);
        let mut ran = fuel - left;
        let s = &mut self.streams[i];
        s.pc = pc;
        s.waiting = match exit {
            Exit::WaitSlots => Waiting::Slots,
            Exit::WaitQueueFull => Waiting::QueueFull,
            Exit::WaitPending => Waiting::Pending(program.insts[pc as usize].imm),
            Exit::HaltPending => Waiting::Halt,
            _ => Waiting::No,
        };
        let why = match exit {
            Exit::Fuel => {
                s.steps += ran;
                if fuel == budget {
                    TurnEnd::Budget
                } else {
                    self.step_limit(i)
                }
            }
            Exit::WaitSlots
            | Exit::WaitQueueFull
            | Exit::WaitExclusive
            | Exit::WaitPending
            | Exit::HaltPending => {
                s.steps += ran;
                match exit {
                    Exit::WaitSlots => TurnEnd::WaitSlots,
                    Exit::WaitQueueFull => TurnEnd::WaitQueueFull,
                    Exit::WaitExclusive => TurnEnd::WaitExclusive,
                    Exit::WaitPending => TurnEnd::Wait,
                    _ => TurnEnd::HaltPending,
                }
            }
            Exit::Error => {
                s.steps += ran;
                TurnEnd::Error(self.fail(i, reason, pc))
            }
            Exit::Halt => {
                // S17: a HALT that ends the stream counts one step.
                if O::ENABLED {
                    // SAFETY: `ctx.obs` is the `obs` borrowed for this turn;
                    // the dispatch loop has returned, so nothing else uses it.
                    unsafe { (*obs_ptr).on_op(pc) };
                }
                ran += 1;
                s.steps += ran;
                s.life = Life::Ended;
                let req = s.req;
                self.kernel.post(kind::STREAM_END, req, halt);
                if i == 0 {
                    self.halt = Some(halt);
                }
                TurnEnd::Halt(halt)
            }
        };
        (ran, why)
    }

    /// True when the run is over (S16 b, c, d).
    fn finished(&self) -> bool {
        self.kernel.stopped
            || self.streams[..self.n_streams]
                .iter()
                .all(|s| s.life == Life::Ended || (s.life == Life::Failed && s.in_flight == 0))
    }

    /// The passes 0 .. max_passes (S16).
    fn passes<O: Observer>(&mut self, dispatch: Dispatch, obs: &mut O) {
        let max_passes = self.params.max_passes;
        let cancel = self.params.cancel_pass;
        let n = self.n_streams;
        let mut p = 0u64;
        let mut rotation = 0usize;
        // The last turn of the (one) stream ended by its budget.
        let mut budget_ended = false;
        while p < max_passes {
            self.kernel.pass = p;
            if n == 1
                && budget_ended
                && self.kernel.queue.len() == 0
                && p < self.kernel.next_change
                && cancel != Some(p)
            {
                // A quick pass: no slot can be acknowledged or late, no host
                // command, and the queue is empty when the stream's turn
                // starts, so a queue turn before it does nothing. The stream
                // (still active: its last turn ended by the budget) takes its
                // turn, then the queue if it comes second (even passes).
                self.kernel.queue_moved = false;
                let (ran, why) = self.turn(0, dispatch, obs);
                budget_ended = why == TurnEnd::Budget;
                obs.on_turn_end(p, 0, ran, why, self.streams[0].pc);
                if rotation == 0 {
                    self.kernel.queue_turn(&mut self.streams, obs);
                }
                obs.on_pass_end(
                    p,
                    self.kernel.busy.count_ones(),
                    self.kernel.queue.len() as u32,
                );
                if self.finished() {
                    return;
                }
                // Even if this pass was idle (the turn stopped at once at a
                // wait), the next one takes the full path, which finds it
                // idle again and skips from there (module doc).
                p += 1;
                rotation = if rotation == n { 0 } else { rotation + 1 };
                continue;
            }
            budget_ended = false;
            // 1, 2: the sweep and the deadlines, only when a slot can change.
            if p >= self.kernel.next_change {
                self.kernel.sweep(&mut self.streams, obs);
                if let Some(slot) = self.kernel.lowest_late() {
                    self.late(slot);
                    obs.on_pass_end(
                        p,
                        self.kernel.busy.count_ones(),
                        self.kernel.queue.len() as u32,
                    );
                    return;
                }
                self.kernel.refresh_next_change();
            }
            // 3: host commands. The RUN was taken in pass 0 (S11); a cancel (S15).
            if cancel == Some(p) {
                for i in 0..n {
                    if self.streams[i].life == Life::Active {
                        let pc = self.streams[i].pc;
                        self.fail(i, Reason::Cancelled, pc);
                    }
                }
            }
            // 4: the turns, rotating (docs/spec.md: start at p % (n + 1)).
            self.kernel.queue_moved = false;
            let mut moved = false;
            // `rotation` is p % (n + 1), kept without a division per pass.
            let mut who = rotation;
            for _ in 0..=n {
                if who < n {
                    if self.streams[who].life == Life::Active {
                        let (ran, why) = self.turn(who, dispatch, obs);
                        moved |= ran != 0 || !why.is_wait();
                        budget_ended = why == TurnEnd::Budget;
                        obs.on_turn_end(p, who, ran, why, self.streams[who].pc);
                    }
                } else {
                    self.kernel.queue_turn(&mut self.streams, obs);
                }
                who = if who == n { 0 } else { who + 1 };
            }
            moved |= self.kernel.queue_moved;
            obs.on_pass_end(
                p,
                self.kernel.busy.count_ones(),
                self.kernel.queue.len() as u32,
            );
            if self.finished() {
                return;
            }
            if moved {
                p += 1;
                rotation = if rotation == n { 0 } else { rotation + 1 };
                continue;
            }
            // Idle: jump to the next pass where the sweep, the deadlines or
            // the host can change something (module doc).
            let mut next = self.kernel.next_change.min(max_passes);
            if let Some(c) = cancel
                && c > p
                && self.streams[..n].iter().any(|s| s.life == Life::Active)
            {
                next = next.min(c);
            }
            let next = next.max(p + 1);
            if next > p + 1 {
                obs.on_idle(p + 1, next);
            }
            p = next;
            rotation = (p % (n as u64 + 1)) as usize;
        }
    }

    /// The deadline phase found `slot` late (S14): the grid stops.
    fn late(&mut self, slot: usize) {
        let s = self.kernel.slots[slot];
        let owner = usize::from(s.owner);
        self.kernel.stopped = true;
        match self.streams[owner].life {
            Life::Active => {
                self.fail(owner, Reason::Deadline, s.pc);
            }
            Life::Failed | Life::Ended => {
                let req = self.streams[owner].req;
                self.kernel.post(kind::TIMEOUT, req, slot as u32);
            }
        }
    }
}
