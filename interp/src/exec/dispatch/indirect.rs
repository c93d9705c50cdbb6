//! The indirect-threaded variant (feature `indirect`, nightly): each unit's
//! handler ends with a guaranteed tail call (`become`) to one central
//! dispatch function, which matches the next instruction's `op` byte and
//! tail-calls that unit's handler. Two jumps per unit, one of them through
//! the central `match`'s jump table; the fuel is counted per micro-op, as
//! the switch loop counts it (no block is charged at its head).

use super::handlers::*;
use super::kinds::{Central, IndirectHandler};
use crate::exec::handler::handler_fn;
use crate::exec::handler::loop_entry;
use crate::exec::inst::{Exit, Inst, OpIndex};
use crate::exec::observer::Observer;

/// The central dispatch of this variant, for the units' handlers.
pub(crate) struct Indirect;

impl Central for Indirect {
    #[inline(always)]
    fn central<O: Observer>() -> IndirectHandler {
        central::<O>
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
    ($($index:ident: $counted:ident $charged:ident $head:ident $sub:ident $indirect:ident $switch:ident $loop_match:ident;)*) => {
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
                        $(OpIndex::$index => become $indirect::<O, Indirect>(ip, regs, ctx, fuel),)*
                    }
                }
            }
        }
    };
}

for_each_handler!(central_dispatch);
