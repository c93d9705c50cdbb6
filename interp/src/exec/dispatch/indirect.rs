//! The indirect-threaded variant (feature `indirect`, nightly): each unit's
//! handler ends with a guaranteed tail call (`become`) to one central
//! dispatch function, which matches the next instruction's `op` byte and
//! tail-calls that unit's handler. Two jumps per unit, one of them through
//! the central `match`'s jump table; the fuel is counted per micro-op, as
//! the switch loop counts it (no block is charged at its head).

use crate::exec::handler::handler_fn;
use crate::exec::inst::{Exit, Inst, OpIndex};
use crate::exec::observer::Observer;
use crate::exec::step::{Unit, exit_at, for_each_unit};

handler_fn! {
    /// The handler of unit `U`: runs it counted, then hands the next
    /// instruction to [`central`].
    ///
    /// # Safety
    /// The handler contract (handler.rs), and `ip` holds this unit.
    fn unit<U: Unit, O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the handler contract; every `next` a unit returns
        // satisfies it again, and `central` runs only with fuel left.
        unsafe {
            match U::counted::<O>(ip, regs, ctx, fuel, &mut 0) {
                Ok((next, 0)) => exit_at::<O>(ctx, next, 0, Exit::Fuel),
                Ok((next, left)) => become central::<O>(next, regs, ctx, left),
                Err(why) => why,
            }
        }
    }
}

loop_entry! {
    "indirect";
    /// Runs from `ip` until an exit.
    ///
    /// # Safety
    /// The handler contract (handler.rs): `ip` in a decoded program, `regs`
    /// the stream's registers, `ctx` a live `Ctx<O>`, `fuel >= 1`.
    #[inline(never)]
    fn run<O: Observer>(ip, regs, ctx, fuel) {
        // SAFETY: the caller's contract.
        unsafe { central::<O>(ip, regs, ctx, fuel) }
    }
}

macro_rules! central_dispatch {
    ($($index:ident: $unit:ty;)*) => {
        handler_fn! {
            /// The central dispatch: the handler of the unit at `ip`, by
            /// its `op` byte (a head is counted like any micro-op here).
            /// Nothing is held from one unit to the next: a forwarding
            /// variant reads the register file.
            ///
            /// # Safety
            /// The handler contract (handler.rs).
            fn central<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
                // SAFETY: the handler contract: the decoder wrote the `op`
                // byte from the unit that `ip` holds.
                unsafe {
                    match OpIndex::from_byte((*ip).op) {
                        $(OpIndex::$index => become unit::<<$unit as Unit>::Idle, O>(ip, regs, ctx, fuel),)*
                    }
                }
            }
        }
    };
}

for_each_unit!(central_dispatch);
