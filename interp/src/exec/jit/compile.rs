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
use cranelift_codegen::ir::{AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::plan::Plan;
use crate::exec::bodies::{self, OpBody};
use crate::exec::inst::{HEAD, Inst, OpIndex, for_each_fused};
use crate::exec::lower::{Cmp, Emit, Lowered};
use crate::format::REGISTERS;

/// The kind bit that says the fuel does not cover the block at `pc`: the
/// interpreter runs the rest of the turn.
pub(crate) const SHORT: u64 = 1 << 31;

/// The kind bit that says control goes on at `pc`, an entry of another
/// region: the loop enters that region's function.
pub(crate) const GO: u64 = 1 << 30;

/// The bits of the result that hold the pc (at most 65,535: S1's limit).
pub(crate) const PC_MASK: u64 = (1 << 30) - 1;

/// The dense index of a decoded `op` byte.
pub(crate) fn op_index(op: u8) -> OpIndex {
    let index = op & !HEAD;
    assert!(usize::from(index) < crate::exec::inst::HANDLERS);
    // SAFETY: the index is below HANDLERS (asserted), a dense OpIndex.
    #[allow(unsafe_code)]
    unsafe {
        OpIndex::from_byte(index)
    }
}

/// The Cranelift side of [`Emit`]: the function being built, positioned at
/// the micro-op `pc`.
pub(crate) struct Builder<'a, 'f> {
    pub b: &'a mut FunctionBuilder<'f>,
    regs: [Variable; REGISTERS],
    fuel: Variable,
    plan: &'a Plan,
    /// The region's first pc and the stub of each of its entries.
    start: u32,
    stubs: &'a [Option<Block>],
    exit: Block,
    pc: u32,
    /// The block a branch that is not taken goes on in, when the micro-op
    /// after it is not an entry.
    cont: Option<Block>,
}

impl Builder<'_, '_> {
    /// Goes to the exit with `pc`, the fuel `fuel` and kind `kind`.
    fn leave(&mut self, pc: u32, fuel: Value, kind: u64) {
        let args = self.exit_args(pc, fuel, kind);
        self.b.ins().jump(self.exit, &args);
    }

    fn exit_args(&mut self, pc: u32, fuel: Value, kind: u64) -> [BlockArg; 2] {
        let word = self
            .b
            .ins()
            .iconst(types::I32, (u64::from(pc) | kind) as i64);
        [BlockArg::Value(word), BlockArg::Value(fuel)]
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

    /// Where control goes to reach the entry `to`: its stub in this region,
    /// else the exit with kind GO (and the block arguments for it).
    fn towards(&mut self, to: u32) -> (Block, Option<[BlockArg; 2]>) {
        let stub = to
            .checked_sub(self.start)
            .and_then(|i| self.stubs.get(i as usize));
        match stub {
            Some(stub) => (stub.expect("control goes on only at an entry"), None),
            None => {
                let fuel = self.b.use_var(self.fuel);
                (self.exit, Some(self.exit_args(to, fuel, GO)))
            }
        }
    }
}

fn args(a: &Option<[BlockArg; 2]>) -> &[BlockArg] {
    a.as_ref().map_or(&[], |a| &a[..])
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
        let (to, a) = self.towards(target);
        self.b.ins().jump(to, args(&a));
    }
    fn branch(&mut self, cmp: Cmp, a: Value, b: Value, target: u32) {
        let cc = match cmp {
            Cmp::Lt => IntCC::UnsignedLessThan,
            Cmp::Eq => IntCC::Equal,
            Cmp::Ne => IntCC::NotEqual,
        };
        let c = self.b.ins().icmp(cc, a, b);
        let (to, ta) = self.towards(target);
        let next = self.pc + 1;
        let (not, na) = if self.plan.entry[next as usize] {
            self.towards(next)
        } else {
            let cont = self.b.create_block();
            self.cont = Some(cont);
            (cont, None)
        };
        self.b.ins().brif(c, to, args(&ta), not, args(&na));
    }
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
    let stubs: Vec<Option<Block>> = plan.entry[span.clone()]
        .iter()
        .map(|&e| e.then(|| b.create_block()))
        .collect();
    let other = b.create_block();
    let exit = b.create_block();
    b.append_block_param(exit, types::I32); // pc | kind
    b.append_block_param(exit, types::I32); // fuel
    let regs: [Variable; REGISTERS] = std::array::from_fn(|_| b.declare_var(types::I32));
    let fuel = b.declare_var(types::I32);
    let used = plan.uses[span.clone()].iter().fold(0u16, |u, &m| u | m);
    let used = move || (0..REGISTERS).filter(move |r| used & (1 << r) != 0);

    // Entry: the registers the region uses into SSA values, then to the
    // stub of `pc`; a pc that is not an entry goes to the interpreter.
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let (regs_ptr, pc, fuel_in) = (params[0], params[1], params[2]);
    let flags = MemFlagsData::trusted();
    for r in used() {
        let v = b.ins().load(types::I32, flags, regs_ptr, (4 * r) as i32);
        b.def_var(regs[r], v);
    }
    b.def_var(fuel, fuel_in);
    let calls: Vec<_> = stubs
        .iter()
        .map(|s| b.func.dfg.block_call(s.unwrap_or(other), &[]))
        .collect();
    let default = b.func.dfg.block_call(other, &[]);
    let jt = b.create_jump_table(cranelift_codegen::ir::JumpTableData::new(default, &calls));
    let index = b.ins().iadd_imm_s(pc, -i64::from(start));
    b.ins().br_table(index, jt);
    b.switch_to_block(other);
    b.ins()
        .jump(exit, &[BlockArg::Value(pc), BlockArg::Value(fuel_in)]);

    let mut e = Builder {
        b,
        regs,
        fuel,
        plan,
        start,
        stubs: &stubs,
        exit,
        pc: start,
        cont: None,
    };
    for pc in start..end {
        let at = pc as usize;
        e.pc = pc;
        if let Some(stub) = stubs[at - span.start] {
            // The stub: pay for the rest of the block, or leave.
            e.b.switch_to_block(stub);
            let f = e.b.use_var(fuel);
            if plan.interpret[at] {
                e.leave(pc, f, 0);
                continue;
            }
            let rem = i64::from(plan.rem[at]);
            let short = e.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, f, rem);
            let left = e.b.ins().iadd_imm_s(f, -rem);
            let paid = e.b.create_block();
            let out = e.exit_args(pc, f, SHORT);
            e.b.ins().brif(short, exit, &out, paid, &[]);
            e.b.switch_to_block(paid);
            e.b.def_var(fuel, left);
        }
        if plan.interpret[at] {
            e.leave_here();
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
            (Lowered::Next, None) if plan.entry[at + 1] => {
                // The next block: its stub here, or another region's.
                let (to, a) = e.towards(pc + 1);
                e.b.ins().jump(to, args(&a));
            }
            // Straight on in the same IR block.
            (Lowered::Next, None) => {}
            (Lowered::Jumped, None) => {
                assert!(plan.entry[at + 1], "a jump ends its block");
            }
            (Lowered::Interpret, _) => unreachable!("the plan knows what interprets"),
        }
    }

    // The exit: the registers back, then the result.
    b.switch_to_block(exit);
    let params = b.block_params(exit).to_vec();
    for r in used() {
        let v = b.use_var(regs[r]);
        b.ins().store(flags, v, regs_ptr, (4 * r) as i32);
    }
    let word = b.ins().uextend(types::I64, params[0]);
    let fuel = b.ins().uextend(types::I64, params[1]);
    let fuel = b.ins().ishl_imm_u(fuel, 32);
    let out = b.ins().bor(word, fuel);
    b.ins().return_(&[out]);
    b.seal_all_blocks();
}

/// The signature of every compiled region: `(regs, pc, fuel) -> u64`.
pub(crate) fn signature(sig: &mut cranelift_codegen::ir::Signature, ptr: types::Type) {
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(types::I32));
    sig.params.push(AbiParam::new(types::I32));
    sig.returns.push(AbiParam::new(types::I64));
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
        fn lower<E: Emit>(index: OpIndex, e: &mut E, i: &Inst) -> Lowered {
            match index {
                $(OpIndex::$name => <bodies::$name as OpBody>::lower(e, i),)*
                OpIndex::End => <bodies::End as OpBody>::lower(e, i),
                $(OpIndex::$fused => <bodies::$first as OpBody>::lower(e, i),)*
                $(OpIndex::$var => <bodies::$base as OpBody>::lower(e, i),)*
            }
        }
    };
}

crate::for_each_op!(lower_ops);

/// What the plan needs of a micro-op's lowering, asked of the lowering
/// itself (an [`Emit`] that builds nothing): whether the interpreter runs
/// it, the registers its code touches, and where it jumps.
pub(crate) struct Survey {
    pc: u32,
    pub interprets: bool,
    pub uses: u16,
    pub jump: Option<u32>,
}

impl Survey {
    /// The survey of the micro-op `i` of dense index `index` at `pc`.
    pub(crate) fn of(index: OpIndex, i: &Inst, pc: u32) -> Survey {
        let mut s = Survey {
            pc,
            interprets: false,
            uses: 0,
            jump: None,
        };
        if lower(index, &mut s, i) == Lowered::Interpret {
            s.interprets = true;
            s.uses = 0;
            s.jump = None;
        }
        s
    }
}

impl Emit for Survey {
    type Val = ();
    fn pc(&self) -> u32 {
        self.pc
    }
    fn reg(&mut self, r: u8) {
        self.uses |= 1 << r;
    }
    fn set_reg(&mut self, r: u8, _: ()) {
        self.uses |= 1 << r;
    }
    fn konst(&mut self, _: u32) {}
    fn add(&mut self, _: (), _: ()) {}
    fn sub(&mut self, _: (), _: ()) {}
    fn mul(&mut self, _: (), _: ()) {}
    fn and(&mut self, _: (), _: ()) {}
    fn xor(&mut self, _: (), _: ()) {}
    fn shl(&mut self, _: (), _: u32) {}
    fn shr(&mut self, _: (), _: u32) {}
    fn rem_or_interpret(&mut self, _: (), _: ()) {}
    fn jump(&mut self, target: u32) {
        self.jump = Some(target);
    }
    fn branch(&mut self, _: Cmp, _: (), _: (), target: u32) {
        self.jump = Some(target);
    }
}
