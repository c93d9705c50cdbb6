//! The chained handlers shared by the tail-call table and the direct-threaded
//! variants: one generic handler per micro-op body (and per superinstruction)
//! that runs the body, counts the fuel and hands control to the next handler
//! with a guaranteed tail call. The two variants differ only in how the next
//! handler is found ([`NextHandler`]): read from a static table by the next
//! instruction's dense index, or read straight from the next instruction.

use super::bodies::{self, OpBody, exit_at, observe, run_pair};
use super::handler::{Exit, HANDLERS, Handler, Inst, for_each_fused, handler_fn, tail_call};
use super::observer::Observer;

/// How a chained handler finds the handler of the next instruction.
pub(crate) trait NextHandler {
    /// The handler to run `next` with.
    ///
    /// # Safety
    /// `next` satisfies the handler contract (handler.rs) for observer `O`.
    unsafe fn of<O: Observer>(next: *const Inst) -> Handler;
}

handler_fn! {
    /// The handler of micro-op body `B`.
    ///
    /// # Safety
    /// The handler contract (handler.rs).
    fn handler<B: OpBody, O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the handler contract (handler.rs); every `next` a body
        // returns satisfies it again (OpBody's contract), with one unit of
        // fuel spent and at least one left.
        unsafe {
            match B::run::<O>(ip, regs, &mut *(ctx as *mut bodies::Ctx<O>)) {
                Ok(next) => {
                    observe::<O>(ctx, ip);
                    let fuel = fuel - 1;
                    if fuel == 0 {
                        return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                    }
                    tail_call!(N::of::<O>(next), next, regs, ctx, fuel)
                }
                Err(why) => exit_at::<O>(ctx, ip, fuel, why),
            }
        }
    }
}

handler_fn! {
    /// The handler of the superinstruction `A` then `B`.
    ///
    /// # Safety
    /// The handler contract (handler.rs), and `ip` is a fused `A` followed
    /// by a `B`.
    fn fused<A: OpBody, B: OpBody, O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: as `handler`; the decoder gave this index only to an `A`
        // followed by a `B` (run_pair's contract).
        unsafe {
            match run_pair::<A, B, O>(ip, regs, ctx, fuel) {
                Ok((next, fuel)) => {
                    if fuel == 0 {
                        return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                    }
                    tail_call!(N::of::<O>(next), next, regs, ctx, fuel)
                }
                Err(why) => why,
            }
        }
    }
}

/// Runs the chain from `ip` until an exit: the tail-call table variant
/// with `N = Tail<O>`, the threaded one with `N = Threaded<O>`.
///
/// # Safety
/// The handler contract (handler.rs); for the threaded variant, the
/// program's handlers were set from `Threaded::<O>`'s table.
pub(crate) unsafe fn enter<O: Observer, N: NextHandler>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Exit {
    // SAFETY: the caller's contract.
    unsafe { (N::of::<O>(ip))(ip, regs, ctx, fuel) }
}

macro_rules! chain_table_ops {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        for_each_fused!(chain_table_all [$($name)*]);
    };
}

macro_rules! chain_table_all {
    ([$($name:ident)*] [$($fused:ident = $first:ident + $second:ident;)*]) => {
        /// One chained handler per dense index (the order of `for_each_op!`,
        /// then `End`, then the superinstructions), each finding its
        /// successor with `N`.
        pub(crate) const fn table<O: Observer, N: NextHandler>() -> [Handler; HANDLERS] {
            [
                $(handler::<bodies::$name, O, N> as Handler,)*
                handler::<bodies::End, O, N> as Handler,
                $(fused::<bodies::$first, bodies::$second, O, N> as Handler,)*
            ]
        }
    };
}

crate::for_each_op!(chain_table_ops);
