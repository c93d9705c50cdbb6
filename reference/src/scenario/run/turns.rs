//! The turns of a pass (S29): the active streams in start order, then the
//! queue, in the rotation `p % (n + 1)`. A stream's turn (S17) runs its
//! micro-ops (docs/spec.md "Micro-ops", S18) until it waits, ends or uses
//! up its budget; SUBMIT and ENQUEUE hand their commands to the slots and
//! the queue ([`super::slots`]).

use super::slots::outside_grid;
use super::{Kernel, Life};
use crate::grid::Submitter;
use crate::ops;
use crate::ops::Step;
use crate::result::{Reason, kind};
use crate::sim::{FLAG_EXCLUSIVE, QUEUE_CAPACITY};

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
        let busy = self
            .grid
            .slots
            .iter()
            .flatten()
            .filter(|b| b.owned_by(s));
        let queued = self.grid.queue.iter().filter(|j| j.owned_by(s));
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
        let stream = &mut self.streams[s];
        let pc = stream.pc;
        let op = stream.program.ops[pc as usize];
        match ops::registers(op, pc, &mut stream.regs) {
            Some(Ok(next)) => return Step::Next(next),
            Some(Err(reason)) => return Step::Fail(reason),
            None => {}
        }
        let stream = &self.streams[s];
        let (a, imm) = (op.a, op.imm);
        let r = stream.regs;
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
        let (first, count) = t.group(&stream.regs);
        // Outside the grid: error 11 before any waiting.
        if outside_grid(first, count, self.params.core_count) {
            return Step::Fail(Reason::BadGroup);
        }
        // "first tried": remember which jobs were queued before it.
        let mark = *self.streams[s]
            .exclusive_mark
            .get_or_insert(self.grid.next_job_id);
        let Some(slot) = self.grid.lowest_free_slot() else {
            return Step::Wait;
        };
        if t.flags & FLAG_EXCLUSIVE != 0 && self.grid.exclusive_blocked(mark, first, count) {
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
        if self.grid.queue.len() >= QUEUE_CAPACITY {
            return Step::Wait;
        }
        let stream = &self.streams[s];
        let t = stream.program.templates[index];
        let (args, pc) = (t.patched_args(&stream.regs), stream.pc);
        self.grid
            .push_job(Some(s), t.handler, t.flags, count, args, pc);
        Step::Next(pc + 1)
    }
}
