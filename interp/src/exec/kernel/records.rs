//! The answer's records (S19): appended with room made out of line and
//! the cache lines ahead asked for, and a template's arguments patched
//! from the registers.

use crate::exec::hint;
use crate::exec::kernel::template::Tmpl;
use crate::types::SubmittedCommand;

/// Appends `record` to the answer's records (S19): SUBMIT's and the
/// host's, built field by field (decisions.md D26). Room is made first,
/// out of line ([`make_room`]), so that the record goes straight into the
/// answer (a `push` that may grow the vector builds it on the stack first).
#[inline(always)]
pub(super) fn push_record(commands: &mut Vec<SubmittedCommand>, record: SubmittedCommand) {
    make_room(commands);
    push_in_room(commands, record);
}

/// Appends a copy of `proto` to the answer's records, as [`push_record`]
/// does, and gives it back to be completed in place: a placed job's record,
/// its prototype copied once from the queue's slab (decisions.md D25).
#[inline(always)]
pub(super) fn push_record_from<'a>(
    commands: &'a mut Vec<SubmittedCommand>,
    proto: &SubmittedCommand,
) -> &'a mut SubmittedCommand {
    let at = make_room(commands);
    push_in_room(commands, *proto);
    &mut commands[at]
}

/// Makes room for one more record, out of line, and asks for the cache
/// lines of the record eight ahead (decisions.md D27); gives the new
/// record's index.
#[inline(always)]
fn make_room(commands: &mut Vec<SubmittedCommand>) -> usize {
    #[cold]
    #[inline(never)]
    fn grow(commands: &mut Vec<SubmittedCommand>) {
        commands.reserve(1);
    }
    if commands.len() == commands.capacity() {
        grow(commands);
    }
    let at = commands.len();
    // The record eight ahead, both its first and its last byte: a record
    // is longer than a line, so its first bytes alone would miss every
    // ninth line (interp/src/exec/hint.rs).
    let ahead = commands.as_ptr().wrapping_add(at + 8);
    hint::prefetch(ahead);
    hint::prefetch(ahead.wrapping_add(1).cast::<u8>().wrapping_sub(1));
    at
}

/// The template's arguments with its patches applied.
#[inline]
pub(super) fn patched(t: &Tmpl, regs: &[u32; 16]) -> [u32; 10] {
    let mut args = t.proto.args;
    patch(&mut args, t, regs);
    args
}

/// Applies the template's patches to `args` in order.
#[inline]
pub(super) fn patch(args: &mut [u32; 10], t: &Tmpl, regs: &[u32; 16]) {
    for &(arg, reg) in t.patches() {
        // Program::decode checked reg < 16 (S5); the mask keeps the bounds
        // check out without changing an in-range value. `arg` is in range
        // by its type.
        args[arg as usize] = regs[usize::from(reg & 15)];
    }
}

/// Pushes `record` where [`make_room`] made room: without a grow path on
/// nightly (`push_within_capacity`, which cannot fail here), a plain push on
/// stable Rust.
#[inline(always)]
fn push_in_room(commands: &mut Vec<SubmittedCommand>, record: SubmittedCommand) {
    #[cfg(feature = "nightly")]
    let _ = commands.push_within_capacity(record);
    #[cfg(not(feature = "nightly"))]
    commands.push(record);
}
