//! The pre-decoded program: what the dispatch loops run.
//!
//! Pre-decoding happens once, after the check accepted the upload, so that the
//! hot path needs no bounds checks: every register field is below 16, every
//! jump lands inside the program, and the program counter can only fall off the
//! end onto one extra instruction, the `End` sentinel at index `op_count`,
//! whose handler raises reason 3 at `op_count` (S17). Jump targets are stored
//! as offsets relative to the jump itself so a taken jump is one add.

use crate::format::{
    ARGS, HEADER_LEN, MAX_PATCHES, NO_REGISTER, OP_LEN, REGISTERS, TEMPLATE_LEN, read_u32,
    templates_offset,
};
use crate::ops::{ImmKind, Opcode};
use crate::reference::{Reason, StreamError};

use super::ops::{Handler, OpIndex};

/// One pre-decoded micro-op: 16 bytes, one per slot of the program.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct Inst {
    /// The direct-threaded handler of this micro-op (the `threaded` variant).
    pub handler: Handler,
    /// The dense handler index ([`OpIndex`]), for the table and the switch.
    pub op: u8,
    /// Register fields, each below 16 (S4; the check's reason 4).
    pub a: u8,
    pub b: u8,
    pub c: u8,
    /// The integer operand; for a jump the target minus this micro-op's pc
    /// (wrapping, read as i32); for SUBMIT/ENQUEUE the template index.
    pub imm: u32,
}

/// One pre-decoded template (80 bytes in the upload).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tmpl {
    pub handler: u8,
    pub flags: u8,
    pub first: u16,
    pub count: u16,
    pub args: [u32; ARGS],
    /// `(argument, register)` pairs, `patch_count` of them, all in range (S5).
    pub patches: [(u8, u8); MAX_PATCHES],
    pub patch_count: u8,
    /// A register, or `NO_REGISTER`.
    pub first_register: u8,
    pub count_register: u8,
}

/// The header fields the kernel reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Head {
    pub op_count: u32,
    pub max_steps: u32,
    pub deadline_us: u32,
    pub req: u32,
    pub seed: u32,
}

/// A pre-decoded upload.
pub(crate) struct Program {
    pub head: Head,
    /// `op_count + 1` instructions: the micro-ops and the `End` sentinel.
    pub insts: Vec<Inst>,
    pub templates: Vec<Tmpl>,
}

fn fault(reason: Reason, pc: usize) -> StreamError {
    StreamError {
        reason,
        pc: pc as u32,
    }
}

impl Program {
    /// Pre-decodes an upload the check accepted. Re-tests every fact the hot
    /// path relies on (the sizes, register fields, jump targets, template
    /// indexes and patches) and refuses the upload with a check-like error if
    /// one fails, so that no `unsafe` block depends on the checker alone.
    /// `handler_of` gives the threaded handler of each dense index.
    pub fn decode(
        data: &[u8],
        handler_of: &dyn Fn(OpIndex) -> Handler,
    ) -> Result<Program, StreamError> {
        if data.len() < HEADER_LEN {
            return Err(fault(Reason::BadHeader, 0));
        }
        let op_count = read_u32(data, 8) as usize;
        let command_count = read_u32(data, 12) as usize;
        let head = Head {
            op_count: op_count as u32,
            max_steps: read_u32(data, 16),
            deadline_us: read_u32(data, 20),
            req: read_u32(data, 24),
            seed: read_u32(data, 28),
        };
        if op_count == 0
            || op_count > crate::format::MAX_OPS
            || command_count > crate::format::MAX_OPS
            || data.len() != crate::format::upload_len(op_count, command_count)
        {
            return Err(fault(Reason::BadHeader, 0));
        }
        let reg_ok = |r: u8| usize::from(r) < REGISTERS;
        let mut insts = Vec::with_capacity(op_count + 1);
        for pc in 0..op_count {
            let at = HEADER_LEN + pc * OP_LEN;
            let (byte, a, b, c) = (data[at], data[at + 1], data[at + 2], data[at + 3]);
            let imm = read_u32(data, at + 4);
            let op = Opcode::from_u8(byte).ok_or(fault(Reason::UnknownOpcode, pc))?;
            // Unused register fields are ignored (S4): store 0 so every field is in range.
            let mut fields = [0u8; 3];
            for field in op.regs() {
                let (k, r) = match field {
                    crate::ops::RegField::A => (0, a),
                    crate::ops::RegField::B => (1, b),
                    crate::ops::RegField::C => (2, c),
                };
                if !reg_ok(r) {
                    return Err(fault(Reason::BadRegister, pc));
                }
                fields[k] = r;
            }
            let imm = match op.imm_kind() {
                ImmKind::Target => {
                    if imm as usize >= op_count {
                        return Err(fault(Reason::BadJump, pc));
                    }
                    (imm as i32).wrapping_sub(pc as i32) as u32
                }
                ImmKind::Template => {
                    if imm as usize >= command_count {
                        return Err(fault(Reason::BadTemplate, pc));
                    }
                    imm
                }
                ImmKind::Value | ImmKind::None => imm,
            };
            let index = OpIndex::of(op);
            insts.push(Inst {
                handler: handler_of(index),
                op: index as u8,
                a: fields[0],
                b: fields[1],
                c: fields[2],
                imm,
            });
        }
        // Superinstructions (ops::for_each_fused): the first of a fused pair
        // gets the fused index; the second stays as it is, so a jump into it
        // runs it alone.
        for pc in 1..op_count {
            // SAFETY: every `op` above was written from an OpIndex.
            let (first, second) = unsafe {
                (
                    OpIndex::from_byte(insts[pc - 1].op),
                    OpIndex::from_byte(insts[pc].op),
                )
            };
            if let Some(fused) = OpIndex::fuse(first, second) {
                insts[pc - 1].op = fused as u8;
                insts[pc - 1].handler = handler_of(fused);
            }
        }
        insts.push(Inst {
            handler: handler_of(OpIndex::End),
            op: OpIndex::End as u8,
            a: 0,
            b: 0,
            c: 0,
            imm: 0,
        });
        let base = templates_offset(op_count);
        let mut templates = Vec::with_capacity(command_count);
        for j in 0..command_count {
            let at = base + j * TEMPLATE_LEN;
            let bytes = &data[at..at + TEMPLATE_LEN];
            let t = crate::format::Template {
                command: crate::format::Command::from_bytes(&bytes[..64]),
                patch_arg: [bytes[64], bytes[65], bytes[66], bytes[67]],
                patch_reg: [bytes[68], bytes[69], bytes[70], bytes[71]],
                first_register: bytes[72],
                count_register: bytes[73],
                patch_count: bytes[74],
            };
            let bad = || fault(Reason::BadTemplate, 0);
            if t.command.handler == 0
                || t.command.handler > 239
                || t.command.flags
                    & !(crate::format::flags::EXCLUSIVE | crate::format::flags::RESULT)
                    != 0
                || usize::from(t.patch_count) > MAX_PATCHES
            {
                return Err(bad());
            }
            let mut patches = [(0u8, 0u8); MAX_PATCHES];
            for (k, (arg, reg)) in t.patches().enumerate() {
                if usize::from(arg) >= ARGS || !reg_ok(reg) {
                    return Err(bad());
                }
                patches[k] = (arg, reg);
            }
            let group_reg_ok = |r: u8| r == NO_REGISTER || reg_ok(r);
            if !group_reg_ok(t.first_register) || !group_reg_ok(t.count_register) {
                return Err(bad());
            }
            templates.push(Tmpl {
                handler: t.command.handler,
                flags: t.command.flags,
                first: t.command.first,
                count: t.command.count,
                args: t.command.args,
                patches,
                patch_count: t.patch_count,
                first_register: t.first_register,
                count_register: t.count_register,
            });
        }
        Ok(Program {
            head,
            insts,
            templates,
        })
    }
}
