//! Jumps (JMP, JLT, JEQ, JNZ) and the `End` sentinel past the last micro-op.
//! A jump leaves the accumulator as it is (it ends its block); as the
//! second of a pair it may read `a` from it (`S`).

use super::{Ctx, Exit, Flow, OpBody, Src};
#[cfg(feature = "jit")]
use crate::exec::compiled::lower::{Cmp, Emit, Lowered, target_pc};
use crate::exec::inst::Inst;
use crate::exec::observer::Observer;
use crate::exec::operand::{operand_a, operand_b};
use crate::types::Reason;

/// The jump target of a decoded jump.
///
/// # Safety
/// `ip` is a decoded jump: its imm is the distance in bytes from it to the
/// target, and the target is below op_count (the check's `Reason::BadJump`,
/// re-tested by Program::decode).
#[inline(always)]
unsafe fn target(ip: *const Inst) -> *const Inst {
    // SAFETY: the caller's contract keeps the result inside the program.
    unsafe { ip.byte_offset((*ip).imm as i32 as isize) }
}

/// `JMP imm`: go to micro-op imm.
pub(crate) struct Jmp;
impl OpBody for Jmp {
    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        _: *mut u32,
        _: &mut Ctx<O>,
        _: &mut u32,
    ) -> Flow {
        // SAFETY: OpBody's contract: the target is inside the program.
        unsafe { Ok(target(ip)) }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let t = target_pc(e.pc(), i);
        e.jump(t);
        Lowered::Jumped
    }
}

/// `JLT a, b, imm`: go to imm if a < b, unsigned.
pub(crate) struct Jlt;
impl OpBody for Jlt {
    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: OpBody's contract: register fields below 16, the target
        // and the next instruction inside the program.
        unsafe {
            let i = &*ip;
            Ok(
                if operand_a::<S>(regs, i, *acc) < operand_b::<S>(regs, i, *acc) {
                    target(ip)
                } else {
                    ip.add(1)
                },
            )
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let t = target_pc(e.pc(), i);
        let (a, b) = (e.reg(i.a), e.reg(i.b));
        e.branch(Cmp::Lt, a, b, t);
        Lowered::Jumped
    }
}

/// `JEQ a, b, imm`: go to imm if a == b.
pub(crate) struct Jeq;
impl OpBody for Jeq {
    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for JLT.
        unsafe {
            let i = &*ip;
            Ok(
                if operand_a::<S>(regs, i, *acc) == operand_b::<S>(regs, i, *acc) {
                    target(ip)
                } else {
                    ip.add(1)
                },
            )
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let t = target_pc(e.pc(), i);
        let (a, b) = (e.reg(i.a), e.reg(i.b));
        e.branch(Cmp::Eq, a, b, t);
        Lowered::Jumped
    }
}

/// `JNZ a, imm`: go to imm if a != 0.
pub(crate) struct Jnz;
impl OpBody for Jnz {
    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for JLT.
        unsafe {
            let i = &*ip;
            Ok(if operand_a::<S>(regs, i, *acc) != 0 {
                target(ip)
            } else {
                ip.add(1)
            })
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let t = target_pc(e.pc(), i);
        let (a, z) = (e.reg(i.a), e.konst(0));
        e.branch(Cmp::Ne, a, z, t);
        Lowered::Jumped
    }
}

/// The sentinel at index op_count: the program counter ran past the last
/// micro-op, `Reason::BadJump` at op_count (S17). The fuel test runs first,
/// so a turn whose budget ran out on the last micro-op ends with the budget
/// (S17).
pub(crate) struct End;
impl OpBody for End {
    #[cfg(feature = "jit")]
    const INTERPRETED: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        _: *const Inst,
        _: *mut u32,
        ctx: &mut Ctx<O>,
        _: &mut u32,
    ) -> Flow {
        ctx.reason = Reason::BadJump;
        Err(Exit::Error)
    }
}
