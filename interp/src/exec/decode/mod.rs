//! The pre-decoded program: what the dispatch loops run.
//!
//! Pre-decoding happens once, after the check accepted the upload, so that the
//! hot path needs no bounds checks: every register field is below 16, every
//! jump lands inside the program, and the program counter can only fall off the
//! end onto one extra instruction, the `End` sentinel at index `op_count`,
//! whose handler raises `Reason::BadJump` at `op_count` (S17). Jump targets are stored
//! as distances in bytes from the jump itself so a taken jump is one add. The
//! decoder also cuts the program into blocks and marks their heads with
//! their lengths (inst.rs, "Blocks"), then fuses pairs inside blocks.

use crate::check::CheckedUpload;
use crate::format::{
    HEADER_LEN, MAX_OPS, MAX_PATCHES, NO_REGISTER, OP_LEN, REGISTERS, flags, read_u32,
};

use crate::types::SubmittedCommand;

use super::handler::UNSET;
use super::inst::{HEAD, Inst, MAX_BLOCK, OpIndex};

mod tables;
use super::kernel::template::{Arg, BLANK, Head, Tmpl};
use tables::{
    GROUP, INVALID, JUMP, LEN_IN_IMM, NO_ACC, ROWS, RULES, Rule, STOPPING, STOPS, SUBMIT, TEMPLATE,
    VARIANTS, conditions, fuse,
};

/// A pre-decoded upload. A clone shares the compiled program, if any.
#[derive(Clone)]
pub(crate) struct Program {
    pub head: Head,
    /// `op_count + 1` instructions: the micro-ops and the `End` sentinel.
    pub insts: Vec<Inst>,
    pub templates: Vec<Tmpl>,
    /// The compiled program, once a run with the `jit` variant made it
    /// (`dispatch::prepare`) or the `tiered` variant found it hot
    /// ([`Program::heat`]); set at most once.
    #[cfg(feature = "jit")]
    /// Behind a pointer: a `Code` is hundreds of bytes, and a program
    /// without one is moved into the machine on every run (D34); counted,
    /// so that the clones a [`Prepared`](crate::exec::Prepared) gives its
    /// runs share one compile.
    pub code: std::cell::OnceCell<std::rc::Rc<super::compiled::cranelift::Code>>,
    /// The program as the copy-and-patch tier made it (feature `stencil`),
    /// once a run of that variant starts; as `code`.
    #[cfg(feature = "stencil")]
    pub stencil: std::cell::OnceCell<std::rc::Rc<super::compiled::stencil::Code>>,
    /// The `tiered` variant's count down to hot: the micro-ops turns that
    /// ended for want of fuel still have to run before it compiles the
    /// program (compiled/tiered.rs; [`Program::heat`]).
    #[cfg(feature = "jit")]
    pub cold: std::cell::Cell<u64>,
    /// The `tiered` variant found the program hot and its stencil code not
    /// worth making (`stencil::pays`): it goes to Cranelift's.
    #[cfg(all(feature = "stencil", feature = "jit"))]
    pub past_stencil: std::cell::Cell<bool>,
}

/// The `tiered` variant compiles a program with Cranelift once the turns
/// that ran out of fuel have run [`break_even`] micro-ops: about what its
/// compile costs, in micro-ops of the tail variant (about 1 ns each), so
/// that a run spends at most about as long interpreting a hot program as
/// compiling it (D33). A compile costs a fixed part (the module, a
/// function's set-up, the register allocator's: about 250 µs) and a part
/// per micro-op (2 to 8 µs by shape; J6).
#[cfg(feature = "jit")]
pub(crate) const BREAK_EVEN_FIXED: u64 = 262_144;

/// The part of [`break_even`] per micro-op of the program.
#[cfg(feature = "jit")]
pub(crate) const BREAK_EVEN: u64 = 8_192;

/// The micro-ops a program of `op_count` micro-ops (and its `End`) runs
/// in the interpreter before the `tiered` variant compiles it with
/// Cranelift, in a build without stencils.
#[cfg(feature = "jit")]
pub(crate) const fn break_even(op_count: u32) -> u64 {
    BREAK_EVEN_FIXED + (op_count as u64 + 1) * BREAK_EVEN
}

/// With stencils, the `tiered` variant first makes a hot program's stencil
/// code, once its turns that ran out of fuel have run [`stencil_break_even`]
/// micro-ops: a program's stencil code costs about 10 µs and 20 to 50 ns a
/// micro-op to make and saves about 0.4 ns a micro-op run (half the tail
/// variant's time), so 32,768 and 128 a micro-op (J10).
#[cfg(all(feature = "stencil", feature = "jit"))]
pub(crate) const fn stencil_break_even(op_count: u32) -> u64 {
    32_768 + (op_count as u64 + 1) * 128
}

/// ... and compiles it with Cranelift after [`AFTER_STENCIL`] times
/// [`break_even`] more: Cranelift's code saves about a quarter of the tail
/// variant's time a micro-op over the stencil code (alu 0.12 against 0.38),
/// a quarter of what it saves over the interpreter (J10).
#[cfg(all(feature = "stencil", feature = "jit"))]
pub(crate) const AFTER_STENCIL: u64 = 4;

/// The micro-ops a fresh program runs before the `tiered` variant moves it
/// to its first compiled tier.
#[cfg(feature = "jit")]
pub(crate) const fn first_break_even(op_count: u32) -> u64 {
    #[cfg(feature = "stencil")]
    return stencil_break_even(op_count);
    #[cfg(not(feature = "stencil"))]
    return break_even(op_count);
}

#[cfg(feature = "jit")]
impl Program {
    /// The compiled program's function, compiling it on first use; `None`
    /// where Cranelift has no backend for this host (the `jit` and `tiered`
    /// variants then run the subroutine loop).
    pub fn compiled(&self) -> Option<super::compiled::entry::Compiled> {
        if let Some(code) = self.code.get() {
            return Some(code.entry());
        }
        // Where Cranelift has a backend, compiling a checked upload cannot
        // fail but by a defect of the compiler: say so at once.
        match super::compiled::cranelift::Code::compile(&self.insts) {
            Ok(code) => Some(self.code.get_or_init(|| std::rc::Rc::new(code)).entry()),
            Err(_) if super::compiled::cranelift::available().is_err() => None,
            Err(e) => panic!("the compiled tier failed on a checked upload: {e}"),
        }
    }

    /// Counts a turn of the `tiered` variant that ran `fuel` micro-ops and
    /// ended for want of more (a turn the kernel ended adds nothing: its
    /// program waits on the kernel, which compiled code does not make
    /// faster). True when the program is now hot: move it up a tier
    /// ([`Program::hotter`]).
    pub fn heat(&self, fuel: u32) -> bool {
        let cold = self.cold.get().saturating_sub(u64::from(fuel));
        self.cold.set(cold);
        cold == 0
    }

    /// Starts the `tiered` variant's count again: [`first_break_even`].
    pub fn cool(&self) {
        self.cold.set(first_break_even(self.head.op_count));
    }

    /// The code of the tier a hot program moves to, made now, with the
    /// count to the tier after it: the stencil code first where this build
    /// has stencils for the host and they pay for the program
    /// (`stencil::pays`), then Cranelift's after `AFTER_STENCIL` times
    /// [`break_even`], which is the last (its count never ends). A program
    /// the stencils do not pay for stays interpreted up to [`break_even`],
    /// then goes to Cranelift's. Where no code can be made, the count
    /// starts again and the program keeps the code it has (`None`: the
    /// interpreter's).
    pub fn hotter(&self) -> Option<super::compiled::entry::Compiled> {
        #[cfg(feature = "stencil")]
        if self.code.get().is_none() && self.stencil.get().is_none() && !self.past_stencil.get() {
            let n = self.head.op_count;
            if !super::compiled::stencil::pays(&self.insts) {
                self.past_stencil.set(true);
                self.cold
                    .set(break_even(n).saturating_sub(stencil_break_even(n)));
                return None;
            }
            if let Some(code) = self.stenciled() {
                self.cold.set(AFTER_STENCIL * break_even(n));
                return Some(code);
            }
        }
        if let Some(code) = self.compiled() {
            // Never hot again.
            self.cold.set(u64::MAX);
            return Some(code);
        }
        self.cool();
        #[cfg(feature = "stencil")]
        return self.stencil.get().map(|c| c.entry());
        #[cfg(not(feature = "stencil"))]
        return None;
    }

    /// Whether the program has its last tier's code (Cranelift's): the
    /// `tiered` variant then runs whole entries in it.
    pub fn hottest(&self) -> bool {
        self.code.get().is_some()
    }
}

#[cfg(feature = "stencil")]
impl Program {
    /// The program's stencil code, made on first use; `None` where this
    /// build has no stencils for the host (the `stencil` variant then runs
    /// the subroutine loop).
    pub fn stenciled(&self) -> Option<super::compiled::entry::Compiled> {
        if let Some(code) = self.stencil.get() {
            return Some(code.entry());
        }
        match super::compiled::stencil::Code::compile(&self.insts) {
            Ok(code) => Some(self.stencil.get_or_init(|| std::rc::Rc::new(code)).entry()),
            Err(_) if super::compiled::stencil::available().is_err() => None,
            Err(e) => panic!("the stencil tier failed on a checked upload: {e}"),
        }
    }
}

impl Program {
    /// Pre-decodes an upload the check accepted: the [`CheckedUpload`] is the
    /// proof that every register field is below 16, every jump target and
    /// template index inside its table, and every patch in range. The facts
    /// the hot path's `unsafe` code relies on hold here whatever the checker
    /// says: a register field keeps its low four bits (the check proved the
    /// others zero), and a jump target, a template index and a patch are
    /// asserted once more (a panic, never undefined behaviour, should the
    /// checker ever be wrong). Two passes over the micro-ops, each a table
    /// lookup a micro-op ([`blocks`], [`instructions`]; decisions.md D36).
    /// Every instruction's `handler` is [`UNSET`] (handler.rs) until the
    /// threaded variant sets them for its observer at the start of a run
    /// (`dispatch::prepare`, from `Machine::run`); the other variants never
    /// read it.
    pub fn decode(upload: &CheckedUpload<'_>) -> Program {
        let header = upload.header();
        let op_count = upload.op_count() as usize;
        let head = Head {
            op_count: op_count as u32,
            max_steps: header.max_steps,
            deadline_us: header.deadline_us,
            req: header.req,
            seed: header.seed,
        };
        assert!(op_count <= MAX_OPS, "the check passed the header");
        let templates: Vec<Tmpl> = (0..upload.command_count())
            .map(|j| {
                let t = upload.template(j);
                let mut patches = [(Arg::A0, 0u8); MAX_PATCHES];
                for (k, (arg, reg)) in t.patches().enumerate() {
                    let arg = Arg::of(arg)
                        .filter(|_| usize::from(reg) < REGISTERS)
                        .expect("the check passed a patch");
                    patches[k] = (arg, reg);
                }
                let group_reg_ok = |r: u8| r == NO_REGISTER || usize::from(r) < REGISTERS;
                assert!(
                    group_reg_ok(t.first_register) && group_reg_ok(t.count_register),
                    "the check passed a group register"
                );
                Tmpl {
                    proto: SubmittedCommand {
                        handler: t.command.handler,
                        flags: t.command.flags,
                        first: u32::from(t.command.first),
                        count: u32::from(t.command.count),
                        args: t.command.args,
                        ..BLANK
                    },
                    patches,
                    patch_count: t.patch_count,
                    first_register: t.first_register,
                    count_register: t.count_register,
                }
            })
            .collect();
        let data = upload.bytes();
        let (ops, _) = data[HEADER_LEN..HEADER_LEN + op_count * OP_LEN].as_chunks::<OP_LEN>();
        let insts = instructions(ops, &blocks(ops), &templates);
        let program = Program {
            head,
            insts,
            templates,
            #[cfg(feature = "jit")]
            code: std::cell::OnceCell::new(),
            #[cfg(feature = "stencil")]
            stencil: std::cell::OnceCell::new(),
            #[cfg(feature = "jit")]
            cold: std::cell::Cell::new(0),
            #[cfg(all(feature = "stencil", feature = "jit"))]
            past_stencil: std::cell::Cell::new(false),
        };
        #[cfg(feature = "jit")]
        program.cool();
        program
    }
}

/// The blocks (inst.rs, "Blocks"): a byte per pc and one for `End`, the
/// block's length at its head, 0 elsewhere. The heads: pc 0, `End`,
/// every jump target, every micro-op after one that is not straight (a
/// jump or one that can stop the turn), and every MAX_BLOCK-th micro-op
/// of a longer run. One pass over the opcodes, eight at a time, then one
/// over the heads, eight at a time where a run goes on.
fn blocks(ops: &[[u8; OP_LEN]]) -> Vec<u8> {
    let n = ops.len();
    let mut heads = vec![0u8; n + 1];
    heads[0] = 1;
    heads[n] = 1;
    let mark = |heads: &mut [u8], pc: usize, op: &[u8; OP_LEN]| {
        let rule = RULES[usize::from(op[0])];
        if rule.flags & STOPS != 0 {
            if rule.flags & JUMP != 0 {
                let target = read_u32(op, 4) as usize;
                assert!(target < n, "the check passed a jump");
                heads[target] = 1;
            }
            heads[pc + 1] = 1;
        }
    };
    let (eights, rest) = ops.as_chunks::<8>();
    for (k, eight) in eights.iter().enumerate() {
        if eight
            .iter()
            .fold(0, |f, op| f | STOPPING[usize::from(op[0])])
            != 0
        {
            for (j, op) in eight.iter().enumerate() {
                mark(&mut heads, 8 * k + j, op);
            }
        }
    }
    for (j, op) in rest.iter().enumerate() {
        mark(&mut heads, 8 * eights.len() + j, op);
    }
    // Each head's length, written at `last`, the head before, when the
    // next one is found.
    let mut last = 0;
    let mut pc = 1;
    while pc <= n {
        if pc + 8 - last <= MAX_BLOCK
            && let Some(eight) = heads.get(pc..pc + 8)
            && eight == [0; 8]
        {
            pc += 8;
            continue;
        }
        if heads[pc] != 0 || pc - last == MAX_BLOCK {
            heads[last] = (pc - last) as u8;
            last = pc;
        }
        pc += 1;
    }
    heads[n] = 1;
    heads
}

/// What a micro-op's instruction needs to be finished: its variant and,
/// if it is a head, its block's length, which wait for the micro-op
/// before it ([`instructions`]).
#[derive(Clone, Copy)]
struct Pending {
    /// Its instruction's bytes after the handler, as a little-endian u64:
    /// the index (plain, or its superinstruction's if it is the first of
    /// a pair), a, b, c and imm.
    word: u64,
    /// [`GROUP`] and [`LEN_IN_IMM`].
    meta: u8,
}

impl Pending {
    /// The instruction, `acc` being the register the micro-op before it
    /// left in the accumulator ([`NO_ACC`] if none) and `len` its block's
    /// length if it is a head (else 0).
    #[inline(always)]
    fn finish(self, acc: u32, len: u8) -> Inst {
        // A plain micro-op gets its variant: in place anywhere; from the
        // accumulator only inside a block, and not as the second of a
        // pair. A superinstruction keeps its index (its row of VARIANTS).
        let conds = conditions(self.word, acc) | usize::from(self.meta) & GROUP;
        let variant = VARIANTS[usize::from(self.word as u8) % ROWS][conds];
        let mut word = self.word & !0xFF | u64::from(variant);
        if len != 0 {
            // A head keeps its block's length in the field its (first)
            // micro-op leaves free.
            word |= u64::from(HEAD);
            word = if self.meta & LEN_IN_IMM != 0 {
                word & 0xFFFF_FFFF | u64::from(len) << 32
            } else {
                word & !(0xFF << 24) | u64::from(len) << 24
            };
        }
        Inst {
            handler: UNSET,
            op: word as u8,
            a: (word >> 8) as u8,
            b: (word >> 16) as u8,
            c: (word >> 24) as u8,
            imm: (word >> 32) as u32,
        }
    }
}

/// What the rare micro-ops need beyond their [`Rule`]: a jump's distance,
/// a template index's test, SUBMIT's group registers. Takes and returns
/// the [`Pending`].
#[inline(never)]
fn special(rule: Rule, p: Pending, pc: usize, (n, templates): &(usize, &[Tmpl])) -> Pending {
    let n = *n;
    assert!(rule.flags & INVALID == 0, "the check passed an opcode");
    let imm = (p.word >> 32) as u32;
    if rule.flags & JUMP != 0 {
        assert!((imm as usize) < n, "the check passed a jump");
        // In bytes, so that a taken jump is one add; at most 16 * MAX_OPS
        // (the check's `Reason::BadHeader`), far inside an i32.
        let distance = (i64::from(imm) - pc as i64) * size_of::<Inst>() as i64;
        let word = p.word & 0xFFFF_FFFF | u64::from(distance as i32 as u32) << 32;
        return Pending { word, ..p };
    }
    assert!(
        (imm as usize) < templates.len(),
        "the check passed a template"
    );
    if rule.flags & SUBMIT == 0 {
        return p;
    }
    // SUBMIT's `a` and `b` hold its template's group registers, or
    // NO_REGISTER, which only the `group` variant reads (and only when
    // both are registers, inst::for_each_fused!): a template that is not
    // exclusive and takes both group fields from registers.
    let t = &templates[imm as usize];
    let plain = t.proto.flags & flags::EXCLUSIVE == 0
        && usize::from(t.first_register) < REGISTERS
        && usize::from(t.count_register) < REGISTERS;
    let (a, b, meta) = if plain {
        (t.first_register, t.count_register, p.meta)
    } else {
        (NO_REGISTER, NO_REGISTER, p.meta & !(GROUP as u8))
    };
    let fields = u64::from(a) << 8 | u64::from(b) << 16;
    Pending {
        word: p.word & !0xFFFF_FF00 | fields,
        meta,
    }
}

/// The instructions of the micro-ops `ops` and the `End` sentinel, the
/// blocks' lengths in `blocks` ([`blocks`]): one pass from the end
/// backwards, each micro-op decoded by its [`Rule`], its pair with the
/// micro-op after it decided (from the end, so that a loop's closing
/// pair, ADDI+JLT, wins over a pair that would overlap it), and the
/// micro-op after it then finished: its variant needs to know whether
/// this one left its value in the accumulator (a plain micro-op, not the
/// first of a pair, inside its block).
fn instructions(ops: &[[u8; OP_LEN]], blocks: &[u8], templates: &[Tmpl]) -> Vec<Inst> {
    let n = ops.len();
    let blocks = &blocks[..n + 1];
    let mut insts: Vec<Inst> = Vec::with_capacity(n + 1);
    let out = &mut insts.spare_capacity_mut()[..n + 1];
    let mut next = Pending {
        word: OpIndex::End as u64,
        meta: LEN_IN_IMM,
    };
    let rare = (n, templates);
    for pc in (0..n).rev() {
        let (bytes, _) = ops[pc].split_first_chunk::<8>().expect("16 bytes");
        let word = u64::from_le_bytes(*bytes);
        let rule = RULES[usize::from(word as u8)];
        let mut cur = Pending {
            word: word & rule.keep | u64::from(rule.index),
            meta: rule.meta,
        };
        if rule.flags & (JUMP | TEMPLATE | INVALID) != 0 {
            cur = special(rule, cur, pc, &rare);
        }
        // This micro-op is straight when the next is no head, so it wrote
        // its `a` and left that value in the accumulator, unless the two
        // become a pair.
        let next_len = blocks[pc + 1];
        let mut acc = (cur.word >> 8) as u32 & 0xF;
        if next_len != 0 {
            acc = NO_ACC;
        } else if rule.pairs >> (next.word as u8 % 32) & 1 != 0 {
            // (A next that is the first of a pair has an index of 32 or
            // more, which may alias a plain one here: `fuse` then finds
            // no pair.)
            // Superinstructions (inst::for_each_fused!): the first of a
            // pair gets the fused index; the second stays as it is, so a
            // jump into it runs it alone. Only inside a block (the second
            // is no head: a head must run its own handler to charge its
            // block).
            let group = |p: Pending| usize::from(p.meta) & GROUP;
            let conds = conditions(cur.word, NO_ACC) | group(cur);
            let next_conds = conditions(next.word, acc) | group(next);
            if let Some(pair) = fuse(cur.word as u8, conds, next.word as u8, next_conds) {
                cur.word = cur.word & !0xFF | u64::from(pair);
                acc = NO_ACC;
            }
        }
        out[pc + 1].write(next.finish(acc, next_len));
        next = cur;
    }
    out[0].write(next.finish(NO_ACC, blocks[0]));
    // SAFETY: the loop wrote the slots n down to 1 and then slot 0: all
    // of the first n + 1 slots of the capacity.
    unsafe { insts.set_len(n + 1) };
    insts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Header, MicroOp, Upload};
    use crate::ops::Opcode::{self, *};

    fn op(code: Opcode, a: u8, b: u8, c: u8, imm: u32) -> MicroOp {
        MicroOp {
            op: code as u8,
            a,
            b,
            c,
            imm,
        }
    }

    fn decode(ops: Vec<MicroOp>) -> Program {
        decode_with(ops, vec![])
    }

    fn decode_with(ops: Vec<MicroOp>, templates: Vec<crate::format::Template>) -> Program {
        let upload = Upload {
            header: Header {
                max_steps: 100,
                deadline_us: 0,
                req: 1,
                seed: 1,
            },
            ops,
            templates,
        };
        let data = upload.encode();
        let checked = CheckedUpload::new(&data, data.len() as u64).expect("a valid upload");
        Program::decode(&checked)
    }

    /// The op byte of each decoded instruction.
    fn ops(p: &Program) -> Vec<u8> {
        p.insts.iter().map(|i| i.op).collect()
    }

    /// (op byte, a, b, c, imm) of each decoded instruction.
    fn fields(p: &Program) -> Vec<(u8, u8, u8, u8, u32)> {
        p.insts
            .iter()
            .map(|i| (i.op, i.a, i.b, i.c, i.imm))
            .collect()
    }

    #[test]
    fn heads_carry_their_blocks_lengths_and_pairs_fuse_inside_blocks() {
        // pc 0 SET r1, 5   head (pc 0); a block of 1: the jump target pc 1
        //                  starts the next. SET has an imm: the length in c.
        // pc 1 ADD r2, r2, r1  head (JNZ's target), block pc 1..=3: 3
        //                  micro-ops; ADD has no imm: the length in imm.
        //                  Not fused with pc 2, which is already the first
        //                  of ADDI+JNZ (fusing runs from the end). In place
        //                  (b = a = r2): AddInPlace, a head still.
        // pc 2 ADDI r1, r1, -1 in place, fused with pc 3 into AddiJnzInPlace.
        // pc 3 JNZ r1, 1   imm = (1 - 3) * 16 bytes = -32; ends its block.
        // pc 4 MOD r3, r2, r1  head (after a jump); can stop the turn
        //                  (`Reason::ModByZero`), so a block of 1, length in imm.
        // pc 5 ADD r4, r4, r4  head (after MOD), block pc 5..=6: 2. In
        //                  place: AddInPlace (c = r4 is not from the accumulator:
        //                  a head holds none).
        // pc 6 HALT r4     ends the block; no head.
        // pc 7 End         head, block of 1, length in imm.
        let p = decode(vec![
            op(Set, 1, 0, 0, 5),
            op(Add, 2, 2, 1, 0),
            op(Addi, 1, 1, 0, u32::MAX),
            op(Jnz, 1, 0, 0, 1),
            op(Mod, 3, 2, 1, 0),
            op(Add, 4, 4, 4, 0),
            op(Halt, 4, 0, 0, 0),
        ]);
        let h = |i: OpIndex| i as u8 | HEAD;
        assert_eq!(
            fields(&p),
            vec![
                (h(OpIndex::Set), 1, 0, 1, 5),
                (h(OpIndex::AddInPlace), 2, 2, 1, 3),
                (OpIndex::AddiJnzInPlace as u8, 1, 1, 0, u32::MAX),
                (OpIndex::Jnz as u8, 1, 0, 0, (-32i32) as u32),
                (h(OpIndex::Mod), 3, 2, 1, 1),
                (h(OpIndex::AddInPlace), 4, 4, 4, 2),
                (OpIndex::Halt as u8, 4, 0, 0, 0),
                (h(OpIndex::End), 0, 0, 0, 1),
            ]
        );
    }

    #[test]
    fn a_micro_op_reading_what_the_one_before_wrote_reads_the_accumulator() {
        // pc 0 SET r1, 5        head; a block of 6 (SET has an imm: in c).
        // pc 1 MOV r2, r1       b = r1, which pc 0 wrote: MovB.
        // pc 2 ADD r3, r2, r1   b = r2, which pc 1 wrote: AddB.
        // pc 3 MUL r4, r1, r3   b = r1 is not pc 2's r3, c = r3 is: MulC.
        // pc 4 SUB r5, r4, r4   b and c are pc 3's r4: b first, SubB.
        // pc 5 HALT r5          not a forwarding micro-op.
        // pc 6 End              head, a block of 1.
        let p = decode(vec![
            op(Set, 1, 0, 0, 5),
            op(Mov, 2, 1, 0, 0),
            op(Add, 3, 2, 1, 0),
            op(Mul, 4, 1, 3, 0),
            op(Sub, 5, 4, 4, 0),
            op(Halt, 5, 0, 0, 0),
        ]);
        assert_eq!(
            ops(&p),
            vec![
                OpIndex::Set as u8 | HEAD,
                OpIndex::MovB as u8,
                OpIndex::AddB as u8,
                OpIndex::MulC as u8,
                OpIndex::SubB as u8,
                OpIndex::Halt as u8,
                OpIndex::End as u8 | HEAD,
            ]
        );
        assert_eq!(p.insts[0].c, 6);
        // A jump target is a head and reads the register file: JMP to pc 2
        // keeps ADD r3, r2, r1 plain, and ADD's c = r1 is not MOV's r2.
        let p = decode(vec![
            op(Set, 1, 0, 0, 5),
            op(Mov, 2, 1, 0, 0),
            op(Add, 3, 2, 1, 0),
            op(Jmp, 0, 0, 0, 2),
        ]);
        assert_eq!(p.insts[2].op, OpIndex::Add as u8 | HEAD);
    }

    #[test]
    fn in_place_variants_and_the_order_of_choice() {
        // pc 0 SET r7, 9        head; a block of 7 (SET has an imm: in c).
        // pc 1 ADD r8, r8, r7   b = a (in place) and c = r7, which pc 0
        //                       wrote: both, AddInPlaceC.
        // pc 2 ADD r8, r8, r1   b = r8, which pc 1 wrote, and b = a: the
        //                       accumulator comes first in the list, AddB.
        // pc 3 SHR r2, r2, 3    in place; b = r2 is not pc 2's r8: ShrInPlace.
        // pc 4 MUL r5, r1, r3   neither: plain MUL.
        // pc 5 ADDI r0, r0, 1   in place, then JLT: fused into AddiJltInPlace.
        // pc 6 JLT r0, r9, 0    ends the block.
        // pc 7 ADDI r0, r1, 1   head (after a jump); not in place, then
        //                       JLT: fused into the plain AddiJlt.
        // pc 8 JLT r0, r9, 0
        // pc 9 ADDI r2, r2, 1   head; in place, but the JNZ after it reads
        //                       r1, not r2: the plain AddiJnz.
        // pc 10 JNZ r1, 0
        // pc 11 End
        let p = decode(vec![
            op(Set, 7, 0, 0, 9),
            op(Add, 8, 8, 7, 0),
            op(Add, 8, 8, 1, 0),
            op(Shr, 2, 2, 0, 3),
            op(Mul, 5, 1, 3, 0),
            op(Addi, 0, 0, 0, 1),
            op(Jlt, 0, 9, 0, 0),
            op(Addi, 0, 1, 0, 1),
            op(Jlt, 0, 9, 0, 0),
            op(Addi, 2, 2, 0, 1),
            op(Jnz, 1, 0, 0, 0),
        ]);
        assert_eq!(
            ops(&p),
            vec![
                OpIndex::Set as u8 | HEAD,
                OpIndex::AddInPlaceC as u8,
                OpIndex::AddB as u8,
                OpIndex::ShrInPlace as u8,
                OpIndex::Mul as u8,
                OpIndex::AddiJltInPlace as u8,
                OpIndex::Jlt as u8,
                OpIndex::AddiJlt as u8 | HEAD,
                OpIndex::Jlt as u8,
                OpIndex::AddiJnz as u8 | HEAD,
                OpIndex::Jnz as u8,
                OpIndex::End as u8 | HEAD,
            ]
        );
        assert_eq!(p.insts[0].c, 7);

        // A jump reads `a` from the accumulator when the micro-op before it
        // in its block wrote it; only `a`.
        // pc 0 SET r2, 3        head.
        // pc 1 JNZ r2, 0        a = r2, which pc 0 wrote: JnzA.
        // pc 2 SET r3, 1        head (after a jump).
        // pc 3 JLT r4, r3, 0    b = r3 was written, a = r4 was not: Jlt.
        // pc 4 End
        let p = decode(vec![
            op(Set, 2, 0, 0, 3),
            op(Jnz, 2, 0, 0, 0),
            op(Set, 3, 0, 0, 1),
            op(Jlt, 4, 3, 0, 0),
        ]);
        assert_eq!(
            ops(&p),
            vec![
                OpIndex::Set as u8 | HEAD,
                OpIndex::JnzA as u8,
                OpIndex::Set as u8 | HEAD,
                OpIndex::Jlt as u8,
                OpIndex::End as u8 | HEAD,
            ]
        );
    }

    #[test]
    fn a_jump_into_a_pair_keeps_it_apart_and_long_runs_are_cut() {
        // pc 0 ADD, pc 1 ADDI would fuse (AddAddi), but JMP (pc 2) targets
        // pc 1, a head: pc 0 is a block of 1, pc 1..=2 a block of 2. Both
        // are in place (b = a = r1).
        let p = decode(vec![
            op(Add, 1, 1, 1, 0),
            op(Addi, 1, 1, 0, 1),
            op(Jmp, 0, 0, 0, 1),
        ]);
        assert_eq!(p.insts[0].op, OpIndex::AddInPlace as u8 | HEAD);
        assert_eq!(p.insts[0].imm, 1);
        assert_eq!(p.insts[1].op, OpIndex::AddiInPlace as u8 | HEAD);
        assert_eq!(p.insts[1].c, 2);

        // 600 ADDIs then HALT: blocks of at most 255 micro-ops, the length
        // kept in c: pc 0 (255), pc 255 (255), pc 510 (90 ADDIs + HALT = 91).
        let mut ops = vec![op(Addi, 1, 1, 0, 1); 600];
        ops.push(op(Halt, 1, 0, 0, 0));
        let p = decode(ops);
        let heads: Vec<(usize, u8)> = p
            .insts
            .iter()
            .enumerate()
            .filter(|(_, i)| i.op & HEAD != 0)
            .map(|(pc, i)| (pc, i.c))
            .collect();
        assert_eq!(heads, vec![(0, 255), (255, 255), (510, 91), (601, 0)]);
        assert_eq!(p.insts[601].imm, 1, "End keeps its length in imm");
    }

    /// S5: a patch names an argument 0..10 and a register 0..16. The
    /// decoder keeps each one's argument as an `Arg` of that index, in
    /// patch order, and only the first `patch_count` of them.
    #[test]
    fn a_templates_patches_keep_their_order_and_argument_indexes() {
        use crate::format::{Command, MAX_PATCHES, Template};
        for i in 0..=255u8 {
            assert_eq!(Arg::of(i).map(|a| a as u8), (i < 10).then_some(i), "{i}");
        }
        let p = decode_with(
            vec![op(Submit, 0, 0, 0, 0), op(Halt, 0, 0, 0, 0)],
            vec![Template {
                command: Command {
                    handler: 1,
                    flags: 0,
                    first: 0,
                    count: 1,
                    args: [0; 10],
                },
                patch_arg: [9, 0, 4, 7],
                patch_reg: [15, 2, 0, 1],
                patch_count: 2,
                ..Template::default()
            }],
        );
        assert_eq!(MAX_PATCHES, 4);
        assert_eq!(p.templates[0].patches(), [(Arg::A9, 15), (Arg::A0, 2)]);
    }

    /// SUBMIT's `group` variant (inst::for_each_fused!): only a template
    /// that is not exclusive and takes both its first core and its count
    /// from registers gets it, with those registers in `a` and `b`.
    /// Template 0: group (r3, r7), flags 0 (SubmitGroup, a = 3, b = 7).
    /// Template 1: the same group, exclusive (plain Submit, a = b = 0xFF).
    /// Template 2: first core fixed, count from r7 (plain Submit).
    /// Template 3: group (r3, r7) with the result flag (SubmitGroup).
    /// Each SUBMIT can stop the turn, so each is a head with its block's
    /// length (1) in `c`; HALT's block is pc 4 alone, then End.
    #[test]
    fn a_plain_submit_of_a_register_group_reads_its_registers_from_a_and_b() {
        use crate::format::{Command, Template};
        let t = |flags, first_register, count_register| Template {
            command: Command {
                handler: 1,
                flags,
                first: 0,
                count: 1,
                args: [0; 10],
            },
            first_register,
            count_register,
            ..Template::default()
        };
        let p = decode_with(
            vec![
                op(Submit, 9, 9, 9, 0),
                op(Submit, 9, 9, 9, 1),
                op(Submit, 9, 9, 9, 2),
                op(Submit, 9, 9, 9, 3),
                op(Halt, 0, 0, 0, 0),
            ],
            vec![
                t(0, 3, 7),
                t(flags::EXCLUSIVE, 3, 7),
                t(0, NO_REGISTER, 7),
                t(flags::RESULT, 3, 7),
            ],
        );
        let h = |i: OpIndex| i as u8 | HEAD;
        assert_eq!(
            fields(&p),
            vec![
                (h(OpIndex::SubmitGroup), 3, 7, 1, 0),
                (h(OpIndex::Submit), 0xFF, 0xFF, 1, 1),
                (h(OpIndex::Submit), 0xFF, 0xFF, 1, 2),
                (h(OpIndex::SubmitGroup), 3, 7, 1, 3),
                (h(OpIndex::Halt), 0, 0, 0, 1),
                (h(OpIndex::End), 0, 0, 0, 1),
            ]
        );
    }
}
