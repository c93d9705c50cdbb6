//! The compiler: a decoded program in, one Cranelift function out, each
//! micro-op built by its body's lowering (`OpBody::lower`, through
//! [`Emit`]). Safe code: it only builds IR; `code.rs` makes it runnable.
//!
//! The function is `(regs, pc, fuel) -> (fuel << 32) | kind << 31 | pc`.
//! It enters at `pc` through a jump table, keeps the 16 registers in SSA
//! values (loaded at entry, stored at every exit) and charges fuel as the
//! interpreter does (inst.rs "Blocks"): entering a block at pc `p` costs
//! the micro-ops from `p` to the block's end at once, and the code runs on
//! only while the fuel covers them. It leaves:
//!
//! - at a block it cannot pay for: `kind` 1, `fuel` what is left (0 when
//!   the turn's fuel is used up exactly);
//! - at a micro-op the interpreter runs (`Lowered::Interpret`, or MOD by
//!   0): `kind` 0, with the fuel of that micro-op and the rest of its block
//!   given back.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::{FunctionBuilder, Variable};

use crate::exec::bodies::{self, OpBody};
use crate::exec::inst::{HEAD, Inst, OpIndex, for_each_fused, len_in_imm};
use crate::exec::lower::{Cmp, Emit, Lowered};
use crate::format::REGISTERS;

/// The bit of the function's result that says the fuel does not cover the
/// next block (the interpreter runs the rest of the turn); without it, the
/// interpreter runs one unit and the compiled code goes on.
pub(crate) const SHORT: u64 = 1 << 31;

/// The block of every pc: how many micro-ops are left in it from that pc
/// on, counting its own (inst.rs "Blocks"; the decoder's heads and lengths).
fn remaining(insts: &[Inst]) -> Vec<u32> {
    let mut rem = Vec::with_capacity(insts.len());
    let mut end = 0u32;
    for (pc, inst) in insts.iter().enumerate() {
        let pc = pc as u32;
        if inst.op & HEAD != 0 {
            let index = op_index(inst.op);
            let len = if len_in_imm(index.first_opcode()) {
                inst.imm
            } else {
                u32::from(inst.c)
            };
            end = pc + len;
        }
        assert!(pc < end, "every micro-op sits in its head's block");
        rem.push(end - pc);
    }
    rem
}

/// The dense index of a decoded `op` byte.
fn op_index(op: u8) -> OpIndex {
    let index = op & !HEAD;
    assert!(usize::from(index) < crate::exec::inst::HANDLERS);
    // SAFETY: the index is below HANDLERS (asserted), a dense OpIndex.
    #[allow(unsafe_code)]
    unsafe {
        OpIndex::from_byte(index)
    }
}

/// The Cranelift side of [`Emit`]: the function being built, positioned in
/// the block of the micro-op at `pc`.
pub(crate) struct Builder<'a, 'f> {
    pub b: &'a mut FunctionBuilder<'f>,
    regs: [Variable; REGISTERS],
    fuel: Variable,
    /// The entry check of every pc, then the exit block.
    stubs: &'a [Block],
    exit: Block,
    rem: &'a [u32],
    pc: u32,
    /// The block after this micro-op's when the code goes on.
    next: Block,
}

impl Builder<'_, '_> {
    /// Leaves at micro-op `pc` with kind `INTERPRET`, giving back its fuel
    /// and the rest of its block's.
    fn leave_here(&mut self) {
        let fuel = self.b.use_var(self.fuel);
        let give = self
            .b
            .ins()
            .iconst(types::I32, i64::from(self.rem[self.pc as usize]));
        let fuel = self.b.ins().iadd(fuel, give);
        let pc = self.b.ins().iconst(types::I32, i64::from(self.pc));
        let kind = self.b.ins().iconst(types::I32, 0);
        self.b.ins().jump(
            self.exit,
            &[
                BlockArg::Value(pc),
                BlockArg::Value(fuel),
                BlockArg::Value(kind),
            ],
        );
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
        self.b.switch_to_block(zero);
        self.leave_here();
        self.b.switch_to_block(go);
        self.b.ins().urem(a, b)
    }
    fn jump(&mut self, target: u32) {
        let to = self.stubs[target as usize];
        self.b.ins().jump(to, &[]);
    }
    fn branch(&mut self, cmp: Cmp, a: Value, b: Value, target: u32) {
        let cc = match cmp {
            Cmp::Lt => IntCC::UnsignedLessThan,
            Cmp::Eq => IntCC::Equal,
            Cmp::Ne => IntCC::NotEqual,
        };
        let c = self.b.ins().icmp(cc, a, b);
        let to = self.stubs[target as usize];
        let next = self.next;
        self.b.ins().brif(c, to, &[], next, &[]);
    }
}

/// Builds the function of the decoded program `insts` (its micro-ops and
/// the `End` sentinel) into `b`, whose signature is set by the caller.
pub(crate) fn build(b: &mut FunctionBuilder<'_>, insts: &[Inst]) {
    let rem = remaining(insts);
    let n = insts.len();
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    let stubs: Vec<Block> = (0..n).map(|_| b.create_block()).collect();
    let ops: Vec<Block> = (0..n).map(|_| b.create_block()).collect();
    let exit = b.create_block();
    b.append_block_param(exit, types::I32); // pc
    b.append_block_param(exit, types::I32); // fuel
    b.append_block_param(exit, types::I32); // kind: 0 or 1
    let regs: [Variable; REGISTERS] = std::array::from_fn(|_| b.declare_var(types::I32));
    let fuel = b.declare_var(types::I32);

    // Entry: the registers into SSA values, then to the stub of `pc`.
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let (regs_ptr, pc, fuel_in) = (params[0], params[1], params[2]);
    let flags = MemFlagsData::trusted();
    for (r, var) in regs.iter().enumerate() {
        let v = b.ins().load(types::I32, flags, regs_ptr, (4 * r) as i32);
        b.def_var(*var, v);
    }
    b.def_var(fuel, fuel_in);
    let calls: Vec<_> = stubs
        .iter()
        .map(|&s| b.func.dfg.block_call(s, &[]))
        .collect();
    // A pc past the program never comes (the turn's pc is at most op_count):
    // the default is End's stub.
    let default = b.func.dfg.block_call(stubs[n - 1], &[]);
    let table = cranelift_codegen::ir::JumpTableData::new(default, &calls);
    let jt = b.create_jump_table(table);
    b.ins().br_table(pc, jt);

    for pc in 0..n {
        let index = op_index(insts[pc].op);
        let interpret = lowering(index, &insts[pc]) == Lowering::Interpret;
        // The stub: pay for the rest of the block, or leave.
        b.switch_to_block(stubs[pc]);
        let pc_v = b.ins().iconst(types::I32, pc as i64);
        let f = b.use_var(fuel);
        let zero = b.ins().iconst(types::I32, 0);
        if interpret {
            b.ins().jump(
                exit,
                &[
                    BlockArg::Value(pc_v),
                    BlockArg::Value(f),
                    BlockArg::Value(zero),
                ],
            );
        } else {
            let short = b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThan, f, i64::from(rem[pc]));
            let left = b.ins().iadd_imm_s(f, -i64::from(rem[pc]));
            let paid = b.create_block();
            let one = b.ins().iconst(types::I32, 1);
            b.ins().brif(
                short,
                exit,
                &[
                    BlockArg::Value(pc_v),
                    BlockArg::Value(f),
                    BlockArg::Value(one),
                ],
                paid,
                &[],
            );
            b.switch_to_block(paid);
            b.def_var(fuel, left);
            b.ins().jump(ops[pc], &[]);
        }
        // The micro-op.
        b.switch_to_block(ops[pc]);
        if interpret {
            // Reached from the micro-op before it in its block, which paid
            // for it: give its fuel and the rest of the block's back.
            let f = b.use_var(fuel);
            let f = b.ins().iadd_imm_s(f, i64::from(rem[pc]));
            let pc_v = b.ins().iconst(types::I32, pc as i64);
            let kind = b.ins().iconst(types::I32, 0);
            b.ins().jump(
                exit,
                &[
                    BlockArg::Value(pc_v),
                    BlockArg::Value(f),
                    BlockArg::Value(kind),
                ],
            );
            continue;
        }
        // The last micro-op is End, interpreted (it left above): `pc + 1`
        // is a micro-op of the program, in this block while `rem` says so.
        let next = if rem[pc] > 1 {
            ops[pc + 1]
        } else {
            stubs[pc + 1]
        };
        let mut e = Builder {
            b,
            regs,
            fuel,
            stubs: &stubs,
            exit,
            rem: &rem,
            pc: pc as u32,
            next,
        };
        match lower(index, &mut e, &insts[pc]) {
            Lowered::Next => {
                e.b.ins().jump(next, &[]);
            }
            Lowered::Jumped => {}
            Lowered::Interpret => e.leave_here(),
        }
    }

    // The exit: the registers back, then the result.
    b.switch_to_block(exit);
    let params = b.block_params(exit).to_vec();
    for (r, var) in regs.iter().enumerate() {
        let v = b.use_var(*var);
        b.ins().store(flags, v, regs_ptr, (4 * r) as i32);
    }
    let pc = b.ins().uextend(types::I64, params[0]);
    let kind = b.ins().uextend(types::I64, params[2]);
    let kind = b.ins().ishl_imm_u(kind, 31);
    let fuel = b.ins().uextend(types::I64, params[1]);
    let fuel = b.ins().ishl_imm_u(fuel, 32);
    let out = b.ins().bor(pc, kind);
    let out = b.ins().bor(out, fuel);
    b.ins().return_(&[out]);
    b.seal_all_blocks();
}

/// The signature of every compiled program: `(regs, pc, fuel) -> u64`.
pub(crate) fn signature(sig: &mut cranelift_codegen::ir::Signature, ptr: types::Type) {
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(types::I32));
    sig.params.push(AbiParam::new(types::I32));
    sig.returns.push(AbiParam::new(types::I64));
}

/// Whether a unit is compiled or left to the interpreter, by its lowering
/// (asked of a throw-away builder would cost a function; the bodies that
/// interpret say so without emitting anything).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lowering {
    Compiled,
    Interpret,
}

macro_rules! lower_ops {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        for_each_fused!(lower_all [$($name)*]);
    };
}

macro_rules! lower_all {
    ([$($name:ident)*] [$($fused:ident = $first:ident $(($fsrc:ident))? + $second:ident $(($ssrc:ident))?;)*] [$($var:ident = $base:ident($src:ident);)*]) => {
        /// Lowers the micro-op of dense index `index` at `e`'s pc: its own
        /// body's, a superinstruction's first micro-op's (its second has
        /// an instruction of its own), a variant's base body's (the
        /// variant only says where the interpreter reads an operand).
        fn lower(index: OpIndex, e: &mut Builder<'_, '_>, i: &Inst) -> Lowered {
            match index {
                $(OpIndex::$name => <bodies::$name as OpBody>::lower(e, i),)*
                OpIndex::End => <bodies::End as OpBody>::lower(e, i),
                $(OpIndex::$fused => <bodies::$first as OpBody>::lower(e, i),)*
                $(OpIndex::$var => <bodies::$base as OpBody>::lower(e, i),)*
            }
        }

        /// Whether the unit of `index` is left to the interpreter: its
        /// body's lowering says `Interpret` whatever the builder.
        fn lowering(index: OpIndex, i: &Inst) -> Lowering {
            let interprets = match index {
                $(OpIndex::$name => <bodies::$name as OpBody>::lower(&mut Probe, i),)*
                OpIndex::End => <bodies::End as OpBody>::lower(&mut Probe, i),
                $(OpIndex::$fused => <bodies::$first as OpBody>::lower(&mut Probe, i),)*
                $(OpIndex::$var => <bodies::$base as OpBody>::lower(&mut Probe, i),)*
            } == Lowered::Interpret;
            if interprets { Lowering::Interpret } else { Lowering::Compiled }
        }
    };
}

crate::for_each_op!(lower_ops);

/// An [`Emit`] that builds nothing: asks a lowering what it is.
struct Probe;

impl Emit for Probe {
    type Val = ();
    fn pc(&self) -> u32 {
        0
    }
    fn reg(&mut self, _: u8) {}
    fn set_reg(&mut self, _: u8, _: ()) {}
    fn konst(&mut self, _: u32) {}
    fn add(&mut self, _: (), _: ()) {}
    fn sub(&mut self, _: (), _: ()) {}
    fn mul(&mut self, _: (), _: ()) {}
    fn and(&mut self, _: (), _: ()) {}
    fn xor(&mut self, _: (), _: ()) {}
    fn shl(&mut self, _: (), _: u32) {}
    fn shr(&mut self, _: (), _: u32) {}
    fn rem_or_interpret(&mut self, _: (), _: ()) {}
    fn jump(&mut self, _: u32) {}
    fn branch(&mut self, _: Cmp, _: (), _: (), _: u32) {}
}
