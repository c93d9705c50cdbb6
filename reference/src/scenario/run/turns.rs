//! The turns of a pass (S29): the active streams in start order, then the
//! queue, in the rotation `p % (n + 1)`. A stream's turn (S17) runs its
//! micro-ops (docs/spec.md "Micro-ops", S18) until it waits, ends or uses
//! up its budget; SUBMIT and ENQUEUE hand their commands to the slots and
//! the queue ([`super::slots`]).

use super::{Kernel, Life};
use crate::grid;
use crate::ops;
use crate::ops::Step;
use crate::result::{Reason, kind};

impl Kernel<'_> {
    /// S29: the turns of the streams active now, in start order, then the
    /// queue, the first being submitter `pass % (n + 1)`.
    pub(super) fn turns(&mut self, pass: u64) {
        let submitters = self.active();
        let n = submitters.len();
        let first = (pass % (n as u64 + 1)) as usize;
        for k in 0..=n {
            let who = (first + k) % (n + 1);
            if who == n {
                crate::grid::queue_turn(self, pass);
            } else {
                self.stream_turn(submitters[who], pass);
            }
        }
    }

    /// S18, S30: the stream's own commands in flight plus its own jobs queued.
    fn pending(&self, s: usize) -> u64 {
        let busy = self.grid.slots.iter().flatten().filter(|b| b.owner.is(s));
        let queued = self.grid.queue.iter().filter(|j| j.owner.is(s));
        (busy.count() + queued.count()) as u64
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
            let pc = stream.run.pc;
            if pc as usize == stream.program.ops.len() {
                self.fail(s, Reason::BadJump, pc, pass);
                return;
            }
            if stream.run.steps >= stream.program.max_steps {
                self.fail(s, Reason::StepLimit, pc, pass);
                return;
            }
            match self.execute(s, pass) {
                Step::Next(next) => {
                    let stream = &mut self.streams[s];
                    stream.run.pc = next;
                    stream.run.steps += 1;
                    budget_used += 1;
                }
                Step::Wait => return,
                Step::Halted => {
                    self.streams[s].run.steps += 1;
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
        let stream = &mut self.streams[s];
        let pc = stream.run.pc;
        let op = stream.program.ops[pc as usize];
        match ops::registers(op, pc, &mut stream.run.regs) {
            Some(Ok(next)) => return Step::Next(next),
            Some(Err(reason)) => return Step::Fail(reason),
            None => {}
        }
        let stream = &self.streams[s];
        let (a, imm) = (op.a, op.imm);
        let r = stream.run.regs;
        let value = match op.op {
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
            32 | 33 => {
                let t = stream.program.templates[imm as usize];
                return match op.op {
                    32 => grid::submit(self, s, t, pass),
                    _ => grid::enqueue(self, s, t, r[a]),
                };
            }
            40 => {
                if self.pending(s) > u64::from(imm) {
                    return Step::Wait;
                }
                return Step::Next(pc + 1);
            }
            // S30: the stream's own latest result.
            41 => stream.run.latest_result,
            48 => {
                let req = stream.program.req;
                self.post(kind::STREAM, req, r[a], pass);
                return Step::Next(pc + 1);
            }
            49 => pass.wrapping_mul(u64::from(self.params.ticks_per_pass)) as u32,
            // The check admits no other opcode.
            _ => return Step::Fail(Reason::UnknownOpcode),
        };
        self.streams[s].run.regs[a] = value;
        Step::Next(pc + 1)
    }
}
