//! What every handler does around a body: tell the observer ([`observe`])
//! and record where the turn stopped ([`exit_at`]); and what a handler
//! index's unit is ([`Unit`]: [`One`], [`Pair`]), listed once
//! ([`for_each_unit!`]), as the decoder and the compiler read it
//! ([`Shape`], [`shape`]). Above the bodies; below the decoder and the
//! dispatch loops, whose handlers are written out in
//! dispatch/handlers.rs.

use std::marker::PhantomData;

use super::bodies::{Ctx, OpBody};
#[cfg(feature = "jit")]
use super::compiled::lower::{Emit, Lowered};
use super::inst::{Exit, HANDLERS, Inst, OpIndex};
use super::observer::Observer;
use super::operand::{Reads, Regs, Src, reads};
use crate::ops::Opcode;

/// Records the exit point (cold, shared by every variant).
///
/// # Safety
/// `ctx` is the turn's live `Ctx<O>` (the handler contract, handler.rs).
#[cold]
#[inline(never)]
pub(crate) unsafe fn exit_at<O: Observer>(
    ctx: *mut (),
    ip: *const Inst,
    fuel: u32,
    why: Exit,
) -> Exit {
    // SAFETY: `ctx` is the `Ctx<O>` the turn created (the dispatch entry's contract).
    let c = unsafe { &mut *(ctx as *mut Ctx<O>) };
    c.exit_ip = ip;
    c.exit_fuel = fuel;
    why
}

/// Counts the completed micro-op at `ip` when the observer wants per-pc counts.
///
/// # Safety
/// As [`exit_at`], and `ip` in the turn's program.
#[inline(always)]
pub(crate) unsafe fn observe<O: Observer>(ctx: *mut (), ip: *const Inst) {
    if O::ENABLED {
        // SAFETY: as `exit_at`; the observer is not otherwise borrowed here.
        let c = unsafe { &mut *(ctx as *mut Ctx<O>) };
        let pc = c.pc(ip);
        // SAFETY: `obs` is the turn's live observer, borrowed by nothing else
        // while a handler runs.
        unsafe { (*c.obs).on_op(pc) };
    }
}

/// What one handler runs: one micro-op ([`One`]) or a superinstruction's two
/// ([`Pair`]).
pub(crate) trait Unit {
    /// What the decoder and the compiler read of the unit.
    const SHAPE: Shape;

    /// Builds the unit's (first) micro-op for the compiled tier: a
    /// superinstruction's second has an instruction of its own, and a
    /// variant only says where the interpreter reads an operand.
    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered;
}

/// One micro-op body as a [`Unit`], reading the operands `S` names from
/// the accumulator when its block's head paid (a forwarding variant).
pub(crate) struct One<B, S = Regs>(PhantomData<(B, S)>);

impl<B: OpBody, S: Src> Unit for One<B, S> {
    const SHAPE: Shape = Shape {
        first: B::OP,
        first_reads: reads::<S>(),
        second: None,
        second_reads: reads::<Regs>(),
        straight: B::STRAIGHT,
    };

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        B::lower(e, i)
    }
}

/// A superinstruction, `A` (its operands from where `SA` says: the
/// register file or in place) then `B` (from where `SB` says: the register
/// file, or the accumulator `A` left), as a [`Unit`].
pub(crate) struct Pair<A, B, SA = Regs, SB = Regs>(PhantomData<(A, B, SA, SB)>);

impl<A: OpBody, B: OpBody, SA: Src, SB: Src> Unit for Pair<A, B, SA, SB> {
    const SHAPE: Shape = Shape {
        first: A::OP,
        first_reads: reads::<SA>(),
        second: B::OP,
        second_reads: reads::<SB>(),
        // The first is always straight (for_each_fused!).
        straight: B::STRAIGHT,
    };

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        A::lower(e, i)
    }
}

/// Calls `$m!` with every handler index's unit, in index order, one
/// entry `Index: UnitType;` each: every micro-op (`One<bodies::Name>`),
/// `End`, every superinstruction of [`for_each_fused!`](super::inst::for_each_fused)
/// (`Pair<bodies::First, bodies::Second, SrcFirst, SrcSecond>`) and every
/// variant (`One<bodies::Base, src::x>`). The one list that
/// the decoder's choices ([`shape`]) and the compiler read. (The arms after
/// the first are its own steps through `for_each_op!` and
/// `for_each_fused!`.)
macro_rules! for_each_unit {
    ($m:ident) => {
        $crate::for_each_op! { for_each_unit @ops $m }
    };
    (@ops $m:ident $($name:ident = $($field:tt),*;)*) => {
        $crate::exec::inst::for_each_fused! { for_each_unit [@units $m $($name)*] }
    };
    ([@units $m:ident $($name:ident)*]
     [$($fused:ident = $first:ident $(($fsrc:ident))? + $second:ident $(($ssrc:ident))?;)*]
     [$($var:ident = $base:ident($src:ident);)*]) => {
        $m! {
            $($name: $crate::exec::step::One<$crate::exec::bodies::$name>;)*
            End: $crate::exec::step::One<$crate::exec::bodies::End>;
            $($fused: $crate::exec::step::Pair<
                $crate::exec::bodies::$first,
                $crate::exec::bodies::$second,
                $crate::exec::step::for_each_unit!(@src $($fsrc)?),
                $crate::exec::step::for_each_unit!(@src $($ssrc)?),
            >;)*
            $($var: $crate::exec::step::One<$crate::exec::bodies::$base, $crate::exec::operand::src::$src>;)*
        }
    };
    (@src) => {
        $crate::exec::operand::Regs
    };
    (@src $src:ident) => {
        $crate::exec::operand::src::$src
    };
}
pub(crate) use for_each_unit;

/// What the decoder, the block cutter and the compiler read of a handler
/// index's unit ([`Unit::SHAPE`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Its micro-op, a superinstruction's first; `None` for `End`.
    pub first: Option<Opcode>,
    /// Where that micro-op reads its operands (a variant's source).
    pub first_reads: Reads,
    /// A superinstruction's second micro-op.
    pub second: Option<Opcode>,
    /// Where the second reads its operands.
    pub second_reads: Reads,
    /// Whether the unit may sit inside a block (inst.rs "Blocks";
    /// `OpBody::STRAIGHT`, a superinstruction's by its second micro-op).
    pub straight: bool,
}

macro_rules! shapes {
    ($($index:ident: $unit:ty;)*) => {
        /// Every handler index's shape, by index.
        pub(crate) const SHAPES: [Shape; HANDLERS] = [$(<$unit as Unit>::SHAPE,)*];

        // The list and `OpIndex` are in one order (both from the same
        // lists).
        const _: () = {
            let mut k = 0;
            $(
                assert!(OpIndex::$index as usize == k);
                k += 1;
            )*
            assert!(k == HANDLERS);
        };
    };
}

for_each_unit!(shapes);

/// The shape of handler index `index`'s unit.
pub(crate) const fn shape(index: OpIndex) -> Shape {
    SHAPES[index as usize]
}

/// Whether each dense index's unit is straight ([`Shape::straight`]):
/// whether it may sit inside a block (inst.rs "Blocks").
pub(crate) const fn straight(index: OpIndex) -> bool {
    shape(index).straight
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::operand::src;

    const REGS: Reads = reads::<Regs>();

    /// The shapes of a few entries, worked out from `for_each_op!` (which
    /// micro-ops stop the turn, S18) and `for_each_fused!`'s lines.
    #[test]
    fn shapes_follow_the_lists() {
        // A plain micro-op: itself, from the register file.
        let add = shape(OpIndex::Add);
        assert_eq!(add.first, Some(Opcode::Add));
        assert_eq!(add.second, None);
        assert_eq!(add.first_reads, REGS);
        assert!(add.straight);
        // `End` is no micro-op and ends its block.
        let end = shape(OpIndex::End);
        assert_eq!((end.first, end.second, end.straight), (None, None, false));
        // `AddB = Add(b);`: ADD, its `b` from the accumulator.
        let add_b = shape(OpIndex::AddB);
        assert_eq!((add_b.first, add_b.second), (Some(Opcode::Add), None));
        assert_eq!(add_b.first_reads, reads::<src::b>());
        assert!(add_b.first_reads.b && !add_b.first_reads.a);
        // `AddiJltInPlace = Addi(in_place) + Jlt(a);`: a jump ends the
        // block, so the pair is not straight.
        let pair = shape(OpIndex::AddiJltInPlace);
        assert_eq!(pair.first, Some(Opcode::Addi));
        assert_eq!(pair.second, Some(Opcode::Jlt));
        assert!(pair.first_reads.b_is_a);
        assert!(pair.second_reads.a);
        assert!(!pair.straight);
        // `AddAddi = Add + Addi;`: both straight, both from the registers.
        let add_addi = shape(OpIndex::AddAddi);
        assert_eq!((add_addi.first_reads, add_addi.second_reads), (REGS, REGS));
        assert!(add_addi.straight);
        // `SubmitGroup = Submit(group);`: SUBMIT may wait, so it stops.
        let group = shape(OpIndex::SubmitGroup);
        assert!(group.first_reads.group && !group.straight);
        // What stops the turn is no straight unit (S18): HALT, WAIT, the
        // jumps.
        for index in [OpIndex::Halt, OpIndex::Wait, OpIndex::Jmp, OpIndex::JnzA] {
            assert!(!straight(index), "{index:?}");
        }
    }
}
