//! The kinds of handler and what each needs from its variant. Every unit's
//! handlers are written out in [`handlers`](super::handlers), one of each
//! kind; this file holds what they share.
//!
//! The chained kinds, shared by the tail-call table and the direct-threaded
//! variants, each end in a guaranteed tail call to the next handler:
//!
//! - **counted**: counts one unit of fuel per micro-op and stops the turn
//!   when it reaches zero; the next handler is the counted one (or a
//!   head's). A turn starts here, wherever its pc is.
//! - **head**: at the head of a block (inst.rs "Blocks"), charges the whole
//!   block when the fuel covers it and goes on with the charged handlers;
//!   otherwise it runs on as the counted handler ([`short_block`]).
//! - **charged**: inside a block whose head paid: counts nothing. A
//!   forwarding variant's charged handler reads its operand from the
//!   accumulator the handler before passed on (docs/dispatch.md "The
//!   accumulator"); its counted and head handlers read the register file.
//!
//! The two chained variants differ only in how the next handler is found
//! ([`NextHandler`]). The subroutine kind ([`Sub`]) returns to its loop;
//! the indirect kind tail-calls one central dispatch ([`Central`]); the
//! switch and loop_match kinds are arms of their loops.

use crate::exec::inst::{Exit, Inst};
#[cfg(feature = "chain")]
use crate::exec::inst::{HEAD, Handler};
#[cfg(any(feature = "chain", feature = "indirect"))]
use crate::exec::observer::Observer;
#[cfg(feature = "chain")]
use crate::exec::step::exit_at;

/// How a chained handler finds the next handler (tail.rs: from a static
/// table; threaded.rs: from the instruction).
#[cfg(feature = "chain")]
pub(crate) trait NextHandler {
    /// The handler to run `next` with inside a charged block: its charged
    /// handler, or its head handler.
    ///
    /// # Safety
    /// `next` satisfies the handler contract (handler.rs) for observer `O`.
    unsafe fn of<O: Observer>(next: *const Inst) -> Handler;

    /// The counted handler of the unit at `op` byte `op` (the [`HEAD`] bit
    /// gives the head handler): chain.rs's `Checked` table of this variant.
    ///
    /// # Safety
    /// `op` was written by the decoder (the handler contract).
    unsafe fn counted<O: Observer>(op: u8) -> Handler;

    /// The name of the variant whose chain this is (the unit tests'
    /// `entered`).
    #[cfg(test)]
    const VARIANT: &'static str;
}

/// The cold path of a head handler whose block the fuel does not cover
/// (`left` is the fuel minus the block's length, wrapped): the turn ends
/// inside the block, so it runs on counted: `Ok((the unit's counted
/// handler, the fuel))`, or the exit when the previous block used the last
/// unit exactly. The fuel is worked out again from `left` behind an empty
/// asm block, and the length read again (a volatile read, which the
/// optimiser cannot merge with the first), so that the head keeps neither
/// for this path and its hot path is one `sub` from memory and a branch.
///
/// # Safety
/// The handler contract (handler.rs); `ip` is a head with its block's
/// length in `imm` when `IMM`, else in `c` (`len_in_imm`, inst.rs).
#[cfg(feature = "chain")]
#[inline(always)]
pub(crate) unsafe fn short_block<O: Observer, N: NextHandler, const IMM: bool>(
    ip: *const Inst,
    ctx: *mut (),
    left: u32,
) -> Result<(Handler, u32), Exit> {
    // SAFETY: the caller's contract.
    unsafe {
        let len = if IMM {
            std::ptr::read_volatile(&raw const (*ip).imm)
        } else {
            u32::from(std::ptr::read_volatile(&raw const (*ip).c))
        };
        let fuel = opaque(left).wrapping_add(len);
        if fuel == 0 {
            // The previous block used the last unit exactly.
            Err(exit_at::<O>(ctx, ip, 0, Exit::Fuel))
        } else {
            // Count micro-op by micro-op: this unit's counted handler.
            Ok((N::counted::<O>((*ip).op & !HEAD), fuel))
        }
    }
}

/// `x`, through an empty asm block the optimiser cannot see into, so that
/// it cannot tell that `opaque(fuel - len) + len` is `fuel` and keep a copy
/// of `fuel` alive for a cold path ([`short_block`]).
#[cfg(feature = "chain")]
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

/// A unit as a subroutine (the subroutine loop's table entry): `(next,
/// fuel left)`, or the exit once its point is recorded.
#[cfg(feature = "subroutine")]
pub(crate) type Sub =
    unsafe fn(*const Inst, *mut u32, *mut (), u32) -> Result<(*const Inst, u32), Exit>;

/// An indirect-threaded handler, and the central dispatch's signature.
#[cfg(all(feature = "indirect", not(kmst_preserve_none)))]
pub(crate) type IndirectHandler = unsafe fn(*const Inst, *mut u32, *mut (), u32) -> Exit;

/// An indirect-threaded handler, with the `rust-preserve-none` convention.
#[cfg(all(feature = "indirect", kmst_preserve_none))]
pub(crate) type IndirectHandler =
    unsafe extern "rust-preserve-none" fn(*const Inst, *mut u32, *mut (), u32) -> Exit;

/// The indirect variant's central dispatch (indirect.rs).
#[cfg(feature = "indirect")]
pub(crate) trait Central {
    /// The central dispatch for observer `O`.
    fn central<O: Observer>() -> IndirectHandler;
}
