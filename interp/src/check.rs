//! The optimized checker: `check` and `check_run` (docs/spec.md "The check", S2..S6).
//!
//! The kernel runs this before every stream, so it is one pass over the bytes
//! with no allocation, and it never panics: every size is computed in `u64`
//! and every read is bounds-checked by the header test that precedes it.
//! Operand validation is driven by the generated table in [`crate::ops`]
//! ([`Opcode::from_u8`], [`Opcode::regs`], [`Opcode::imm_kind`]); there is no
//! second opcode table here.
//!
//! The byte layout is [`crate::format`]'s; this module only judges it. An
//! accepted upload comes out as a [`CheckedUpload`], the proof the fast
//! pre-decoder starts from.
//!
//! The reference crate has its own plain checker; the two are fuzzed against
//! each other.

use std::fmt;

pub use kmst_types::{Reason, StreamError};

use crate::format::{HEADER_LEN, check_req};
use crate::format::{
    Header, MAGIC, MAX_OPS, MAX_PATCHES, MicroOp, NO_REGISTER, OP_LEN, REGISTERS, TEMPLATE_LEN,
    Template, Upload, VERSION, flags, header_at, read_u32, templates_offset, upload_len_u64,
};
use crate::ops::{ImmKind, Opcode};

/// The highest handler number that belongs to the program.
pub const MAX_HANDLER: u8 = 239;

#[inline]
const fn fault(reason: Reason, pc: u32) -> StreamError {
    StreamError { reason, pc }
}

const BAD_HEADER: StreamError = fault(Reason::BadHeader, 0);

/// The counts of an upload whose header the check accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    op_count: u32,
    command_count: u32,
    templates_at: usize,
}

/// Check 1 (`Reason::BadHeader`, pc 0): the header and the total size (S2).
fn check_header(data: &[u8], region_size: u64) -> Result<Layout, StreamError> {
    let len = data.len() as u64;
    if len < HEADER_LEN as u64 || !len.is_multiple_of(64) || len > region_size {
        return Err(BAD_HEADER);
    }
    let word = |at: usize| read_u32(data, at);
    let (magic, version, op_count, command_count, max_steps, seed) = (
        word(header_at::MAGIC),
        word(header_at::VERSION),
        word(header_at::OP_COUNT),
        word(header_at::COMMAND_COUNT),
        word(header_at::MAX_STEPS),
        word(header_at::SEED),
    );
    if magic != MAGIC
        || version != VERSION
        || seed == 0
        || op_count == 0
        || op_count as usize > MAX_OPS
        || command_count as usize > MAX_OPS
        || max_steps == 0
    {
        return Err(BAD_HEADER);
    }
    // S2, in u64: u32 counts cannot overflow it.
    if upload_len_u64(u64::from(op_count), u64::from(command_count)) != len {
        return Err(BAD_HEADER);
    }
    Ok(Layout {
        op_count,
        command_count,
        templates_at: templates_offset(op_count as usize),
    })
}

/// Check 2 for the micro-op at `pc` (S4 order: opcode, registers a b c, target, template).
///
/// The precise test, run only once [`OP_RULES`] has found a fault in the
/// micro-op, to name the first one in S4's order.
#[cold]
fn check_op(op: &[u8], pc: u32, layout: &Layout) -> Result<(), StreamError> {
    let op = MicroOp::read(op);
    let Some(opcode) = op.opcode() else {
        return Err(fault(Reason::UnknownOpcode, pc));
    };
    for &field in opcode.regs() {
        if usize::from(op.reg(field)) >= REGISTERS {
            return Err(fault(Reason::BadRegister, pc));
        }
    }
    let imm = op.imm;
    match opcode.imm_kind() {
        ImmKind::Target if imm >= layout.op_count => Err(fault(Reason::BadJump, pc)),
        ImmKind::Template if imm >= layout.command_count => Err(fault(Reason::BadTemplate, pc)),
        _ => Ok(()),
    }
}

/// What check 2 asks of a micro-op, by its opcode byte: one table lookup
/// where a chain of tests was (decisions.md D35).
#[derive(Clone, Copy)]
struct OpRule {
    /// `0xF0` in the byte of each register field the micro-op reads (S4),
    /// at that byte's place in the micro-op's first 32-bit word (a at
    /// bits 8..16, b 16..24, c 24..32): a register field is below 16
    /// exactly when its high nibble is zero.
    regs: u32,
    /// Which bound its imm has: an index into [`Bounds`].
    bound: u8,
}

/// The bounds an imm is tested against, by [`OpRule::bound`]: none (an
/// imm below 2^32 always passes), a jump target's (`op_count`), a
/// template index's (`command_count`), and 0, which fails every imm: an
/// unknown opcode.
type Bounds = [u64; 4];

const NO_BOUND: u8 = 0;
const TARGET_BOUND: u8 = 1;
const TEMPLATE_BOUND: u8 = 2;
const UNKNOWN: u8 = 3;

/// [`OpRule`] of every opcode byte, from the one definition (`for_each_op!`).
const OP_RULES: [OpRule; 256] = {
    let mut rules = [OpRule {
        regs: 0,
        bound: UNKNOWN,
    }; 256];
    let mut k = 0;
    while k < Opcode::ALL.len() {
        let op = Opcode::ALL[k];
        let mut regs = 0u32;
        let fields = op.regs();
        let mut f = 0;
        while f < fields.len() {
            regs |= 0xF0 << (8 * crate::format::reg_offset(fields[f]));
            f += 1;
        }
        let bound = match op.imm_kind() {
            ImmKind::Target => TARGET_BOUND,
            ImmKind::Template => TEMPLATE_BOUND,
            ImmKind::None | ImmKind::Value => NO_BOUND,
        };
        rules[op as usize] = OpRule { regs, bound };
        k += 1;
    }
    rules
};

/// Whether a template passes check 3 (S1, S5).
#[inline]
fn template_ok(t: &Template) -> bool {
    let handler = t.command.handler;
    if handler == 0 || handler > MAX_HANDLER {
        return false;
    }
    if t.command.flags & !(flags::EXCLUSIVE | flags::RESULT) != 0 {
        return false;
    }
    if usize::from(t.patch_count) > MAX_PATCHES {
        return false;
    }
    if t.patches()
        .any(|(arg, reg)| usize::from(arg) >= crate::format::ARGS || usize::from(reg) >= REGISTERS)
    {
        return false;
    }
    let group_reg_ok = |r: u8| r == NO_REGISTER || usize::from(r) < REGISTERS;
    group_reg_ok(t.first_register) && group_reg_ok(t.count_register)
}

/// The pc of the lowest SUBMIT/ENQUEUE whose imm is `index`, or 0 if none (S5).
///
/// Only run once a bad template has been found, so the accepting path stays one pass.
fn first_use(data: &[u8], layout: &Layout, index: u32) -> u32 {
    for pc in 0..layout.op_count {
        let at = HEADER_LEN + pc as usize * OP_LEN;
        let op = &data[at..at + OP_LEN];
        if let Some(opcode) = Opcode::from_u8(op[0])
            && opcode.imm_kind() == ImmKind::Template
            && read_u32(op, 4) == index
        {
            return pc;
        }
    }
    0
}

/// What the kernel does before it runs a stream: `Ok` or the first fault.
///
/// The checks run in the order of docs/spec.md "The check" (S2, S4, S5) and
/// the first fault wins.
pub fn check(data: &[u8], region_size: u64) -> Result<(), StreamError> {
    let layout = check_header(data, region_size)?;
    let ops = &data[HEADER_LEN..HEADER_LEN + layout.op_count as usize * OP_LEN];
    // Check 2 (S4) of each micro-op in one test: its rule's register
    // nibbles and its imm's bound (decisions.md D35); the precise test
    // names the fault of a micro-op that fails it.
    let bounds: Bounds = [
        1 << 32,
        u64::from(layout.op_count),
        u64::from(layout.command_count),
        0,
    ];
    for (pc, op) in ops.chunks_exact(OP_LEN).enumerate() {
        let word = u64::from_le_bytes([op[0], op[1], op[2], op[3], op[4], op[5], op[6], op[7]]);
        let rule = OP_RULES[usize::from(word as u8)];
        if word as u32 & rule.regs != 0 || word >> 32 >= bounds[usize::from(rule.bound & 3)] {
            check_op(op, pc as u32, &layout)?;
        }
    }
    let templates = &data
        [layout.templates_at..layout.templates_at + layout.command_count as usize * TEMPLATE_LEN];
    for (index, t) in templates.chunks_exact(TEMPLATE_LEN).enumerate() {
        if !template_ok(&Template::read(t)) {
            let pc = first_use(data, &layout, index as u32);
            return Err(fault(Reason::BadTemplate, pc));
        }
    }
    Ok(())
}

/// Whether half-open `[a, a + a_len)` and `[b, b + b_len)` share a byte (S6:
/// a zero-length range overlaps nothing). Computed in u128 so nothing wraps.
fn overlaps(a: u64, a_len: u64, b: u64, b_len: u64) -> bool {
    let (a, a_end) = (u128::from(a), u128::from(a) + u128::from(a_len));
    let (b, b_end) = (u128::from(b), u128::from(b) + u128::from(b_len));
    a_len != 0 && b_len != 0 && a < b_end && b < a_end
}

/// What the kernel answers a `KM_HANDLER_RUN`: the error (if any) and the req of its event (S3, S6).
///
/// The req is reported by S3 whether or not there is an error.
pub fn check_run(
    data: &[u8],
    offset: u64,
    region_size: u64,
    active: &[(u64, u64)],
    active_reqs: &[u32],
) -> (Option<StreamError>, u32) {
    let req = crate::format::run_req(data, offset, region_size);
    let header_req = (data.len() >= HEADER_LEN).then(|| check_req(data));
    let place = RunPlace {
        offset,
        length: data.len() as u64,
        header_req,
    };
    if place.rejected(region_size, active, active_reqs) {
        return (Some(BAD_HEADER), req);
    }
    (check(data, region_size).err(), req)
}

/// Where a `KM_HANDLER_RUN` puts its upload: what S6's tests before the
/// check read. The kernel's scenario machine asks these per RUN, with the
/// check itself run once at set-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunPlace {
    /// The RUN's offset into the region (`first`), in bytes.
    pub offset: u64,
    /// The RUN's length (`count`), in bytes.
    pub length: u64,
    /// The header's req when the upload is at least 64 bytes long.
    pub header_req: Option<u32>,
}

impl RunPlace {
    /// S6's tests before the check, in order: alignment, range, overlap with
    /// an active range, an active req. True when one fails (`Reason::BadHeader`, pc 0).
    pub fn rejected(&self, region_size: u64, active: &[(u64, u64)], active_reqs: &[u32]) -> bool {
        // The range's end in u128, which cannot wrap: one test where
        // `offset > region_size` and the length's room were two (whose
        // boundaries overlapped: an offset at the region's end failed both
        // but for a length of 0, which the check rejects).
        !self.offset.is_multiple_of(64)
            || u128::from(self.offset) + u128::from(self.length) > u128::from(region_size)
            || active
                .iter()
                .any(|&(at, len)| overlaps(self.offset, self.length, at, len))
            || self.header_req.is_some_and(|r| active_reqs.contains(&r))
    }
}

/// The error of every test of `check_run` before the check (`Reason::BadHeader`, pc 0; S6).
pub const RUN_REJECTED: StreamError = BAD_HEADER;

/// An upload the check has accepted, read in place without copying.
///
/// This is what a pre-decoder needs: the counts, the header fields and each
/// micro-op and template, with the guarantee that every read is in bounds and
/// every operand valid.
#[derive(Clone, Copy, Debug)]
pub struct CheckedUpload<'a> {
    data: &'a [u8],
    layout: Layout,
}

impl<'a> CheckedUpload<'a> {
    /// Runs [`check`] and wraps the accepted data.
    pub fn new(data: &'a [u8], region_size: u64) -> Result<CheckedUpload<'a>, StreamError> {
        check(data, region_size)?;
        let layout = check_header(data, region_size)?;
        Ok(CheckedUpload { data, layout })
    }

    /// The upload bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The header's fields that are not derived from the body.
    pub fn header(&self) -> Header {
        Header::from_bytes(self.data).expect("the check accepted the header")
    }

    /// The number of micro-ops (1..=65,535).
    pub fn op_count(&self) -> u32 {
        self.layout.op_count
    }

    /// The number of templates (0..=65,535).
    pub fn command_count(&self) -> u32 {
        self.layout.command_count
    }

    /// Micro-op `pc`, whose opcode is valid. Panics if `pc >= op_count()`.
    pub fn op(&self, pc: u32) -> (Opcode, MicroOp) {
        assert!(pc < self.layout.op_count, "pc {pc} past the program");
        let at = HEADER_LEN + pc as usize * OP_LEN;
        let op = MicroOp::read(&self.data[at..at + OP_LEN]);
        let opcode = Opcode::from_u8(op.op).expect("the check accepted the opcode");
        (opcode, op)
    }

    /// Template `index`. Panics if `index >= command_count()`.
    pub fn template(&self, index: u32) -> Template {
        assert!(
            index < self.layout.command_count,
            "template {index} past the table"
        );
        let at = self.layout.templates_at + index as usize * TEMPLATE_LEN;
        Template::read(&self.data[at..at + TEMPLATE_LEN])
    }

    /// The typed form of the upload.
    pub fn to_upload(&self) -> Upload {
        Upload::read_checked(self.data)
    }
}

/// Why [`Upload::decode`] refused an upload: the check's error event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamFormatError(pub StreamError);

impl fmt::Display for StreamFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the check rejects the upload: {}", self.0)
    }
}

impl std::error::Error for StreamFormatError {}

impl Upload {
    /// Checks the upload (S10) and reads it into its typed form.
    pub fn decode(data: &[u8]) -> Result<Upload, StreamFormatError> {
        CheckedUpload::new(data, data.len() as u64)
            .map(|c| c.to_upload())
            .map_err(StreamFormatError)
    }
}
