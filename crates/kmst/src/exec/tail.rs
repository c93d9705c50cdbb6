//! The tail-call table variant (the default): a static table of handler
//! pointers indexed by the dense op index; each handler does its micro-op and
//! ends with `become TABLE[next.op](...)`, so the program runs as a chain of
//! jumps with the four arguments pinned in registers.

use std::marker::PhantomData;

use super::observer::Observer;
use super::ops::{
    self, Exit, HANDLERS, Handler, OpBody, exit_at, for_each_fused, handler_fn, observe, run_pair,
    tail_call,
};
use super::program::Inst;

/// The handler table for observer `O`.
pub(crate) struct Tail<O>(PhantomData<O>);

handler_fn! {
    /// The handler of micro-op body `B`.
    fn handler<B: OpBody, O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the turn (machine.rs) enters with `ip` inside a decoded
        // program, `regs` at the stream's registers, `ctx` a live `Ctx<O>`,
        // and `fuel >= 1`; every `next` a body returns stays in the program
        // (OpBody's contract), and `op` is a dense index below HANDLERS
        // (Program::decode wrote it), so the table read is in bounds.
        unsafe {
            match B::run::<O>(ip, regs, &mut *(ctx as *mut ops::Ctx<O>)) {
                Ok(next) => {
                    observe::<O>(ctx, ip);
                    let fuel = fuel - 1;
                    if fuel == 0 {
                        return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                    }
                    let h = *Tail::<O>::TABLE.get_unchecked(usize::from((*next).op));
                    tail_call!(h, next, regs, ctx, fuel)
                }
                Err(why) => exit_at::<O>(ctx, ip, fuel, why),
            }
        }
    }
}

handler_fn! {
    /// The handler of the superinstruction `A` then `B`.
    fn fused<A: OpBody, B: OpBody, O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: as `handler`; Program::decode gave this index only to an
        // `A` followed by a `B` (run_pair's contract).
        unsafe {
            match run_pair::<A, B, O>(ip, regs, ctx, fuel) {
                Ok((next, fuel)) => {
                    if fuel == 0 {
                        return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                    }
                    let h = *Tail::<O>::TABLE.get_unchecked(usize::from((*next).op));
                    tail_call!(h, next, regs, ctx, fuel)
                }
                Err(why) => why,
            }
        }
    }
}

macro_rules! tail_table {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        for_each_fused!(tail_table_all [$($name)*]);
    };
}

macro_rules! tail_table_all {
    ([$($name:ident)*] [$($fused:ident = $first:ident + $second:ident;)*]) => {
        impl<O: Observer> Tail<O> {
            /// One handler per dense index (the order of `for_each_op!`, then
            /// End, then the superinstructions).
            pub(crate) const TABLE: [Handler; HANDLERS] = [
                $(handler::<ops::$name, O> as Handler,)*
                handler::<ops::End, O> as Handler,
                $(fused::<ops::$first, ops::$second, O> as Handler,)*
            ];
        }
    };
}

crate::for_each_op!(tail_table);

/// Runs from `ip` until an exit.
///
/// # Safety
/// As the handlers': `ip` in a decoded program, `regs` the stream's
/// registers, `ctx` a live `Ctx<O>`, `fuel >= 1`.
pub(crate) unsafe fn run<O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Exit {
    // SAFETY: the caller's contract; `op` below HANDLERS (Program::decode).
    unsafe { (*Tail::<O>::TABLE.get_unchecked(usize::from((*ip).op)))(ip, regs, ctx, fuel) }
}
