//! The switch-loop variant (feature `switch`): `loop { match op { ... } }`
//! over the same pre-decoded program and the same bodies, counted micro-op
//! by micro-op, with one shared end where the loop counts the fuel and
//! goes on (the classic switch loop the other variants are measured
//! against; a loop whose arms each finish their own unit is `loop_match`'s).

use crate::exec::bodies::{Ctx, OpBody};
use crate::exec::inst::{Exit, Flow, Inst, OpIndex};
use crate::exec::observer::Observer;
use crate::exec::operand::{Regs, Src};
use crate::exec::step::{One, Pair, exit_at, for_each_unit, observe, run_pair};

/// How the switch loop runs a unit. It keeps no accumulator: every operand
/// comes from the register file (in place, `b` is `a` anyway). Two methods,
/// each unit implementing one and leaving the other unreachable, chosen by
/// the constant [`Switched::PAIR`] in each arm: one method returning which
/// of the two ran cost the loop 1.6 to 20 % more instructions (measured).
trait Switched {
    /// A superinstruction, run by [`Switched::pair`]; else by
    /// [`Switched::alone`].
    const PAIR: bool;

    /// Runs the micro-op's body; the loop counts it.
    ///
    /// # Safety
    /// The handler contract (handler.rs), and `ip` holds this unit.
    unsafe fn alone<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: &mut Ctx<O>) -> Flow;

    /// Runs the superinstruction's two micro-ops counted ([`run_pair`]).
    ///
    /// # Safety
    /// As [`Switched::alone`], and `fuel >= 1`.
    unsafe fn pair<O: Observer>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: *mut (),
        fuel: u32,
    ) -> Result<(*const Inst, u32), Exit>;
}

impl<B: OpBody, S: Src> Switched for One<B, S> {
    const PAIR: bool = false;

    #[inline(always)]
    unsafe fn alone<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: &mut Ctx<O>) -> Flow {
        // SAFETY: the caller's contract.
        unsafe { B::run::<O, Regs>(ip, regs, ctx, &mut 0) }
    }

    unsafe fn pair<O: Observer>(
        _: *const Inst,
        _: *mut u32,
        _: *mut (),
        _: u32,
    ) -> Result<(*const Inst, u32), Exit> {
        unreachable!("one micro-op runs alone")
    }
}

impl<A: OpBody, B: OpBody, SA: Src, SB: Src> Switched for Pair<A, B, SA, SB> {
    const PAIR: bool = true;

    unsafe fn alone<O: Observer>(_: *const Inst, _: *mut u32, _: &mut Ctx<O>) -> Flow {
        unreachable!("a superinstruction runs as a pair")
    }

    #[inline(always)]
    unsafe fn pair<O: Observer>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: *mut (),
        fuel: u32,
    ) -> Result<(*const Inst, u32), Exit> {
        // SAFETY: the caller's contract: Program::decode gave this index
        // only to an `A` followed by a `B` (run_pair's contract).
        unsafe { run_pair::<A, B, O, Regs, Regs>(ip, regs, ctx, fuel, &mut 0) }
    }
}

macro_rules! switch_loop {
    ($($index:ident: $unit:ty;)*) => {
        /// Runs from `ip` until an exit.
        ///
        /// # Safety
        /// `ip` in a decoded program, `regs` the stream's registers, `ctx` a
        /// live `Ctx<O>`, `fuel >= 1`.
        #[inline(never)]
        pub(crate) unsafe fn run<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
            #[cfg(test)]
            crate::exec::entered::note("switch");
            let mut ip = ip;
            let mut fuel = fuel;
            // SAFETY: the caller's contract; every `next` a body returns stays in
            // the program (OpBody's contract) and its `op` was written by
            // Program::decode from an OpIndex.
            unsafe {
                loop {
                    let c = &mut *(ctx as *mut Ctx<O>);
                    let flow = match OpIndex::from_byte((*ip).op) {
                        $(OpIndex::$index => {
                            if <$unit as Switched>::PAIR {
                                match <$unit as Switched>::pair::<O>(ip, regs, ctx, fuel) {
                                    Ok((next, left)) => {
                                        if left == 0 {
                                            return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                                        }
                                        ip = next;
                                        fuel = left;
                                        continue;
                                    }
                                    Err(why) => return why,
                                }
                            }
                            <$unit as Switched>::alone::<O>(ip, regs, c)
                        })*
                    };
                    match flow {
                        Ok(next) => {
                            observe::<O>(ctx, ip);
                            fuel -= 1;
                            if fuel == 0 {
                                return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                            }
                            ip = next;
                        }
                        Err(why) => return exit_at::<O>(ctx, ip, fuel, why),
                    }
                }
            }
        }
    };
}

for_each_unit!(switch_loop);
