//! Register arithmetic: SET, MOV, ADD, ADDI, SUB, MUL, AND, SHR, MOD, RAND.
//!
//! Registers are u32 and arithmetic wraps (docs/spec.md "Micro-ops").

use super::{Ctx, Exit, Flow, OpBody, Src, run_via_acc};
use crate::exec::inst::Inst;
use crate::exec::observer::Observer;
use crate::exec::operand::{get, operand_b, operand_c, set};
use crate::types::Reason;

macro_rules! three_reg {
    ($($name:ident: $f:expr;)*) => {$(
        pub(crate) struct $name;
        impl OpBody for $name {
            const STRAIGHT: bool = true;
            run_via_acc!();
            #[inline(always)]
            unsafe fn run_acc<O: Observer, S: Src>(ip: *const Inst, regs: *mut u32, _: &mut Ctx<O>, acc: &mut u32) -> Flow {
                // SAFETY: OpBody's contract: `ip` is a decoded instruction, its
                // register fields are below 16, and the next instruction exists
                // (at worst the End sentinel).
                unsafe {
                    let i = &*ip;
                    let f: fn(u32, u32) -> u32 = $f;
                    let v = f(operand_b::<S>(regs, i, *acc), operand_c::<S>(regs, i, *acc));
                    set(regs, i.a, v);
                    *acc = v;
                    Ok(ip.add(1))
                }
            }
        }
    )*};
}

three_reg! {
    Add: u32::wrapping_add;
    Sub: u32::wrapping_sub;
    Mul: u32::wrapping_mul;
    And: |b, c| b & c;
}

macro_rules! reg_imm {
    ($($name:ident: $f:expr;)*) => {$(
        pub(crate) struct $name;
        impl OpBody for $name {
            const STRAIGHT: bool = true;
            run_via_acc!();
            #[inline(always)]
            unsafe fn run_acc<O: Observer, S: Src>(ip: *const Inst, regs: *mut u32, _: &mut Ctx<O>, acc: &mut u32) -> Flow {
                // SAFETY: as for the three-register micro-ops.
                unsafe {
                    let i = &*ip;
                    let f: fn(u32, u32) -> u32 = $f;
                    let v = f(operand_b::<S>(regs, i, *acc), i.imm);
                    set(regs, i.a, v);
                    *acc = v;
                    Ok(ip.add(1))
                }
            }
        }
    )*};
}

reg_imm! {
    Set: |_, imm| imm;
    Mov: |b, _| b;
    Addi: u32::wrapping_add;
    Shr: |b, imm| b >> (imm & 31);
}

/// `MOD a, b, c`: c = 0 ends the stream with reason 7 at the MOD.
pub(crate) struct Mod;
impl OpBody for Mod {
    #[inline(always)]
    unsafe fn run<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: &mut Ctx<O>) -> Flow {
        // SAFETY: as for the three-register micro-ops.
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
}

/// `RAND a`: xorshift on r15 (13, 17, 5), then a = r15.
pub(crate) struct Rand;
impl OpBody for Rand {
    const STRAIGHT: bool = true;
    run_via_acc!();
    #[inline(always)]
    unsafe fn run_acc<O: Observer, S: Src>(
        ip: *const Inst,
        regs: *mut u32,
        _: &mut Ctx<O>,
        acc: &mut u32,
    ) -> Flow {
        // SAFETY: as for the three-register micro-ops; 15 is a register.
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
}
