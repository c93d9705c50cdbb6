//! The pre-decoded program: what the dispatch loops run.
//!
//! Pre-decoding happens once, after the check accepted the upload, so that the
//! hot path needs no bounds checks: every register field is below 16, every
//! jump lands inside the program, and the program counter can only fall off the
//! end onto one extra instruction, the `End` sentinel at index `op_count`,
//! whose handler raises reason 3 at `op_count` (S17). Jump targets are stored
//! as offsets relative to the jump itself so a taken jump is one add.

use crate::check::CheckedUpload;
use crate::format::{ARGS, MAX_PATCHES, NO_REGISTER, REGISTERS};
use crate::ops::ImmKind;

use super::handler::{Handler, Inst, OpIndex};

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

impl Program {
    /// Pre-decodes an upload the check accepted: the [`CheckedUpload`] is the
    /// proof that every register field is below 16, every jump target and
    /// template index inside its table, and every patch in range. The facts
    /// the hot path's `unsafe` code relies on are asserted once more here (a
    /// panic, never undefined behaviour, should the checker ever be wrong).
    /// `handler_of` gives the threaded handler of each dense index.
    pub fn decode(upload: &CheckedUpload<'_>, handler_of: &dyn Fn(OpIndex) -> Handler) -> Program {
        let header = upload.header();
        let op_count = upload.op_count() as usize;
        let head = Head {
            op_count: op_count as u32,
            max_steps: header.max_steps,
            deadline_us: header.deadline_us,
            req: header.req,
            seed: header.seed,
        };
        let mut insts = Vec::with_capacity(op_count + 1);
        for pc in 0..upload.op_count() {
            let (opcode, op) = upload.op(pc);
            // Unused register fields are ignored (S4): store 0 so every field is in range.
            let mut fields = [0u8; 3];
            for &field in opcode.regs() {
                let r = op.reg(field);
                assert!(usize::from(r) < REGISTERS, "the check passed a register");
                fields[field as usize] = r;
            }
            let imm = match opcode.imm_kind() {
                ImmKind::Target => {
                    assert!(op.imm < upload.op_count(), "the check passed a jump");
                    (op.imm as i32).wrapping_sub(pc as i32) as u32
                }
                ImmKind::Template => {
                    assert!(
                        op.imm < upload.command_count(),
                        "the check passed a template"
                    );
                    op.imm
                }
                ImmKind::Value | ImmKind::None => op.imm,
            };
            let index = OpIndex::of(opcode);
            insts.push(Inst {
                handler: handler_of(index),
                op: index as u8,
                a: fields[0],
                b: fields[1],
                c: fields[2],
                imm,
            });
        }
        // Superinstructions (handler::for_each_fused): the first of a fused
        // pair gets the fused index; the second stays as it is, so a jump
        // into it runs it alone. From the end backwards, so that a loop's
        // closing pair (ADDI+JLT) wins over a pair that would overlap it.
        for pc in (1..op_count).rev() {
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
        let templates = (0..upload.command_count())
            .map(|j| {
                let t = upload.template(j);
                let mut patches = [(0u8, 0u8); MAX_PATCHES];
                for (k, (arg, reg)) in t.patches().enumerate() {
                    assert!(
                        usize::from(arg) < ARGS && usize::from(reg) < REGISTERS,
                        "the check passed a patch"
                    );
                    patches[k] = (arg, reg);
                }
                let group_reg_ok = |r: u8| r == NO_REGISTER || usize::from(r) < REGISTERS;
                assert!(
                    group_reg_ok(t.first_register) && group_reg_ok(t.count_register),
                    "the check passed a group register"
                );
                Tmpl {
                    handler: t.command.handler,
                    flags: t.command.flags,
                    first: t.command.first,
                    count: t.command.count,
                    args: t.command.args,
                    patches,
                    patch_count: t.patch_count,
                    first_register: t.first_register,
                    count_register: t.count_register,
                }
            })
            .collect();
        Program {
            head,
            insts,
            templates,
        }
    }
}
