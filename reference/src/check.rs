//! The reference checker, written straight from docs/spec.md "The check" and S2..S6.
//!
//! It keeps its own small table of which operand fields each micro-op reads
//! ([`operands`], from S4, in `ops.rs` beside what the micro-ops do) on
//! purpose: it must not share kmst's generated table, so that a slip in one
//! is caught by the other. Every size is computed
//! in `u64`, so no input can make it panic; it allocates nothing.

use crate::result::{Reason, StreamError};

/// The header's magic word (docs/spec.md "The upload").
pub const MAGIC: u32 = 0x4B4D_5354;
/// The only header version.
pub const VERSION: u32 = 1;
/// Bytes of the header (S2).
pub const HEADER_LEN: u64 = 64;
/// Bytes of one micro-op (S2).
pub const OP_LEN: u64 = 16;
/// Bytes of one command template (S2).
pub const TEMPLATE_LEN: u64 = 80;
/// Most micro-ops (and most templates) of a stream.
pub const MAX_OPS: u32 = 65_535;
/// The register that must be below this number (`Reason::BadRegister`, S4).
pub const REGISTERS: u8 = 16;

pub use crate::ops::{Imm, operands};

/// Little-endian u32 at `at`; 0 past the end (the callers check sizes first).
pub(crate) fn u32_at(data: &[u8], at: u64) -> u32 {
    let mut word = [0u8; 4];
    for (k, byte) in word.iter_mut().enumerate() {
        *byte = usize::try_from(at + k as u64)
            .ok()
            .and_then(|i| data.get(i).copied())
            .unwrap_or(0);
    }
    u32::from_le_bytes(word)
}

/// The byte at `at`; 0 past the end.
pub(crate) fn u8_at(data: &[u8], at: u64) -> u8 {
    usize::try_from(at)
        .ok()
        .and_then(|i| data.get(i).copied())
        .unwrap_or(0)
}

/// `n` rounded up to a multiple of 64 (S2).
pub fn pad64(n: u64) -> u64 {
    n.div_ceil(64) * 64
}

/// Where the templates start: `64 + pad64(op_count * 16)` (S2).
pub(crate) fn templates_at(op_count: u32) -> u64 {
    HEADER_LEN + pad64(u64::from(op_count) * OP_LEN)
}

/// The header's eight words (S2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeaderWords {
    pub magic: u32,
    pub version: u32,
    pub op_count: u32,
    pub command_count: u32,
    pub max_steps: u32,
    pub deadline_microseconds: u32,
    pub req: u32,
    pub seed: u32,
}

pub(crate) fn header(data: &[u8]) -> HeaderWords {
    HeaderWords {
        magic: u32_at(data, 0),
        version: u32_at(data, 4),
        op_count: u32_at(data, 8),
        command_count: u32_at(data, 12),
        max_steps: u32_at(data, 16),
        deadline_microseconds: u32_at(data, 20),
        req: u32_at(data, 24),
        seed: u32_at(data, 28),
    }
}

fn fault(reason: Reason, pc: u32) -> Result<(), StreamError> {
    Err(StreamError { reason, pc })
}

/// What the kernel does before it runs a stream: `Ok` or the first fault
/// (S2, S4, S5).
pub fn check(data: &[u8], region_size: u64) -> Result<(), StreamError> {
    let len = data.len() as u64;
    // 1. The header (`Reason::BadHeader`, pc 0); the order within it is that of the spec.
    if len < HEADER_LEN || !len.is_multiple_of(64) || len > region_size {
        return fault(Reason::BadHeader, 0);
    }
    let h = header(data);
    if h.magic != MAGIC
        || h.version != VERSION
        || h.seed == 0
        || h.op_count == 0
        || h.op_count > MAX_OPS
        || h.command_count > MAX_OPS
        || h.max_steps == 0
    {
        return fault(Reason::BadHeader, 0);
    }
    // S2: the total size equals the layout exactly.
    let expected = templates_at(h.op_count) + pad64(u64::from(h.command_count) * TEMPLATE_LEN);
    if len != expected {
        return fault(Reason::BadHeader, 0);
    }

    // 2. Each micro-op in order: opcode, registers a b c, jump target, template (S4).
    for pc in 0..h.op_count {
        let at = HEADER_LEN + u64::from(pc) * OP_LEN;
        let op = u8_at(data, at);
        let Some((fields, imm_kind)) = operands(op) else {
            return fault(Reason::UnknownOpcode, pc);
        };
        for field in fields {
            let offset = match field {
                'a' => 1,
                'b' => 2,
                _ => 3,
            };
            if u8_at(data, at + offset) >= REGISTERS {
                return fault(Reason::BadRegister, pc);
            }
        }
        let imm = u32_at(data, at + 4);
        match imm_kind {
            Imm::Target if imm >= h.op_count => return fault(Reason::BadJump, pc),
            Imm::Template if imm >= h.command_count => return fault(Reason::BadTemplate, pc),
            _ => {}
        }
    }

    // 3. Each template in order (`Reason::BadTemplate`), at the lowest pc that uses it, else 0 (S5).
    let base = templates_at(h.op_count);
    for index in 0..h.command_count {
        let at = base + u64::from(index) * TEMPLATE_LEN;
        if !template_ok(data, at) {
            return fault(Reason::BadTemplate, first_user(data, h.op_count, index));
        }
    }
    Ok(())
}

/// S5: handler, flags, patch_count, the patch entries, first_register, count_register.
/// (All faults carry the same reason and pc, so one boolean says it.)
fn template_ok(data: &[u8], at: u64) -> bool {
    let handler = u8_at(data, at);
    let flags = u8_at(data, at + 1);
    let patch_count = u8_at(data, at + 74);
    if !(1..=239).contains(&handler) {
        return false;
    }
    // S1: only exclusive (bit 1) and result (bit 2); the queue bit is a fault too.
    if flags & !0b110 != 0 {
        return false;
    }
    if patch_count > 4 {
        return false;
    }
    for k in 0..u64::from(patch_count) {
        if u8_at(data, at + 64 + k) > 9 || u8_at(data, at + 68 + k) > 15 {
            return false;
        }
    }
    let ok_register = |r: u8| r == 0xFF || r < REGISTERS;
    ok_register(u8_at(data, at + 72)) && ok_register(u8_at(data, at + 73))
}

/// The lowest pc of a SUBMIT or ENQUEUE whose imm is `index`, or 0 (S5).
fn first_user(data: &[u8], op_count: u32, index: u32) -> u32 {
    (0..op_count)
        .find(|&pc| {
            let at = HEADER_LEN + u64::from(pc) * OP_LEN;
            matches!(u8_at(data, at), 32 | 33) && u32_at(data, at + 4) == index
        })
        .unwrap_or(0)
}

/// What the kernel answers a `KM_HANDLER_RUN`: the error (if any) and the req of its event (S3, S6).
pub fn check_run(
    data: &[u8],
    offset: u64,
    region_size: u64,
    active: &[(u64, u64)],
    active_reqs: &[u32],
) -> (Option<StreamError>, u32) {
    let len = data.len() as u64;
    // S3: the header's req when it is long enough and inside the region.
    let readable = len >= HEADER_LEN
        && offset
            .checked_add(HEADER_LEN)
            .is_some_and(|e| e <= region_size);
    let req = if readable { header(data).req } else { 0 };
    let rejected = (
        Some(StreamError {
            reason: Reason::BadHeader,
            pc: 0,
        }),
        req,
    );
    // S6 order.
    if !offset.is_multiple_of(64) {
        return rejected;
    }
    if offset > region_size || len > region_size - offset {
        return rejected;
    }
    // Half-open ranges; a zero-length range overlaps nothing.
    let overlaps = |&(start, length): &(u64, u64)| {
        let end = start.saturating_add(length);
        let my_end = offset + len; // no overflow: both are within region_size
        length != 0 && len != 0 && start < my_end && offset < end
    };
    if active.iter().any(overlaps) {
        return rejected;
    }
    if len >= HEADER_LEN && active_reqs.contains(&header(data).req) {
        return rejected;
    }
    (check(data, region_size).err(), req)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_table_matches_s4() {
        // S4, transcribed again as plain rows: opcode, fields, imm.
        let rows: [(u8, &str, Imm); 21] = [
            (1, "a", Imm::Plain),
            (2, "ab", Imm::Plain),
            (3, "abc", Imm::Plain),
            (4, "ab", Imm::Plain),
            (5, "abc", Imm::Plain),
            (6, "abc", Imm::Plain),
            (7, "abc", Imm::Plain),
            (8, "ab", Imm::Plain),
            (9, "abc", Imm::Plain),
            (10, "a", Imm::Plain),
            (16, "", Imm::Target),
            (17, "ab", Imm::Target),
            (18, "ab", Imm::Target),
            (19, "a", Imm::Target),
            (20, "a", Imm::Plain),
            (32, "", Imm::Template),
            (33, "a", Imm::Template),
            (40, "", Imm::Plain),
            (41, "a", Imm::Plain),
            (48, "a", Imm::Plain),
            (49, "a", Imm::Plain),
        ];
        for (op, fields, imm) in rows {
            let (f, i) = operands(op).expect("known opcode");
            assert_eq!(f.iter().collect::<String>(), fields, "opcode {op}");
            assert_eq!(i, imm, "opcode {op}");
        }
        let known: Vec<u8> = rows.iter().map(|r| r.0).collect();
        for op in 0..=255u8 {
            assert_eq!(operands(op).is_some(), known.contains(&op), "opcode {op}");
        }
    }

    #[test]
    fn pad64_rounds_up() {
        assert_eq!(pad64(0), 0);
        assert_eq!(pad64(1), 64);
        assert_eq!(pad64(64), 64);
        assert_eq!(pad64(80), 128);
    }
}
