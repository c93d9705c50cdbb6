//! The chained handlers shared by the tail-call table and the direct-threaded
//! variants. Each unit (one micro-op body, or a superinstruction's two) gets
//! three handlers, all ending in a guaranteed tail call to the next:
//!
//! - **counted**: counts one unit of fuel per micro-op and stops the turn
//!   when it reaches zero; the next handler is the counted one (or a head's)
//!   from [`Checked`]'s table. A turn starts here, wherever its pc is.
//! - **head**: at the head of a block (inst.rs "Blocks"), charges the
//!   whole block when the fuel covers it and goes on with the charged
//!   handlers; otherwise it runs on as a counted handler.
//! - **charged**: inside a block whose head paid: counts nothing. A
//!   forwarding variant's charged handler reads its operand from the
//!   accumulator the handler before passed on (docs/dispatch.md "The
//!   accumulator"); its counted and head handlers read the register file
//!   (an in-place variant stays in place in all three).
//!
//! The two variants differ only in how the next charged or head handler is
//! found ([`NextHandler`]): read from a static table by the next
//! instruction's `op` byte, or read straight from the next instruction.

use std::marker::PhantomData;

use crate::exec::bodies;
use crate::exec::handler::{handler_fn, tail_call};
use crate::exec::inst::{Exit, Free, HANDLERS, HEAD, Handler, Inst, TABLE_LEN, len_in_imm};
use crate::exec::observer::Observer;
use crate::exec::step::{One, Unit, exit_at, for_each_unit};

/// How a chained handler finds the charged or head handler of the next
/// instruction.
pub(crate) trait NextHandler {
    /// The handler to run `next` with inside a charged block.
    ///
    /// # Safety
    /// `next` satisfies the handler contract (handler.rs) for observer `O`.
    unsafe fn of<O: Observer>(next: *const Inst) -> Handler;

    /// The name of the variant whose chain this is (the unit tests'
    /// `entered`).
    #[cfg(test)]
    const VARIANT: &'static str;
}

handler_fn! {
    /// The counted handler of unit `U`.
    ///
    /// # Safety
    /// The handler contract (handler.rs).
    fn counted<U: Unit, O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, _: Free, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the handler contract; every `next` a unit returns
        // satisfies it again (OpBody's contract), with at least one unit of
        // fuel left.
        unsafe {
            let mut acc = acc;
            match U::counted::<O>(ip, regs, ctx, fuel, &mut acc) {
                Ok((next, fuel)) => {
                    if fuel == 0 {
                        return exit_at::<O>(ctx, next, 0, Exit::Fuel);
                    }
                    tail_call!(Checked::<O, N>::of(next), next, regs, acc, ctx, fuel)
                }
                Err(why) => why,
            }
        }
    }
}

handler_fn! {
    /// The charged handler of unit `U`: the block's head paid for it.
    ///
    /// # Safety
    /// The handler contract (handler.rs), except that `fuel` may be 0 (the
    /// block's fuel was charged at its head).
    fn charged<U: Unit, O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, _: Free, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the handler contract; the next instruction is in the same
        // block (charged) or the next block's head, which tests the fuel.
        unsafe {
            let mut acc = acc;
            match U::charged::<O>(ip, regs, ctx, fuel, &mut acc) {
                Ok(next) => tail_call!(N::of::<O>(next), next, regs, acc, ctx, fuel),
                Err(why) => why,
            }
        }
    }
}

handler_fn! {
    /// The handler of unit `U` at the head of a block, whose length is in
    /// `imm` when `IMM`, else in `c` ([`len_in_imm`], inst.rs).
    ///
    /// # Safety
    /// The handler contract (handler.rs), except that `fuel` may be 0;
    /// `ip` is a head with its block's length in that field.
    fn head<U: Unit, const IMM: bool, O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, _: Free, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the handler contract; the block's other units are charged
        // handlers when the fuel covers the block, else counted ones.
        unsafe {
            let len = if IMM { (*ip).imm } else { u32::from((*ip).c) };
            let (left, short) = fuel.overflowing_sub(len);
            if !short {
                let mut acc = acc;
                match U::charged::<O>(ip, regs, ctx, left, &mut acc) {
                    Ok(next) => tail_call!(N::of::<O>(next), next, regs, acc, ctx, left),
                    Err(why) => why,
                }
            } else {
                // The turn ends inside this block. The fuel is worked out
                // again from `left` behind an empty asm block, and the
                // length read again (a volatile read, which the optimiser
                // cannot merge with the first), so that it keeps neither
                // for this cold path and the path above is one `sub` from
                // memory and a branch.
                let len = if IMM {
                    std::ptr::read_volatile(&raw const (*ip).imm)
                } else {
                    u32::from(std::ptr::read_volatile(&raw const (*ip).c))
                };
                let fuel = opaque(left).wrapping_add(len);
                if fuel == 0 {
                    // The previous block used the last unit exactly.
                    exit_at::<O>(ctx, ip, 0, Exit::Fuel)
                } else {
                    // Count micro-op by micro-op.
                    tail_call!(counted::<U, O, N>, ip, regs, acc, ctx, fuel)
                }
            }
        }
    }
}

/// `x`, through an empty asm block the optimiser cannot see into, so that
/// it cannot tell that `opaque(fuel - len) + len` is `fuel` and keep a copy
/// of `fuel` alive for a cold path (the head handler).
#[inline(always)]
fn opaque(x: u32) -> u32 {
    let mut x = x;
    // SAFETY: the asm block is a comment: it reads and writes nothing.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        x = std::hint::black_box(x);
    }
    x
}

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
        unsafe { *Self::TABLE.get_unchecked(usize::from((*next).op)) }
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
    ($($index:ident: $unit:ty;)*) => {
        /// The two handler tables of variant `N` for observer `O`, by `op`
        /// byte: (counted, charged), each with the head handlers from
        /// [`HEAD`] on. The unused entries between hold `End`'s counted
        /// handler. A variant's counted and head handlers read its operands
        /// from where its source says when no accumulator is held
        /// (`Unit::Idle`): only an in-place variant is ever a head (the
        /// decoder forwards the accumulator only inside a block).
        pub(crate) const fn tables<O: Observer, N: NextHandler>() -> ([Handler; TABLE_LEN], [Handler; TABLE_LEN]) {
            let plain: [Handler; HANDLERS] = [$(counted::<<$unit as Unit>::Idle, O, N> as Handler,)*];
            let inside: [Handler; HANDLERS] = [$(charged::<$unit, O, N> as Handler,)*];
            let heads: [Handler; HANDLERS] = [
                $(head::<<$unit as Unit>::Idle, { len_in_imm(<$unit as Unit>::SHAPE.first) }, O, N> as Handler,)*
            ];
            let filler = counted::<One<bodies::End>, O, N> as Handler;
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

for_each_unit!(chain_tables);
