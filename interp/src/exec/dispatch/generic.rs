//! What each kind of handler does, written once and generic over its unit
//! (step.rs `Unit`). [`handlers`](super::handlers) instantiates each kind
//! for every unit under its own name ([`named!`]); the variants' tables and
//! loops (tail.rs, threaded.rs, chain.rs, subroutine.rs, indirect.rs) list
//! those names. Every template is `#[inline(always)]`: the named handler
//! holds its code, and `kmst explain` shows it.
//!
//! The chained kinds, shared by the tail-call table and the direct-threaded
//! variants, each end in a guaranteed tail call to the next handler:
//!
//! - **counted**: counts one unit of fuel per micro-op and stops the turn
//!   when it reaches zero; the next handler is the counted one (or a
//!   head's). A turn starts here, wherever its pc is.
//! - **head**: at the head of a block (inst.rs "Blocks"), charges the whole
//!   block when the fuel covers it and goes on with the charged handlers;
//!   otherwise it runs on as the counted handler.
//! - **charged**: inside a block whose head paid: counts nothing. A
//!   forwarding variant's charged handler reads its operand from the
//!   accumulator the handler before passed on (docs/dispatch.md "The
//!   accumulator"); its counted and head handlers read the register file.
//!
//! The two chained variants differ only in how the next handler is found
//! ([`NextHandler`]). The subroutine kind ([`sub`]) returns to its loop;
//! the indirect kind ([`indirect`]) tail-calls one central dispatch
//! ([`Central`]).

#[cfg(feature = "handlers")]
use crate::exec::handler::handler_fn;
use crate::exec::inst::{Exit, Inst};
#[cfg(feature = "chain")]
use crate::exec::inst::{Free, HEAD, Handler};
use crate::exec::observer::Observer;
use crate::exec::step::Unit;
#[cfg(any(feature = "chain", feature = "indirect"))]
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

#[cfg(feature = "chain")]
handler_fn! {
    /// The counted handler of unit `U`.
    ///
    /// # Safety
    /// The handler contract (handler.rs).
    #[inline(always)]
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
                    become (N::counted::<O>((*next).op))(next, regs, acc, Free::uninit(), ctx, fuel)
                }
                Err(why) => why,
            }
        }
    }
}

#[cfg(feature = "chain")]
handler_fn! {
    /// The charged handler of unit `U`: the block's head paid for it.
    ///
    /// # Safety
    /// The handler contract (handler.rs), except that `fuel` may be 0 (the
    /// block's fuel was charged at its head).
    #[inline(always)]
    fn charged<U: Unit, O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, _: Free, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the handler contract; the next instruction is in the same
        // block (charged) or the next block's head, which tests the fuel.
        unsafe {
            let mut acc = acc;
            match U::charged::<O>(ip, regs, ctx, fuel, &mut acc) {
                Ok(next) => become (N::of::<O>(next))(next, regs, acc, Free::uninit(), ctx, fuel),
                Err(why) => why,
            }
        }
    }
}

#[cfg(feature = "chain")]
handler_fn! {
    /// The handler of unit `U` at the head of a block, whose length is in
    /// `imm` when `IMM`, else in `c` (`len_in_imm`, inst.rs).
    ///
    /// # Safety
    /// The handler contract (handler.rs), except that `fuel` may be 0;
    /// `ip` is a head with its block's length in that field.
    #[inline(always)]
    fn head<U: Unit, const IMM: bool, O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, _: Free, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the handler contract; the block's other units are charged
        // handlers when the fuel covers the block, else counted ones.
        unsafe {
            let len = if IMM { (*ip).imm } else { u32::from((*ip).c) };
            let (left, short) = fuel.overflowing_sub(len);
            if !short {
                let mut acc = acc;
                match U::charged::<O>(ip, regs, ctx, left, &mut acc) {
                    Ok(next) => become (N::of::<O>(next))(next, regs, acc, Free::uninit(), ctx, left),
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
                    // Count micro-op by micro-op: this unit's counted handler.
                    become (N::counted::<O>((*ip).op & !HEAD))(ip, regs, acc, Free::uninit(), ctx, fuel)
                }
            }
        }
    }
}

/// `x`, through an empty asm block the optimiser cannot see into, so that
/// it cannot tell that `opaque(fuel - len) + len` is `fuel` and keep a copy
/// of `fuel` alive for a cold path (the head handler).
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

/// The subroutine of unit `U`: the unit counted, nothing held before it.
///
/// # Safety
/// The handler contract (handler.rs), and `ip` holds this unit.
#[cfg(feature = "subroutine")]
#[inline(always)]
pub(crate) unsafe fn sub<U: Unit, O: Observer>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
) -> Result<(*const Inst, u32), Exit> {
    // SAFETY: the caller's contract.
    unsafe { U::counted::<O>(ip, regs, ctx, fuel, &mut 0) }
}

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

#[cfg(feature = "indirect")]
handler_fn! {
    /// The indirect handler of unit `U`: runs it counted, then hands the
    /// next instruction to the central dispatch `C`.
    ///
    /// # Safety
    /// The handler contract (handler.rs), and `ip` holds this unit.
    #[inline(always)]
    fn indirect<U: Unit, O: Observer, C: Central>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
        // SAFETY: the handler contract; every `next` a unit returns
        // satisfies it again, and the central dispatch runs only with fuel
        // left.
        unsafe {
            match U::counted::<O>(ip, regs, ctx, fuel, &mut 0) {
                Ok((next, 0)) => exit_at::<O>(ctx, next, 0, Exit::Fuel),
                Ok((next, left)) => become (C::central::<O>())(next, regs, ctx, left),
                Err(why) => why,
            }
        }
    }
}

/// Declares one unit's named handlers (handlers.rs, one row a unit, its
/// names in the order of `KINDS` in scripts/gen-handlers.py): its
/// counted, charged and head handlers (tail, threaded), its subroutine and
/// its indirect handler, each the template above of the same kind for
/// this unit, each declared only where its variant is built.
macro_rules! named {
    ($(#[$doc:meta])* $unit:ty => $counted:ident, $charged:ident, $head:ident, $sub:ident, $indirect:ident) => {
        #[cfg(feature = "chain")]
        handler_fn! {
            $(#[$doc])*
            ///
            /// The counted handler (generic.rs `counted`).
            ///
            /// # Safety
            /// The handler contract (handler.rs).
            fn $counted<O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, free: Free, ctx: *mut (), fuel: u32) -> Exit {
                // SAFETY: the caller's contract.
                unsafe { become counted::<<$unit as Unit>::Idle, O, N>(ip, regs, acc, free, ctx, fuel) }
            }
        }
        #[cfg(feature = "chain")]
        handler_fn! {
            $(#[$doc])*
            ///
            /// The charged handler (generic.rs `charged`).
            ///
            /// # Safety
            /// As generic.rs `charged`.
            fn $charged<O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, free: Free, ctx: *mut (), fuel: u32) -> Exit {
                // SAFETY: the caller's contract.
                unsafe { become charged::<$unit, O, N>(ip, regs, acc, free, ctx, fuel) }
            }
        }
        #[cfg(feature = "chain")]
        handler_fn! {
            $(#[$doc])*
            ///
            /// The head handler (generic.rs `head`).
            ///
            /// # Safety
            /// As generic.rs `head`.
            fn $head<O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, free: Free, ctx: *mut (), fuel: u32) -> Exit {
                // SAFETY: the caller's contract.
                unsafe {
                    become head::<<$unit as Unit>::Idle, { len_in_imm(<$unit as Unit>::SHAPE.first) }, O, N>(ip, regs, acc, free, ctx, fuel)
                }
            }
        }
        $(#[$doc])*
        ///
        /// The subroutine (generic.rs `sub`).
        ///
        /// # Safety
        /// As generic.rs `sub`.
        #[cfg(feature = "subroutine")]
        pub(crate) unsafe fn $sub<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Result<(*const Inst, u32), Exit> {
            // SAFETY: the caller's contract.
            unsafe { sub::<<$unit as Unit>::Idle, O>(ip, regs, ctx, fuel) }
        }
        #[cfg(feature = "indirect")]
        handler_fn! {
            $(#[$doc])*
            ///
            /// The indirect handler (generic.rs `indirect`).
            ///
            /// # Safety
            /// As generic.rs `indirect`.
            fn $indirect<O: Observer, C: Central>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit {
                // SAFETY: the caller's contract.
                unsafe { become indirect::<<$unit as Unit>::Idle, O, C>(ip, regs, ctx, fuel) }
            }
        }
    };
}
pub(crate) use named;
