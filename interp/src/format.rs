//! The upload's byte layout (docs/spec.md "The upload", S1, S2) and its typed form.
//!
//! This module is the one statement of the layout: the sizes and offsets, the
//! padding, where a micro-op keeps its register fields a, b and c, the req an
//! error event carries (S3), and which bytes the kernel ignores. The checker
//! ([`crate::check`]) validates on top of it and the fast pre-decoder reads
//! through it; neither restates an offset.
//!
//! [`Upload`] is header + micro-ops + templates. [`Upload::encode`] writes the
//! exact layout with every ignored byte zero; `Upload::decode` (in
//! [`crate::check`]) runs the check first (S10) and then reads the fields back.

use crate::ops::{ImmKind, Opcode, RegField};

/// The header's magic word, "KMST" read as a little-endian u32.
pub const MAGIC: u32 = 0x4B4D_5354;
/// The only format version.
pub const VERSION: u32 = 1;
/// Bytes in the header (S2).
pub const HEADER_LEN: usize = 64;
/// Bytes per micro-op (S2, S4).
pub const OP_LEN: usize = 16;
/// Bytes per command (S1).
pub const COMMAND_LEN: usize = 64;
/// Bytes per template: the command, then patches and group registers (S1, S5).
pub const TEMPLATE_LEN: usize = 80;
/// The most micro-ops (and templates) an upload holds.
pub const MAX_OPS: usize = 65_535;
/// `first_register` / `count_register` value meaning "take it from the command".
pub const NO_REGISTER: u8 = 0xFF;
/// The most patches a template has (S5).
pub const MAX_PATCHES: usize = 4;
/// The number of registers; r15 holds the generator state (S11).
pub const REGISTERS: usize = 16;
/// The number of completion slots (S19).
pub const SLOTS: usize = 16;
/// Arguments in a command (S1).
pub const ARGS: usize = 10;

/// Command flag bits (S1): only `EXCLUSIVE` and `RESULT` may appear in a template.
pub mod flags {
    /// Bit 0, queue (S1); a template may not set it (S5).
    pub const QUEUE: u8 = 0b001;
    /// Bit 1, exclusive (S1).
    pub const EXCLUSIVE: u8 = 0b010;
    /// Bit 2, result (S1).
    pub const RESULT: u8 = 0b100;
}

/// Byte offsets of the header's eight u32 words (S2).
pub mod header_at {
    /// The format's magic.
    pub const MAGIC: usize = 0;
    /// The format's version.
    pub const VERSION: usize = 4;
    /// The number of micro-ops.
    pub const OP_COUNT: usize = 8;
    /// The number of command templates.
    pub const COMMAND_COUNT: usize = 12;
    /// The stream's step limit (S17).
    pub const MAX_STEPS: usize = 16;
    /// `deadline_microseconds` (S2, S13).
    pub const DEADLINE_US: usize = 20;
    /// The request id the stream's events carry (S3).
    pub const REQ: usize = 24;
    /// The seed of r15, the generator state.
    pub const SEED: usize = 28;
}

/// `n` rounded up to a multiple of 64 (S2). In u64, so that the check's sizes
/// of u32 counts cannot overflow.
pub const fn pad64(n: u64) -> u64 {
    n.div_ceil(64) * 64
}

/// Where the templates start in an upload with `op_count` micro-ops.
pub const fn templates_offset(op_count: usize) -> usize {
    HEADER_LEN + pad64((op_count * OP_LEN) as u64) as usize
}

/// The exact size of an upload with these counts (S2), in u64 so that any
/// pair of u32 counts has one.
pub const fn upload_len_u64(op_count: u64, command_count: u64) -> u64 {
    HEADER_LEN as u64 + pad64(op_count * OP_LEN as u64) + pad64(command_count * TEMPLATE_LEN as u64)
}

/// The exact size of an upload with these counts (S2).
pub const fn upload_len(op_count: usize, command_count: usize) -> usize {
    upload_len_u64(op_count as u64, command_count as u64) as usize
}

/// The byte of a micro-op that holds register field `field` (S4).
pub const fn reg_offset(field: RegField) -> usize {
    match field {
        RegField::A => 1,
        RegField::B => 2,
        RegField::C => 3,
    }
}

/// The req of the error event of a failed check (S3): the header's req when
/// the data is at least 64 bytes long, else 0.
pub fn check_req(data: &[u8]) -> u32 {
    if data.len() >= HEADER_LEN {
        read_u32(data, header_at::REQ)
    } else {
        0
    }
}

/// The req of the error event of a `KM_HANDLER_RUN` (S3): the header's req when
/// the upload is at least 64 bytes long and `offset + 64 <= region_size`, else 0.
pub fn run_req(data: &[u8], offset: u64, region_size: u64) -> u32 {
    let header_inside = offset
        .checked_add(HEADER_LEN as u64)
        .is_some_and(|end| end <= region_size);
    if header_inside { check_req(data) } else { 0 }
}

/// `data` with every byte the kernel ignores set to zero (docs/spec.md "The
/// upload"): padding, the header's last 32 bytes, operand fields a micro-op
/// does not read (S4), imm where it means nothing, imm2 and the four zero
/// bytes, a command's slot/sequence/landing words and reserved words (S1),
/// patch entries past patch_count, a template's last 5 bytes. Two uploads
/// the check accepts run alike exactly when these are equal.
///
/// Only for data the check accepts (the counts match the length); panics
/// otherwise.
pub fn zero_ignored(data: &[u8]) -> Vec<u8> {
    let op_count = read_u32(data, header_at::OP_COUNT) as usize;
    let command_count = read_u32(data, header_at::COMMAND_COUNT) as usize;
    let mut z = vec![0u8; data.len()];
    z[..32].copy_from_slice(&data[..32]);
    for pc in 0..op_count {
        let at = HEADER_LEN + pc * OP_LEN;
        let code = Opcode::from_u8(data[at]).expect("the check accepted the opcode");
        z[at] = data[at];
        for f in code.regs() {
            let k = at + reg_offset(*f);
            z[k] = data[k];
        }
        if code.imm_kind() != ImmKind::None {
            z[at + 4..at + 8].copy_from_slice(&data[at + 4..at + 8]);
        }
    }
    let base = templates_offset(op_count);
    for j in 0..command_count {
        let at = base + j * TEMPLATE_LEN;
        let t = Template::read(&data[at..at + TEMPLATE_LEN]);
        let mut kept = Template {
            patch_arg: [0; MAX_PATCHES],
            patch_reg: [0; MAX_PATCHES],
            ..t
        };
        for (k, (arg, reg)) in t.patches().enumerate() {
            kept.patch_arg[k] = arg;
            kept.patch_reg[k] = reg;
        }
        // `write` keeps exactly the named fields and zeroes the rest.
        kept.write(&mut z[at..at + TEMPLATE_LEN]);
    }
    z
}

/// The header fields that are not derived from the body (S2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The step limit (S2, S17).
    pub max_steps: u32,
    /// `deadline_microseconds` (S2): the deadline of every command the stream submits, 0 for the kernel's default (S13).
    pub deadline_us: u32,
    /// The request id (S2; its events carry it, S3).
    pub req: u32,
    /// The seed (S2): r15's first value, the generator state.
    pub seed: u32,
}

impl Header {
    /// The header fields of `data` if it holds at least 64 bytes (no other check).
    pub fn from_bytes(data: &[u8]) -> Option<Header> {
        (data.len() >= HEADER_LEN).then(|| Header {
            max_steps: read_u32(data, header_at::MAX_STEPS),
            deadline_us: read_u32(data, header_at::DEADLINE_US),
            req: read_u32(data, header_at::REQ),
            seed: read_u32(data, header_at::SEED),
        })
    }
}

/// The micro-op at `pc` of `data`, when the header's op_count covers `pc`
/// and its bytes are there (no other check: for naming the micro-op of an
/// error, whose pc may be op_count, or 0 of a bad header).
pub fn micro_op_at(data: &[u8], pc: u32) -> Option<MicroOp> {
    let op_count = data.get(header_at::OP_COUNT..header_at::OP_COUNT + 4)?;
    let op_count = u32::from_le_bytes(op_count.try_into().ok()?);
    let at = HEADER_LEN + OP_LEN * pc as usize;
    (pc < op_count).then_some(())?;
    data.get(at..at + OP_LEN).map(MicroOp::read)
}

/// One 16-byte micro-op. Fields an opcode does not read are kept as they are (S4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MicroOp {
    /// The opcode ([`Opcode`]'s number).
    pub op: u8,
    /// Register field a.
    pub a: u8,
    /// Register field b.
    pub b: u8,
    /// Register field c.
    pub c: u8,
    /// The immediate; what it means depends on the opcode (S4).
    pub imm: u32,
}

/// The named fields of a 64-byte command in a template (S1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Command {
    /// The handler number (S1's byte 0).
    pub handler: u8,
    /// The flag bits ([`flags`]).
    pub flags: u8,
    /// The first core of the command's group.
    pub first: u16,
    /// The number of cores in the group.
    pub count: u16,
    /// The ten argument words.
    pub args: [u32; ARGS],
}

/// One 80-byte command template (S1, S5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Template {
    /// The command as written, before the patches (S1).
    pub command: Command,
    /// `patch_arg[k]`: the argument patch k writes (0..=9).
    pub patch_arg: [u8; MAX_PATCHES],
    /// `patch_reg[k]`: the register patch k reads (0..=15).
    pub patch_reg: [u8; MAX_PATCHES],
    /// The register `first` is read from, or [`NO_REGISTER`] for the command's own.
    pub first_register: u8,
    /// The register `count` is read from, or [`NO_REGISTER`] for the command's own.
    pub count_register: u8,
    /// How many of the patches are used (0..=4).
    pub patch_count: u8,
}

/// A whole upload (S2): the header, the micro-ops and the templates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Upload {
    /// The header's own fields (the counts come from `ops` and `templates`).
    pub header: Header,
    /// The program.
    pub ops: Vec<MicroOp>,
    /// The command templates, in order (S9).
    pub templates: Vec<Template>,
}

/// Little-endian u32 at `at` (the caller has checked the length).
#[inline]
pub fn read_u32(data: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
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

    /// The named fields of a 64-byte command (slot, sequence and landing are
    /// dropped). Panics if `bytes` is shorter than 64.
    pub fn from_bytes(bytes: &[u8]) -> Command {
        let b: &[u8; COMMAND_LEN] = bytes[..COMMAND_LEN]
            .try_into()
            .expect("a command is 64 bytes");
        let word = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        Command {
            handler: b[0],
            flags: b[1],
            first: u16::from_le_bytes([b[12], b[13]]),
            count: u16::from_le_bytes([b[14], b[15]]),
            args: std::array::from_fn(|k| word(16 + 4 * k)),
        }
    }
}

impl MicroOp {
    /// A micro-op with this opcode and operands.
    pub const fn new(op: Opcode, a: u8, b: u8, c: u8, imm: u32) -> MicroOp {
        MicroOp {
            op: op as u8,
            a,
            b,
            c,
            imm,
        }
    }

    /// The opcode, or `None` for an invalid one.
    pub const fn opcode(&self) -> Option<Opcode> {
        Opcode::from_u8(self.op)
    }

    /// Reads the named fields of a 16-byte micro-op (imm2 and padding are dropped).
    pub fn read(bytes: &[u8]) -> MicroOp {
        MicroOp {
            op: bytes[0],
            a: bytes[reg_offset(RegField::A)],
            b: bytes[reg_offset(RegField::B)],
            c: bytes[reg_offset(RegField::C)],
            imm: read_u32(bytes, 4),
        }
    }

    /// The register in field `field`.
    pub const fn reg(&self, field: RegField) -> u8 {
        match field {
            RegField::A => self.a,
            RegField::B => self.b,
            RegField::C => self.c,
        }
    }

    /// Writes the 16 bytes, imm2 and padding zero.
    pub fn write(&self, out: &mut [u8]) {
        out[..OP_LEN].fill(0);
        out[0] = self.op;
        out[reg_offset(RegField::A)] = self.a;
        out[reg_offset(RegField::B)] = self.b;
        out[reg_offset(RegField::C)] = self.c;
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

    /// Reads the named fields of an 80-byte template. Panics if `bytes` is
    /// shorter than 80.
    pub fn read(bytes: &[u8]) -> Template {
        let b: &[u8; TEMPLATE_LEN] = bytes[..TEMPLATE_LEN]
            .try_into()
            .expect("a template is 80 bytes");
        Template {
            command: Command::from_bytes(b),
            patch_arg: [b[64], b[65], b[66], b[67]],
            patch_reg: [b[68], b[69], b[70], b[71]],
            first_register: b[72],
            count_register: b[73],
            patch_count: b[74],
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
        let words: [u32; 8] = [
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

    /// Reads an upload whose layout the check has accepted (sizes consistent).
    ///
    /// Panics if the data is shorter than its header says; call it only after
    /// [`crate::check::check`] accepted `data`.
    pub fn read_checked(data: &[u8]) -> Upload {
        let op_count = read_u32(data, header_at::OP_COUNT) as usize;
        let command_count = read_u32(data, header_at::COMMAND_COUNT) as usize;
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
