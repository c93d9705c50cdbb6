//! The compiler: one region of a decoded program (plan.rs) in, one
//! Cranelift function out, each micro-op built by its body's lowering
//! (`OpBody::lower`, through [`Emit`]). Safe code: it only builds IR;
//! `code.rs` makes it runnable.
//!
//! The function is `(regs, pc, fuel) -> (fuel << 32) | kind | pc`. It is
//! entered at one of its region's entries (plan.rs) through a jump table,
//! keeps the registers its micro-ops use in SSA values (loaded at entry,
//! stored at every exit), and charges fuel as the interpreter does (inst.rs
//! "Blocks"): entering at pc `p` costs the micro-ops from `p` to the block's
//! end at once, and the code runs on only while the fuel covers them. Inside
//! a block the micro-ops are one straight run of IR: no test, no branch.
//! It leaves:
//!
//! - at an entry it cannot pay for: kind [`SHORT`], `fuel` what is left (0
//!   when the turn's fuel is used up exactly);
//! - at a jump or a fall-through to another region: kind [`GO`], at the
//!   target, with the fuel left;
//! - at a micro-op the interpreter runs (`Lowered::Interpret`, or MOD by
//!   0), and at any pc that is not an entry: kind 0, with the fuel of that
//!   micro-op and the rest of its block given back.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{AbiParam, Block, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::lowering::{lower, op_index};
use super::plan::Plan;
use crate::exec::compiled::entry::{GO, SHORT};
use crate::exec::compiled::lower::{Cmp, Emit, Lowered};
use crate::exec::inst::{HEAD, Inst};
use crate::format::REGISTERS;

/// The Cranelift side of [`Emit`]: the function being built, positioned at
/// the micro-op `pc`.
pub(crate) struct Builder<'a, 'f> {
    pub b: &'a mut FunctionBuilder<'f>,
    regs: [Variable; REGISTERS],
    fuel: Variable,
    plan: &'a Plan,
    /// The region's first pc and the block of each pc control enters.
    start: u32,
    starts: &'a [Option<Block>],
    /// The stream's register file, and the registers the region uses.
    regs_ptr: Value,
    used: u16,
    pc: u32,
    /// The block a branch that is not taken goes on in, when the micro-op
    /// after it is not an entry.
    cont: Option<Block>,
    /// The blocks that leave, to build: each with its pc and kind.
    pending: Vec<(Block, u32, u64)>,
}

impl Builder<'_, '_> {
    /// Leaves the function from the current block: the registers the
    /// region uses stored back, then `(fuel << 32) | word`. Every exit has
    /// its own (J2): one exit block for all made its arguments one value
    /// merged from every exit, which the register allocator paid for in
    /// the square of their number.
    fn leave_with(&mut self, word: Value, fuel: Value) {
        let flags = MemFlagsData::trusted();
        for r in registers_in(self.used) {
            let v = self.b.use_var(self.regs[r]);
            self.b.ins().store(flags, v, self.regs_ptr, (4 * r) as i32);
        }
        let word = self.b.ins().uextend(types::I64, word);
        let fuel = self.b.ins().uextend(types::I64, fuel);
        let fuel = self.b.ins().ishl_imm_u(fuel, 32);
        let out = self.b.ins().bor(word, fuel);
        self.b.ins().return_(&[out]);
    }

    /// Leaves with `pc`, the fuel `fuel` and kind `kind`.
    fn leave(&mut self, pc: u32, fuel: Value, kind: u64) {
        let word = self
            .b
            .ins()
            .iconst(types::I32, (u64::from(pc) | kind) as i64);
        self.leave_with(word, fuel);
    }

    /// Leaves at micro-op `pc` for the interpreter, giving back its fuel
    /// and the rest of its block's.
    fn leave_here(&mut self) {
        let fuel = self.b.use_var(self.fuel);
        let fuel = self
            .b
            .ins()
            .iadd_imm_s(fuel, i64::from(self.plan.rem[self.pc as usize]));
        self.leave(self.pc, fuel, 0);
    }

    /// A new block that leaves with `pc` and kind `kind` (the fuel as it
    /// is), built once the region's micro-ops are ([`Builder::pending`]).
    fn leaving(&mut self, pc: u32, kind: u64) -> Block {
        let out = self.b.create_block();
        self.pending.push((out, pc, kind));
        out
    }

    /// Whether control enters a block at `pc`: a head or an entry of this
    /// region, or a pc of another region.
    fn enters(&self, pc: u32) -> bool {
        match pc
            .checked_sub(self.start)
            .and_then(|i| self.starts.get(i as usize))
        {
            Some(start) => start.is_some(),
            None => true,
        }
    }

    /// Where control goes to reach the head `to`: its block in this
    /// region, else a block that leaves with kind GO (`to` is an entry of
    /// its region, plan.rs).
    fn towards(&mut self, to: u32) -> Block {
        let start = to
            .checked_sub(self.start)
            .and_then(|i| self.starts.get(i as usize));
        match start {
            Some(start) => start.expect("control goes on only at a head"),
            None => self.leaving(to, GO),
        }
    }
}

impl Emit for Builder<'_, '_> {
    type Val = Value;
    fn pc(&self) -> u32 {
        self.pc
    }
    fn reg(&mut self, r: u8) -> Value {
        self.b.use_var(self.regs[usize::from(r)])
    }
    fn set_reg(&mut self, r: u8, v: Value) {
        self.b.def_var(self.regs[usize::from(r)], v);
    }
    fn konst(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, i64::from(v as i32))
    }
    fn add(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().iadd(a, b)
    }
    fn sub(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().isub(a, b)
    }
    fn mul(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().imul(a, b)
    }
    fn and(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().band(a, b)
    }
    fn xor(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().bxor(a, b)
    }
    fn shl(&mut self, a: Value, n: u32) -> Value {
        self.b.ins().ishl_imm_u(a, i64::from(n))
    }
    fn shr(&mut self, a: Value, n: u32) -> Value {
        self.b.ins().ushr_imm_u(a, i64::from(n))
    }
    fn rem_or_interpret(&mut self, a: Value, b: Value) -> Value {
        let zero = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(b, go, &[], zero, &[]);
        self.b.seal_block(go);
        self.b.seal_block(zero);
        self.b.switch_to_block(zero);
        self.leave_here();
        self.b.switch_to_block(go);
        self.b.ins().urem(a, b)
    }
    fn jump(&mut self, target: u32) {
        let to = self.towards(target);
        self.b.ins().jump(to, &[]);
    }
    fn branch(&mut self, cmp: Cmp, a: Value, b: Value, target: u32) {
        let cc = match cmp {
            Cmp::Lt => IntCC::UnsignedLessThan,
            Cmp::Eq => IntCC::Equal,
            Cmp::Ne => IntCC::NotEqual,
        };
        let c = self.b.ins().icmp(cc, a, b);
        let to = self.towards(target);
        let next = self.pc + 1;
        let not = if self.enters(next) {
            self.towards(next)
        } else {
            let cont = self.b.create_block();
            self.cont = Some(cont);
            cont
        };
        self.b.ins().brif(c, to, &[], not, &[]);
        if let Some(cont) = self.cont {
            self.b.seal_block(cont);
        }
    }
}

/// The registers in the set `used` (a bit each), in order: those a
/// region loads at its entry and stores at each exit.
fn registers_in(used: u16) -> impl Iterator<Item = usize> {
    (0..REGISTERS).filter(move |r| used & (1 << r) != 0)
}

/// Builds the function of region `region` of the decoded program `insts`
/// (its micro-ops and the `End` sentinel), planned by `plan`, into `b`,
/// whose signature the caller set ([`signature`]).
pub(crate) fn build(
    b: &mut FunctionBuilder<'_>,
    insts: &[Inst],
    plan: &Plan,
    region: std::ops::Range<u32>,
) {
    let (start, end) = (region.start, region.end);
    let span = (start as usize)..(end as usize);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    // A block where control enters: each head and each entry.
    let starts: Vec<Option<Block>> = span
        .clone()
        .map(|pc| {
            // Only heads and entries are live (Plan::live).
            plan.live[pc].then(|| b.create_block())
        })
        .collect();
    let other = b.create_block();
    let regs: [Variable; REGISTERS] = std::array::from_fn(|_| b.declare_var(types::I32));
    let fuel = b.declare_var(types::I32);
    let used = plan.uses[span.clone()].iter().fold(0u16, |u, &m| u | m);

    // Entry: the registers the region uses into SSA values, then to the
    // block of `pc`; a pc that is not an entry goes to the interpreter.
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let (regs_ptr, pc, fuel_in) = (params[0], params[1], params[2]);
    let flags = MemFlagsData::trusted();
    for r in registers_in(used) {
        let v = b.ins().load(types::I32, flags, regs_ptr, (4 * r) as i32);
        b.def_var(regs[r], v);
    }
    b.def_var(fuel, fuel_in);
    let calls: Vec<_> = span
        .clone()
        .zip(&starts)
        .map(|(pc, s)| {
            let to = if plan.entry[pc] { *s } else { None };
            b.func.dfg.block_call(to.unwrap_or(other), &[])
        })
        .collect();
    let default = b.func.dfg.block_call(other, &[]);
    let jt = b.create_jump_table(cranelift_codegen::ir::JumpTableData::new(default, &calls));
    let index = b.ins().iadd_imm_s(pc, -i64::from(start));
    b.ins().br_table(index, jt);
    b.seal_block(other);
    let mut e = Builder {
        b,
        regs,
        fuel,
        plan,
        start,
        starts: &starts,
        regs_ptr,
        used,
        pc: start,
        cont: None,
        pending: Vec::new(),
    };
    e.b.switch_to_block(other);
    e.leave_with(pc, fuel_in);

    // Whether the micro-op at hand is out of compiled code's reach (a block
    // no entry leads to, or the rest of one after a micro-op left to the
    // interpreter): nothing is built for it.
    let mut dead = true;
    for pc in start..end {
        let at = pc as usize;
        e.pc = pc;
        if let Some(start) = starts[at - span.start] {
            dead = false;
            // Sealed as soon as every way into it is built (all of them
            // are before it but a jump back's), so that reading a
            // register in it makes a block parameter only where values
            // merge (J8).
            if !plan.back[at] {
                e.b.seal_block(start);
            }
            e.b.switch_to_block(start);
            let f = e.b.use_var(fuel);
            if plan.entry[at] {
                if plan.interpret[at] {
                    e.leave(pc, f, 0);
                    dead = true;
                    continue;
                }
                // The entry's test: the fuel covers the longest path to
                // the next test, or the interpreter runs the rest (J3).
                let need = i64::from(plan.test[at]);
                let short = e.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, f, need);
                let paid = e.b.create_block();
                let out = e.leaving(pc, SHORT);
                e.b.ins().brif(short, out, &[], paid, &[]);
                e.b.seal_block(paid);
                e.b.switch_to_block(paid);
            }
            // The block charged whole.
            let left = e.b.ins().iadd_imm_s(f, -i64::from(plan.rem[at]));
            e.b.def_var(fuel, left);
        } else if dead || insts[at].op & HEAD != 0 {
            dead = true;
            continue;
        }
        if plan.interpret[at] {
            e.leave_here();
            dead = true;
            continue;
        }
        let lowered = lower(op_index(insts[at].op), &mut e, &insts[at]);
        let cont = e.cont.take();
        match (lowered, cont) {
            (Lowered::Next, Some(cont)) => {
                e.b.ins().jump(cont, &[]);
                e.b.switch_to_block(cont);
            }
            (Lowered::Jumped, Some(cont)) => e.b.switch_to_block(cont),
            (Lowered::Next, None) if e.enters(pc + 1) => {
                // The next block: here, or another region's.
                let to = e.towards(pc + 1);
                e.b.ins().jump(to, &[]);
                dead = true;
            }
            // Straight on in the same IR block.
            (Lowered::Next, None) => {}
            (Lowered::Jumped, None) => {
                assert!(insts[at + 1].op & HEAD != 0, "a jump ends its block");
                dead = true;
            }
            (Lowered::Interpret, _) => unreachable!("the plan knows what interprets"),
        }
    }

    for (out, pc, kind) in std::mem::take(&mut e.pending) {
        e.b.seal_block(out);
        e.b.switch_to_block(out);
        let fuel = e.b.use_var(fuel);
        e.leave(pc, fuel, kind);
    }
    e.b.seal_all_blocks();
}

/// The signature of every compiled region: `(regs, pc, fuel) -> u64`.
pub(crate) fn signature(sig: &mut cranelift_codegen::ir::Signature, ptr: types::Type) {
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(types::I32));
    sig.params.push(AbiParam::new(types::I32));
    sig.returns.push(AbiParam::new(types::I64));
}

#[cfg(test)]
mod tests {
    use super::registers_in;

    #[test]
    fn a_set_of_registers_is_its_bits() {
        let regs: Vec<usize> = registers_in(0b1000_0000_0000_0101).collect();
        assert_eq!(regs, [0, 2, 15]);
        assert_eq!(registers_in(0).count(), 0);
        assert_eq!(registers_in(u16::MAX).count(), 16);
    }
}
