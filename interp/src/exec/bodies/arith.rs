//! Register arithmetic: SET, MOV, ADD, ADDI, SUB, MUL, AND, SHR, MOD, RAND.
//!
//! Registers are u32 and arithmetic wraps (docs/spec.md "Micro-ops").

use super::{Ctx, Exit, Flow, OpBody, Src, run_acc, run_via_acc};
#[cfg(feature = "jit")]
use crate::exec::compiled::lower::{Emit, Lowered};
use crate::exec::inst::Inst;
use crate::exec::observer::Observer;
use crate::exec::operand::{get, operand_b, operand_c, set};
use crate::types::Reason;

/// A straight micro-op `a = f(b, second)`, its second operand register
/// `c` or the imm: the body runs `f` on the operands from where `S` says,
/// the lowering is `lower`.
macro_rules! straight {
    (@second c, $regs:ident, $i:ident, $acc:ident) => { operand_c::<S>($regs, $i, *$acc) };
    (@second imm, $regs:ident, $i:ident, $acc:ident) => { $i.imm };
    ($name:ident, $f:expr, $second:ident, |$e:ident, $i:ident| $lower:expr) => {
        pub(crate) struct $name;
        impl OpBody for $name {
            const STRAIGHT: bool = true;
            run_via_acc!();
            #[cfg(feature = "jit")]
            fn lower<E: Emit>($e: &mut E, $i: &Inst) -> Lowered {
                let v = $lower;
                $e.set_reg($i.a, v);
                Lowered::Next
            }
            #[inline(always)]
            unsafe fn run_acc<O: Observer, S: Src>(ip: *const Inst, regs: *mut u32, _: &mut Ctx<O>, acc: &mut u32) -> Flow {
                // SAFETY: OpBody's contract: `ip` is a decoded instruction, its
                // register fields are below 16, and the next instruction exists
                // (at worst the End sentinel).
                unsafe {
                    let i = &*ip;
                    let f: fn(u32, u32) -> u32 = $f;
                    let v = f(operand_b::<S>(regs, i, *acc), straight!(@second $second, regs, i, acc));
                    set(regs, i.a, v);
                    *acc = v;
                    Ok(ip.add(1))
                }
            }
        }
    };
}

/// `a = f(b, c)`, lowered as the emitter's method of that name.
macro_rules! three_reg {
    ($($name:ident: $f:expr, $lower:ident;)*) => {$(
        straight!($name, $f, c, |e, i| { let (b, c) = (e.reg(i.b), e.reg(i.c)); e.$lower(b, c) });
    )*};
}

three_reg! {
    Add: u32::wrapping_add, add;
    Sub: u32::wrapping_sub, sub;
    Mul: u32::wrapping_mul, mul;
    And: |b, c| b & c, and;
}

/// `a = f(b, imm)`, lowered by the expression given.
macro_rules! reg_imm {
    ($($name:ident: $f:expr, |$e:ident, $b:ident, $imm:ident| $lower:expr;)*) => {$(
        straight!($name, $f, imm, |$e, i| { let ($b, $imm) = (i.b, i.imm); $lower });
    )*};
}

reg_imm! {
    Set: |_, imm| imm, |e, _b, imm| e.konst(imm);
    Mov: |b, _| b, |e, b, _imm| e.reg(b);
    Addi: u32::wrapping_add, |e, b, imm| { let (b, k) = (e.reg(b), e.konst(imm)); e.add(b, k) };
    Shr: |b, imm| b >> (imm & 31), |e, b, imm| { let b = e.reg(b); e.shr(b, imm & 31) };
}

/// `MOD a, b, c`: c = 0 ends the stream with `Reason::ModByZero` at the MOD.
pub(crate) struct Mod;
impl OpBody for Mod {
    #[cfg(feature = "jit")]
    fn lower<E: Emit>(e: &mut E, i: &Inst) -> Lowered {
        let (b, c) = (e.reg(i.b), e.reg(i.c));
        let v = e.rem_or_interpret(b, c);
        e.set_reg(i.a, v);
        Lowered::Next
    }

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
    run_acc!(|ip, regs, _, acc| {
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
    });
}
