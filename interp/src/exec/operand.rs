//! Where a micro-op reads its operands: the register file, the
//! accumulator, or (in place) register `a` for `b` ([`Src`] and its
//! sources in [`src`], named as [`for_each_fused!`](super::inst::for_each_fused)
//! names them), and the register file itself ([`get`], [`set`]). Leaf
//! types: the decoder tests a source's condition, the bodies read through
//! it.

use super::inst::Inst;

/// Where a body reads its operands: the register file, the accumulator,
/// or (in place) register `a` for `b`: the variants and the pairs of
/// [`for_each_fused!`](super::inst::for_each_fused) (inst.rs).
pub(crate) trait Src {
    /// `a` is the accumulator (a jump reading the register the first half
    /// of its pair wrote).
    const A: bool = false;
    /// `b` is the accumulator.
    const B: bool = false;
    /// `c` is the accumulator.
    const C: bool = false;
    /// `b` is read as register `a` (the decoder gives such a variant only
    /// to a micro-op whose `b` is its `a`: `ADD r4, r4, r1`), so the body
    /// reads one register field less.
    const B_IS_A: bool = false;
    /// A SUBMIT whose template is not exclusive and takes both group
    /// fields from registers: the decoder put those registers in `a`
    /// (first core) and `b` (count), so the body reads them without the
    /// template's fixed group or the exclusive waits.
    const GROUP: bool = false;
    /// This source where no accumulator is held: the counted handlers and
    /// the heads (dispatch/chain.rs), which may start a turn. In place
    /// stays in place; the accumulator becomes the register file.
    type Held: Src;
}

/// What a source reads from where ([`Src`]'s flags) as a value, for the
/// tables worked out at compile time (the decoder's conditions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reads {
    pub a: bool,
    pub b: bool,
    pub c: bool,
    pub b_is_a: bool,
    pub group: bool,
}

/// The [`Reads`] of source `S`.
pub(crate) const fn reads<S: Src>() -> Reads {
    Reads {
        a: S::A,
        b: S::B,
        c: S::C,
        b_is_a: S::B_IS_A,
        group: S::GROUP,
    }
}

/// Every operand from the register file.
pub(crate) struct Regs;
impl Src for Regs {
    type Held = Regs;
}

/// The operand sources of the variants and pairs, named as
/// `for_each_fused!` names them: `a`, `b` and `c` the field read from the
/// accumulator, `in_place` (`b` read as `a`), `in_place_c` both.
#[allow(non_camel_case_types)]
pub(crate) mod src {
    use super::{Regs, Src};

    /// Each source: the operands it reads elsewhere than the register
    /// file, and what it becomes when the accumulator holds nothing.
    macro_rules! sources {
        ($($(#[$doc:meta])* $name:ident: [$($flag:ident),*], held $held:ident;)*) => {$(
            $(#[$doc])*
            pub(crate) struct $name;
            impl Src for $name {
                $(const $flag: bool = true;)*
                type Held = $held;
            }
        )*};
    }

    sources! {
        /// `a` from the accumulator.
        a: [A], held Regs;
        /// `b` from the accumulator.
        b: [B], held Regs;
        /// `c` from the accumulator.
        c: [C], held Regs;
        /// In place: `b` is register `a`.
        in_place: [B_IS_A], held in_place;
        /// SUBMIT's group from the registers in `a` and `b`, not exclusive.
        group: [GROUP], held group;
        /// In place, and `c` from the accumulator.
        in_place_c: [C, B_IS_A], held in_place;
    }
}

/// Operand `a` of `i` (a jump's), from where `S` says.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub(crate) unsafe fn operand_a<S: Src>(regs: *mut u32, i: &Inst, acc: u32) -> u32 {
    // SAFETY: the caller's contract.
    if S::A { acc } else { unsafe { get(regs, i.a) } }
}

/// Operand `b` of `i`, from where `S` says.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub(crate) unsafe fn operand_b<S: Src>(regs: *mut u32, i: &Inst, acc: u32) -> u32 {
    // SAFETY: the caller's contract.
    unsafe {
        if S::B {
            acc
        } else if S::B_IS_A {
            get(regs, i.a)
        } else {
            get(regs, i.b)
        }
    }
}

/// Operand `c` of `i`, from where `S` says.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub(crate) unsafe fn operand_c<S: Src>(regs: *mut u32, i: &Inst, acc: u32) -> u32 {
    // SAFETY: the caller's contract.
    if S::C { acc } else { unsafe { get(regs, i.c) } }
}

/// Reads register `r`.
///
/// # Safety
/// `r < 16` (Program::decode re-tests the check's `Reason::BadRegister`) and `regs` points
/// at 16 registers.
#[inline(always)]
pub(crate) unsafe fn get(regs: *mut u32, r: u8) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { *regs.add(usize::from(r)) }
}

/// Writes register `r`.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub(crate) unsafe fn set(regs: *mut u32, r: u8, v: u32) {
    // SAFETY: the caller's contract.
    unsafe { *regs.add(usize::from(r)) = v }
}
