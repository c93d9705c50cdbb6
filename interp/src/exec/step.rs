//! One step of the interpreter and the fuel it costs, written once for
//! every dispatch variant: a micro-op body run with the observer told and
//! the exit point recorded ([`step`]), a superinstruction's two steps with
//! the fuel between them ([`run_pair`], [`run_pair_charged`]), a handler's
//! unit of work counted or charged ([`Unit`]: [`One`], [`Pair`]), the one
//! list of every handler index's unit ([`for_each_unit!`]) and what the
//! decoder and the compiler read of each ([`Shape`], [`shape`]). Above the
//! bodies; below the decoder and the dispatch loops.
//!
//! The turn budget (S17) reaches the handlers as one folded counter, the
//! fuel (machine/budget.rs); a block's head charges its whole block
//! (dispatch/chain.rs, `head`), and what one unit costs is decided here.

use std::marker::PhantomData;

use super::bodies::{Ctx, OpBody};
#[cfg(feature = "jit")]
use super::compiled::lower::{Emit, Lowered};
use super::inst::{Exit, Flow, HANDLERS, Inst, OpIndex};
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

/// Runs micro-op `B` at `ip`, its operands from where `S` says and the value
/// it wrote left in `acc`: `Ok(next)` once the observer heard of it; `Err`
/// after recording the exit point, `ip` with `exit_fuel` units left.
///
/// # Safety
/// `ip` is a decoded `B`; `regs` and `ctx` as a handler's (the handler
/// contract, handler.rs).
#[inline(always)]
pub(crate) unsafe fn step<B: OpBody, O: Observer, S: Src>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    exit_fuel: u32,
    acc: &mut u32,
) -> Flow {
    // SAFETY: the caller's contract; `ctx` is the live `Ctx<O>` of the turn.
    unsafe {
        match B::run::<O, S>(ip, regs, &mut *(ctx as *mut Ctx<O>), acc) {
            Ok(next) => {
                observe::<O>(ctx, ip);
                Ok(next)
            }
            Err(why) => Err(exit_at::<O>(ctx, ip, exit_fuel, why)),
        }
    }
}

#[cfg(feature = "chain")]
/// Runs the superinstruction `A` then `B` at `ip` inside a block whose fuel
/// was charged at its head (inst.rs "Blocks"): `fuel` is what is left
/// after the charge. `Err` after recording the exit point of the micro-op
/// that stopped, with the units of it and of what follows in the pair given
/// back (it ends its block).
///
/// # Safety
/// As [`run_pair`].
#[inline(always)]
pub(crate) unsafe fn run_pair_charged<A: OpBody, B: OpBody, O: Observer, SA: Src, SB: Src>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
    acc: &mut u32,
) -> Flow {
    // SAFETY: the caller's contract.
    unsafe {
        let mid = step::<A, O, SA>(ip, regs, ctx, fuel + 2, acc)?;
        debug_assert!(mid == ip.add(1));
        step::<B, O, SB>(mid, regs, ctx, fuel + 1, acc)
    }
}

/// Runs the superinstruction `A` (its operands from where `SA` says, which
/// is never the accumulator) then `B` (from where `SB` says, which may be
/// the accumulator `A` left) at `ip` with `fuel >= 1` units
/// left, exactly as the two micro-ops one after the other: `Ok((next, fuel
/// left))`, where a fuel of 1 stops after `A` with `next` at `B` (fuel 0);
/// `Err` after recording the exit point of the micro-op that stopped.
///
/// # Safety
/// `ip` is a decoded instruction fused from `A` (which returns `ip + 1`),
/// meeting `SA`'s condition (in place: its `b` is its `a`), and the
/// instruction after it is a decoded `B` meeting `SB`'s (from the
/// accumulator: the field names `A`'s `a`); `regs` and `ctx` as a handler's.
#[inline(always)]
pub(crate) unsafe fn run_pair<A: OpBody, B: OpBody, O: Observer, SA: Src, SB: Src>(
    ip: *const Inst,
    regs: *mut u32,
    ctx: *mut (),
    fuel: u32,
    acc: &mut u32,
) -> Result<(*const Inst, u32), Exit> {
    // SAFETY: the caller's contract.
    unsafe {
        let mid = step::<A, O, SA>(ip, regs, ctx, fuel, acc)?;
        debug_assert!(mid == ip.add(1));
        if fuel == 1 {
            // S17: the budget or the steps ran out between the two.
            return Ok((mid, 0));
        }
        let next = step::<B, O, SB>(mid, regs, ctx, fuel - 1, acc)?;
        Ok((next, fuel - 2))
    }
}

/// What one handler runs: one micro-op ([`One`]) or a superinstruction's two
/// ([`Pair`]).
pub(crate) trait Unit {
    /// The unit where no accumulator is held: what the counted handlers,
    /// the heads (which may start a turn) and the loops that keep no
    /// accumulator run (`Src::Held`).
    type Idle: Unit;

    /// What the decoder and the compiler read of the unit.
    const SHAPE: Shape;

    /// Runs the unit counting one unit of fuel per micro-op (`fuel >= 1`):
    /// `Ok((next, fuel left))`, a pair stopping between its parts when one
    /// unit is left; `Err` after recording the exit point.
    ///
    /// # Safety
    /// The handler contract (handler.rs), and `ip` holds this unit.
    unsafe fn counted<O: Observer>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: *mut (),
        fuel: u32,
        acc: &mut u32,
    ) -> Result<(*const Inst, u32), Exit>;

    #[cfg(feature = "chain")]
    /// Runs the unit inside a block whose head charged it; `fuel` is what
    /// is left after the charge. `Err` after recording the exit point with
    /// the stopping micro-op's unit given back (it ends its block).
    ///
    /// # Safety
    /// As [`Unit::counted`].
    unsafe fn charged<O: Observer>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: *mut (),
        fuel: u32,
        acc: &mut u32,
    ) -> Result<*const Inst, Exit>;

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
    type Idle = One<B, S::Held>;

    const SHAPE: Shape = Shape {
        first: B::OP,
        first_reads: reads::<S>(),
        second: None,
        second_reads: reads::<Regs>(),
        straight: B::STRAIGHT,
    };

    #[inline(always)]
    unsafe fn counted<O: Observer>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: *mut (),
        fuel: u32,
        acc: &mut u32,
    ) -> Result<(*const Inst, u32), Exit> {
        // SAFETY: the caller's contract.
        // A counted micro-op may be the first of a turn, with nothing in
        // the accumulator: it reads where `S` says when none is held.
        unsafe { step::<B, O, S::Held>(ip, regs, ctx, fuel, acc).map(|next| (next, fuel - 1)) }
    }

    #[cfg(feature = "chain")]
    #[inline(always)]
    unsafe fn charged<O: Observer>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: *mut (),
        fuel: u32,
        acc: &mut u32,
    ) -> Result<*const Inst, Exit> {
        // SAFETY: the caller's contract; a micro-op that stops ends its
        // block, so it gives its own unit back.
        unsafe { step::<B, O, S>(ip, regs, ctx, fuel + 1, acc) }
    }

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
    type Idle = Self;

    const SHAPE: Shape = Shape {
        first: A::OP,
        first_reads: reads::<SA>(),
        second: B::OP,
        second_reads: reads::<SB>(),
        // The first is always straight (for_each_fused!).
        straight: B::STRAIGHT,
    };

    #[inline(always)]
    unsafe fn counted<O: Observer>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: *mut (),
        fuel: u32,
        acc: &mut u32,
    ) -> Result<(*const Inst, u32), Exit> {
        // SAFETY: the caller's contract: the decoder gave this index only to
        // an `A` meeting `SA`'s condition followed by a `B` meeting `SB`'s
        // (run_pair's contract).
        unsafe { run_pair::<A, B, O, SA, SB>(ip, regs, ctx, fuel, acc) }
    }

    #[cfg(feature = "chain")]
    #[inline(always)]
    unsafe fn charged<O: Observer>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: *mut (),
        fuel: u32,
        acc: &mut u32,
    ) -> Result<*const Inst, Exit> {
        // SAFETY: as `counted`.
        unsafe { run_pair_charged::<A, B, O, SA, SB>(ip, regs, ctx, fuel, acc) }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        A::lower(e, i)
    }
}

/// Calls `$m!` with every handler index's unit, in index order, one
/// entry `Index: UnitType;` each: every micro-op (`One<bodies::Name>`),
/// `End`, every superinstruction of [`for_each_fused!`](super::inst::for_each_fused)
/// (`Pair<bodies::First, bodies::Second, SrcFirst, SrcSecond>`) and every
/// variant (`One<bodies::Base, src::x>`). The one list every dispatch loop,
/// the decoder's choices ([`shape`]) and the compiler read; `<U as
/// Unit>::Idle` is an entry's unit where nothing is held. (The arms after
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
