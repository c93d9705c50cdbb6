//! The optimized checker: `check` and `check_run` (docs/spec.md "The check", S2..S6).
//!
//! The kernel runs this before every stream, so it is one pass over the bytes
//! with no allocation, and it never panics: every size is computed in `u64`
//! and every read is bounds-checked by the header test that precedes it.
//! Operand validation is driven by the generated table in [`crate::ops`]
//! ([`Opcode::from_u8`], [`Opcode::regs`], [`Opcode::imm_kind`]); there is no
//! second opcode table here.
//!
//! The reference crate has its own plain checker; the two are fuzzed against
//! each other.

pub use kmst_reference::{Reason, StreamError};

use crate::format::{
    COMMAND_LEN, HEADER_LEN, MAGIC, MAX_OPS, MAX_PATCHES, NO_REGISTER, OP_LEN, REGISTERS,
    TEMPLATE_LEN, VERSION, flags, read_u32,
};
use crate::ops::{ImmKind, Opcode, RegField};

/// The highest handler number that belongs to the program.
pub const MAX_HANDLER: u8 = 239;

/// `n` rounded up to a multiple of 64, in u64 (cannot overflow for the u32 counts used here).
#[inline]
const fn pad64(n: u64) -> u64 {
    n.div_ceil(64) * 64
}

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

/// Check 1 (reason 1, pc 0): the header and the total size (S2).
fn check_header(data: &[u8], region_size: u64) -> Result<Layout, StreamError> {
    let len = data.len() as u64;
    if len < HEADER_LEN as u64 || !len.is_multiple_of(64) || len > region_size {
        return Err(BAD_HEADER);
    }
    let word = |i: usize| read_u32(data, 4 * i);
    let (magic, version, op_count, command_count, max_steps, seed) =
        (word(0), word(1), word(2), word(3), word(4), word(7));
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
    // S2: 64 + pad64(op_count * 16) + pad64(command_count * 80); all u32 counts, no overflow in u64.
    let templates_at = HEADER_LEN as u64 + pad64(u64::from(op_count) * OP_LEN as u64);
    let total = templates_at + pad64(u64::from(command_count) * TEMPLATE_LEN as u64);
    if total != len {
        return Err(BAD_HEADER);
    }
    Ok(Layout {
        op_count,
        command_count,
        templates_at: templates_at as usize,
    })
}

/// Check 2 for the micro-op at `pc` (S4 order: opcode, registers a b c, target, template).
#[inline]
fn check_op(op: &[u8], pc: u32, layout: &Layout) -> Result<(), StreamError> {
    let Some(opcode) = Opcode::from_u8(op[0]) else {
        return Err(fault(Reason::UnknownOpcode, pc));
    };
    for field in opcode.regs() {
        let reg = match field {
            RegField::A => op[1],
            RegField::B => op[2],
            RegField::C => op[3],
        };
        if usize::from(reg) >= REGISTERS {
            return Err(fault(Reason::BadRegister, pc));
        }
    }
    let imm = read_u32(op, 4);
    match opcode.imm_kind() {
        ImmKind::Target if imm >= layout.op_count => Err(fault(Reason::BadJump, pc)),
        ImmKind::Template if imm >= layout.command_count => Err(fault(Reason::BadTemplate, pc)),
        _ => Ok(()),
    }
}

/// Whether a template passes check 3 (S1, S5).
#[inline]
fn template_ok(t: &[u8]) -> bool {
    let handler = t[0];
    let flag_byte = t[1];
    if handler == 0 || handler > MAX_HANDLER {
        return false;
    }
    if flag_byte & !(flags::EXCLUSIVE | flags::RESULT) != 0 {
        return false;
    }
    let patch_count = usize::from(t[COMMAND_LEN + 10]);
    if patch_count > MAX_PATCHES {
        return false;
    }
    for k in 0..patch_count {
        if t[COMMAND_LEN + k] > 9 || usize::from(t[COMMAND_LEN + 4 + k]) >= REGISTERS {
            return false;
        }
    }
    let group_reg_ok = |r: u8| r == NO_REGISTER || usize::from(r) < REGISTERS;
    group_reg_ok(t[COMMAND_LEN + 8]) && group_reg_ok(t[COMMAND_LEN + 9])
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
/// The checks run in the order of docs/spec.md "The check" and the first fault wins.
pub fn check(data: &[u8], region_size: u64) -> Result<(), StreamError> {
    let layout = check_header(data, region_size)?;
    let ops = &data[HEADER_LEN..HEADER_LEN + layout.op_count as usize * OP_LEN];
    for (pc, op) in ops.chunks_exact(OP_LEN).enumerate() {
        check_op(op, pc as u32, &layout)?;
    }
    let templates = &data
        [layout.templates_at..layout.templates_at + layout.command_count as usize * TEMPLATE_LEN];
    for (index, t) in templates.chunks_exact(TEMPLATE_LEN).enumerate() {
        if !template_ok(t) {
            let pc = first_use(data, &layout, index as u32);
            return Err(fault(Reason::BadTemplate, pc));
        }
    }
    Ok(())
}

/// The req of the error event of a `KM_HANDLER_RUN` (S3): the header's req when
/// the upload is at least 64 bytes long and `offset + 64 <= region_size`, else 0.
pub fn run_req(data: &[u8], offset: u64, region_size: u64) -> u32 {
    let header_inside = offset
        .checked_add(HEADER_LEN as u64)
        .is_some_and(|end| end <= region_size);
    if data.len() >= HEADER_LEN && header_inside {
        read_u32(data, 24)
    } else {
        0
    }
}

/// The req of the error event of a failed `check` (S3): the header's req when
/// the data is at least 64 bytes long, else 0.
pub fn check_req(data: &[u8]) -> u32 {
    if data.len() >= HEADER_LEN {
        read_u32(data, 24)
    } else {
        0
    }
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
    let req = run_req(data, offset, region_size);
    let length = data.len() as u64;
    // S6 order: alignment, range, overlap, active req, then the check.
    let rejected = !offset.is_multiple_of(64)
        || offset > region_size
        || length > region_size - offset
        || active
            .iter()
            .any(|&(at, len)| overlaps(offset, length, at, len))
        || (data.len() >= HEADER_LEN && active_reqs.contains(&read_u32(data, 24)));
    if rejected {
        return (Some(BAD_HEADER), req);
    }
    (check(data, region_size).err(), req)
}

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
    pub fn header(&self) -> crate::format::Header {
        crate::format::Header {
            max_steps: read_u32(self.data, 16),
            deadline_us: read_u32(self.data, 20),
            req: read_u32(self.data, 24),
            seed: read_u32(self.data, 28),
        }
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
    pub fn op(&self, pc: u32) -> (Opcode, crate::format::MicroOp) {
        assert!(pc < self.layout.op_count, "pc {pc} past the program");
        let at = HEADER_LEN + pc as usize * OP_LEN;
        let op = crate::format::MicroOp::read(&self.data[at..at + OP_LEN]);
        let opcode = Opcode::from_u8(op.op).expect("the check accepted the opcode");
        (opcode, op)
    }

    /// Template `index`. Panics if `index >= command_count()`.
    pub fn template(&self, index: u32) -> crate::format::Template {
        assert!(
            index < self.layout.command_count,
            "template {index} past the table"
        );
        let at = self.layout.templates_at + index as usize * TEMPLATE_LEN;
        crate::format::Template::read(&self.data[at..at + TEMPLATE_LEN])
    }
}
