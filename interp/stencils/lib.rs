//! The stencils of the copy-and-patch tier (issue 53), compiled by
//! interp/build.rs with the toolchain's rustc into an object file, one
//! function a stencil (`--emit=obj`: each `#[no_mangle]` function in its own
//! section). Each stencil runs one micro-op's body: the very `OpBody::run`
//! the interpreters run (exec/bodies/, included below by path), on an
//! instruction made of holes. A hole is an external symbol the object file
//! leaves unresolved, with a relocation where its value goes:
//!
//! - `_HOLE_A`, `_HOLE_B`, `_HOLE_C`: the register fields, each as the
//!   register's byte offset in the register file (its number times 4), so
//!   that a register is one memory operand (`[rdi + hole]`): the module
//!   `operand` below is this crate's own, the one piece of the interpreter
//!   not shared (a stencil reads every operand from the register file);
//! - `_HOLE_IMM`: the imm;
//! - `_HOLE_PC`: the micro-op's pc (an exit's);
//! - `_HOLE_LEN`: units of fuel: a block's length (its head's charge), or
//!   what an exit inside a block gives back (itself and the rest of the
//!   block, which the interpreter then counts);
//! - `_CONTINUE`, `_JUMP`, `_EXIT`, `_SHORT`: where control goes next: the
//!   next stencil (a final `jmp` to it is dropped where the next follows),
//!   a jump's target, or back to the loop that entered the code
//!   (exec/compiled/run.rs), to run one micro-op in the
//!   interpreter, or the rest of a turn that ends inside a block.
//!
//! Every stencil is an `extern "C" fn(regs, pc, fuel) -> u64`, the compiled
//! tier's entry (`compiled::lower::Entry`), and ends in a guaranteed tail
//! call to the next (`become`), so that the chain runs on one stack frame,
//! the entry's caller's, and an exit stencil returns to it with `(fuel <<
//! 32) | kind | pc` (exec/compiled/entry.rs).
//!
//! A no_std crate of its own, so the object holds the stencils and nothing
//! else; the engine's files it includes see the paths they expect
//! (`crate::exec::...`) through the small modules below.

#![no_std]
#![feature(explicit_tail_calls)]
#![allow(internal_features, dead_code, unused_imports)]

use core::panic::PanicInfo;

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    loop {}
}

/// The engine's types as the bodies name them.
mod types {
    /// Why a stream ended with an error (kmst-types' `Reason`, by name: a
    /// stencil never reports one; it exits and the interpreter runs the
    /// micro-op again).
    pub enum Reason {
        ModByZero,
        BadJump,
    }
}

pub mod exec {
    /// The pre-decoded instruction as the bodies read it (its fields by
    /// name; inst.rs has the engine's).
    pub mod inst {
        /// A register field as a stencil holds it: the register's byte
        /// offset in the register file, a hole the code uses as a
        /// displacement (`[regs + hole]`).
        #[derive(Clone, Copy)]
        pub struct Reg(pub usize);

        /// A register named by number in a body (RAND's r15).
        impl From<u8> for Reg {
            #[inline(always)]
            fn from(r: u8) -> Reg {
                Reg(usize::from(r) * 4)
            }
        }

        /// The pre-decoded instruction as the bodies read it (its fields by
        /// name; inst.rs has the engine's), its register fields [`Reg`]s.
        #[derive(Clone, Copy)]
        #[repr(C, align(16))]
        pub struct Inst {
            pub op: u8,
            pub a: Reg,
            pub b: Reg,
            pub c: Reg,
            pub imm: u32,
        }

        /// Why a body stops the turn (by name; the stencil only exits).
        pub enum Exit {
            Error,
        }

        pub type Flow = Result<*const Inst, Exit>;
    }

    /// Nothing observes a stencil's micro-ops (a run with an observer
    /// interprets).
    pub mod observer {
        pub trait Observer {}
        pub struct NoObserver;
        impl Observer for NoObserver {}
    }

    /// Where a body reads its operands (operand.rs's names): a stencil
    /// reads every operand from the register file (the accumulator's
    /// forwarding variants are the interpreter's), each register at its
    /// byte offset, a hole.
    pub mod operand {
        use super::inst::{Inst, Reg};

        pub trait Src {}
        pub struct Regs;
        impl Src for Regs {}

        /// Reads register `r`.
        ///
        /// # Safety
        /// `regs` points at 16 registers and `r` is one of them.
        #[inline(always)]
        pub unsafe fn get(regs: *mut u32, r: impl Into<Reg>) -> u32 {
            unsafe { *regs.byte_add(r.into().0) }
        }

        /// Writes register `r`.
        ///
        /// # Safety
        /// As [`get`].
        #[inline(always)]
        pub unsafe fn set(regs: *mut u32, r: impl Into<Reg>, v: u32) {
            unsafe { *regs.byte_add(r.into().0) = v }
        }

        /// Operand `a` of `i`.
        ///
        /// # Safety
        /// As [`get`].
        #[inline(always)]
        pub unsafe fn operand_a<S: Src>(regs: *mut u32, i: &Inst, _: u32) -> u32 {
            unsafe { get(regs, i.a) }
        }

        /// Operand `b` of `i`.
        ///
        /// # Safety
        /// As [`get`].
        #[inline(always)]
        pub unsafe fn operand_b<S: Src>(regs: *mut u32, i: &Inst, _: u32) -> u32 {
            unsafe { get(regs, i.b) }
        }

        /// Operand `c` of `i`.
        ///
        /// # Safety
        /// As [`get`].
        #[inline(always)]
        pub unsafe fn operand_c<S: Src>(regs: *mut u32, i: &Inst, _: u32) -> u32 {
            unsafe { get(regs, i.c) }
        }
    }
}

// The engine's bodies, at the crate's root so that their paths resolve:
// `super::` is this root for each, `crate::exec::` the module above.
pub use exec::inst;
pub use exec::operand;
#[path = "../src/exec/bodies/arith.rs"]
pub mod arith;
#[path = "../src/exec/bodies/control.rs"]
pub mod control;

pub use exec::inst::{Exit, Flow};
pub(crate) use operand::Src;

/// What a body may write besides registers: where an error's reason goes
/// (a stencil's own, on its stack: dead, so dropped).
pub struct Ctx<O> {
    pub reason: types::Reason,
    pub _o: core::marker::PhantomData<O>,
}

/// The bodies' trait as bodies/mod.rs declares it.
pub(crate) trait OpBody {
    const STRAIGHT: bool = false;
    unsafe fn run<O: exec::observer::Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow;
}

use exec::inst::Inst;
use exec::observer::NoObserver;
use exec::operand::Regs;

unsafe extern "C" {
    static _HOLE_A: u8;
    static _HOLE_B: u8;
    static _HOLE_C: u8;
    static _HOLE_IMM: u8;
    static _HOLE_PC: u8;
    static _HOLE_LEN: u8;
}

unsafe extern "C" {
    fn _CONTINUE(regs: *mut u32, pc: u32, fuel: u32) -> u64;
    fn _JUMP(regs: *mut u32, pc: u32, fuel: u32) -> u64;
    fn _EXIT(regs: *mut u32, pc: u32, fuel: u32) -> u64;
    fn _SHORT(regs: *mut u32, pc: u32, fuel: u32) -> u64;
}

/// A register hole: the patcher writes the register's byte offset (its
/// number, below 16 (S4), times 4).
#[inline(always)]
fn reg(hole: *const u8) -> exec::inst::Reg {
    exec::inst::Reg(hole as usize)
}

/// A 32-bit hole's value.
#[inline(always)]
fn word(hole: *const u8) -> u32 {
    hole as usize as u32
}

/// The instruction a stencil's body reads: its fields are holes. A jump's
/// imm is 0, so that its body's target is the instruction itself and the
/// stencil tells a taken jump from the fall-through without the target.
#[inline(always)]
fn inst(jump: bool) -> Inst {
    Inst {
        op: 0,
        a: reg(&raw const _HOLE_A),
        b: reg(&raw const _HOLE_B),
        c: reg(&raw const _HOLE_C),
        imm: if jump { 0 } else { word(&raw const _HOLE_IMM) },
    }
}

/// Leaves the code at the micro-op at `_HOLE_PC` for the interpreter,
/// giving back `_HOLE_LEN` units of fuel (it and the rest of its block).
macro_rules! exit {
    ($regs:ident, $fuel:ident) => {
        unsafe { become _EXIT($regs, word(&raw const _HOLE_PC), $fuel + word(&raw const _HOLE_LEN)) }
    };
}

/// Stencils that run a body and go on, each named after its micro-op's
/// `Opcode` (and body): build.rs takes every stencil whose name starts
/// with a capital for the micro-op of that name, so these rows are the one
/// list of micro-ops with stencils. A straight micro-op, or MOD, which
/// leaves for the interpreter on a zero divisor.
macro_rules! straight {
    ($($name:ident;)*) => {$(
        #[unsafe(no_mangle)]
        #[allow(non_snake_case)]
        pub unsafe extern "C" fn $name(regs: *mut u32, pc: u32, fuel: u32) -> u64 {
            let i = inst(false);
            let mut scratch = Ctx::<NoObserver> { reason: types::Reason::BadJump, _o: core::marker::PhantomData };
            // SAFETY: the patched holes meet OpBody's contract: register
            // fields below 16, `regs` the stream's registers.
            match unsafe { <arith::$name>::run::<NoObserver, Regs>(&i, regs, &mut scratch, &mut 0) } {
                Ok(_) => unsafe { become _CONTINUE(regs, pc, fuel) },
                Err(_) => exit!(regs, fuel),
            }
        }
    )*};
}

straight! {
    Set;
    Mov;
    Add;
    Addi;
    Sub;
    Mul;
    And;
    Shr;
    Rand;
    Mod;
}

/// Stencils for the jumps (named as [`straight!`]'s): `_JUMP` when taken,
/// else on.
macro_rules! jump {
    ($($name:ident;)*) => {$(
        #[unsafe(no_mangle)]
        #[allow(non_snake_case)]
        pub unsafe extern "C" fn $name(regs: *mut u32, pc: u32, fuel: u32) -> u64 {
            let i = inst(true);
            let mut scratch = Ctx::<NoObserver> { reason: types::Reason::BadJump, _o: core::marker::PhantomData };
            // SAFETY: as for the straight stencils; the body's target is
            // `&i` itself (imm 0), its fall-through the address after it.
            let taken = match unsafe { <control::$name>::run::<NoObserver, Regs>(&i, regs, &mut scratch, &mut 0) } {
                Ok(next) => core::ptr::eq(next, &i),
                Err(_) => false,
            };
            if taken {
                unsafe { become _JUMP(regs, pc, fuel) }
            } else {
                unsafe { become _CONTINUE(regs, pc, fuel) }
            }
        }
    )*};
}

jump! {
    Jmp;
    Jlt;
    Jeq;
    Jnz;
}

// The stencils of the protocol, in lower case: build.rs writes each into
// its field of `Stencils` (exec/compiled/stencil/mod.rs).

/// A block's head: charges the block's length, or leaves at its pc when
/// the fuel does not cover it (the interpreter counts the rest of the turn
/// micro-op by micro-op).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn head(regs: *mut u32, pc: u32, fuel: u32) -> u64 {
    let (left, short) = fuel.overflowing_sub(word(&raw const _HOLE_LEN));
    if short {
        unsafe { become _SHORT(regs, word(&raw const _HOLE_PC), fuel) }
    } else {
        unsafe { become _CONTINUE(regs, pc, left) }
    }
}

/// A micro-op the interpreter runs (it reads or changes the kernel, or
/// ends the stream).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn interpret(regs: *mut u32, _: u32, fuel: u32) -> u64 {
    exit!(regs, fuel)
}

/// Back to the loop: run the micro-op at `pc` in the interpreter.
#[unsafe(no_mangle)]
pub extern "C" fn leave(_: *mut u32, pc: u32, fuel: u32) -> u64 {
    (u64::from(fuel) << 32) | u64::from(pc)
}

/// Back to the loop: the fuel does not cover the block at `pc`.
#[unsafe(no_mangle)]
pub extern "C" fn leave_short(_: *mut u32, pc: u32, fuel: u32) -> u64 {
    (u64::from(fuel) << 32) | (1 << 31) | u64::from(pc)
}
