//! The direct-threaded variant (feature `threaded`): each pre-decoded
//! instruction carries its own handler pointer, and a handler ends with
//! `become (next.handler)(...)` — one load less than the table variant.

use std::marker::PhantomData;

use super::observer::Observer;
use super::ops::{
    self, Exit, HANDLERS, Handler, OpBody, OpIndex, exit_at, for_each_fused, handler_fn, observe,
    run_pair, tail_call,
};
use super::program::Inst;

/// The threaded handlers for observer `O`.
pub(crate) struct Threaded<O>(PhantomData<O>);

handler_fn! {
    /// The threaded handler of micro-op body `B`.
    fn handler<B: OpBody, O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: as the tail variant's handler; in addition every
        // instruction's `handler` was set from `Threaded::<O>::TABLE` for the
        // same observer type when the program was decoded for this run.
        unsafe {
            match B::run::<O>(ip, regs, &mut *(ctx as *mut ops::Ctx<O>)) {
                Ok(next) => {
                    observe::<O>(ctx, ip);
                    let fuel = fuel - 1;
                    if fuel == 0 {
                        return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                    }
                    tail_call!((*next).handler, next, regs, ctx, fuel)
                }
                Err(why) => exit_at::<O>(ctx, ip, fuel, why),
            }
        }
    }
}

handler_fn! {
    /// The threaded handler of the superinstruction `A` then `B`.
    fn fused<A: OpBody, B: OpBody, O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: as `handler`; Program::decode gave this index only to an
        // `A` followed by a `B` (run_pair's contract).
        unsafe {
            match run_pair::<A, B, O>(ip, regs, ctx, fuel) {
                Ok((next, fuel)) => {
                    if fuel == 0 {
                        return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                    }
                    tail_call!((*next).handler, next, regs, ctx, fuel)
                }
                Err(why) => why,
            }
        }
    }
}

macro_rules! threaded_table {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        for_each_fused!(threaded_table_all [$($name)*]);
    };
}

macro_rules! threaded_table_all {
    ([$($name:ident)*] [$($fused:ident = $first:ident + $second:ident;)*]) => {
        impl<O: Observer> Threaded<O> {
            /// The handler each decoded instruction stores, by dense index.
            pub(crate) const TABLE: [Handler; HANDLERS] = [
                $(handler::<ops::$name, O> as Handler,)*
                handler::<ops::End, O> as Handler,
                $(fused::<ops::$first, ops::$second, O> as Handler,)*
            ];
        }
    };
}

crate::for_each_op!(threaded_table);

impl<O: Observer> Threaded<O> {
    /// The handler a decoded instruction with this index stores.
    pub(crate) fn of(index: OpIndex) -> Handler {
        Self::TABLE[index as usize]
    }
}

/// Runs from `ip` until an exit.
///
/// # Safety
/// As the handlers'; the program was decoded with `Threaded::<O>::of`.
// `O` is not used here but names the handler set the program was filled
// with, keeping the entry's signature the same as the other variants'.
#[allow(clippy::extra_unused_type_parameters)]
pub(crate) unsafe fn run<O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Exit {
    // SAFETY: the caller's contract.
    unsafe { ((*ip).handler)(ip, regs, ctx, fuel) }
}
