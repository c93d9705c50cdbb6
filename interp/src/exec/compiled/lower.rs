//! The vocabulary a micro-op's lowering is written in (feature `jit`):
//! what the compiled tier needs to build one micro-op, and nothing of the
//! compiler that builds it. Each body says how it lowers beside its run
//! (`OpBody::lower`, bodies/), so a micro-op without a lowering is a compile
//! error; `cranelift/compile.rs` implements [`Emit`] with Cranelift. Beside
//! [`inst`](crate::exec::inst) at the bottom of the interpreter.

use crate::exec::inst::Inst;

/// How a compared pair decides a conditional jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    /// `a < b`, unsigned.
    Lt,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
}

/// What a lowered micro-op left the compiler to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lowered {
    /// Control goes on to the next micro-op.
    Next,
    /// The micro-op emitted its own control flow (a jump).
    Jumped,
    /// Not compiled: the interpreter runs it (the micro-ops that read or
    /// change the kernel, HALT and `End`), so the compiled code leaves at
    /// it with its fuel given back.
    Interpret,
}

/// Builds the code of one micro-op at pc [`Emit::pc`]. Registers are read
/// and written by number (below 16: the check's `Reason::BadRegister`).
pub(crate) trait Emit {
    /// A 32-bit value of the code being built.
    type Val: Copy;
    /// The pc of the micro-op being lowered.
    fn pc(&self) -> u32;
    /// Register `r`'s value.
    fn reg(&mut self, r: u8) -> Self::Val;
    /// Register `r` takes `v`.
    fn set_reg(&mut self, r: u8, v: Self::Val);
    /// The constant `v`.
    fn konst(&mut self, v: u32) -> Self::Val;
    /// `a + b`, wrapping.
    fn add(&mut self, a: Self::Val, b: Self::Val) -> Self::Val;
    /// `a - b`, wrapping.
    fn sub(&mut self, a: Self::Val, b: Self::Val) -> Self::Val;
    /// `a * b`, the low 32 bits.
    fn mul(&mut self, a: Self::Val, b: Self::Val) -> Self::Val;
    /// `a & b`.
    fn and(&mut self, a: Self::Val, b: Self::Val) -> Self::Val;
    /// `a ^ b`.
    fn xor(&mut self, a: Self::Val, b: Self::Val) -> Self::Val;
    /// `a << n` (`n < 32`).
    fn shl(&mut self, a: Self::Val, n: u32) -> Self::Val;
    /// `a >> n`, logical (`n < 32`).
    fn shr(&mut self, a: Self::Val, n: u32) -> Self::Val;
    /// `a % b`, unsigned; the code leaves for the interpreter first when
    /// `b` is 0 (which then stops the stream with its reason).
    fn rem_or_interpret(&mut self, a: Self::Val, b: Self::Val) -> Self::Val;
    /// Goes to micro-op `target`.
    fn jump(&mut self, target: u32);
    /// Goes to micro-op `target` when `a cmp b`, else to the next one.
    fn branch(&mut self, cmp: Cmp, a: Self::Val, b: Self::Val, target: u32);
}

/// The pc a decoded jump at pc `pc` goes to: its imm is the distance in
/// bytes, `(target - pc) * 16` (decode/).
pub(crate) fn target_pc(pc: u32, i: &Inst) -> u32 {
    pc.wrapping_add(((i.imm as i32) >> 4) as u32)
}
