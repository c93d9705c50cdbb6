//! The `#[loop_match]` variant (feature `loop_match`, nightly): the switch
//! loop written as the state machine that nightly Rust's `loop_match`
//! lowers to jumps between the arms: the state is the next instruction's
//! [`OpIndex`], and each arm ends by breaking out of the `match` with the
//! next state. A micro-op's successor is data, not a constant, so no arm
//! can use `#[const_continue]` (which needs its target known at compile
//! time): what the attribute changes is how the loop is lowered, and
//! docs/dispatch.md measures what that buys. The fuel is counted per
//! micro-op, as the switch loop counts it.

use crate::exec::inst::{Exit, Flow, Inst, OpIndex};
use crate::exec::observer::Observer;
use crate::exec::step::{Unit, exit_at, for_each_unit};

/// Runs unit `U` at `ip` counted: the next instruction with `fuel` taken,
/// or the exit once its point is recorded (also when the fuel ran out).
///
/// # Safety
/// The handler contract (handler.rs), and `ip` holds this unit.
#[inline(always)]
unsafe fn unit<U: Unit, O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: &mut u32,
) -> Flow {
    // SAFETY: the caller's contract.
    unsafe {
        match U::counted::<O>(ip, regs, ctx, *fuel, &mut 0) {
            Ok((next, 0)) => Err(exit_at::<O>(ctx, next, 0, Exit::Fuel)),
            Ok((next, left)) => {
                *fuel = left;
                Ok(next)
            }
            Err(why) => Err(why),
        }
    }
}

macro_rules! match_loop {
    ($($index:ident: $unit:ty;)*) => {
        /// Runs from `ip` until an exit.
        ///
        /// # Safety
        /// The handler contract (handler.rs): `ip` in a decoded program,
        /// `regs` the stream's registers, `ctx` a live `Ctx<O>`, `fuel >= 1`.
        #[inline(never)]
        pub(crate) unsafe fn run<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
            #[cfg(test)]
            crate::exec::entered::note("loop_match");
            let (mut ip, mut fuel) = (ip, fuel);
            // SAFETY: the caller's contract; every `next` a unit returns
            // stays in the program with its `op` byte written by the
            // decoder, and a unit runs only with fuel left.
            unsafe {
                let mut state = OpIndex::from_byte((*ip).op);
                #[loop_match]
                loop {
                    state = 'next: {
                        match state {
                            // Nothing is held from one unit to the next: a
                            // forwarding variant reads the register file.
                            $(OpIndex::$index => match unit::<<$unit as Unit>::Idle, O>(ip, regs, ctx, &mut fuel) {
                                Ok(next) => { ip = next; break 'next OpIndex::from_byte((*ip).op) }
                                Err(why) => return why,
                            },)*
                        }
                    };
                }
            }
        }
    };
}

for_each_unit!(match_loop);
