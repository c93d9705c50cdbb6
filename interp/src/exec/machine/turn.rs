//! One turn of one stream (S17) around the dispatch loops, and the turns
//! of a pass in rotation (S29). The fuel the turn runs on, and how a span
//! of quick passes is split back into turns, is the budget's
//! ([`budget`](super::budget)).

use super::Machine;
use super::budget;
use super::streams::wait_end;
use crate::exec::bodies::Ctx;
#[cfg(feature = "jit")]
use crate::exec::decode::Program;
use crate::exec::dispatch::{self, Dispatch};
use crate::exec::inst::Exit;
use crate::exec::kernel::{Life, Waiting};
use crate::exec::observer::{Observer, TurnEnd};
use crate::types::Reason;
use crate::types::result::kind;

impl Machine {
    /// One turn of stream `i` (S17). Returns the micro-ops it ran, why it
    /// ended and the stream's pc after it. With `QUICK` (the pass loop's quick path, a copy of its own so
    /// that the other turns carry none of its tests: `i` is the one active
    /// stream and nothing else can happen), a turn that uses its whole
    /// budget ends its pass and the next quick pass's turn runs at once,
    /// without the trip through the pass loop; `kernel.pass` says which pass
    /// the last turn was in. The stream's wait, if it waited, no longer
    /// holds: `turns` tests it (a quick pass's stream did not wait).
    #[inline(always)]
    pub(super) fn turn<O: Observer, const QUICK: bool>(
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
        let fuel = budget::turn_fuel(budget, &stream.meta);
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
            #[cfg(feature = "jit")]
            {
                turns.ctx.code = program.code.get().map(|c| c.entry());
                turns.ctx.program = (program as *const Program).cast();
            }
            // The stencil variant's code; the tiered variant's first tier
            // until Cranelift's is made (compiled/tiered.rs).
            #[cfg(feature = "stencil")]
            {
                #[cfg(feature = "jit")]
                let first_tier = dispatch == Dispatch::Tiered && turns.ctx.code.is_none();
                #[cfg(not(feature = "jit"))]
                let first_tier = false;
                if dispatch == Dispatch::Stencil || first_tier {
                    turns.ctx.code = program.stencil.get().map(|c| c.entry());
                }
            }
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
        // same chain (machine/mod.rs, "Spans of quick passes"; the span's
        // length is budget.rs's `quick_span`).
        let mut fuel = fuel;
        let mut chain = fuel;
        let mut span = 0;
        if QUICK && !O::ENABLED && !O::EVERY_PASS {
            span = budget::quick_span(
                &self.kernel,
                &self.params,
                turns.limit,
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
                let k;
                (k, left) = budget::split_span(chain, left, fuel, budget, span);
                self.kernel.pass += u64::from(k);
                stream.meta.steps += k * budget;
                span = 0;
                if exit == Exit::Resync {
                    // Run that micro-op, and the rest of the turn, knowing the pass.
                    stream.meta.pc = pc;
                    chain = left;
                    continue;
                }
            }
            // (`budget == fuel` is implied by the next pass being quick,
            // whose test asks for two budgets of steps left; it is the
            // cheap test first.)
            if !(QUICK
                && exit == Exit::Fuel
                && budget == fuel
                && budget::next_pass_is_quick(
                    &self.kernel,
                    &self.params,
                    turns.limit,
                    self.cancel_pass,
                    &self.host,
                    &stream.meta,
                ))
            {
                break (exit, pc, ctx.exit_ip, left);
            }
            // The turn used its budget and nothing else can happen before
            // the stream's next turn (budget.rs, "Quick passes"): end this
            // pass here, with the same hooks as the pass loop, and run the
            // next turn at once.
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
                span = budget::quick_span(
                    &self.kernel,
                    &self.params,
                    turns.limit,
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
    pub(super) fn turn_call<O: Observer, const QUICK: bool>(
        &mut self,
        i: usize,
        dispatch: Dispatch,
        obs: &mut O,
        turns: &mut Turns<O>,
    ) -> (u32, TurnEnd, u32) {
        self.turn::<O, QUICK>(i, dispatch, obs, turns)
    }

    /// The turns of pass `p` (S29): the streams active now, in start order,
    /// then the queue, the first being submitter `p % (n + 1)`: whether
    /// anything changed, and whether one stream is active and its turn
    /// ended by its budget (with one stream, a turn that ends by its budget
    /// leaves it active: the test is only the rotation's).
    pub(super) fn turns<O: Observer>(
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
    pub(super) fn stream_turn<O: Observer, const INLINE: bool>(
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
}

/// The turns' context, kept from one turn to the next by the pass loop: a
/// turn sets again only what can have changed since the last one (the
/// pointers to the kernel, the stream and the observer, which the pass loop
/// uses in between, and whether it spans), and the program's pointers only
/// when another stream takes it. The exit point, the reason and the halt
/// register are written by the exits that report them. Kept, not made
/// afresh each turn, which cost every turn (decisions.md D16).
pub(super) struct Turns<O: Observer> {
    ctx: Ctx<O>,
    /// The stream whose program `ctx` points into (`usize::MAX`: none yet).
    stream: usize,
    /// The pass this piece of the run stops before: `max_passes` for a
    /// whole run (`Machine::passes`); it bounds the spans of quick passes.
    /// Here and not in `Machine`, so that a run that never pauses moves
    /// no larger machine (decisions.md D39).
    pub(super) limit: u64,
}

impl<O: Observer> Turns<O> {
    pub(super) fn new(limit: u64) -> Turns<O> {
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
                #[cfg(feature = "compiled")]
                code: None,
                #[cfg(feature = "jit")]
                program: std::ptr::null(),
            },
            stream: usize::MAX,
            limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::builder::Stream;
    #[cfg(feature = "jit")]
    use crate::exec::Machine;
    use crate::exec::{Dispatch, simulate};
    use crate::types::{Params, Reason, Status, StreamError};

    /// `n` ADDIs then HALT r0, with `max_steps` steps.
    fn adds_then_halt(n: usize, max_steps: u64) -> Vec<u8> {
        let mut s = Stream::new(0, max_steps, 1, 7).unwrap();
        let r = s.registers(1).unwrap()[0];
        for _ in 0..n {
            s.addi(r, r, 1).unwrap();
        }
        s.halt(r);
        s.encode().unwrap()
    }

    fn budget(turn_budget: u32) -> Params {
        Params {
            turn_budget,
            ..Params::default()
        }
    }

    /// S17 with one stream: each pass is one turn of `budget` micro-ops,
    /// so micro-op k (HALT is k = 200) runs in pass k / budget, and the
    /// answer's passes (S16: the last event's pass plus one) are
    /// 200 / budget + 1, whether the turns run one by one or in spans of
    /// quick passes, on every variant.
    #[test]
    fn each_turn_runs_its_budget() {
        let upload = adds_then_halt(200, 100_000);
        for (b, passes) in [(1, 201), (2, 101), (3, 67), (63, 4), (64, 4), (256, 1)] {
            for &d in Dispatch::ALL {
                let r = simulate(&upload, &budget(b), d);
                assert_eq!(r.status, Status::Ended, "budget {b}, {d}");
                assert_eq!(r.halt, Some(200), "budget {b}, {d}");
                assert_eq!(r.passes, passes, "budget {b}, {d}");
            }
        }
    }

    /// S17: after 150 steps the 151st micro-op (pc 150) fails with the
    /// step limit, in the pass whose turn would run it: 150 / budget.
    /// With a budget of 64 that turn (pass 2) starts with the 22 steps
    /// left and stops inside a block.
    #[test]
    fn the_step_limit_ends_a_turn_early() {
        let upload = adds_then_halt(200, 150);
        for (b, pass) in [(1, 150), (2, 75), (3, 50), (64, 2)] {
            for &d in Dispatch::ALL {
                let r = simulate(&upload, &budget(b), d);
                let want = StreamError {
                    reason: Reason::StepLimit,
                    pc: 150,
                };
                assert_eq!(r.error, Some(want), "budget {b}, {d}");
                assert_eq!(r.passes, pass + 1, "budget {b}, {d}");
            }
        }
    }

    /// The RUNs of one place share one program (the region does not change
    /// during a scenario, S36): three RUNs of `addi r0, r0, 1 ×5; halt r0`
    /// at offset 0 (passes 0, 1 and 2) and one of the same bytes at 1024
    /// (pass 3) decode two programs, not four; every stream halts with 5
    /// in the pass it starts in (S28: each RUN starts its own stream,
    /// registers zero; each ends before the next starts, so no two share
    /// a req at once, S6).
    #[test]
    fn runs_of_one_place_share_a_program() {
        use crate::exec::{Machine, NoObserver};
        use crate::scenario::ScenarioBuilder;
        let mut s = Stream::new(0, 100, 1, 7).unwrap();
        let r = s.registers(1).unwrap()[0];
        for _ in 0..5 {
            s.addi(r, r, 1).unwrap();
        }
        s.halt(r);
        let mut b = ScenarioBuilder::new(Params::default()).unwrap();
        b.place_stream(0, &s).unwrap();
        b.place_stream(1024, &s).unwrap();
        for pass in 0..3 {
            b.run(pass, 0).unwrap();
        }
        b.run(3, 1024).unwrap();
        let mut m = Machine::new_scenario(&b.build());
        assert_eq!(m.programs.len(), 2);
        m.run(Dispatch::ALL[0], &mut NoObserver);
        let r = m.into_scenario_result();
        assert_eq!(r.streams.len(), 4);
        for st in &r.streams {
            assert_eq!((st.status, st.halt), (Status::Ended, Some(5)));
        }
    }

    /// A machine runs once (`Machine::run`): a second call runs no pass
    /// and hears nothing, whether the first ran the stream (five ADDIs,
    /// HALT r = 5 in pass 0) or the check refused the upload (no stream: a
    /// seed of 0 is `Reason::BadHeader`, S2).
    #[test]
    fn a_machine_runs_once() {
        use crate::exec::observer::{Observer, TurnEnd};
        use crate::exec::{Machine, NoObserver};
        #[derive(Default)]
        struct Heard(u32);
        impl Observer for Heard {
            const ENABLED: bool = true;
            fn on_op(&mut self, _: u32) {
                self.0 += 1;
            }
            fn on_turn_end(&mut self, _: u64, _: usize, _: u32, _: TurnEnd, _: u32) {
                self.0 += 1;
            }
            fn on_pass_end(&mut self, _: u64, _: u32, _: u32) {
                self.0 += 1;
            }
            fn on_idle(&mut self, _: u64, _: u64) {
                self.0 += 1;
            }
        }
        let good = adds_then_halt(5, 100);
        let mut refused = good.clone();
        let at = crate::format::header_at::SEED;
        refused[at..at + 4].copy_from_slice(&0u32.to_le_bytes());
        for upload in [good, refused] {
            for &d in Dispatch::ALL {
                let mut m = Machine::new(&upload, &Params::default());
                m.run(d, &mut NoObserver);
                let mut heard = Heard::default();
                m.run(d, &mut heard);
                assert_eq!(heard.0, 0, "{d}");
                let r = m.into_result();
                assert_eq!(r, simulate(&upload, &Params::default(), d), "{d}");
                assert_eq!(r.halt.is_some(), upload[at] != 0, "{d}");
            }
        }
        let r = simulate(
            &adds_then_halt(5, 100),
            &Params::default(),
            Dispatch::ALL[0],
        );
        assert_eq!((r.halt, r.passes), (Some(5), 1));
    }

    /// `acc = 0; n = N; loop: acc += 3; n -= 1; jnz n loop; halt acc`:
    /// six micro-ops, HALT micro-op k = 2 + 3N of the run, acc = 3N.
    #[cfg(feature = "jit")]
    fn add_loop(n: u64, req: u64) -> Stream {
        let mut s = Stream::new(0, 10_000_000, 1, req).unwrap();
        let r = s.registers(2).unwrap();
        let (acc, left) = (r[0], r[1]);
        s.set(acc, 0).unwrap();
        s.set(left, n as i64).unwrap();
        let top = s.label();
        s.addi(acc, acc, 3).unwrap();
        s.addi(left, left, -1).unwrap();
        s.jnz(left, top);
        s.halt(acc);
        s
    }

    /// The micro-ops of turns that ran out of fuel after which the tiered
    /// variant has moved a program of `op_count` micro-ops to its last tier
    /// (Cranelift's): through the stencil code where the build has it.
    #[cfg(feature = "jit")]
    fn last_tier(op_count: u32) -> u64 {
        use crate::exec::decode::break_even;
        #[cfg(feature = "stencil")]
        {
            use crate::exec::decode::{AFTER_STENCIL, stencil_break_even};
            stencil_break_even(op_count) + AFTER_STENCIL * break_even(op_count)
        }
        #[cfg(not(feature = "stencil"))]
        break_even(op_count)
    }

    /// The tiered variant (compiled/tiered.rs) with one stream: `acc = 0;
    /// n = N; loop: acc += 3; n -= 1; jnz n loop; halt acc`. HALT is
    /// micro-op k = 2 + 3N of the run and ends it with acc = 3N; with a
    /// budget of 64 it runs in pass k / 64 (S17), so the answer has
    /// k / 64 + 1 passes (S16). Every turn but the last runs out of fuel, so
    /// the 6-micro-op program gets hot, moves up every tier and is
    /// compiled before the run ends; the answer is the same.
    #[cfg(feature = "jit")]
    #[test]
    fn the_tiered_variant_compiles_a_hot_loop_mid_run() {
        use crate::exec::NoObserver;
        let n: u64 = 500_000;
        let k = 2 + 3 * n;
        assert!(
            k > last_tier(6) + 64 * 64,
            "the loop outlasts the break-evens"
        );
        let upload = add_loop(n, 7).encode().unwrap();
        let params = budget(64);
        let mut m = Machine::new(&upload, &params);
        m.run(Dispatch::Tiered, &mut NoObserver);
        assert!(
            m.programs[0].code.get().is_some(),
            "the program got hot and was compiled"
        );
        let r = m.into_result();
        assert_eq!(r.status, Status::Ended);
        assert_eq!(r.halt, Some(3 * n as u32));
        assert_eq!(r.passes, k / 64 + 1);
    }

    /// The same loop as two streams of a scenario, placed at 0 and 1024
    /// with reqs 1 and 2 (S6: active reqs differ) and RUN in pass 0 (S28):
    /// every pass gives each its own turn of 64 micro-ops (S17, S29), so
    /// each turn is an entry of its own into the loops, not a span of
    /// quick passes. Each program gets hot from those
    /// short turns alone and is compiled; each stream's HALT is micro-op
    /// k = 2 + 3N of its run, in pass k / 64, with acc = 3N, and the
    /// answer has k / 64 + 1 passes (S16).
    #[cfg(feature = "jit")]
    #[test]
    fn the_tiered_variant_compiles_programs_hot_from_short_turns() {
        use crate::exec::NoObserver;
        use crate::scenario::ScenarioBuilder;
        let n: u64 = 500_000;
        let k = 2 + 3 * n;
        assert!(k > last_tier(6) + 64, "the loop outlasts the break-evens");
        let mut b = ScenarioBuilder::new(budget(64)).unwrap();
        for (offset, req) in [(0u32, 1), (1024, 2)] {
            b.place_stream(u64::from(offset), &add_loop(n, req))
                .unwrap();
            b.run(0, offset).unwrap();
        }
        let mut m = Machine::new_scenario(&b.build());
        m.run(Dispatch::Tiered, &mut NoObserver);
        for p in &m.programs {
            assert!(p.code.get().is_some(), "each program got hot");
        }
        let r = m.into_scenario_result();
        let outcome: Vec<_> = r.streams.iter().map(|s| (s.status, s.halt)).collect();
        let halted = (Status::Ended, Some(3 * n as u32));
        assert_eq!(outcome, vec![halted, halted]);
        assert_eq!(r.passes, k / 64 + 1);
    }

    /// With stencils, the tiered variant's first tier is the stencil code:
    /// the loop above with N = 20,000 (k = 60,002 micro-ops) outlasts
    /// `stencil_break_even(6)` (33,664) but not Cranelift's break-even
    /// after it, so the run ends with the stencil code made and no
    /// Cranelift code; the answer is the same (acc = 3N, k / 64 + 1
    /// passes).
    #[cfg(all(feature = "stencil", feature = "jit"))]
    #[test]
    fn the_tiered_variant_moves_a_hot_loop_to_the_stencil_code_first() {
        use crate::exec::NoObserver;
        use crate::exec::decode::stencil_break_even;
        if crate::exec::stencil_available().is_err() {
            return;
        }
        let n: u64 = 20_000;
        let k = 2 + 3 * n;
        assert!(k > stencil_break_even(6) + 64 && k < last_tier(6));
        let upload = add_loop(n, 7).encode().unwrap();
        let mut m = Machine::new(&upload, &budget(64));
        m.run(Dispatch::Tiered, &mut NoObserver);
        assert!(m.programs[0].stencil.get().is_some(), "stencil code made");
        assert!(m.programs[0].code.get().is_none(), "not compiled yet");
        let r = m.into_result();
        assert_eq!((r.status, r.halt), (Status::Ended, Some(3 * n as u32)));
        assert_eq!(r.passes, k / 64 + 1);
    }

    /// A kernel-dense loop skips the stencil code: `n = N; loop: time t;
    /// time t; n -= 1; jnz n loop; halt n`, two of its five micro-ops the
    /// kernel's (TIME reads the tick), so the stencils do not pay for it
    /// (`stencil::pays`: more than one in five). Its turns all run out of
    /// fuel (nothing waits); with N = 20,000 (k = 80,001 micro-ops) it gets
    /// hot past `stencil_break_even(5)` but stays interpreted, short of
    /// `break_even(5)` (311,296): neither code is made; the answer is the
    /// same (halt 0 at micro-op k, k / 64 + 1 passes).
    #[cfg(all(feature = "stencil", feature = "jit"))]
    #[test]
    fn the_tiered_variant_skips_the_stencils_for_a_kernel_dense_loop() {
        use crate::exec::NoObserver;
        use crate::exec::decode::{break_even, stencil_break_even};
        let n: u64 = 20_000;
        let k = 1 + 4 * n;
        assert!(k > stencil_break_even(5) + 64 && k < break_even(5));
        let mut s = Stream::new(0, 10_000_000, 1, 7).unwrap();
        let r = s.registers(2).unwrap();
        let (left, t) = (r[0], r[1]);
        s.set(left, n as i64).unwrap();
        let top = s.label();
        s.time(t);
        s.time(t);
        s.addi(left, left, -1).unwrap();
        s.jnz(left, top);
        s.halt(left);
        let upload = s.encode().unwrap();
        let mut m = Machine::new(&upload, &budget(64));
        m.run(Dispatch::Tiered, &mut NoObserver);
        assert!(m.programs[0].stencil.get().is_none(), "no stencil code");
        assert!(m.programs[0].code.get().is_none(), "not compiled yet");
        let r = m.into_result();
        assert_eq!((r.status, r.halt), (Status::Ended, Some(0)));
        assert_eq!(r.passes, k / 64 + 1);
    }

    /// The tiered variant leaves a program whose turns end on the kernel
    /// to the interpreter: `loop: submit; wait 0; n -= 1; jnz n loop; halt
    /// n`. With the default delay 0 each command is acknowledged by the
    /// next pass's sweep (S12), so every turn ends at the WAIT, none for
    /// want of fuel, and the program never gets hot; N commands, halt 0.
    /// N = 8,000 turns: had each counted its budget of 64, they would
    /// pass the first_break_even(5) that makes this 5-micro-op program hot.
    #[cfg(feature = "jit")]
    #[test]
    fn the_tiered_variant_leaves_a_waiting_loop_to_the_interpreter() {
        use crate::builder::Operand;
        use crate::exec::NoObserver;
        let n = 8_000;
        assert!(n as u64 * 64 > crate::exec::decode::first_break_even(5));
        let mut s = Stream::new(0, 10_000_000, 1, 7).unwrap();
        let left = s.registers(1).unwrap()[0];
        s.set(left, n).unwrap();
        let top = s.label();
        s.submit(1, (Operand::Int(0), Operand::Int(1)), &[], false, false)
            .unwrap();
        s.wait(0).unwrap();
        s.addi(left, left, -1).unwrap();
        s.jnz(left, top);
        s.halt(left);
        let upload = s.encode().unwrap();
        let mut m = Machine::new(&upload, &budget(64));
        m.run(Dispatch::Tiered, &mut NoObserver);
        assert!(m.programs[0].code.get().is_none(), "never hot");
        #[cfg(feature = "stencil")]
        assert!(m.programs[0].stencil.get().is_none(), "never hot");
        let r = m.into_result();
        assert_eq!(r.status, Status::Ended);
        assert_eq!(r.halt, Some(0));
        assert_eq!(r.commands.len(), n as usize);
    }
}
