//! A decoded upload: the micro-ops and templates the kernel runs (docs/spec.md
//! "The upload").
//!
//! Both simulators ([`crate::sim`] for one stream, [`crate::scenario`] for the
//! whole kernel) run programs the check has accepted; this module reads such
//! an upload once into plain arrays, so that the byte layout is read in one
//! place of the reference model.

use crate::check::{self, HEADER_LEN, OP_LEN, TEMPLATE_LEN};
use crate::ops::Op;

/// The command's exclusive flag bit (S1).
pub const FLAG_EXCLUSIVE: u8 = 1 << 1;
/// The command's result flag bit (S1).
pub const FLAG_RESULT: u8 = 1 << 2;
/// A first_register/count_register that takes the field from the command (S9).
pub const FROM_COMMAND: u8 = 0xFF;

/// One decoded command template.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Template {
    pub handler: u8,
    pub flags: u8,
    pub first: u32,
    pub count: u32,
    pub args: [u32; 10],
    pub patch_arg: [u8; 4],
    pub patch_register: [u8; 4],
    pub patch_count: u8,
    pub first_register: u8,
    pub count_register: u8,
}

impl Template {
    /// The ten arguments with the patches applied in order (a later patch of
    /// the same argument wins).
    pub fn patched_args(&self, regs: &[u32; 16]) -> [u32; 10] {
        let mut args = self.args;
        for k in 0..usize::from(self.patch_count) {
            args[usize::from(self.patch_arg[k])] = regs[usize::from(self.patch_register[k])];
        }
        args
    }

    /// S9: the group `(first, count)`, each from the command or from the
    /// register it names.
    pub fn group(&self, regs: &[u32; 16]) -> (u32, u32) {
        let field = |value: u32, register: u8| match register {
            FROM_COMMAND => value,
            r => regs[usize::from(r)],
        };
        (
            field(self.first, self.first_register),
            field(self.count, self.count_register),
        )
    }
}

/// An upload the check accepted, decoded.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub ops: Vec<Op>,
    pub templates: Vec<Template>,
    pub max_steps: u64,
    pub deadline_microseconds: u32,
    pub req: u32,
    pub seed: u32,
}

impl Program {
    /// Reads an upload the check accepted (so every index is in range).
    pub fn decode(data: &[u8]) -> Program {
        let h = check::header(data);
        let b = |at: u64| usize::from(check::u8_at(data, at));
        let mut ops = Vec::new();
        for pc in 0..u64::from(h.op_count) {
            let at = HEADER_LEN + pc * OP_LEN;
            ops.push(Op {
                op: check::u8_at(data, at),
                a: b(at + 1),
                b: b(at + 2),
                c: b(at + 3),
                imm: check::u32_at(data, at + 4),
            });
        }
        let base = check::templates_at(h.op_count);
        let mut templates = Vec::new();
        for index in 0..u64::from(h.command_count) {
            let at = base + index * TEMPLATE_LEN;
            let mut args = [0u32; 10];
            for (k, arg) in args.iter_mut().enumerate() {
                *arg = check::u32_at(data, at + 16 + 4 * k as u64);
            }
            let byte = |off: u64| check::u8_at(data, at + off);
            templates.push(Template {
                handler: byte(0),
                flags: byte(1),
                first: u32::from(u16::from_le_bytes([byte(12), byte(13)])),
                count: u32::from(u16::from_le_bytes([byte(14), byte(15)])),
                args,
                patch_arg: [byte(64), byte(65), byte(66), byte(67)],
                patch_register: [byte(68), byte(69), byte(70), byte(71)],
                first_register: byte(72),
                count_register: byte(73),
                patch_count: byte(74),
            });
        }
        Program {
            ops,
            templates,
            max_steps: u64::from(h.max_steps),
            deadline_microseconds: h.deadline_microseconds,
            req: h.req,
            seed: h.seed,
        }
    }
}
