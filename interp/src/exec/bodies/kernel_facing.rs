//! The micro-ops that talk to the kernel: HALT, SUBMIT, ENQUEUE, WAIT, RESULT,
//! EVENT, TIME (S18). The work is in [`crate::exec::kernel`]; these bodies
//! only read the operands and map the answer onto [`Flow`]; the compiled
//! tier leaves each to the interpreter (`OpBody::INTERPRETED`). SUBMIT, ENQUEUE,
//! EVENT and TIME first return [`Exit::Resync`] inside a span of quick passes
//! (machine/mod.rs, "Spans of quick passes"), so that they run knowing
//! their pass.

use super::{Ctx, Exit, Flow, OpBody, Src};
use crate::exec::inst::Inst;
use crate::exec::observer::Observer;
use crate::exec::operand::{get, set};

/// `HALT a`: wait while anything of the stream is pending, else end with status a.
pub(crate) struct Halt;
impl OpBody for Halt {
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        _: &mut u32,
    ) -> Flow {
        // SAFETY: OpBody's contract; `ctx.stream` is the running stream.
        unsafe {
            if (*ctx.stream).pending != 0 {
                return Err(Exit::HaltPending);
            }
            ctx.halt = get(regs, (*ip).a);
            Err(Exit::Halt)
        }
    }
}

/// `WAIT imm`: go on when at most imm commands and jobs are pending.
pub(crate) struct Wait;
impl OpBody for Wait {
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        _: *mut u32,
        ctx: &mut Ctx<O>,
        _: &mut u32,
    ) -> Flow {
        // SAFETY: OpBody's contract.
        unsafe {
            if (*ctx.stream).pending > (*ip).imm {
                return Err(Exit::WaitPending);
            }
            Ok(ip.add(1))
        }
    }
}

/// `SUBMIT imm`: submit template imm on its group. The `group` variant
/// (`S::GROUP`) reads the group from the registers the decoder put in `a`
/// and `b`, for a template that is not exclusive.
pub(crate) struct Submit;
impl OpBody for Submit {
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SUBMIT ends its block: the head after it reads the register file,
        // so the accumulator is dropped rather than kept in a register.
        *acc = 0;
        ctx.resync()?;
        let pc = ctx.pc(ip);
        // SAFETY: OpBody's contract; the template index is below command_count
        // (the check's `Reason::BadTemplate`, re-tested by Program::decode); `regs` points
        // at the stream's 16 registers, disjoint from the kernel state; with
        // `S::GROUP`, `a` and `b` are registers (the variant's condition).
        unsafe {
            let t = &*ctx.templates.add((*ip).imm as usize);
            let group = S::GROUP.then(|| (get(regs, (*ip).a), get(regs, (*ip).b)));
            let regs = &*(regs as *const [u32; 16]);
            match (*ctx.kernel).submit(&mut *ctx.stream, regs, t, group, pc, &mut *ctx.obs) {
                Ok(()) => Ok(ip.add(1)),
                Err(e) => Err(ctx.fail(e)),
            }
        }
    }
}

/// `ENQUEUE imm, a`: queue template imm as a job of `a` cores.
pub(crate) struct Enqueue;
impl OpBody for Enqueue {
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        _: &mut u32,
    ) -> Flow {
        ctx.resync()?;
        let pc = ctx.pc(ip);
        // SAFETY: as for SUBMIT.
        unsafe {
            let t = &*ctx.templates.add((*ip).imm as usize);
            let count = get(regs, (*ip).a);
            let regs = &*(regs as *const [u32; 16]);
            match (*ctx.kernel).enqueue(&mut *ctx.stream, regs, t, count, pc) {
                Ok(()) => Ok(ip.add(1)),
                Err(e) => Err(ctx.fail(e)),
            }
        }
    }
}

/// `RESULT a`: a = the stream's latest result.
pub(crate) struct ReadResult;
impl OpBody for ReadResult {
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = true;
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: OpBody's contract.
        unsafe {
            let v = (*ctx.stream).latest_result;
            set(regs, (*ip).a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }
}

/// `EVENT a`: post a progress event with the low 24 bits of a.
pub(crate) struct Event;
impl OpBody for Event {
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        _: &mut u32,
    ) -> Flow {
        ctx.resync()?;
        // SAFETY: OpBody's contract.
        unsafe {
            let req = (*ctx.stream).req;
            (*ctx.kernel).post(crate::types::result::kind::STREAM, req, get(regs, (*ip).a));
            Ok(ip.add(1))
        }
    }
}

/// `TIME a`: a = low 32 bits of pass * ticks_per_pass.
pub(crate) struct Time;
impl OpBody for Time {
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        _: &mut u32,
    ) -> Flow {
        ctx.resync()?;
        // SAFETY: OpBody's contract.
        unsafe {
            set(regs, (*ip).a, (*ctx.kernel).time());
            Ok(ip.add(1))
        }
    }
}
