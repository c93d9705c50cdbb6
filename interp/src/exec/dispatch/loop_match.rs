//! The `#[loop_match]` variant (feature `loop_match`, nightly): the switch
//! loop written as the state machine that nightly Rust's `loop_match`
//! lowers to jumps between the arms: the state is the next instruction's
//! [`OpIndex`], and each arm (its unit's `NAME_loop_match`, handlers.rs)
//! ends by breaking out of the `match` with the next state. A micro-op's
//! successor is data, not a constant, so no arm can use
//! `#[const_continue]` (which needs its target known at compile time):
//! what the attribute changes is how the loop is lowered, and
//! docs/dispatch.md measures what that buys. The fuel is counted per
//! micro-op, as the switch loop counts it.

use super::handlers::*;
use crate::exec::inst::{Exit, Inst, OpIndex};
use crate::exec::observer::Observer;

macro_rules! match_loop {
    ($($index:ident: $counted:ident $charged:ident $head:ident $sub:ident $indirect:ident $switch:ident $loop_match:ident;)*) => {
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
                            $(OpIndex::$index => match $loop_match::<O>(ip, regs, ctx, &mut fuel) {
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

for_each_handler!(match_loop);
