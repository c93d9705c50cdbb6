//! The direct-threaded variant (feature `threaded`): each pre-decoded
//! instruction carries its own handler pointer, and a handler ends with
//! `become (next.handler)(...)` — one load less than the table variant.

use std::marker::PhantomData;

use super::chain::{Checked, tables};
use super::kinds::NextHandler;
use crate::exec::inst::{Handler, Inst, TABLE_LEN};
use crate::exec::observer::Observer;

/// The threaded handlers for observer `O`.
pub(crate) struct Threaded<O>(PhantomData<O>);

impl<O: Observer> Threaded<O> {
    /// The handler each decoded instruction stores (its charged or head
    /// handler), by `op` byte.
    pub(crate) const TABLE: [Handler; TABLE_LEN] = tables::<O, Threaded<O>>().1;

    /// The handler a decoded instruction with this `op` byte stores.
    pub(crate) fn of(op: u8) -> Handler {
        // Through a reference: indexing the const itself would copy it.
        let table: &'static [Handler; TABLE_LEN] = const { &Self::TABLE };
        table[usize::from(op)]
    }
}

impl<P: Observer> NextHandler for Threaded<P> {
    #[inline(always)]
    unsafe fn of<O: Observer>(next: *const Inst) -> Handler {
        // SAFETY: the handler contract; in addition every instruction's
        // `handler` was set from `Threaded::<O>::TABLE` for this run's
        // observer type (`prepare`, from `Machine::run`).
        unsafe { (*next).handler }
    }

    #[inline(always)]
    unsafe fn counted<O: Observer>(op: u8) -> Handler {
        // SAFETY: the caller's contract.
        unsafe { Checked::<O, Self>::of_op(op) }
    }

    #[cfg(test)]
    const VARIANT: &'static str = "threaded";
}
