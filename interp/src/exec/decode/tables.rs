//! The decoder's tables, built at compile time from the one definition
//! (`for_each_op!`) and the shapes of the units (step.rs `shape`: the
//! superinstructions and variants of `for_each_fused!`): what an opcode byte decodes to ([`RULES`]), which
//! variant a micro-op gets under which conditions ([`VARIANTS`],
//! [`conditions`]), which pairs fuse ([`Rule::pairs`], [`fuse`])
//! (decisions.md D36).

use crate::format::reg_offset;
use crate::ops::{ImmKind, Opcode};

use crate::exec::inst::{HANDLERS, HEAD, OpIndex, len_in_imm};
use crate::exec::operand::Reads;
use crate::exec::step::{SHAPES, straight};

/// What the decoder reads from an opcode byte: one table lookup where a
/// chain of tests and a loop over the register fields were
/// (decisions.md D36).
#[derive(Clone, Copy)]
pub(super) struct Rule {
    /// The bits of the micro-op's first eight bytes (read as a
    /// little-endian u64: opcode, a, b, c, imm) that its instruction keeps:
    /// the low four bits of each register field it reads (the check proved
    /// them below 16, so a register is never out of range here) and the
    /// imm. The other fields are stored as 0 (S4: unused register fields
    /// are ignored).
    pub(super) keep: u64,
    /// Its plain [`OpIndex`].
    pub(super) index: u8,
    /// [`JUMP`], [`TEMPLATE`], [`SUBMIT`], [`STOPS`], [`INVALID`].
    pub(super) flags: u8,
    /// Its [`Pending`] meta bits: [`GROUP`] and [`LEN_IN_IMM`].
    pub(super) meta: u8,
    /// Bit `second` set when some superinstruction is this micro-op then
    /// the plain index `second`: the one test most pairs of micro-ops take.
    pub(super) pairs: u32,
}

/// The imm is a jump target.
pub(super) const JUMP: u8 = 1;
/// The imm is a template index.
pub(super) const TEMPLATE: u8 = 2;
/// SUBMIT: `a` and `b` hold its template's group registers.
pub(super) const SUBMIT: u8 = 4;
/// Not straight (`step::straight`): the micro-op after it is a head.
pub(super) const STOPS: u8 = 8;
/// No micro-op has this opcode (the check rejects it).
pub(super) const INVALID: u8 = 16;

/// The [`Rule`] of every opcode byte, from the one definition.
pub(super) const RULES: [Rule; 256] = {
    let mut rules = [Rule {
        keep: 0,
        index: 0,
        flags: INVALID,
        meta: 0,
        pairs: 0,
    }; 256];
    let mut k = 0;
    while k < Opcode::ALL.len() {
        let op = Opcode::ALL[k];
        let mut keep = 0xFFFF_FFFF << 32;
        let regs = op.regs();
        let mut f = 0;
        while f < regs.len() {
            keep |= 0x0F << (8 * reg_offset(regs[f]));
            f += 1;
        }
        let index = OpIndex::of(op);
        let mut flags = match op.imm_kind() {
            ImmKind::Target => JUMP,
            ImmKind::Template => TEMPLATE,
            ImmKind::Value | ImmKind::None => 0,
        };
        if matches!(op, Opcode::Submit) {
            flags |= SUBMIT;
        }
        if !straight(index) {
            flags |= STOPS;
        }
        let meta = if len_in_imm(Some(op)) {
            GROUP as u8 | LEN_IN_IMM
        } else {
            GROUP as u8
        };
        let mut pairs = 0;
        let mut p = 0;
        while p < FUSED_LIST.len() {
            let (_, first, _, second, _) = FUSED_LIST[p];
            if first == index as u8 {
                pairs |= 1 << second as u32;
            }
            p += 1;
        }
        rules[op as usize] = Rule {
            keep,
            index: index as u8,
            flags,
            meta,
            pairs,
        };
        k += 1;
    }
    rules
};

const _: () = assert!(len_in_imm(None), "End keeps its length in imm");
const _: () = assert!(
    OpIndex::End as usize <= 32,
    "Rule::pairs has a bit for every plain index"
);

/// The conditions of the operand sources (`for_each_fused!`, `operand::src`)
/// that hold for an instruction, as bits: the column of [`VARIANTS`].
/// `b` is `a` ...
pub(super) const IN_PLACE: usize = 1;
/// ... `a`, `b`, `c` is the register the micro-op before it in its block
/// wrote and left in the accumulator ...
pub(super) const ACC_A: usize = 2;
pub(super) const ACC_B: usize = 4;
pub(super) const ACC_C: usize = 8;
/// ... `a` is not `NO_REGISTER` (SUBMIT's group registers are written
/// both or neither).
pub(super) const GROUP: usize = 16;

/// A [`Pending`] meta bit beside [`GROUP`]: a head of this micro-op keeps
/// its block's length in `imm` ([`len_in_imm`]), else in `c`.
pub(super) const LEN_IN_IMM: u8 = 32;

/// The conditions a source that reads so asks for.
const fn needs(reads: Reads) -> usize {
    (if reads.b_is_a { IN_PLACE } else { 0 })
        | (if reads.a { ACC_A } else { 0 })
        | (if reads.b { ACC_B } else { 0 })
        | (if reads.c { ACC_C } else { 0 })
        | (if reads.group { GROUP } else { 0 })
}

/// The accumulator's register where none is held (a head, the second of
/// a pair): no register equals it.
pub(super) const NO_ACC: u32 = 0x10;

/// [`IN_PLACE`], [`ACC_A`], [`ACC_B`] and [`ACC_C`] of an instruction's
/// bytes `word` ([`Pending::word`]) where the accumulator holds register
/// `acc` ([`NO_ACC`] if none): the bytes of `a ^ acc`, `b ^ acc`, `c ^
/// acc` and `a ^ b` that are zero, found at once (each byte is below 0x20,
/// so adding 0x7F to each carries into no other), their top bits gathered
/// by one multiply.
#[inline(always)]
pub(super) fn conditions(word: u64, acc: u32) -> usize {
    // The low nibbles: SUBMIT's NO_REGISTER (whose conditions but GROUP
    // no variant reads) stays below 0x20 too.
    let f = (word >> 8) as u32 & 0x0F_0F0F;
    let x = f ^ acc.wrapping_mul(0x01_0101) | ((f ^ f >> 8) & 0xFF) << 24;
    let zero = (x.wrapping_add(0x7F7F_7F7F) & 0x8080_8080) ^ 0x8080_8080;
    // Bit 31 lands on bit 31, 7 on 32, 15 on 33, 23 on 34; nothing else
    // on those.
    let k: u64 = 1 | 1 << 11 | 1 << 18 | 1 << 25;
    (u64::from(zero).wrapping_mul(k) >> 31 & 0xF) as usize
}

/// Rows of [`VARIANTS`]: one per dense index below [`HEAD`].
pub(super) const ROWS: usize = HEAD as usize;

/// Whether handler index `k` is a variant (the one micro-op of a plain
/// index, read from where its source says), and its plain index.
const fn variant_of(k: usize) -> Option<usize> {
    let shape = SHAPES[k];
    match shape.first {
        Some(op) if shape.second.is_none() && OpIndex::of(op) as usize != k => {
            Some(OpIndex::of(op) as usize)
        }
        _ => None,
    }
}

/// How many superinstructions there are.
const FUSED_COUNT: usize = {
    let mut n = 0;
    let mut k = 0;
    while k < HANDLERS {
        n += SHAPES[k].second.is_some() as usize;
        k += 1;
    }
    n
};

/// `(pair, first, its conditions, second, its conditions)` of every
/// superinstruction, in list order.
const FUSED_LIST: [(u8, u8, usize, u8, usize); FUSED_COUNT] = {
    let mut list = [(0, 0, 0, 0, 0); FUSED_COUNT];
    let (mut k, mut n) = (0, 0);
    while k < HANDLERS {
        let shape = SHAPES[k];
        if let (Some(first), Some(second)) = (shape.first, shape.second) {
            list[n] = (
                k as u8,
                OpIndex::of(first) as u8,
                needs(shape.first_reads),
                OpIndex::of(second) as u8,
                needs(shape.second_reads),
            );
            n += 1;
        }
        k += 1;
    }
    list
};

/// `VARIANTS[index][conditions]`: the variant the decoder gives a plain
/// micro-op of this index whose conditions are these, the first in list
/// order whose conditions hold, or the index itself (always, for an index
/// that is not plain: a superinstruction keeps its index).
pub(super) const VARIANTS: [[u8; 32]; ROWS] = {
    let mut table = [[0u8; 32]; ROWS];
    let mut base = 0;
    while base < ROWS {
        let mut conds = 0;
        while conds < 32 {
            table[base][conds] = base as u8;
            let mut k = HANDLERS;
            // From the end, so that the first in list order is kept.
            while k > 0 {
                k -= 1;
                if let Some(of) = variant_of(k) {
                    let needs = needs(SHAPES[k].first_reads);
                    if of == base && conds & needs == needs {
                        table[base][conds] = k as u8;
                    }
                }
            }
            conds += 1;
        }
        base += 1;
    }
    table
};

/// The superinstruction of plain micro-ops `first` then `second` whose
/// conditions are these (the second's with the first's `a` in the
/// accumulator), if any: the first in list order whose conditions hold.
#[inline(never)]
pub(super) fn fuse(first: u8, first_conds: usize, second: u8, second_conds: usize) -> Option<u8> {
    FUSED_LIST
        .iter()
        .find_map(|&(pair, f, f_needs, s, s_needs)| {
            (f == first
                && s == second
                && first_conds & f_needs == f_needs
                && second_conds & s_needs == s_needs)
                .then_some(pair)
        })
}

/// 1 for the opcode bytes of the micro-ops that are not straight
/// ([`STOPS`]), 0 for the others: what the first pass of [`blocks`] reads.
pub(super) const STOPPING: [u8; 256] = {
    let mut table = [0; 256];
    let mut k = 0;
    while k < 256 {
        table[k] = (RULES[k].flags & STOPS != 0) as u8;
        k += 1;
    }
    table
};
