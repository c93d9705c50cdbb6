//! The tail-call table variant (the default): a static table of handler
//! pointers indexed by the dense op index; each handler does its micro-op and
//! ends with `become TABLE[next.op](...)`, so the program runs as a chain of
//! jumps with the four arguments pinned in registers.

use std::marker::PhantomData;

use super::chain::{NextHandler, table};
use super::handler::{HANDLERS, Handler, Inst};
use super::observer::Observer;

/// The handler table for observer `O`.
pub(crate) struct Tail<O>(PhantomData<O>);

impl<O: Observer> Tail<O> {
    /// One handler per dense index.
    pub(crate) const TABLE: [Handler; HANDLERS] = table::<O, Tail<O>>();
}

impl<P: Observer> NextHandler for Tail<P> {
    #[inline(always)]
    unsafe fn of<O: Observer>(next: *const Inst) -> Handler {
        // SAFETY: the handler contract: `op` is a dense index below HANDLERS.
        unsafe { *Tail::<O>::TABLE.get_unchecked(usize::from((*next).op)) }
    }
}
