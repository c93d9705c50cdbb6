//! The micro-op bodies, written once, and what every dispatch variant shares.
//!
//! Each micro-op of [`for_each_op!`](crate::for_each_op) has a zero-sized type
//! of the same name (`Add`, `Jlt`, `Submit`, ...) implementing [`OpBody`]: one
//! `#[inline(always)]` function that does the micro-op and says where control
//! goes next ([`Flow`]). The bodies live in one file per category:
//! [`arith`] (register arithmetic), [`control`] (jumps and the `End` sentinel)
//! and [`kernel_facing`] (the micro-ops that talk to the kernel, S18). The three dispatch
//! loops (`tail.rs`, `switch.rs`, `threaded.rs`) are generated from the same
//! list and differ only in how they pass control to the next micro-op.

pub(crate) mod arith;
pub(crate) mod control;
pub(crate) mod kernel_facing;

pub(crate) use arith::*;
pub(crate) use control::*;
pub(crate) use kernel_facing::*;

use super::handler::Inst;
pub(crate) use super::handler::{Exit, Flow};
use super::kernel::{Kernel, Refusal, StreamMeta};
use super::observer::Observer;
use super::program::Tmpl;
use crate::types::Reason;

/// The state one turn of one stream works on, reached through raw pointers
/// because the handlers receive it type-erased as `*mut ()`.
pub(crate) struct Ctx<O: Observer> {
    pub kernel: *mut Kernel,
    pub stream: *mut StreamMeta,
    pub obs: *mut O,
    /// The program's first instruction (pc 0).
    pub base: *const Inst,
    pub templates: *const Tmpl,
    /// Where the turn stopped: the next micro-op to run (or the waiting one).
    pub exit_ip: *const Inst,
    /// The fuel left when the turn stopped.
    pub exit_fuel: u32,
    /// The reason of an [`Exit::Error`].
    pub reason: Reason,
    /// The halt register of an [`Exit::Halt`].
    pub halt: u32,
    /// True when the fuel spans several quick passes (machine.rs): a
    /// micro-op that reads or changes the kernel must return
    /// [`Exit::Resync`] before it runs.
    pub spanning: bool,
}

impl<O: Observer> Ctx<O> {
    /// Maps the kernel's refusal of a SUBMIT or ENQUEUE onto an exit.
    #[inline(always)]
    pub fn fail(&mut self, refusal: Refusal) -> Exit {
        match refusal {
            Refusal::Wait(exit) => exit,
            Refusal::Error(reason) => {
                self.reason = reason;
                Exit::Error
            }
        }
    }

    /// `Err(Exit::Resync)` inside a span of quick passes (machine.rs): for
    /// the micro-ops that read or change the kernel, which must first learn
    /// their pass.
    #[inline(always)]
    pub fn resync(&self) -> Result<(), Exit> {
        if self.spanning {
            Err(Exit::Resync)
        } else {
            Ok(())
        }
    }

    /// The program counter of `ip`.
    #[inline(always)]
    pub fn pc(&self, ip: *const Inst) -> u32 {
        // SAFETY: every `ip` a handler sees points into the program starting at
        // `base` (Program::decode: jump targets below op_count, the End
        // sentinel at op_count), so both are in one allocation.
        unsafe { ip.offset_from(self.base) as u32 }
    }
}

/// One micro-op's behaviour.
pub(crate) trait OpBody {
    /// True when the micro-op never stops the turn and always goes on to the
    /// next instruction (never `Err`, always `ip + 1`): it can sit inside a
    /// block (handler.rs "Blocks") rather than end one.
    const STRAIGHT: bool = false;

    /// Does the micro-op at `ip`.
    ///
    /// # Safety
    /// `ip` points at an instruction of a decoded [`Program`](super::program::Program)
    /// with this body's op, `regs` at that stream's 16 registers, and `ctx`'s
    /// pointers are live and unaliased for the call.
    unsafe fn run<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: &mut Ctx<O>) -> Flow;

    /// Does the micro-op as [`OpBody::run`], reading the operands `S` names
    /// from `acc` rather than the register file, and, for a straight
    /// micro-op, leaves in `acc` the value it wrote to register `a` (the
    /// accumulator, docs/dispatch.md). Every straight body implements it;
    /// the default, for the others, runs the body and leaves `acc` as it
    /// is: a micro-op that is not straight ends its block, and the head
    /// after it reads no accumulator.
    ///
    /// # Safety
    /// As [`OpBody::run`]; when `S` reads an operand from the accumulator,
    /// `acc` holds the register the operand names (the micro-op before wrote
    /// it) and the micro-op has that operand; when `S` is in place, `b` is
    /// `a` (Program::decode).
    #[inline(always)]
    unsafe fn run_acc<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        const {
            assert!(!Self::STRAIGHT, "a straight body keeps the accumulator");
            assert!(
                !S::A && !S::B && !S::C && !S::B_IS_A && !S::GROUP,
                "no variant of this body"
            );
        }
        let _ = acc;
        // SAFETY: the caller's contract.
        unsafe { Self::run::<O>(ip, regs, ctx) }
    }
}

/// [`OpBody::run`] of a body that implements [`OpBody::run_acc`]: its
/// operands from the register file, the accumulator dropped. Written once
/// for the straight bodies and the conditional jumps.
macro_rules! run_via_acc {
    () => {
        #[inline(always)]
        unsafe fn run<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: &mut Ctx<O>) -> Flow {
            // SAFETY: as `run_acc` (OpBody's contract; `Regs` reads no
            // accumulator).
            unsafe { Self::run_acc::<O, $crate::exec::bodies::Regs>(ip, regs, ctx, &mut 0) }
        }
    };
}
pub(crate) use run_via_acc;

/// Where a body reads its operands: the register file, the accumulator,
/// or (in place) register `a` for `b`: the variants and the pairs of
/// handler.rs `for_each_fused!`.
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
    /// the heads (chain.rs), which may start a turn. In place stays in
    /// place; the accumulator becomes the register file.
    type Held: Src;
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

    /// `a` from the accumulator.
    pub(crate) struct a;
    impl Src for a {
        const A: bool = true;
        type Held = Regs;
    }

    /// `b` from the accumulator.
    pub(crate) struct b;
    impl Src for b {
        const B: bool = true;
        type Held = Regs;
    }

    /// `c` from the accumulator.
    pub(crate) struct c;
    impl Src for c {
        const C: bool = true;
        type Held = Regs;
    }

    /// In place: `b` is register `a`.
    pub(crate) struct in_place;
    impl Src for in_place {
        const B_IS_A: bool = true;
        type Held = in_place;
    }

    /// SUBMIT's group from the registers in `a` and `b`, not exclusive.
    pub(crate) struct group;
    impl Src for group {
        const GROUP: bool = true;
        type Held = group;
    }

    /// In place, and `c` from the accumulator.
    pub(crate) struct in_place_c;
    impl Src for in_place_c {
        const C: bool = true;
        const B_IS_A: bool = true;
        type Held = in_place;
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
/// `r < 16` (Program::decode re-tests the check's reason 4) and `regs` points
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
        match B::run_acc::<O, S>(ip, regs, &mut *(ctx as *mut Ctx<O>), acc) {
            Ok(next) => {
                observe::<O>(ctx, ip);
                Ok(next)
            }
            Err(why) => Err(exit_at::<O>(ctx, ip, exit_fuel, why)),
        }
    }
}

/// Runs the superinstruction `A` then `B` at `ip` inside a block whose fuel
/// was charged at its head (handler.rs "Blocks"): `fuel` is what is left
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
