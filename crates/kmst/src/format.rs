//! The upload's byte layout (docs/spec.md "The upload", S1, S2) and its typed form.
//!
//! [`Upload`] is header + micro-ops + templates. [`Upload::encode`] writes the
//! exact layout with every ignored byte zero; [`Upload::decode`] runs the check
//! first (S10) and then reads the fields back.

use std::fmt;

use crate::check::{StreamError, check};

/// The header's magic word, "KMST" read as a little-endian u32.
pub const MAGIC: u32 = 0x4B4D_5354;
/// The only format version.
pub const VERSION: u32 = 1;
/// Bytes in the header.
pub const HEADER_LEN: usize = 64;
/// Bytes per micro-op.
pub const OP_LEN: usize = 16;
/// Bytes per command (S1).
pub const COMMAND_LEN: usize = 64;
/// Bytes per template: the command, then patches and group registers.
pub const TEMPLATE_LEN: usize = 80;
/// The most micro-ops (and templates) an upload holds.
pub const MAX_OPS: usize = 65_535;
/// `first_register` / `count_register` value meaning "take it from the command".
pub const NO_REGISTER: u8 = 0xFF;
/// The most patches a template has.
pub const MAX_PATCHES: usize = 4;
/// The number of registers; r15 holds the generator state.
pub const REGISTERS: usize = 16;
/// The number of completion slots.
pub const SLOTS: usize = 16;
/// Arguments in a command.
pub const ARGS: usize = 10;

/// Command flag bits (S1): only `EXCLUSIVE` and `RESULT` may appear in a template.
pub mod flags {
    pub const QUEUE: u8 = 1 << 0;
    pub const EXCLUSIVE: u8 = 1 << 1;
    pub const RESULT: u8 = 1 << 2;
}

/// `n` rounded up to a multiple of 64.
pub const fn pad64(n: usize) -> usize {
    n.div_ceil(64) * 64
}

/// Where the templates start in an upload with `op_count` micro-ops.
pub const fn templates_offset(op_count: usize) -> usize {
    HEADER_LEN + pad64(op_count * OP_LEN)
}

/// The exact size of an upload with these counts (S2).
pub const fn upload_len(op_count: usize, command_count: usize) -> usize {
    templates_offset(op_count) + pad64(command_count * TEMPLATE_LEN)
}

/// The header fields that are not derived from the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    pub max_steps: u32,
    pub deadline_us: u32,
    pub req: u32,
    pub seed: u32,
}

impl Header {
    /// The header fields of `data` if it holds at least 64 bytes (no other check).
    pub fn from_bytes(data: &[u8]) -> Option<Header> {
        (data.len() >= HEADER_LEN).then(|| Header {
            max_steps: read_u32(data, 16),
            deadline_us: read_u32(data, 20),
            req: read_u32(data, 24),
            seed: read_u32(data, 28),
        })
    }
}

/// One 16-byte micro-op. Fields an opcode does not read are kept as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MicroOp {
    pub op: u8,
    pub a: u8,
    pub b: u8,
    pub c: u8,
    pub imm: u32,
}

/// The named fields of a 64-byte command in a template (S1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Command {
    pub handler: u8,
    pub flags: u8,
    pub first: u16,
    pub count: u16,
    pub args: [u32; ARGS],
}

/// One 80-byte command template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Template {
    pub command: Command,
    /// `patch_arg[k]`: the argument patch k writes (0..=9).
    pub patch_arg: [u8; MAX_PATCHES],
    /// `patch_reg[k]`: the register patch k reads (0..=15).
    pub patch_reg: [u8; MAX_PATCHES],
    pub first_register: u8,
    pub count_register: u8,
    pub patch_count: u8,
}

/// A whole upload.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Upload {
    pub header: Header,
    pub ops: Vec<MicroOp>,
    pub templates: Vec<Template>,
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

/// Little-endian u32 at `at` (the caller has checked the length).
#[inline]
pub fn read_u32(data: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
}

#[inline]
fn read_u16(data: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([data[at], data[at + 1]])
}

impl Command {
    /// The 64 bytes of this command as the kernel submits it (S1).
    pub fn to_bytes(&self, slot: u16, sequence: u32, landing: u32) -> [u8; COMMAND_LEN] {
        let mut out = [0u8; COMMAND_LEN];
        out[0] = self.handler;
        out[1] = self.flags;
        out[2..4].copy_from_slice(&slot.to_le_bytes());
        out[4..8].copy_from_slice(&sequence.to_le_bytes());
        out[8..12].copy_from_slice(&landing.to_le_bytes());
        out[12..14].copy_from_slice(&self.first.to_le_bytes());
        out[14..16].copy_from_slice(&self.count.to_le_bytes());
        for (k, arg) in self.args.iter().enumerate() {
            out[16 + 4 * k..20 + 4 * k].copy_from_slice(&arg.to_le_bytes());
        }
        out
    }

    /// The named fields of a 64-byte command (slot, sequence and landing are dropped).
    pub fn from_bytes(bytes: &[u8]) -> Command {
        let mut args = [0u32; ARGS];
        for (k, arg) in args.iter_mut().enumerate() {
            *arg = read_u32(bytes, 16 + 4 * k);
        }
        Command {
            handler: bytes[0],
            flags: bytes[1],
            first: read_u16(bytes, 12),
            count: read_u16(bytes, 14),
            args,
        }
    }
}

impl MicroOp {
    /// A micro-op with this opcode and operands.
    pub const fn new(op: crate::ops::Opcode, a: u8, b: u8, c: u8, imm: u32) -> MicroOp {
        MicroOp {
            op: op as u8,
            a,
            b,
            c,
            imm,
        }
    }

    /// The opcode, or `None` for an invalid one.
    pub const fn opcode(&self) -> Option<crate::ops::Opcode> {
        crate::ops::Opcode::from_u8(self.op)
    }

    /// Reads the named fields of a 16-byte micro-op (imm2 and padding are dropped).
    pub fn read(bytes: &[u8]) -> MicroOp {
        MicroOp {
            op: bytes[0],
            a: bytes[1],
            b: bytes[2],
            c: bytes[3],
            imm: read_u32(bytes, 4),
        }
    }

    /// Writes the 16 bytes, imm2 and padding zero.
    pub fn write(&self, out: &mut [u8]) {
        out[..OP_LEN].fill(0);
        out[0] = self.op;
        out[1] = self.a;
        out[2] = self.b;
        out[3] = self.c;
        out[4..8].copy_from_slice(&self.imm.to_le_bytes());
    }
}

impl Template {
    /// Writes the 80 bytes of this template, every ignored byte zero.
    pub fn write(&self, out: &mut [u8]) {
        out[..COMMAND_LEN].copy_from_slice(&self.command.to_bytes(0, 0, 0));
        out[64..68].copy_from_slice(&self.patch_arg);
        out[68..72].copy_from_slice(&self.patch_reg);
        out[72] = self.first_register;
        out[73] = self.count_register;
        out[74] = self.patch_count;
    }

    /// Reads the named fields of an 80-byte template.
    pub fn read(bytes: &[u8]) -> Template {
        Template {
            command: Command::from_bytes(&bytes[..COMMAND_LEN]),
            patch_arg: [bytes[64], bytes[65], bytes[66], bytes[67]],
            patch_reg: [bytes[68], bytes[69], bytes[70], bytes[71]],
            first_register: bytes[72],
            count_register: bytes[73],
            patch_count: bytes[74],
        }
    }

    /// The live patches `(argument, register)`, in order.
    pub fn patches(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        let n = usize::from(self.patch_count).min(MAX_PATCHES);
        self.patch_arg[..n]
            .iter()
            .copied()
            .zip(self.patch_reg[..n].iter().copied())
    }
}

impl Upload {
    /// The upload bytes, every ignored byte zero.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![0u8; upload_len(self.ops.len(), self.templates.len())];
        let words = [
            MAGIC,
            VERSION,
            self.ops.len() as u32,
            self.templates.len() as u32,
            self.header.max_steps,
            self.header.deadline_us,
            self.header.req,
            self.header.seed,
        ];
        for (i, w) in words.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        for (i, op) in self.ops.iter().enumerate() {
            let at = HEADER_LEN + i * OP_LEN;
            op.write(&mut out[at..at + OP_LEN]);
        }
        let base = templates_offset(self.ops.len());
        for (j, t) in self.templates.iter().enumerate() {
            let at = base + j * TEMPLATE_LEN;
            t.write(&mut out[at..at + TEMPLATE_LEN]);
        }
        out
    }

    /// Checks the upload (S10) and reads it into its typed form.
    pub fn decode(data: &[u8]) -> Result<Upload, StreamFormatError> {
        check(data, data.len() as u64).map_err(StreamFormatError)?;
        Ok(Upload::read_checked(data))
    }

    /// Reads an upload whose layout the check has accepted (sizes consistent).
    ///
    /// Panics if the data is shorter than its header says; call it only after
    /// [`check`] accepted `data`.
    pub fn read_checked(data: &[u8]) -> Upload {
        let op_count = read_u32(data, 8) as usize;
        let command_count = read_u32(data, 12) as usize;
        let header = Header::from_bytes(data).expect("the check accepted the header");
        let ops = (0..op_count)
            .map(|i| MicroOp::read(&data[HEADER_LEN + i * OP_LEN..]))
            .collect();
        let base = templates_offset(op_count);
        let templates = (0..command_count)
            .map(|j| Template::read(&data[base + j * TEMPLATE_LEN..base + (j + 1) * TEMPLATE_LEN]))
            .collect();
        Upload {
            header,
            ops,
            templates,
        }
    }
}
