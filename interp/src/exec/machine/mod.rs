//! The pass loop of the fast kernel (docs/spec.md "The kernel", S11..S22 for
//! one stream, S26..S35 for the whole kernel), the stream turn around the
//! dispatch loops, and the idle skip.
//!
//! A [`Machine`] runs either one stream ([`Machine::new`], the simulator of
//! docs/spec.md) or a kernel scenario ([`Machine::new_scenario`]: up to four
//! streams started by RUN commands beside the host's other commands, S26).
//! Both do every allocation in set-up (decoding every upload a RUN names,
//! room for every stream a RUN can start, the result vectors' reserve);
//! [`Machine::run`] allocates nothing of its own, pass after pass, except
//! when the result vectors outgrow what was reserved.
//!
//! **Idle passes cost nothing.** When in some pass no stream ran a micro-op
//! (each active stream's turn stopped at once at a micro-op that waits), the
//! host phase took and rejected nothing and the queue placed no job, the
//! pass left the kernel state exactly as it found it. The waits (SUBMIT on
//! slots or exclusivity, ENQUEUE on a full queue, WAIT and HALT on pending
//! work, a host submit on slots or exclusivity) and the queue's placements
//! depend only on that state, never on the pass number, and the turn order
//! within a pass cannot matter when no turn changes anything. So every later
//! pass repeats the same non-event until the sweep, the deadline phase or the
//! host phase changes the state: the next acknowledgement or deadline of a
//! busy slot (`next_change`), the next host command due (or the cancel pass),
//! or `max_passes`. The loop jumps straight to the first of them; pass
//! indexes, TIME (computed from the pass) and the rotation (`p % (n + 1)`,
//! computed from the pass) are those of the pass-by-pass model. See
//! docs/dispatch.md.
//!
//! **Spans of quick passes.** While the one active stream runs quick passes
//! (its turn is all that happens in them, docs/dispatch.md "Quick passes"),
//! the turns of the next `span` such passes run in the same chain of handlers
//! with `span + 1` budgets of fuel; a micro-op that reads or changes the
//! kernel returns [`Exit::Resync`] first, and the kernel splits the fuel used
//! back into whole turns (docs/dispatch.md "Spans of quick passes").

use smallvec::SmallVec;

mod host;

use self::host::Host;
use crate::check::CheckedUpload;
use crate::exec::bodies::Ctx;
use crate::exec::decode::Program;
use crate::exec::dispatch::{self, Dispatch};
use crate::exec::inst::Exit;
use crate::exec::kernel::{
    self, Kernel, Life, MAX_STREAMS, Stream, StreamEnd, StreamMeta, Waiting,
};
use crate::exec::observer::{Observer, TurnEnd};
use crate::types::result::kind;
use crate::types::{
    Params, Reason, Scenario, ScenarioCommand, ScenarioResult, SimResult, Status, StreamError,
    StreamOutcome,
};

/// A run of the fast kernel, set up and ready (or finished).
pub struct Machine {
    params: Params,
    /// One stream: the check's error when it rejected the upload (P1).
    check: Option<StreamError>,
    /// One stream: the pass of the host's cancel (S15).
    cancel_pass: Option<u64>,
    /// The decoded programs: the one stream's, or one per RUN the check accepts.
    pub(super) programs: SmallVec<[Program; 1]>,
    pub(super) kernel: Kernel,
    /// Every stream started so far, in start order (its index is its owner
    /// id), each in one piece (one allocation for a one-stream run).
    pub(super) streams: Vec<Stream>,
    /// The active streams, in start order.
    pub(super) active: [u16; MAX_STREAMS],
    pub(super) n_active: usize,
    /// The host commands of a scenario (none for one stream).
    pub(super) host: Host,
    /// True once the passes have run (a second `run` does nothing).
    ran: bool,
    /// Whether there is anything to run (a rejected one-stream upload has not).
    runnable: bool,
}

impl Machine {
    fn blank(
        params: &Params,
        programs: SmallVec<[Program; 1]>,
        host: Host,
        streams: usize,
    ) -> Machine {
        Machine {
            params: params.clone(),
            check: None,
            cancel_pass: None,
            programs,
            kernel: Kernel::new(params),
            streams: Vec::with_capacity(streams),
            active: [0; MAX_STREAMS],
            n_active: 0,
            host,
            ran: false,
            runnable: true,
        }
    }

    /// Checks and pre-decodes `upload` and sets up the kernel (S11: the RUN
    /// is taken in pass 0). A rejected upload gives a machine whose result
    /// is the check's error (P1).
    pub fn new(upload: &[u8], params: &Params) -> Machine {
        let decoded =
            CheckedUpload::new(upload, params.region_size).map(|checked| Program::decode(&checked));
        let mut m = Machine::blank(params, SmallVec::new(), Host::none(), 1);
        m.cancel_pass = params.cancel_pass;
        match decoded {
            Err(e) => {
                // P1: one error event at pass 0 with the req of S3.
                let req = crate::format::check_req(upload);
                m.check = Some(e);
                m.runnable = false;
                // The RUN is taken in pass 0 (S11): with no pass at all
                // (max_passes 0, out of range) there is no event.
                if params.max_passes > 0 {
                    let aux = u32::from(e.reason.number()) | e.pc << 8;
                    m.kernel.post(kind::STREAM_ERROR, req, aux);
                }
            }
            Ok(program) => {
                m.programs.push(program);
                m.start(0, 0, upload.len() as u32, 0);
                // Some room for the answer up front, so that short runs do
                // not grow the vectors in the pass loop (more would cost
                // every tiny run a large allocation; `reserve` gives more).
                m.kernel.commands.reserve(32);
                m.kernel.events.reserve(4);
            }
        }
        m
    }

    /// Sets up a kernel scenario (S26): every upload a RUN names is checked
    /// and decoded now, so that the passes allocate nothing.
    pub fn new_scenario(scenario: &Scenario) -> Machine {
        let mut programs = SmallVec::new();
        let host = Host::new(scenario, &mut programs);
        let runs = host.run_count();
        let mut m = Machine::blank(scenario.params(), programs, host, runs);
        m.kernel.record_owners = true;
        m.kernel.commands.reserve(32);
        m.kernel.owners.reserve(32);
        m.kernel.events.reserve(4 + runs);
        m
    }

    /// Starts a stream running program `program` (S11, S28): registers 0 but
    /// r15 = seed, its own steps, latest result and pending count.
    pub(super) fn start(&mut self, program: u16, offset: u32, length: u32, pass: u64) -> usize {
        let h = self.programs[usize::from(program)].head;
        let index = self.streams.len();
        let mut regs = [0u32; 16];
        regs[15] = h.seed;
        let meta = StreamMeta {
            pc: 0,
            steps: 0,
            max_steps: h.max_steps,
            pending: 0,
            latest_result: 0,
            req: h.req,
            // S13, S31: deadline_passes, else the header's when it is not 0.
            deadline: self
                .params
                .deadline_passes
                .or((h.deadline_us != 0).then_some(u64::from(h.deadline_us))),
            life: Life::Active,
            index: index as u16,
            program,
            exclusive_mark: None,
            waiting: Waiting::No,
        };
        self.streams.push(Stream {
            meta,
            regs,
            end: StreamEnd {
                offset,
                length,
                pass,
                ..StreamEnd::default()
            },
        });
        self.active[self.n_active] = index as u16;
        self.n_active += 1;
        index
    }

    /// Reserves room in the result vectors and the whole job queue (so a
    /// run of known size allocates nothing).
    pub fn reserve(&mut self, commands: usize, events: usize) {
        self.kernel.commands.reserve(commands);
        if self.kernel.record_owners {
            self.kernel.owners.reserve(commands);
        }
        self.kernel.events.reserve(events);
        self.kernel.queue.reserve_all();
    }

    /// Runs the passes with the given fast variant, calling `obs`'s hooks.
    /// A machine runs once; calling `run` again does nothing.
    pub fn run<O: Observer>(&mut self, dispatch: Dispatch, obs: &mut O) {
        for p in &mut self.programs {
            dispatch::prepare::<O>(dispatch, &mut p.insts);
        }
        if self.runnable && !self.ran {
            self.ran = true;
            self.passes(dispatch, obs);
        }
    }

    /// The answer of a one-stream run (S24).
    pub fn into_result(self) -> SimResult {
        let end = self.streams.first().map(|s| s.end).unwrap_or_default();
        let (status, error) = match (self.check, self.streams.first()) {
            // No pass ran (max_passes 0, out of range): no event, no error.
            (Some(_), _) if self.params.max_passes == 0 => (Status::Stuck, None),
            (Some(e), _) => (Status::Error, Some(e)),
            (None, Some(s)) => (status_of(s.meta.life), end.error),
            (None, None) => (Status::Stuck, None),
        };
        let passes = self.kernel.events.last().map_or(0, |e| e.pass_index + 1);
        SimResult {
            params: self.params,
            check: self.check,
            commands: self.kernel.commands,
            events: self.kernel.events,
            status,
            passes,
            error,
            halt: end.halt,
            stopped: self.kernel.stopped,
        }
    }

    /// The answer of a scenario (S36).
    pub fn into_scenario_result(self) -> ScenarioResult {
        let streams = self
            .streams
            .iter()
            .map(|Stream { meta: s, end, .. }| StreamOutcome {
                req: s.req,
                offset: end.offset,
                length: end.length,
                pass: end.pass,
                status: status_of(s.life),
                error: end.error,
                halt: end.halt,
            })
            .collect();
        let passes = self.kernel.events.last().map_or(0, |e| e.pass_index + 1);
        let commands = self
            .kernel
            .commands
            .into_iter()
            .zip(self.kernel.owners)
            .map(|(command, owner)| ScenarioCommand {
                command,
                stream: (owner != kernel::HOST).then_some(usize::from(owner)),
            })
            .collect();
        ScenarioResult {
            params: self.params,
            streams,
            host: self.host.into_outcomes(),
            commands,
            events: self.kernel.events,
            stopped: self.kernel.stopped,
            passes,
        }
    }

    /// Takes stream `i` out of the active list (it ended).
    fn deactivate(&mut self, i: usize) {
        if let Some(k) = self.active[..self.n_active]
            .iter()
            .position(|&a| usize::from(a) == i)
        {
            self.active.copy_within(k + 1..self.n_active, k);
            self.n_active -= 1;
        }
    }

    /// Ends stream `i` with an error (S21): its own queued jobs are dropped,
    /// its commands in flight stay.
    pub(super) fn fail(&mut self, i: usize, reason: Reason, pc: u32) -> StreamError {
        let e = StreamError { reason, pc };
        let s = &mut self.streams[i].meta;
        s.life = Life::Failed;
        s.exclusive_mark = None;
        let req = s.req;
        self.kernel.drop_jobs(&mut self.streams[i].meta);
        self.kernel.post(
            kind::STREAM_ERROR,
            req,
            u32::from(reason.number()) | pc << 8,
        );
        self.streams[i].end.error = Some(e);
        self.deactivate(i);
        e
    }

    /// The tests before the next micro-op, when the folded counter says the
    /// steps ran out (S17): the end of the program first, then the step limit.
    fn step_limit(&mut self, i: usize) -> TurnEnd {
        let program = usize::from(self.streams[i].meta.program);
        let op_count = self.programs[program].head.op_count;
        let pc = self.streams[i].meta.pc;
        let e = if pc == op_count {
            self.fail(i, Reason::BadJump, op_count)
        } else {
            self.fail(i, Reason::StepLimit, pc)
        };
        TurnEnd::Error(e)
    }

    /// Whether the pass after the current one is a quick pass for stream
    /// `i`, the one active stream, whose turn just used its whole budget:
    /// no slot can be acknowledged or late, no host command is due, the
    /// queue is empty (so its turn does nothing) and the stream has a whole
    /// budget of steps left (module doc).
    /// Takes the machine's parts one by one, so that the turn can hold its
    /// stream across the call.
    fn next_pass_is_quick(
        kernel: &Kernel,
        params: &Params,
        cancel_pass: Option<u64>,
        host: &Host,
        s: &StreamMeta,
    ) -> bool {
        let next = kernel.pass + 1;
        kernel.queue.len() == 0
            && next < kernel.next_change
            && next < params.max_passes
            && cancel_pass != Some(next)
            && host.next_due() > next
            && u64::from(s.max_steps - s.steps) >= 2 * u64::from(params.turn_budget)
    }

    /// How many passes after the current one are quick passes for stream
    /// `i` (as [`Machine::next_pass_is_quick`], pass after pass) if its turns
    /// in them change nothing the kernel reads: the turns a chain may run
    /// after this one without returning (module doc, "Spans of quick
    /// passes"). Bounded so that the chain's fuel fits in a `u32`.
    /// The parts as for [`Machine::next_pass_is_quick`].
    fn quick_span(
        kernel: &Kernel,
        params: &Params,
        cancel_pass: Option<u64>,
        host: &Host,
        s: &StreamMeta,
    ) -> u32 {
        let p = kernel.pass;
        let budget = params.turn_budget;
        if kernel.queue.len() != 0 || budget == 0 {
            return 0;
        }
        // Pass p + k is quick while p + k is below each of these.
        let mut end = kernel
            .next_change
            .min(params.max_passes)
            .min(host.next_due());
        if let Some(c) = cancel_pass
            && c > p
        {
            end = end.min(c);
        }
        let by_passes = end.saturating_sub(p + 1);
        // ...and while the steps left before its turn are at least two
        // budgets: (k + 1) budgets in all, counting this turn's.
        let by_steps = u64::from((s.max_steps - s.steps) / budget).saturating_sub(1);
        let by_fuel = u64::from(u32::MAX / budget - 1);
        by_passes.min(by_steps).min(by_fuel) as u32
    }

    /// One turn of stream `i` (S17). Returns the micro-ops it ran, why it
    /// ended and the stream's pc after it. With `QUICK` (the pass loop's quick path, a copy of its own so
    /// that the other turns carry none of its tests: `i` is the one active
    /// stream and nothing else can happen), a turn that uses its whole
    /// budget ends its pass and the next quick pass's turn runs at once,
    /// without the trip through the pass loop; `kernel.pass` says which pass
    /// the last turn was in. The stream's wait, if it waited, no longer
    /// holds: `turns` tests it (a quick pass's stream did not wait).
    #[inline(always)]
    fn turn<O: Observer, const QUICK: bool>(
        &mut self,
        i: usize,
        dispatch: Dispatch,
        obs: &mut O,
        turns: &mut Turns<O>,
    ) -> (u32, TurnEnd, u32) {
        let budget = self.params.turn_budget;
        // The stream's one borrow for the whole turn, beside the kernel's:
        // indexing `streams` again after the dispatch cost a reload and a
        // bounds check a turn.
        let stream = &mut self.streams[i];
        debug_assert!(
            !stream.meta.waiting.holds(&self.kernel, &stream.meta),
            "the caller tests the wait"
        );
        // The one counter of the hot path: the budget and the steps left.
        let fuel = budget.min(stream.meta.max_steps - stream.meta.steps);
        if fuel == 0 {
            let pc = stream.meta.pc;
            if budget == 0 {
                // Out of range (S25); like the reference model, a turn that runs nothing.
                return (0, TurnEnd::Budget, pc);
            }
            return (0, self.step_limit(i), pc);
        }
        // The program's pointers, set again only when another stream than
        // the last one takes its turn (`Turns`).
        if turns.stream != i {
            let program = &self.programs[usize::from(stream.meta.program)];
            turns.ctx.base = program.insts.as_ptr();
            turns.ctx.templates = program.templates.as_ptr();
            turns.stream = i;
        }
        let ctx = &mut turns.ctx;
        let base = ctx.base;
        let obs_ptr: *mut O = obs;
        // An observer of no size (`NoObserver`) is reached through the
        // well-aligned pointer `Turns::new` set; any other's pointer is taken
        // again, as the pass loop uses the observer between the turns.
        if size_of::<O>() != 0 {
            ctx.obs = obs_ptr;
        }
        // `fuel` is what this turn started with; `chain` what the next entry
        // into the handlers gets: the rest of this turn, plus `span` whole
        // budgets when the turns of the next `span` quick passes run in the
        // same chain (module doc, "Spans of quick passes").
        let mut fuel = fuel;
        let mut chain = fuel;
        let mut span = 0;
        if QUICK && !O::ENABLED && !O::EVERY_PASS {
            span = Self::quick_span(
                &self.kernel,
                &self.params,
                self.cancel_pass,
                &self.host,
                &stream.meta,
            );
            chain += span * budget;
        }
        let (exit, pc, exit_ip, left) = loop {
            // SAFETY: the stream's pc is at most op_count (it starts at 0 and only
            // handlers move it, always inside the program, End at op_count).
            let ip = unsafe { base.add(stream.meta.pc as usize) };
            let regs = stream.regs.as_mut_ptr();
            ctx.kernel = &mut self.kernel;
            ctx.stream = &mut stream.meta;
            ctx.spanning = span != 0;
            let erased = ctx as *mut Ctx<O> as *mut ();
            // SAFETY: the handler contract (handler.rs): `ip` in the decoded
            // program, `regs` the stream's 16 registers, `erased` the live
            // `Ctx<O>` above whose pointers are disjoint (the program's
            // still those of stream `i`'s), `chain >= 1`; a threaded
            // program had its handlers set for `O` by `run`.
            let exit = unsafe { dispatch::enter::<O>(dispatch, ip, regs, erased, chain) };
            let pc = ctx.pc(ctx.exit_ip);
            let mut left = ctx.exit_fuel;
            if span != 0 {
                // The chain ran whole turns of `budget` micro-ops, one per
                // quick pass, then stopped in the turn of pass `pass + k`
                // (at its very start when `used` is a multiple of the budget
                // and the exit is not the fuel's).
                let used = chain - left;
                let k = (used / budget).min(span);
                self.kernel.pass += u64::from(k);
                stream.meta.steps += k * budget;
                left = fuel - (used - k * budget);
                span = 0;
                if exit == Exit::Resync {
                    // Run that micro-op, and the rest of the turn, knowing the pass.
                    stream.meta.pc = pc;
                    chain = left;
                    continue;
                }
            }
            if !(QUICK
                && exit == Exit::Fuel
                && fuel == budget
                && Self::next_pass_is_quick(
                    &self.kernel,
                    &self.params,
                    self.cancel_pass,
                    &self.host,
                    &stream.meta,
                ))
            {
                break (exit, pc, ctx.exit_ip, left);
            }
            // The turn used its budget and nothing else can happen before
            // the stream's next turn (module doc): end this pass here, with
            // the same hooks as the pass loop, and run the next turn at once.
            let p = self.kernel.pass;
            let s = &mut stream.meta;
            s.pc = pc;
            s.steps += budget;
            s.waiting = Waiting::No;
            obs.on_turn_end(p, i, budget, TurnEnd::Budget, pc);
            obs.on_pass_end(p, self.kernel.busy.count_ones(), 0);
            self.kernel.pass = p + 1;
            fuel = budget;
            chain = budget;
            if !O::ENABLED && !O::EVERY_PASS {
                span = Self::quick_span(
                    &self.kernel,
                    &self.params,
                    self.cancel_pass,
                    &self.host,
                    &stream.meta,
                );
                chain += span * budget;
            }
        };
        let mut ran = fuel - left;
        let s = &mut stream.meta;
        s.pc = pc;
        // Every exit counts the micro-ops that completed (S17); one match
        // sets both what the stream waits for and why the turn ended.
        s.steps += ran;
        let why = match exit {
            Exit::Fuel => {
                s.waiting = Waiting::No;
                if fuel == budget {
                    TurnEnd::Budget
                } else {
                    self.step_limit(i)
                }
            }
            Exit::WaitSlots => {
                s.waiting = Waiting::Slots;
                TurnEnd::WaitSlots
            }
            Exit::WaitQueueFull => {
                s.waiting = Waiting::QueueFull;
                TurnEnd::WaitQueueFull
            }
            Exit::WaitExclusive => {
                s.waiting = Waiting::No;
                TurnEnd::WaitExclusive
            }
            Exit::WaitPending => {
                // SAFETY: `exit_ip` is the waiting WAIT, in the program (the
                // handler contract); read in place, without a bounds check.
                s.waiting = Waiting::Pending(unsafe { (*exit_ip).imm });
                TurnEnd::Wait
            }
            Exit::HaltPending => {
                s.waiting = Waiting::Halt;
                TurnEnd::HaltPending
            }
            Exit::Error => {
                s.waiting = Waiting::No;
                TurnEnd::Error(self.fail(i, ctx.reason, pc))
            }
            Exit::Halt => {
                // S17: a HALT that ends the stream counts one step.
                if O::ENABLED {
                    // SAFETY: `ctx.obs` is the `obs` borrowed for this turn;
                    // the dispatch loop has returned, so nothing else uses it.
                    unsafe { (*obs_ptr).on_op(pc) };
                }
                let halt = ctx.halt;
                ran += 1;
                s.steps += 1;
                s.waiting = Waiting::No;
                s.life = Life::Ended;
                let req = s.req;
                stream.end.halt = Some(halt);
                self.kernel.post(kind::STREAM_END, req, halt);
                self.deactivate(i);
                TurnEnd::Halt(halt)
            }
            // Only a chain spanning quick passes returns it, and the loop
            // above runs the micro-op again.
            Exit::Resync => unreachable!("a resync left the turn loop"),
        };
        (ran, why, pc)
    }

    /// [`Machine::turn`] as a call of its own.
    #[inline(never)]
    fn turn_call<O: Observer, const QUICK: bool>(
        &mut self,
        i: usize,
        dispatch: Dispatch,
        obs: &mut O,
        turns: &mut Turns<O>,
    ) -> (u32, TurnEnd, u32) {
        self.turn::<O, QUICK>(i, dispatch, obs, turns)
    }

    /// True when the run is over (S16, S35): the grid stopped, or no stream
    /// is active, no command is in flight, the queue is empty and no host
    /// command is waiting or due.
    ///
    /// The pass loop returns at once when the grid stops (`late`), so
    /// `stopped` is not tested here; the active streams are, first, as they
    /// settle it in nearly every pass.
    fn finished(&self) -> bool {
        debug_assert!(
            !self.kernel.stopped,
            "the pass loop returns when the grid stops"
        );
        self.n_active == 0
            && self.kernel.busy == 0
            && self.kernel.queue.len() == 0
            && self.host.done()
    }

    /// The turns of pass `p` (S29): the streams active now, in start order,
    /// then the queue, the first being submitter `p % (n + 1)`: whether
    /// anything changed, and whether one stream is active and its turn
    /// ended by its budget (with one stream, a turn that ends by its budget
    /// leaves it active: the test is only the rotation's).
    fn turns<O: Observer>(
        &mut self,
        p: u64,
        dispatch: Dispatch,
        obs: &mut O,
        turns: &mut Turns<O>,
    ) -> (bool, bool) {
        let n = self.n_active;
        self.kernel.queue_moved = false;
        if n == 1 {
            // One stream (S29): it goes first in even passes, the queue in
            // odd ones; written out, without the rotation's loop.
            let i = usize::from(self.active[0]);
            if p & 1 != 0 {
                self.kernel.queue_turn(obs);
            }
            let (moved, budget_ended) = self.stream_turn::<O, true>(i, p, dispatch, obs, turns);
            if p & 1 == 0 {
                self.kernel.queue_turn(obs);
            }
            return (moved | self.kernel.queue_moved, budget_ended);
        }
        let submitters = self.active;
        let mut moved = false;
        let mut budget_ended = false;
        let mut who = (p % (n as u64 + 1)) as usize;
        for _ in 0..=n {
            if who < n {
                let i = usize::from(submitters[who]);
                let (m, b) = self.stream_turn::<O, false>(i, p, dispatch, obs, turns);
                moved |= m;
                budget_ended = b;
            } else {
                self.kernel.queue_turn(obs);
            }
            who = if who == n { 0 } else { who + 1 };
        }
        (
            moved | self.kernel.queue_moved,
            budget_ended && self.n_active == 1,
        )
    }

    /// The turn of stream `i` in pass `p`: whether it changed anything, and
    /// whether its budget ended it. The stream is active: the active list
    /// holds only active streams (a stream that ends leaves it at once), and
    /// no turn ends another stream, so every stream of the list taken at
    /// the start of the turns is still active at its own turn.
    /// `INLINE`: the turn's code is written out here (the one-stream path
    /// of every pass), else called (the rotation over several streams).
    #[inline(always)]
    fn stream_turn<O: Observer, const INLINE: bool>(
        &mut self,
        i: usize,
        p: u64,
        dispatch: Dispatch,
        obs: &mut O,
        turns: &mut Turns<O>,
    ) -> (bool, bool) {
        let s = &self.streams[i].meta;
        debug_assert!(s.life == Life::Active, "an ended stream in the active list");
        // A micro-op that waited and whose condition still holds waits
        // again (its operands cannot have changed): the turn ends at once,
        // without dispatching it.
        // (With turn_budget 0, out of range, no turn runs a micro-op, so no
        // stream ever waits.)
        let (ran, why, pc) = if s.waiting.holds(&self.kernel, s) {
            (0, wait_end(s.waiting), s.pc)
        } else if INLINE {
            self.turn::<O, false>(i, dispatch, obs, turns)
        } else {
            self.turn_call::<O, false>(i, dispatch, obs, turns)
        };
        obs.on_turn_end(p, i, ran, why, pc);
        (ran != 0 || !why.is_wait(), why == TurnEnd::Budget)
    }

    /// The passes 0 .. max_passes (S16, S35).
    fn passes<O: Observer>(&mut self, dispatch: Dispatch, obs: &mut O) {
        let max_passes = self.params.max_passes;
        let cancel = self.cancel_pass;
        // The first pass whose host-command phase has anything to do: the
        // next host command due, or the cancel pass (`u64::MAX`: none).
        // Only the host phase changes it, so it is found again only there.
        let mut host_at = self.host.next_due().min(cancel.unwrap_or(u64::MAX));
        let mut turns = Turns::<O>::new();
        let mut p = 0u64;
        // The last turn of the (one) active stream ended by its budget.
        let mut budget_ended = false;
        while p < max_passes {
            self.kernel.pass = p;
            // The sweep being due fails the test most often: it comes first.
            if budget_ended
                && p < self.kernel.next_change
                && self.n_active == 1
                && self.kernel.queue.len() == 0
                && p < host_at
            {
                // A quick pass: no slot can be acknowledged or late, no host
                // command, and the queue is empty when the stream's turn
                // starts, so a queue turn before it does nothing. The stream
                // (still active: its last turn ended by the budget) takes its
                // turn, then the queue if it comes second (even passes).
                self.kernel.queue_moved = false;
                let i = usize::from(self.active[0]);
                let (ran, why, pc) = self.turn_call::<O, true>(i, dispatch, obs, &mut turns);
                p = self.kernel.pass;
                budget_ended = why == TurnEnd::Budget;
                obs.on_turn_end(p, i, ran, why, pc);
                if p & 1 == 0 {
                    self.kernel.queue_turn(obs);
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
                continue;
            }
            // 1, 2: the sweep and the deadlines, only when a slot can change.
            if p >= self.kernel.next_change
                && self.kernel.sweep(&mut self.streams, obs)
                && let Some(slot) = self.kernel.lowest_late()
            {
                self.late(slot);
                obs.on_pass_end(
                    p,
                    self.kernel.busy.count_ones(),
                    self.kernel.queue.len() as u32,
                );
                return;
            }
            // 3: host commands: a scenario's (S26), or the one stream's cancel (S15).
            let mut moved = false;
            if p >= host_at {
                moved = self.host_phase(p, obs);
                if cancel == Some(p) && self.n_active == 1 {
                    let i = usize::from(self.active[0]);
                    let pc = self.streams[i].meta.pc;
                    self.fail(i, Reason::Cancelled, pc);
                    moved = true;
                }
                // A host command that waits is due again in the next pass.
                host_at = self.host.next_due();
                if let Some(c) = cancel
                    && c > p
                {
                    host_at = host_at.min(c);
                }
            }
            // 4: the turns (S29).
            let turned;
            (turned, budget_ended) = self.turns(p, dispatch, obs, &mut turns);
            moved |= turned;
            obs.on_pass_end(
                p,
                self.kernel.busy.count_ones(),
                self.kernel.queue.len() as u32,
            );
            if self.n_active != 0 {
                // The run goes on (the common case, settled by one test).
                if moved {
                    p += 1;
                    continue;
                }
            } else if self.finished() {
                return;
            } else if moved {
                p += 1;
                continue;
            }
            // Idle: jump to the next pass where the sweep, the deadlines or
            // the host can change something (module doc).
            let mut next = self.kernel.next_change.min(max_passes);
            // A host command due later; one already due waits on the slots
            // or the queue, which only the sweep or a turn can change.
            let due = self.host.next_due();
            if due > p {
                next = next.min(due);
            }
            if let Some(c) = cancel
                && c > p
                && self.n_active > 0
            {
                next = next.min(c);
            }
            let next = next.max(p + 1);
            if next > p + 1 {
                obs.on_idle(p + 1, next);
            }
            p = next;
        }
    }

    /// The deadline phase found `slot` late (S14, S33): the grid stops.
    fn late(&mut self, slot: usize) {
        let s = self.kernel.slots[slot];
        self.kernel.stopped = true;
        let owner = usize::from(s.owner);
        if s.owner != kernel::HOST && self.streams[owner].meta.life == Life::Active {
            // Its record holds the pc of its SUBMIT or ENQUEUE.
            let pc = self.kernel.commands[s.seq as usize].pc;
            self.fail(owner, Reason::Deadline, pc);
        } else {
            // An ended stream's, or the host's (req 0).
            let req = self.streams.get(owner).map_or(0, |st| st.meta.req);
            self.kernel.post(kind::TIMEOUT, req, slot as u32);
        }
        // S33: every other active stream ends at its current pc, in start order.
        while self.n_active > 0 {
            let i = usize::from(self.active[0]);
            let pc = self.streams[i].meta.pc;
            self.fail(i, Reason::Deadline, pc);
        }
    }
}

/// The turns' context, kept from one turn to the next by the pass loop: a
/// turn sets again only what can have changed since the last one (the
/// pointers to the kernel, the stream and the observer, which the pass loop
/// uses in between, and whether it spans), and the program's pointers only
/// when another stream takes it. The exit point, the reason and the halt
/// register are written by the exits that report them. Made afresh each
/// turn, the context cost submit_heavy's turns about 12 instructions each.
struct Turns<O: Observer> {
    ctx: Ctx<O>,
    /// The stream whose program `ctx` points into (`usize::MAX`: none yet).
    stream: usize,
}

impl<O: Observer> Turns<O> {
    fn new() -> Turns<O> {
        let null = std::ptr::null();
        Turns {
            ctx: Ctx {
                kernel: std::ptr::null_mut(),
                stream: std::ptr::null_mut(),
                // Valid for an observer of no size (`Machine::turn`).
                obs: std::ptr::NonNull::dangling().as_ptr(),
                base: null,
                templates: std::ptr::null(),
                exit_ip: null,
                exit_fuel: 0,
                reason: Reason::BadJump,
                halt: 0,
                spanning: false,
            },
            stream: usize::MAX,
        }
    }
}

/// How a turn ends whose waiting micro-op still waits.
#[inline]
fn wait_end(waiting: Waiting) -> TurnEnd {
    match waiting {
        Waiting::Slots => TurnEnd::WaitSlots,
        Waiting::QueueFull => TurnEnd::WaitQueueFull,
        Waiting::Pending(_) => TurnEnd::Wait,
        _ => TurnEnd::HaltPending,
    }
}

/// A stream's status in the answer: a stream still active when the run
/// stops is stuck (S16, S35).
fn status_of(life: Life) -> Status {
    match life {
        Life::Active => Status::Stuck,
        Life::Ended => Status::Ended,
        Life::Failed => Status::Error,
    }
}
