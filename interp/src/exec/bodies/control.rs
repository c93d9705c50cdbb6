//! Jumps (JMP, JLT, JEQ, JNZ) and the `End` sentinel past the last micro-op.

use super::{Ctx, Exit, Flow, OpBody, Src, interpreted, run_via_acc};
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

macro_rules! cond_jump {
    ($($name:ident: |$a:ident, $b:ident| $cond:expr, |$e:ident, $i:ident, $t:ident| $lower:expr;)*) => {$(
        pub(crate) struct $name;
        impl OpBody for $name {
            run_via_acc!();
            #[cfg(feature = "jit")]
            fn lower<E: Emit>($e: &mut E, $i: &Inst) -> Lowered {
                let $t = target_pc($e.pc(), $i);
                $lower;
                Lowered::Jumped
            }
            /// A jump leaves the accumulator as it is (it ends its block);
            /// as the second of a pair it may read `a` from it.
            #[inline(always)]
            unsafe fn run_acc<O: Observer, S: Src>(ip: *const Inst, regs: *mut u32, _: &mut Ctx<O>, acc: &mut u32) -> Flow {
                // SAFETY: OpBody's contract: register fields below 16, the
                // target and the next instruction inside the program. The
                // operands are read only where the condition uses them.
                unsafe {
                    let i = &*ip;
                    let $a = || operand_a::<S>(regs, i, *acc);
                    let $b = || operand_b::<S>(regs, i, *acc);
                    Ok(if $cond { target(ip) } else { ip.add(1) })
                }
            }
        }
    )*};
}

cond_jump! {
    Jmp: |a, b| { let _ = (a, b); true }, |e, i, t| e.jump(t);
    Jlt: |a, b| a() < b(), |e, i, t| { let (a, b) = (e.reg(i.a), e.reg(i.b)); e.branch(Cmp::Lt, a, b, t) };
    Jeq: |a, b| a() == b(), |e, i, t| { let (a, b) = (e.reg(i.a), e.reg(i.b)); e.branch(Cmp::Eq, a, b, t) };
    Jnz: |a, b| { let _ = b; a() != 0 }, |e, i, t| { let (a, z) = (e.reg(i.a), e.konst(0)); e.branch(Cmp::Ne, a, z, t) };
}

interpreted! {
    /// The sentinel at index op_count: the program counter ran past the last
    /// micro-op, `Reason::BadJump` at op_count (S17). The fuel test runs first, so a turn
    /// whose budget ran out on the last micro-op ends with the budget (S17).
    End(_, _, ctx) {
        ctx.reason = Reason::BadJump;
        Err(Exit::Error)
    }
}
