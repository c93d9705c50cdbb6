//! Register arithmetic: SET, MOV, ADD, ADDI, SUB, MUL, AND, SHR, MOD, RAND.
//! Each body is written out: [`OpBody::run`] for the interpreters, then
//! [`OpBody::lower`] for the compiled tier.
//!
//! Registers are u32 and arithmetic wraps (docs/spec.md "Micro-ops").

use super::{Ctx, Exit, Flow, OpBody, Src};
#[cfg(feature = "jit")]
use crate::exec::compiled::lower::{Emit, Lowered};
use crate::exec::inst::Inst;
use crate::exec::observer::Observer;
use crate::exec::operand::{get, operand_b, operand_c, set};
use crate::types::Reason;

/// `SET a, imm`: a = imm.
pub(crate) struct Set;
impl OpBody for Set {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: OpBody's contract: `ip` is a decoded instruction, its
        // register fields are below 16, and the next instruction exists
        // (at worst the End sentinel).
        unsafe {
            let i = &*ip;
            let v = i.imm;
            set(regs, i.a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let v = e.konst(i.imm);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `MOV a, b`: a = b.
pub(crate) struct Mov;
impl OpBody for Mov {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET.
        unsafe {
            let i = &*ip;
            let v = operand_b::<S>(regs, i, *acc);
            set(regs, i.a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let v = e.reg(i.b);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `ADD a, b, c`: a = b + c, wrapping.
pub(crate) struct Add;
impl OpBody for Add {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET.
        unsafe {
            let i = &*ip;
            let v = operand_b::<S>(regs, i, *acc).wrapping_add(operand_c::<S>(regs, i, *acc));
            set(regs, i.a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let (b, c) = (e.reg(i.b), e.reg(i.c));
        let v = e.add(b, c);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `ADDI a, b, imm`: a = b + imm, wrapping.
pub(crate) struct Addi;
impl OpBody for Addi {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET.
        unsafe {
            let i = &*ip;
            let v = operand_b::<S>(regs, i, *acc).wrapping_add(i.imm);
            set(regs, i.a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let (b, k) = (e.reg(i.b), e.konst(i.imm));
        let v = e.add(b, k);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `SUB a, b, c`: a = b - c, wrapping.
pub(crate) struct Sub;
impl OpBody for Sub {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET.
        unsafe {
            let i = &*ip;
            let v = operand_b::<S>(regs, i, *acc).wrapping_sub(operand_c::<S>(regs, i, *acc));
            set(regs, i.a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let (b, c) = (e.reg(i.b), e.reg(i.c));
        let v = e.sub(b, c);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `MUL a, b, c`: a = b * c, the low 32 bits.
pub(crate) struct Mul;
impl OpBody for Mul {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET.
        unsafe {
            let i = &*ip;
            let v = operand_b::<S>(regs, i, *acc).wrapping_mul(operand_c::<S>(regs, i, *acc));
            set(regs, i.a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let (b, c) = (e.reg(i.b), e.reg(i.c));
        let v = e.mul(b, c);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `AND a, b, c`: a = b & c.
pub(crate) struct And;
impl OpBody for And {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET.
        unsafe {
            let i = &*ip;
            let v = operand_b::<S>(regs, i, *acc) & operand_c::<S>(regs, i, *acc);
            set(regs, i.a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let (b, c) = (e.reg(i.b), e.reg(i.c));
        let v = e.and(b, c);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `SHR a, b, imm`: a = b >> (imm & 31), logical.
pub(crate) struct Shr;
impl OpBody for Shr {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET.
        unsafe {
            let i = &*ip;
            let v = operand_b::<S>(regs, i, *acc) >> (i.imm & 31);
            set(regs, i.a, v);
            *acc = v;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let b = e.reg(i.b);
        let v = e.shr(b, i.imm & 31);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `MOD a, b, c`: a = b % c; c = 0 ends the stream with `Reason::ModByZero`
/// at the MOD.
pub(crate) struct Mod;
impl OpBody for Mod {
    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        ctx: &mut Ctx<O>,
        _: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET.
        unsafe {
            let i = &*ip;
            let c = get(regs, i.c);
            if c == 0 {
                ctx.reason = Reason::ModByZero;
                return Err(Exit::Error);
            }
            set(regs, i.a, get(regs, i.b) % c);
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let (b, c) = (e.reg(i.b), e.reg(i.c));
        let v = e.rem_or_interpret(b, c);
        e.set_reg(i.a, v);
        Lowered::Next
    }
}

/// `RAND a`: xorshift on r15 (13, 17, 5), then a = r15.
pub(crate) struct Rand;
impl OpBody for Rand {
    const STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn run<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for SET; 15 is a register.
        unsafe {
            let mut x = get(regs, 15);
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            set(regs, 15, x);
            set(regs, (*ip).a, x);
            *acc = x;
            Ok(ip.add(1))
        }
    }

    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let mut x = e.reg(15);
        let t = e.shl(x, 13);
        x = e.xor(x, t);
        let t = e.shr(x, 17);
        x = e.xor(x, t);
        let t = e.shl(x, 5);
        x = e.xor(x, t);
        e.set_reg(15, x);
        e.set_reg(i.a, x);
        Lowered::Next
    }
}
