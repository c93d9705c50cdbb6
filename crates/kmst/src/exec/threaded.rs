//! The direct-threaded variant (feature `threaded`): each pre-decoded
//! instruction carries its own handler pointer, and a handler ends with
//! `become (next.handler)(...)` — one load less than the table variant.

use std::marker::PhantomData;

use super::chain::{NextHandler, table};
use super::handler::{HANDLERS, Handler, Inst, OpIndex};
use super::observer::Observer;

/// The threaded handlers for observer `O`.
pub(crate) struct Threaded<O>(PhantomData<O>);

impl<O: Observer> Threaded<O> {
    /// The handler each decoded instruction stores, by dense index.
    pub(crate) const TABLE: [Handler; HANDLERS] = table::<O, Threaded<O>>();

    /// The handler a decoded instruction with this index stores.
    pub(crate) fn of(index: OpIndex) -> Handler {
        Self::TABLE[index as usize]
    }
}

impl<P: Observer> NextHandler for Threaded<P> {
    #[inline(always)]
    unsafe fn of<O: Observer>(next: *const Inst) -> Handler {
        // SAFETY: the handler contract; in addition every instruction's
        // `handler` was set from `Threaded::<O>::TABLE` for this run's
        // observer type (Machine::run).
        unsafe { (*next).handler }
    }
}
