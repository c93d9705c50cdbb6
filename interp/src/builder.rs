//! The stream builder (docs/spec.md "The builder", S7..S9).
//!
//! [`Stream`] collects micro-ops, constants, labels and templates and
//! [`Stream::encode`] lays them out as an upload: a prologue of `SET`s for the
//! constants (S8), the body, then one template per `submit`/`enqueue` call
//! (S9). Everything the check would reject is refused here with a typed
//! [`BuildError`] that names the field and the value, so an upload the builder
//! encodes always passes [`crate::check::check`].
//!
//! The plain micro-op methods (`set`, `mov`, `add`, ..., `jmp`, `jlt`, ...) are
//! generated from [`crate::for_each_op!`]; `wait`, `submit` and `enqueue` are
//! written by hand because their operands are not plain registers and values.

use std::fmt;

use crate::check::StreamFormatError;
use crate::format::{
    ARGS, Command, Header, MAX_OPS, MAX_PATCHES, MicroOp, NO_REGISTER, Template, Upload, flags,
};
use crate::ops::Opcode;

/// Registers the builder hands out: r0..r14 (r15 is the generator state, S7).
const POOL: u8 = 15;

/// A register of the stream, from the pool r0..r14 (S7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(u8);

impl Reg {
    /// Register 15: the random generator's state, which starts as the seed.
    pub const GENERATOR: Reg = Reg(15);

    /// Register `n`, if `n` is 0..=15. The builder's pool ([`Stream::registers`])
    /// is the usual way to get registers; this names one directly.
    pub const fn new(n: u8) -> Option<Reg> {
        if n < 16 { Some(Reg(n)) } else { None }
    }

    /// The register number (0..=15).
    pub const fn number(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// A position in the program, bound now ([`Stream::label`]) or later
/// ([`Stream::bind`]); it belongs to the stream that made it (P9).
///
/// A label belongs to the stream that made it: labels are numbered from 0 in
/// every stream, so the label carries its stream's identity too, and another
/// stream's label is refused ([`BuildError::UnknownLabel`]) even when this
/// stream has a label of the same number. A clone of a stream shares its
/// identity (it is the same program so far).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    stream: u64,
    index: usize,
}

/// The identity of the next [`Stream::new`].
static NEXT_STREAM: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A command field or argument: an integer, or a register read when the command is built (S9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A value known when the stream is built, written into the template.
    Int(i64),
    /// A register whose value a patch writes into the command when the
    /// micro-op runs (S1's patches; at most four per template).
    Reg(Reg),
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Operand {
        Operand::Reg(r)
    }
}

macro_rules! operand_from_int {
    ($($t:ty),*) => {
        $(impl From<$t> for Operand {
            fn from(v: $t) -> Operand {
                Operand::Int(i64::from(v))
            }
        })*
    };
}
operand_from_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<u64> for Operand {
    /// Values above `i64::MAX` become `i64::MAX`, which is still out of range.
    fn from(v: u64) -> Operand {
        Operand::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

/// What the builder refuses, naming the field and the value (P4, P9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// `max_steps` outside 1..=4,294,967,295 (the check rejects 0; the field is a u32).
    MaxSteps(u64),
    /// `seed` outside 1..=4,294,967,295.
    Seed(u64),
    /// `req` outside 0..=4,294,967,295.
    Req(u64),
    /// `deadline_microseconds` outside 0..=4,294,967,295.
    Deadline(u64),
    /// A wait count outside 0..=4,294,967,295.
    WaitCount(i64),
    /// An immediate of `op` that does not fit 32 bits.
    Immediate {
        /// The micro-op's mnemonic.
        op: &'static str,
        /// The immediate asked for.
        value: i64,
    },
    /// A constant that does not fit 32 bits.
    Constant(i64),
    /// More than 65,535 micro-ops (prologue included).
    TooManyOps(usize),
    /// No micro-op at all (the check needs op_count >= 1).
    Empty,
    /// Asked for more registers than are free.
    TooManyRegisters {
        /// How many registers were asked for.
        asked: usize,
        /// How many of r0..r14 were still free (S7).
        free: usize,
    },
    /// A handler outside 1..=239.
    Handler(i64),
    /// More than ten arguments.
    TooManyArgs(usize),
    /// More than four register arguments.
    TooManyRegisterArgs(usize),
    /// An argument that does not fit 32 bits.
    Argument {
        /// The argument's index (0..=9).
        index: usize,
        /// The value asked for.
        value: i64,
    },
    /// A group field (`first` or `count`) that does not fit 16 bits.
    GroupField {
        /// `"first"` or `"count"`.
        field: &'static str,
        /// The value asked for.
        value: i64,
    },
    /// An enqueue count that does not fit 32 bits.
    EnqueueCount(i64),
    /// A label made by `forward` that was never bound.
    UnboundLabel(usize),
    /// A label bound twice.
    LabelRebound(usize),
    /// A label not made by this stream.
    UnknownLabel(usize),
    /// A jump to a label at the end of the program (the check rejects the target).
    JumpPastEnd {
        /// The label's number within its stream.
        label: usize,
        /// The micro-op index it was bound to (the program's length).
        target: usize,
    },
}

/// The smallest and largest integer a 32-bit field takes (negatives as two's complement).
const I32_MIN: i64 = i32::MIN as i64;
const U32_MAX: i64 = u32::MAX as i64;

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use BuildError::*;
        match self {
            MaxSteps(v) => write!(f, "max_steps {v} is out of range 1..=4294967295"),
            Seed(v) => write!(f, "seed {v} is out of range 1..=4294967295"),
            Req(v) => write!(f, "req {v} is out of range 0..=4294967295"),
            Deadline(v) => {
                write!(
                    f,
                    "deadline_microseconds {v} is out of range 0..=4294967295"
                )
            }
            WaitCount(v) => write!(f, "wait count {v} is out of range 0..=4294967295"),
            Immediate { op, value } => write!(
                f,
                "{op} immediate {value} does not fit 32 bits (-2147483648..=4294967295)"
            ),
            Constant(v) => write!(
                f,
                "constant {v} does not fit 32 bits (-2147483648..=4294967295)"
            ),
            TooManyOps(n) => write!(f, "the program has {n} micro-ops, more than 65535"),
            Empty => write!(f, "the program has no micro-op"),
            TooManyRegisters { asked, free } => {
                write!(f, "asked for {asked} registers but {free} are free")
            }
            Handler(v) => write!(f, "handler {v} is out of range 1..=239"),
            TooManyArgs(n) => write!(f, "{n} arguments, more than 10"),
            TooManyRegisterArgs(n) => write!(f, "{n} register arguments, more than 4"),
            Argument { index, value } => write!(
                f,
                "argument {index} value {value} does not fit 32 bits (-2147483648..=4294967295)"
            ),
            GroupField { field, value } => {
                write!(f, "group {field} {value} does not fit 16 bits (0..=65535)")
            }
            EnqueueCount(v) => write!(
                f,
                "enqueue count {v} does not fit 32 bits (-2147483648..=4294967295)"
            ),
            UnboundLabel(l) => write!(f, "label {l} is used but never bound"),
            LabelRebound(l) => write!(f, "label {l} is bound twice"),
            UnknownLabel(l) => write!(f, "label {l} does not belong to this stream"),
            JumpPastEnd { label, target } => write!(
                f,
                "label {label} is at micro-op {target}, the end of the program; a jump there is out of range"
            ),
        }
    }
}

impl std::error::Error for BuildError {}

/// A 32-bit value from an i64 in -2^31..=2^32-1 (negatives as two's complement).
fn fit32(v: i64) -> Option<u32> {
    (I32_MIN..=U32_MAX).contains(&v).then_some(v as u32)
}

fn header_field(v: u64, min: u64, err: fn(u64) -> BuildError) -> Result<u32, BuildError> {
    match u32::try_from(v) {
        Ok(w) if v >= min => Ok(w),
        _ => Err(err(v)),
    }
}

/// The template one `submit` (with `group`) or `enqueue` (`group` None) call
/// makes (S9): handler and flags into the command; integer arguments into the
/// command, register arguments as patches in ascending argument order; integer
/// group fields into the command with first/count_register 0xFF, a register
/// field as that register number (command field 0). An `enqueue` template has
/// group (0, 0) and both group registers 0xFF.
pub fn template(
    handler: i64,
    group: Option<(Operand, Operand)>,
    args: &[Operand],
    exclusive: bool,
    result: bool,
) -> Result<Template, BuildError> {
    let handler = u8::try_from(handler)
        .ok()
        .filter(|h| (1..=crate::check::MAX_HANDLER).contains(h))
        .ok_or(BuildError::Handler(handler))?;
    if args.len() > ARGS {
        return Err(BuildError::TooManyArgs(args.len()));
    }
    let registers = args.iter().filter(|a| matches!(a, Operand::Reg(_))).count();
    if registers > MAX_PATCHES {
        return Err(BuildError::TooManyRegisterArgs(registers));
    }
    let mut t = Template {
        command: Command {
            handler,
            flags: (if exclusive { flags::EXCLUSIVE } else { 0 })
                | (if result { flags::RESULT } else { 0 }),
            ..Command::default()
        },
        first_register: NO_REGISTER,
        count_register: NO_REGISTER,
        ..Template::default()
    };
    for (index, arg) in args.iter().enumerate() {
        match *arg {
            Operand::Int(value) => {
                t.command.args[index] =
                    fit32(value).ok_or(BuildError::Argument { index, value })?;
            }
            Operand::Reg(r) => {
                let k = usize::from(t.patch_count);
                t.patch_arg[k] = index as u8;
                t.patch_reg[k] = r.0;
                t.patch_count += 1;
            }
        }
    }
    if let Some((first, count)) = group {
        let field = |field: &'static str, v: Operand| -> Result<(u16, u8), BuildError> {
            match v {
                Operand::Reg(r) => Ok((0, r.0)),
                Operand::Int(value) => u16::try_from(value)
                    .map(|x| (x, NO_REGISTER))
                    .map_err(|_| BuildError::GroupField { field, value }),
            }
        };
        (t.command.first, t.first_register) = field("first", first)?;
        (t.command.count, t.count_register) = field("count", count)?;
    }
    Ok(t)
}

/// A stream under construction: the specification's builder (S7..S9, P4).
#[derive(Clone, Debug)]
pub struct Stream {
    /// Which stream this is (see [`Label`]).
    id: u64,
    header: Header,
    /// Which of r0..r14 are taken (bit n = rn).
    taken: u16,
    /// Constants in the order first asked for (S8).
    constants: Vec<(u32, Reg)>,
    /// The body, jump targets still label numbers (see `jumps`).
    body: Vec<MicroOp>,
    /// `(body index, label)` for every jump.
    jumps: Vec<(usize, Label)>,
    /// Body position of each label, `None` until bound.
    labels: Vec<Option<usize>>,
    templates: Vec<Template>,
}

macro_rules! builder_method {
    (@emit $fn:ident, $name:ident, [$($reg:ident)*], none, $doc:literal) => {
        #[doc = concat!("`", stringify!($fn), "`: ", $doc, ".")]
        pub fn $fn(&mut self, $($reg: Reg),*) {
            #[allow(unused_mut)]
            let mut op = MicroOp::new(Opcode::$name, 0, 0, 0, 0);
            $(op.$reg = $reg.0;)*
            self.body.push(op);
        }
    };
    (@emit $fn:ident, $name:ident, [$($reg:ident)*], value, $doc:literal) => {
        #[doc = concat!("`", stringify!($fn), "`: ", $doc, ". The immediate must fit 32 bits.")]
        pub fn $fn(&mut self, $($reg: Reg,)* imm: i64) -> Result<(), BuildError> {
            let imm = fit32(imm).ok_or(BuildError::Immediate {
                op: Opcode::$name.mnemonic(),
                value: imm,
            })?;
            #[allow(unused_mut)]
            let mut op = MicroOp::new(Opcode::$name, 0, 0, 0, imm);
            $(op.$reg = $reg.0;)*
            self.body.push(op);
            Ok(())
        }
    };
    (@emit $fn:ident, $name:ident, [$($reg:ident)*], target, $doc:literal) => {
        #[doc = concat!("`", stringify!($fn), "`: ", $doc, "; imm is the label's position.")]
        pub fn $fn(&mut self, $($reg: Reg,)* target: Label) {
            #[allow(unused_mut)]
            let mut op = MicroOp::new(Opcode::$name, 0, 0, 0, 0);
            $(op.$reg = $reg.0;)*
            self.jumps.push((self.body.len(), target));
            self.body.push(op);
        }
    };
    // `mod` is a keyword: the method is `mod_`.
    ($name:ident, mod, $regs:tt, $imm:ident, $doc:literal) => {
        builder_method!(@emit mod_, $name, $regs, $imm, $doc);
    };
    // Hand-written: `wait` (a count, not a 32-bit value) and the template micro-ops.
    ($name:ident, wait, $regs:tt, $imm:ident, $doc:literal) => {};
    ($name:ident, $mn:ident, $regs:tt, template, $doc:literal) => {};
    ($name:ident, $mn:ident, $regs:tt, $imm:ident, $doc:literal) => {
        builder_method!(@emit $mn, $name, $regs, $imm, $doc);
    };
}

macro_rules! builder_methods {
    ($($name:ident = $code:literal, $mn:ident, [$($reg:ident)*], $imm:ident, $doc:literal;)*) => {
        /// The plain micro-ops, generated from `for_each_op!`.
        impl Stream {
            $(builder_method!($name, $mn, [$($reg)*], $imm, $doc);)*
        }
    };
}

crate::for_each_op!(builder_methods);

impl Stream {
    /// A new stream. `deadline_us` 0 means the kernel's default; `seed` must not be 0.
    pub fn new(
        deadline_us: u64,
        max_steps: u64,
        seed: u64,
        req: u64,
    ) -> Result<Stream, BuildError> {
        Ok(Stream {
            id: NEXT_STREAM.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            header: Header {
                max_steps: header_field(max_steps, 1, BuildError::MaxSteps)?,
                deadline_us: header_field(deadline_us, 0, BuildError::Deadline)?,
                req: header_field(req, 0, BuildError::Req)?,
                seed: header_field(seed, 1, BuildError::Seed)?,
            },
            taken: 0,
            constants: Vec::new(),
            body: Vec::new(),
            jumps: Vec::new(),
            labels: Vec::new(),
            templates: Vec::new(),
        })
    }

    /// The header this stream will carry.
    pub fn header(&self) -> Header {
        self.header
    }

    fn free(&self) -> usize {
        POOL as usize - self.taken.count_ones() as usize
    }

    fn take(&mut self) -> Reg {
        let n = (0..POOL)
            .find(|&n| self.taken & (1 << n) == 0)
            .expect("caller checked a register is free");
        self.taken |= 1 << n;
        Reg(n)
    }

    /// `count` fresh registers from the pool r0..r14, lowest free first (S7).
    pub fn registers(&mut self, count: usize) -> Result<Vec<Reg>, BuildError> {
        let free = self.free();
        if count > free {
            return Err(BuildError::TooManyRegisters { asked: count, free });
        }
        Ok((0..count).map(|_| self.take()).collect())
    }

    /// A register holding `value` from before the first micro-op (S7, S8); equal
    /// values share one register. Negative values are stored as two's complement.
    pub fn constant(&mut self, value: i64) -> Result<Reg, BuildError> {
        let v = fit32(value).ok_or(BuildError::Constant(value))?;
        if let Some(&(_, r)) = self.constants.iter().find(|&&(c, _)| c == v) {
            return Ok(r);
        }
        let free = self.free();
        if free == 0 {
            return Err(BuildError::TooManyRegisters { asked: 1, free });
        }
        let r = self.take();
        self.constants.push((v, r));
        Ok(r)
    }

    /// A label at the next micro-op.
    pub fn label(&mut self) -> Label {
        self.labels.push(Some(self.body.len()));
        self.last_label()
    }

    fn last_label(&self) -> Label {
        Label {
            stream: self.id,
            index: self.labels.len() - 1,
        }
    }

    /// This stream's entry for `label`, or `UnknownLabel` for another stream's.
    fn label_slot(&self, label: Label) -> Result<&Option<usize>, BuildError> {
        if label.stream != self.id {
            return Err(BuildError::UnknownLabel(label.index));
        }
        self.labels
            .get(label.index)
            .ok_or(BuildError::UnknownLabel(label.index))
    }

    /// A label for a later position; [`Stream::bind`] it before [`Stream::encode`].
    pub fn forward(&mut self) -> Label {
        self.labels.push(None);
        self.last_label()
    }

    /// Binds a forward label to the next micro-op.
    pub fn bind(&mut self, label: Label) -> Result<(), BuildError> {
        if self.label_slot(label)?.is_some() {
            return Err(BuildError::LabelRebound(label.index));
        }
        self.labels[label.index] = Some(self.body.len());
        Ok(())
    }

    /// `wait n`: go on when at most `n` of the stream's commands and jobs are pending.
    pub fn wait(&mut self, count: i64) -> Result<(), BuildError> {
        let n = u32::try_from(count).map_err(|_| BuildError::WaitCount(count))?;
        self.body.push(MicroOp::new(Opcode::Wait, 0, 0, 0, n));
        Ok(())
    }

    fn push_template(&mut self, t: Template) -> u32 {
        self.templates.push(t);
        (self.templates.len() - 1) as u32
    }

    /// `submit`: a command of `handler` on `group = (first, count)` with `args`
    /// (up to ten, at most four registers).
    pub fn submit(
        &mut self,
        handler: i64,
        group: (Operand, Operand),
        args: &[Operand],
        exclusive: bool,
        result: bool,
    ) -> Result<(), BuildError> {
        let t = template(handler, Some(group), args, exclusive, result)?;
        let index = self.push_template(t);
        self.body.push(MicroOp::new(Opcode::Submit, 0, 0, 0, index));
        Ok(())
    }

    /// `enqueue`: a job of `count` cores (an integer becomes `constant(count)`, S9).
    pub fn enqueue(
        &mut self,
        handler: i64,
        count: Operand,
        args: &[Operand],
        exclusive: bool,
        result: bool,
    ) -> Result<(), BuildError> {
        let t = template(handler, None, args, exclusive, result)?;
        let count = match count {
            Operand::Reg(r) => r,
            Operand::Int(v) => {
                fit32(v).ok_or(BuildError::EnqueueCount(v))?;
                self.constant(v)?
            }
        };
        let index = self.push_template(t);
        self.body
            .push(MicroOp::new(Opcode::Enqueue, count.0, 0, 0, index));
        Ok(())
    }

    /// The typed upload: prologue (S8), body with resolved jumps, templates (S9).
    pub fn upload(&self) -> Result<Upload, BuildError> {
        let prologue = self.constants.len();
        let total = prologue + self.body.len();
        if total > MAX_OPS {
            return Err(BuildError::TooManyOps(total));
        }
        if total == 0 {
            return Err(BuildError::Empty);
        }
        if let Some(unbound) = self.labels.iter().position(Option::is_none) {
            return Err(BuildError::UnboundLabel(unbound));
        }
        let mut ops: Vec<MicroOp> = self
            .constants
            .iter()
            .map(|&(v, r)| MicroOp::new(Opcode::Set, r.0, 0, 0, v))
            .collect();
        ops.extend_from_slice(&self.body);
        for &(at, label) in &self.jumps {
            let position = match *self.label_slot(label)? {
                None => return Err(BuildError::UnboundLabel(label.index)),
                Some(p) => p,
            };
            let target = prologue + position;
            if target >= total {
                return Err(BuildError::JumpPastEnd {
                    label: label.index,
                    target,
                });
            }
            ops[prologue + at].imm = target as u32;
        }
        Ok(Upload {
            header: self.header,
            ops,
            templates: self.templates.clone(),
        })
    }

    /// The upload bytes.
    pub fn encode(&self) -> Result<Vec<u8>, BuildError> {
        Ok(self.upload()?.encode())
    }

    /// The inverse of [`Stream::encode`]: the typed upload, or the check's error (S10).
    pub fn decode(data: &[u8]) -> Result<Upload, StreamFormatError> {
        Upload::decode(data)
    }
}
