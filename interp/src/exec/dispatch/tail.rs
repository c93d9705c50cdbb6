//! The tail-call table variant (the default): a static table of handler
//! pointers indexed by the instruction's `op` byte; each handler does its
//! micro-op and ends with `become TABLE[next.op](...)`, so the program runs
//! as a chain of jumps with its arguments pinned in registers (the
//! counted handlers use [`Checked`](super::chain::Checked)'s table instead).

use std::marker::PhantomData;

use super::chain::{Checked, tables};
use super::kinds::NextHandler;
use crate::exec::inst::{Handler, Inst, TABLE_LEN};
use crate::exec::observer::Observer;

/// The handler table for observer `O`.
pub(crate) struct Tail<O>(PhantomData<O>);

impl<O: Observer> Tail<O> {
    /// The charged and head handlers, by `op` byte.
    pub(crate) const TABLE: [Handler; TABLE_LEN] = tables::<O, Tail<O>>().1;
}

impl<P: Observer> NextHandler for Tail<P> {
    #[inline(always)]
    unsafe fn of<O: Observer>(next: *const Inst) -> Handler {
        // SAFETY: the handler contract: the `op` byte is below TABLE_LEN.
        unsafe { *Tail::<O>::TABLE.get_unchecked(usize::from((*next).op)) }
    }

    #[inline(always)]
    unsafe fn counted<O: Observer>(op: u8) -> Handler {
        // SAFETY: the caller's contract.
        unsafe { Checked::<O, Self>::of_op(op) }
    }

    #[cfg(test)]
    const VARIANT: &'static str = "tail";
}
