//! The switch-loop variant (feature `switch`): `loop { match op { ... } }`
//! over the same pre-decoded program and the same bodies, counted micro-op
//! by micro-op, with one shared end where the loop counts the fuel and
//! goes on (the classic switch loop the other variants are measured
//! against; a loop whose arms each finish their own unit is `loop_match`'s).
//! Each arm is its unit's `NAME_switch` (handlers.rs): the body alone, to
//! the shared end; a superinstruction's two micro-ops counted, on a path
//! of their own (an arm that ran its first and left the second to the
//! shared end made the loop 2.7 times slower in time on alu, with 4.5 %
//! fewer instructions: decisions.md D38).

use super::handlers::*;
use crate::exec::inst::{Exit, Inst, OpIndex};
use crate::exec::observer::Observer;
use crate::exec::step::{exit_at, observe};

macro_rules! switch_loop {
    ([$($one:ident: $alone:ident;)*] [$($pair:ident: $both:ident;)*]) => {
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
                    let flow = match OpIndex::from_byte((*ip).op) {
                        $(OpIndex::$one => $alone::<O>(ip, regs, ctx, fuel),)*
                        $(OpIndex::$pair => match $both::<O>(ip, regs, ctx, fuel) {
                            Ok((next, left)) => {
                                if left == 0 {
                                    return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                                }
                                ip = next;
                                fuel = left;
                                continue;
                            }
                            Err(why) => return why,
                        },)*
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

for_each_switch_arm!(switch_loop);
