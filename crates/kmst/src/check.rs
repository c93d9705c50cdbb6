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

pub use kmst_reference::{Reason, StreamError};

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

/// Check 1 (reason 1, pc 0): the header and the total size (S2).
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
#[inline]
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
    pub offset: u64,
    pub length: u64,
    /// The header's req when the upload is at least 64 bytes long.
    pub header_req: Option<u32>,
}

impl RunPlace {
    /// S6's tests before the check, in order: alignment, range, overlap with
    /// an active range, an active req. True when one fails (reason 1, pc 0).
    pub fn rejected(&self, region_size: u64, active: &[(u64, u64)], active_reqs: &[u32]) -> bool {
        !self.offset.is_multiple_of(64)
            || self.offset > region_size
            || self.length > region_size - self.offset
            || active
                .iter()
                .any(|&(at, len)| overlaps(self.offset, self.length, at, len))
            || self.header_req.is_some_and(|r| active_reqs.contains(&r))
    }
}

/// The error of every test of `check_run` before the check (reason 1, pc 0).
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

#[cfg(test)]
mod tests {
    //! Every expected value here is worked out from docs/spec.md "The check", S2..S6.
    use super::*;

    const OK_HALT: [u8; 5] = [20, 0, 0, 0, 0]; // HALT r0

    /// Raw upload bytes: header words, then the ops (op, a, b, c, imm), then raw templates.
    fn raw(words: [u32; 8], ops: &[[u8; 5]], imm: &[u32], templates: &[[u8; 80]]) -> Vec<u8> {
        let ops_len = (ops.len() * 16).div_ceil(64) * 64;
        let t_len = (templates.len() * 80).div_ceil(64) * 64;
        let mut out = vec![0u8; 64 + ops_len + t_len];
        for (i, w) in words.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        for (i, op) in ops.iter().enumerate() {
            let at = 64 + 16 * i;
            out[at..at + 4].copy_from_slice(&op[..4]);
            let v = imm.get(i).copied().unwrap_or(u32::from(op[4]));
            out[at + 4..at + 8].copy_from_slice(&v.to_le_bytes());
        }
        for (j, t) in templates.iter().enumerate() {
            let at = 64 + ops_len + 80 * j;
            out[at..at + 80].copy_from_slice(t);
        }
        out
    }

    fn header(op_count: u32, command_count: u32) -> [u32; 8] {
        // magic, version, op_count, command_count, max_steps, deadline, req, seed
        [MAGIC, 1, op_count, command_count, 100, 0, 7, 1]
    }

    fn upload(ops: &[[u8; 5]], templates: &[[u8; 80]]) -> Vec<u8> {
        raw(
            header(ops.len() as u32, templates.len() as u32),
            ops,
            &[],
            templates,
        )
    }

    /// A good template: handler 3, no flags, no patches, group from the command.
    fn good_template() -> [u8; 80] {
        let mut t = [0u8; 80];
        t[0] = 3;
        t[72] = 0xFF;
        t[73] = 0xFF;
        t
    }

    fn err(reason: Reason, pc: u32) -> Result<(), StreamError> {
        Err(StreamError { reason, pc })
    }

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_minimal_upload_is_accepted() {
        // 64-byte header + one op padded to 64 = 128 bytes.
        let data = upload(&[OK_HALT], &[]);
        assert_eq!(data.len(), 128);
        assert_eq!(check(&data, MIB), Ok(()));
    }

    #[test]
    fn header_too_short() {
        assert_eq!(check(&[], MIB), err(Reason::BadHeader, 0));
        let data = upload(&[OK_HALT], &[]);
        assert_eq!(check(&data[..63], MIB), err(Reason::BadHeader, 0));
    }

    #[test]
    fn header_not_a_multiple_of_64() {
        let mut data = upload(&[OK_HALT], &[]);
        data.push(0);
        assert_eq!(check(&data, MIB), err(Reason::BadHeader, 0));
    }

    #[test]
    fn larger_than_region_rejected_equal_accepted() {
        let data = upload(&[OK_HALT], &[]); // 128 bytes
        assert_eq!(check(&data, 127), err(Reason::BadHeader, 0));
        assert_eq!(check(&data, 64), err(Reason::BadHeader, 0));
        assert_eq!(check(&data, 128), Ok(()));
    }

    fn with_word(i: usize, v: u32) -> Vec<u8> {
        let mut w = header(1, 0);
        w[i] = v;
        raw(w, &[OK_HALT], &[], &[])
    }

    #[test]
    fn header_fields() {
        let bad = err(Reason::BadHeader, 0);
        assert_eq!(check(&with_word(0, 0x5453_4D4B), MIB), bad, "magic");
        assert_eq!(check(&with_word(1, 2), MIB), bad, "version 2");
        assert_eq!(check(&with_word(1, 0), MIB), bad, "version 0");
        assert_eq!(check(&with_word(7, 0), MIB), bad, "seed 0");
        assert_eq!(check(&with_word(4, 0), MIB), bad, "max_steps 0");
        assert_eq!(check(&with_word(4, 1), MIB), Ok(()), "max_steps 1");
        assert_eq!(check(&with_word(5, u32::MAX), MIB), Ok(()), "any deadline");
        assert_eq!(check(&with_word(7, u32::MAX), MIB), Ok(()), "any seed");
    }

    #[test]
    fn op_count_range() {
        let bad = err(Reason::BadHeader, 0);
        // op_count 0: size 64 exactly matches 64 + 0 + 0, but op_count must be >= 1.
        let zero = raw(header(0, 0), &[], &[], &[]);
        assert_eq!(zero.len(), 64);
        assert_eq!(check(&zero, MIB), bad);
        // op_count 65,536 with the size it would need: 64 + 65,536 * 16.
        let mut big = vec![0u8; 64 + 65_536 * 16];
        let w = header(65_536, 0);
        for (i, v) in w.iter().enumerate() {
            big[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        for i in 0..65_536 {
            big[64 + 16 * i] = 20; // HALT r0
        }
        assert_eq!(check(&big, 4 * MIB), bad);
        // op_count 65,535 is allowed: 64 + pad64(65,535 * 16) = 64 + 1,048,576.
        let mut w = header(65_535, 0);
        w[4] = 1;
        big.truncate(64 + 1_048_576);
        for (i, v) in w.iter().enumerate() {
            big[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        assert_eq!(check(&big, 4 * MIB), Ok(()));
    }

    #[test]
    fn command_count_65536_rejected() {
        // Size would be 64 + 64 + 65,536 * 80 bytes; build it so only the count is wrong.
        let mut data = vec![0u8; 128 + 65_536 * 80];
        for (i, v) in header(1, 65_536).iter().enumerate() {
            data[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        data[64] = 20;
        assert_eq!(check(&data, 16 * MIB), err(Reason::BadHeader, 0));
        // 65,535 templates of zeros would be reason 5, not 1: the count itself is fine.
        data.truncate(128 + (65_535 * 80usize).div_ceil(64) * 64);
        data[12..16].copy_from_slice(&65_535u32.to_le_bytes());
        assert_eq!(check(&data, 16 * MIB), err(Reason::BadTemplate, 0));
    }

    #[test]
    fn size_mismatch() {
        // Header says 2 ops (still one 64-byte line) -> same size, accepted.
        let data = raw(header(2, 0), &[OK_HALT, OK_HALT], &[], &[]);
        assert_eq!(check(&data, MIB), Ok(()));
        // Header says 5 ops (two lines, 192 bytes) but data has 128.
        let mut data = raw(header(1, 0), &[OK_HALT], &[], &[]);
        data[8..12].copy_from_slice(&5u32.to_le_bytes());
        assert_eq!(check(&data, MIB), err(Reason::BadHeader, 0));
        // One template declared, none present.
        let mut data = raw(header(1, 0), &[OK_HALT], &[], &[]);
        data[12..16].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(check(&data, MIB), err(Reason::BadHeader, 0));
        // Extra trailing line.
        let mut data = upload(&[OK_HALT], &[]);
        data.extend([0u8; 64]);
        assert_eq!(check(&data, MIB), err(Reason::BadHeader, 0));
    }

    #[test]
    fn reason_2_unknown_opcode() {
        for bad in [0u8, 11, 15, 21, 31, 34, 39, 42, 47, 50, 255] {
            let data = upload(&[OK_HALT, [bad, 0, 0, 0, 0]], &[]);
            assert_eq!(
                check(&data, MIB),
                err(Reason::UnknownOpcode, 1),
                "opcode {bad}"
            );
        }
    }

    #[test]
    fn reason_4_register_in_a_used_field_only() {
        // ADD reads a, b, c: r16 in c is reason 4 at pc 0.
        assert_eq!(
            check(&upload(&[[3, 0, 0, 16, 0], OK_HALT], &[]), MIB),
            err(Reason::BadRegister, 0)
        );
        // MOV reads a, b only: c = 200 is ignored.
        assert_eq!(
            check(&upload(&[[2, 1, 15, 200, 0], OK_HALT], &[]), MIB),
            Ok(())
        );
        // MOV b = 16 is reason 4.
        assert_eq!(
            check(&upload(&[OK_HALT, [2, 1, 16, 0, 0]], &[]), MIB),
            err(Reason::BadRegister, 1)
        );
        // JMP reads no register: a = 255 ignored.
        assert_eq!(
            check(&upload(&[[16, 255, 255, 255, 1], OK_HALT], &[]), MIB),
            Ok(())
        );
        // ENQUEUE reads a.
        assert_eq!(
            check(
                &upload(&[[33, 16, 0, 0, 0], OK_HALT], &[good_template()]),
                MIB
            ),
            err(Reason::BadRegister, 0)
        );
    }

    #[test]
    fn reason_3_jump_target() {
        // Two ops: target 2 is op_count, out of range; target 1 fine.
        for op in [16u8, 17, 18, 19] {
            assert_eq!(
                check(&upload(&[[op, 0, 0, 0, 1], OK_HALT], &[]), MIB),
                Ok(())
            );
            assert_eq!(
                check(&upload(&[OK_HALT, [op, 0, 0, 0, 2]], &[]), MIB),
                err(Reason::BadJump, 1)
            );
        }
        let data = raw(header(1, 0), &[[16, 0, 0, 0, 0]], &[u32::MAX], &[]);
        assert_eq!(check(&data, MIB), err(Reason::BadJump, 0));
        // SET's imm is a value, never a target.
        let data = raw(header(2, 0), &[[1, 0, 0, 0, 0], OK_HALT], &[u32::MAX], &[]);
        assert_eq!(check(&data, MIB), Ok(()));
    }

    #[test]
    fn reason_5_template_index() {
        // One template: index 1 is out of range for SUBMIT and ENQUEUE.
        let t = [good_template()];
        assert_eq!(
            check(&upload(&[[32, 0, 0, 0, 0], OK_HALT], &t), MIB),
            Ok(())
        );
        assert_eq!(
            check(&upload(&[[32, 0, 0, 0, 1], OK_HALT], &t), MIB),
            err(Reason::BadTemplate, 0)
        );
        assert_eq!(
            check(&upload(&[OK_HALT, [33, 0, 0, 0, 1]], &t), MIB),
            err(Reason::BadTemplate, 1)
        );
        // No templates at all: SUBMIT 0 is out of range.
        assert_eq!(
            check(&upload(&[[32, 0, 0, 0, 0], OK_HALT], &[]), MIB),
            err(Reason::BadTemplate, 0)
        );
    }

    #[test]
    fn order_within_one_op() {
        // JLT with register a = 16 and target out of range: register first (reason 4).
        assert_eq!(
            check(&upload(&[[17, 16, 0, 0, 9], OK_HALT], &[]), MIB),
            err(Reason::BadRegister, 0)
        );
        // ENQUEUE with register a = 16 and template index out of range: register first.
        assert_eq!(
            check(&upload(&[[33, 16, 0, 0, 9], OK_HALT], &[]), MIB),
            err(Reason::BadRegister, 0)
        );
        // Register a fine, b bad: still 4.
        assert_eq!(
            check(&upload(&[[17, 0, 99, 0, 9], OK_HALT], &[]), MIB),
            err(Reason::BadRegister, 0)
        );
    }

    #[test]
    fn earlier_op_wins() {
        // Reason 2 at pc 3 vs reason 4 at pc 1: pc 1 wins.
        let ops = [OK_HALT, [3, 0, 0, 17, 0], OK_HALT, [0, 0, 0, 0, 0]];
        assert_eq!(check(&upload(&ops, &[]), MIB), err(Reason::BadRegister, 1));
        // Reason 4 at pc 2 vs reason 3 at pc 0: pc 0 wins.
        let ops = [[16, 0, 0, 0, 9], OK_HALT, [10, 16, 0, 0, 0]];
        assert_eq!(check(&upload(&ops, &[]), MIB), err(Reason::BadJump, 0));
    }

    fn bad_template(edit: impl Fn(&mut [u8; 80])) -> [u8; 80] {
        let mut t = good_template();
        edit(&mut t);
        t
    }

    #[test]
    fn template_rules() {
        let ops = [[32, 0, 0, 0, 0], OK_HALT];
        let cases: Vec<(&str, [u8; 80])> = vec![
            ("handler 0", bad_template(|t| t[0] = 0)),
            ("handler 240", bad_template(|t| t[0] = 240)),
            ("queue flag", bad_template(|t| t[1] = 1)),
            ("flag bit 3", bad_template(|t| t[1] = 8)),
            ("patch_count 5", bad_template(|t| t[74] = 5)),
            ("patch arg 10", bad_template(|t| (t[74], t[64]) = (1, 10))),
            ("patch reg 16", bad_template(|t| (t[74], t[68]) = (1, 16))),
            ("patch 3 arg", bad_template(|t| (t[74], t[67]) = (4, 10))),
            ("first_register 16", bad_template(|t| t[72] = 16)),
            ("count_register 0xFE", bad_template(|t| t[73] = 0xFE)),
        ];
        for (what, t) in cases {
            assert_eq!(
                check(&upload(&ops, &[t]), MIB),
                err(Reason::BadTemplate, 0),
                "{what}"
            );
        }
        let fine: Vec<(&str, [u8; 80])> = vec![
            ("handler 1", bad_template(|t| t[0] = 1)),
            ("handler 239", bad_template(|t| t[0] = 239)),
            ("exclusive|result", bad_template(|t| t[1] = 6)),
            (
                "patches past count ignored",
                bad_template(|t| (t[74], t[65], t[69]) = (1, 99, 99)),
            ),
            (
                "4 patches",
                bad_template(|t| {
                    t[74] = 4;
                    t[64..68].copy_from_slice(&[9, 9, 0, 1]);
                    t[68..72].copy_from_slice(&[15, 0, 1, 2]);
                }),
            ),
            ("group regs", bad_template(|t| (t[72], t[73]) = (0, 15))),
            (
                "ignored bytes",
                bad_template(|t| {
                    t[2] = 0xAA;
                    t[4] = 1;
                    t[8] = 1;
                    t[56] = 1;
                    t[75] = 0xFF;
                    t[79] = 1;
                }),
            ),
        ];
        for (what, t) in fine {
            assert_eq!(check(&upload(&ops, &[t]), MIB), Ok(()), "{what}");
        }
    }

    #[test]
    fn template_pc_is_the_lowest_use() {
        // Template 1 is bad; used at pc 5 and pc 2 -> pc 2.
        let t = [good_template(), bad_template(|t| t[0] = 0)];
        let ops = [
            OK_HALT,
            [32, 0, 0, 0, 0],
            [32, 0, 0, 0, 1],
            OK_HALT,
            OK_HALT,
            [33, 0, 0, 0, 1],
        ];
        assert_eq!(check(&upload(&ops, &t), MIB), err(Reason::BadTemplate, 2));
        // Used only at pc 5 (by ENQUEUE) -> pc 5.
        let ops = [
            OK_HALT,
            [32, 0, 0, 0, 0],
            OK_HALT,
            OK_HALT,
            OK_HALT,
            [33, 0, 0, 0, 1],
        ];
        assert_eq!(check(&upload(&ops, &t), MIB), err(Reason::BadTemplate, 5));
        // A SET whose imm is 1 does not "use" template 1.
        let ops = [OK_HALT, [1, 0, 0, 0, 1], OK_HALT];
        assert_eq!(check(&upload(&ops, &t), MIB), err(Reason::BadTemplate, 0));
    }

    #[test]
    fn unused_bad_template_is_pc_0() {
        let t = [
            good_template(),
            good_template(),
            bad_template(|t| t[1] = 0x80),
        ];
        let ops = [OK_HALT, [32, 0, 0, 0, 0], [32, 0, 0, 0, 1]];
        assert_eq!(check(&upload(&ops, &t), MIB), err(Reason::BadTemplate, 0));
    }

    #[test]
    fn first_bad_template_in_table_order_wins() {
        // Template 0 bad used at pc 3, template 1 bad used at pc 1: template 0's pc 3.
        let t = [bad_template(|t| t[0] = 0), bad_template(|t| t[0] = 0)];
        let ops = [OK_HALT, [32, 0, 0, 0, 1], OK_HALT, [32, 0, 0, 0, 0]];
        assert_eq!(check(&upload(&ops, &t), MIB), err(Reason::BadTemplate, 3));
    }

    #[test]
    fn micro_op_faults_before_template_faults() {
        // Bad template 0 used at pc 0, unknown opcode at pc 2: the op fault wins.
        let t = [bad_template(|t| t[0] = 0)];
        let ops = [[32, 0, 0, 0, 0], OK_HALT, [0, 0, 0, 0, 0]];
        assert_eq!(check(&upload(&ops, &t), MIB), err(Reason::UnknownOpcode, 2));
        // Header faults before everything.
        let mut data = upload(&ops, &t);
        data[28..32].fill(0); // seed 0
        assert_eq!(check(&data, MIB), err(Reason::BadHeader, 0));
    }

    fn run(
        data: &[u8],
        offset: u64,
        region: u64,
        active: &[(u64, u64)],
        reqs: &[u32],
    ) -> (Option<Reason>, u32) {
        let (e, req) = check_run(data, offset, region, active, reqs);
        if let Some(e) = e.filter(|e| e.reason == Reason::BadHeader) {
            assert_eq!(e.pc, 0, "reason 1 is always at pc 0");
        }
        (e.map(|e| e.reason), req)
    }

    #[test]
    fn check_run_offset_and_range() {
        let data = upload(&[OK_HALT], &[]); // 128 bytes, req 7
        assert_eq!(run(&data, 0, 128, &[], &[]), (None, 7));
        assert_eq!(run(&data, 64, 192, &[], &[]), (None, 7));
        // offset not a multiple of 64; the header is still inside (1 + 64 <= 1000) -> req 7.
        assert_eq!(run(&data, 1, 1000, &[], &[]), (Some(Reason::BadHeader), 7));
        // range does not fit: 64 + 128 > 128; header 64..128 is inside -> req 7.
        assert_eq!(run(&data, 64, 128, &[], &[]), (Some(Reason::BadHeader), 7));
        // offset past the region: header not inside -> req 0.
        assert_eq!(run(&data, 256, 128, &[], &[]), (Some(Reason::BadHeader), 0));
        // no-wrap form: offset near u64::MAX must not wrap into "inside".
        let top = u64::MAX - 63; // a multiple of 64
        assert_eq!(
            run(&data, top, u64::MAX, &[], &[]),
            (Some(Reason::BadHeader), 0)
        );
        // region u64::MAX with offset 0 fits.
        assert_eq!(run(&data, 0, u64::MAX, &[], &[]), (None, 7));
    }

    #[test]
    fn check_run_req_per_s3() {
        // Shorter than 64 bytes: req 0 even with a valid-looking start.
        let data = upload(&[OK_HALT], &[]);
        assert_eq!(
            run(&data[..32], 0, 1000, &[], &[]),
            (Some(Reason::BadHeader), 0)
        );
        // offset + 64 == region_size: header inside -> req 7 even though the range fails.
        assert_eq!(run(&data, 64, 128, &[], &[]), (Some(Reason::BadHeader), 7));
        // offset + 64 == region_size + 64 ... offset 128, region 128: header not inside.
        assert_eq!(run(&data, 128, 128, &[], &[]), (Some(Reason::BadHeader), 0));
        // A check fault (unknown opcode) keeps the header's req.
        let bad = upload(&[[0, 0, 0, 0, 0]], &[]);
        let (e, req) = check_run(&bad, 0, 1000, &[], &[]);
        assert_eq!(
            e,
            Some(StreamError {
                reason: Reason::UnknownOpcode,
                pc: 0
            })
        );
        assert_eq!(req, 7);
    }

    #[test]
    fn check_run_overlap_is_half_open() {
        let data = upload(&[OK_HALT], &[]); // at 128, occupies [128, 256)
        let region = 4096;
        assert_eq!(
            run(&data, 128, region, &[(0, 128)], &[]),
            (None, 7),
            "ends where we start"
        );
        assert_eq!(
            run(&data, 128, region, &[(256, 64)], &[]),
            (None, 7),
            "starts where we end"
        );
        assert_eq!(
            run(&data, 128, region, &[(0, 129)], &[]).0,
            Some(Reason::BadHeader)
        );
        assert_eq!(
            run(&data, 128, region, &[(255, 1)], &[]).0,
            Some(Reason::BadHeader)
        );
        assert_eq!(
            run(&data, 128, region, &[(0, 4096)], &[]).0,
            Some(Reason::BadHeader)
        );
        // A zero-length active range overlaps nothing, even inside ours.
        assert_eq!(run(&data, 128, region, &[(192, 0)], &[]), (None, 7));
        // An active range reaching past u64::MAX does not wrap.
        assert_eq!(
            run(&data, 128, region, &[(u64::MAX, u64::MAX)], &[]),
            (None, 7)
        );
        // A zero-length upload overlaps nothing (then fails the header check).
        assert_eq!(
            run(&[], 128, region, &[(0, 4096)], &[7]),
            (Some(Reason::BadHeader), 0)
        );
    }

    #[test]
    fn check_run_active_req() {
        let data = upload(&[OK_HALT], &[]);
        assert_eq!(
            run(&data, 0, 4096, &[], &[1, 7]),
            (Some(Reason::BadHeader), 7)
        );
        assert_eq!(run(&data, 0, 4096, &[], &[1, 8]), (None, 7));
        // Under 64 bytes the req is not read: 32 zero bytes vs active req 0 -> the header check.
        let (e, req) = check_run(&[0u8; 32], 0, 4096, &[], &[0]);
        assert_eq!((e.map(|e| e.reason), req), (Some(Reason::BadHeader), 0));
    }

    #[test]
    fn check_run_order_alignment_before_check() {
        // Unaligned offset with an upload that has an op fault: reason 1, not 2.
        let bad = upload(&[[0, 0, 0, 0, 0]], &[]);
        assert_eq!(
            run(&bad, 64 + 1, 4096, &[], &[]),
            (Some(Reason::BadHeader), 7)
        );
        // The check uses the whole region size: 128 bytes at offset 0 in a 128 region.
        let data = upload(&[OK_HALT], &[]);
        assert_eq!(run(&data, 0, 128, &[], &[]), (None, 7));
    }

    #[test]
    fn checked_upload_reads_in_place() {
        let t = [good_template()];
        let data = upload(&[[32, 0, 0, 0, 0], [1, 3, 0, 0, 9], OK_HALT], &t);
        let c = CheckedUpload::new(&data, MIB).unwrap();
        assert_eq!((c.op_count(), c.command_count()), (3, 1));
        assert_eq!(c.header().req, 7);
        let (opcode, op) = c.op(1);
        assert_eq!((opcode, op.a, op.imm), (Opcode::Set, 3, 9));
        assert_eq!(c.template(0).command.handler, 3);
    }
}
