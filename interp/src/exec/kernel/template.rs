//! What the decoder makes of an upload's templates and header for the
//! kernel: a template as SUBMIT and ENQUEUE read it ([`Tmpl`], its patches'
//! arguments as [`Arg`]), the header fields the kernel reads ([`Head`]),
//! and the blank record every prototype starts from ([`BLANK`]). The
//! decoder writes them, the kernel reads them.

use crate::format::{ARGS, MAX_PATCHES};
use crate::types::SubmittedCommand;

/// One pre-decoded template (80 bytes in the upload).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tmpl {
    /// The record of a command from it (S19): handler, flags, the fixed
    /// group and the unpatched arguments; SUBMIT and ENQUEUE copy it and
    /// fill in the rest.
    pub proto: SubmittedCommand,
    /// `(argument, register)` pairs, `patch_count` of them, all in range (S5).
    pub patches: [(Arg, u8); MAX_PATCHES],
    pub patch_count: u8,
    /// A register, or `NO_REGISTER`.
    pub first_register: u8,
    pub count_register: u8,
}

impl Tmpl {
    /// Its `(argument, register)` patches, in order.
    #[inline(always)]
    pub fn patches(&self) -> &[(Arg, u8)] {
        &self.patches[..usize::from(self.patch_count).min(MAX_PATCHES)]
    }
}

/// An argument index, 0..10 (S5). As a type of ten values it indexes a
/// record's `[u32; 10]` arguments with no bounds check and no clamp
/// (decisions.md D10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Arg {
    A0,
    A1,
    A2,
    A3,
    A4,
    A5,
    A6,
    A7,
    A8,
    A9,
}

impl Arg {
    /// The argument of index `i`, if there is one.
    pub(crate) const fn of(i: u8) -> Option<Arg> {
        const ALL: [Arg; ARGS] = [
            Arg::A0,
            Arg::A1,
            Arg::A2,
            Arg::A3,
            Arg::A4,
            Arg::A5,
            Arg::A6,
            Arg::A7,
            Arg::A8,
            Arg::A9,
        ];
        if (i as usize) < ARGS {
            Some(ALL[i as usize])
        } else {
            None
        }
    }
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

/// A record with every field 0 (false): the prototypes' start.
pub(crate) const BLANK: SubmittedCommand = SubmittedCommand {
    sequence: 0,
    slot: 0,
    handler: 0,
    first: 0,
    count: 0,
    flags: 0,
    args: [0; 10],
    pass_index: 0,
    pc: 0,
    queued: false,
};
