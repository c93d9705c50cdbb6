//! The switch-loop variant (feature `switch`): `loop { match op { ... } }`
//! over the same pre-decoded program and the same micro-op bodies.

use crate::exec::bodies::{self, OpBody};
use crate::exec::inst::{Exit, Inst, OpIndex, for_each_fused};
use crate::exec::observer::Observer;
use crate::exec::operand::Regs;
use crate::exec::step::{exit_at, observe, run_pair};

macro_rules! switch_loop {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        for_each_fused!(switch_loop_all [$($name)*]);
    };
}

macro_rules! switch_loop_all {
    ([$($name:ident)*] [$($fused:ident = $first:ident $(($fsrc:ident))? + $second:ident $(($ssrc:ident))?;)*] [$($var:ident = $base:ident($src:ident);)*]) => {
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
                    let c = &mut *(ctx as *mut bodies::Ctx<O>);
                    let flow = match OpIndex::from_byte((*ip).op) {
                        $(OpIndex::$name => <bodies::$name as OpBody>::run::<O>(ip, regs, c),)*
                        OpIndex::End => <bodies::End as OpBody>::run::<O>(ip, regs, c),
                        // The loop counts per micro-op and keeps no
                        // accumulator: a variant reads its registers (in
                        // place, `b` is `a` anyway).
                        $(OpIndex::$var => <bodies::$base as OpBody>::run::<O>(ip, regs, c),)*
                        $(OpIndex::$fused => {
                            // Program::decode gave this index only to a
                            // `$first` followed by a `$second` (run_pair's contract).
                            match run_pair::<bodies::$first, bodies::$second, O, Regs, Regs>(ip, regs, ctx, fuel, &mut 0) {
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

crate::for_each_op!(switch_loop);
