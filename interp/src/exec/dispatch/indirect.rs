//! The indirect-threaded variant (feature `indirect`, nightly): each unit's
//! handler ends with a guaranteed tail call (`become`) to one central
//! dispatch function, which matches the next instruction's `op` byte and
//! tail-calls that unit's handler. Two jumps per unit, one of them through
//! the central `match`'s jump table; the fuel is counted per micro-op, as
//! the switch loop counts it (no block is charged at its head).

use crate::exec::bodies;
use crate::exec::handler::handler_fn;
use crate::exec::inst::{Exit, Inst, OpIndex, for_each_fused};
use crate::exec::observer::Observer;
use crate::exec::operand::{self, Src};
use crate::exec::step::{One, Pair, Unit, exit_at, src_or_regs};

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

/// Runs from `ip` until an exit.
///
/// # Safety
/// The handler contract (handler.rs): `ip` in a decoded program, `regs`
/// the stream's registers, `ctx` a live `Ctx<O>`, `fuel >= 1`.
#[inline(never)]
pub(crate) unsafe fn run<O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Exit {
    #[cfg(test)]
    crate::exec::entered::note("indirect");
    // SAFETY: the caller's contract.
    unsafe { central::<O>(ip, regs, ctx, fuel) }
}

macro_rules! indirect_ops {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        for_each_fused!(indirect_all [$($name)*]);
    };
}

macro_rules! indirect_all {
    ([$($name:ident)*] [$($fused:ident = $first:ident $(($fsrc:ident))? + $second:ident $(($ssrc:ident))?;)*] [$($var:ident = $base:ident($src:ident);)*]) => {
        handler_fn! {
            /// The central dispatch: the handler of the unit at `ip`, by
            /// its `op` byte (a head is counted like any micro-op here).
            ///
            /// # Safety
            /// The handler contract (handler.rs).
            fn central<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
                // SAFETY: the handler contract: the decoder wrote the `op`
                // byte from the unit that `ip` holds.
                unsafe {
                    match OpIndex::from_byte((*ip).op) {
                        $(OpIndex::$name => become unit::<One<bodies::$name>, O>(ip, regs, ctx, fuel),)*
                        OpIndex::End => become unit::<One<bodies::End>, O>(ip, regs, ctx, fuel),
                        $(OpIndex::$fused => become unit::<Pair<bodies::$first, bodies::$second, src_or_regs!($($fsrc)?), src_or_regs!($($ssrc)?)>, O>(ip, regs, ctx, fuel),)*
                        // Nothing is held from one unit to the next: a
                        // forwarding variant reads the register file.
                        $(OpIndex::$var => become unit::<One<bodies::$base, <operand::src::$src as Src>::Held>, O>(ip, regs, ctx, fuel),)*
                    }
                }
            }
        }
    };
}

crate::for_each_op!(indirect_ops);
