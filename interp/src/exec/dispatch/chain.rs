//! The tables of the chained handlers the tail-call table and the
//! direct-threaded variants share (kinds.rs says what each kind does,
//! handlers.rs names each unit's): by `op` byte, the counted (and head)
//! handlers every variant reads ([`Checked`]) and the charged (and head)
//! handlers ([`tables`]), which tail.rs reads from a static table and
//! threaded.rs stores in each instruction; and the chain's entry.

use std::marker::PhantomData;

use super::handlers::*;
use super::kinds::NextHandler;
use crate::exec::handler::loop_entry;
use crate::exec::inst::{Exit, Free, HANDLERS, HEAD, Handler, Inst, TABLE_LEN};
use crate::exec::observer::Observer;

/// The counted (and head) handlers of variant `N` for observer `O`.
pub(crate) struct Checked<O, N>(PhantomData<(O, N)>);

impl<O: Observer, N: NextHandler> Checked<O, N> {
    /// By `op` byte: the counted handler of each index, the head handler
    /// of each index with the [`HEAD`] bit.
    pub(crate) const TABLE: [Handler; TABLE_LEN] = tables::<O, N>().0;

    /// The counted (or head) handler of `next`.
    ///
    /// # Safety
    /// `next`'s `op` byte was written by the decoder (the handler contract).
    #[inline(always)]
    pub(crate) unsafe fn of(next: *const Inst) -> Handler {
        // SAFETY: the caller's contract: the byte is below TABLE_LEN.
        unsafe { Self::of_op((*next).op) }
    }

    /// The counted (or head) handler of `op` byte `op`.
    ///
    /// # Safety
    /// `op` was written by the decoder (the handler contract).
    #[inline(always)]
    pub(crate) unsafe fn of_op(op: u8) -> Handler {
        // SAFETY: the caller's contract: the byte is below TABLE_LEN.
        unsafe { *Self::TABLE.get_unchecked(usize::from(op)) }
    }
}

loop_entry! {
    N::VARIANT;
    /// Runs the chain from `ip` until an exit: the tail-call table variant
    /// with `N = Tail<O>`, the threaded one with `N = Threaded<O>`. A turn may
    /// start anywhere in a block, so it starts with the counted handlers.
    ///
    /// # Safety
    /// The handler contract (handler.rs); for the threaded variant, the
    /// program's handlers were set from `Threaded::<O>`'s table.
    fn enter<O: Observer, N: NextHandler>(ip, regs, ctx, fuel) {
        // SAFETY: the caller's contract.
        unsafe { (Checked::<O, N>::of(ip))(ip, regs, 0, Free::uninit(), ctx, fuel) }
    }
}

macro_rules! chain_tables {
    ($($index:ident: $counted:ident $charged:ident $head:ident $sub:ident $indirect:ident $switch:ident $loop_match:ident;)*) => {
        /// The two handler tables of variant `N` for observer `O`, by `op`
        /// byte: (counted, charged), each with the head handlers from
        /// [`HEAD`] on. The unused entries between hold `End`'s counted
        /// handler. A variant's counted and head handlers read its operands
        /// from where its source says when no accumulator is held
        /// (`Src::Held`): only an in-place variant is ever a head (the
        /// decoder forwards the accumulator only inside a block).
        pub(crate) const fn tables<O: Observer, N: NextHandler>() -> ([Handler; TABLE_LEN], [Handler; TABLE_LEN]) {
            let plain: [Handler; HANDLERS] = [$($counted::<O, N> as Handler,)*];
            let inside: [Handler; HANDLERS] = [$($charged::<O, N> as Handler,)*];
            let heads: [Handler; HANDLERS] = [$($head::<O, N> as Handler,)*];
            let filler = end_counted::<O, N> as Handler;
            let mut c = [filler; TABLE_LEN];
            let mut f = [filler; TABLE_LEN];
            let mut i = 0;
            while i < HANDLERS {
                c[i] = plain[i];
                f[i] = inside[i];
                c[HEAD as usize + i] = heads[i];
                f[HEAD as usize + i] = heads[i];
                i += 1;
            }
            (c, f)
        }
    };
}

for_each_handler!(chain_tables);
