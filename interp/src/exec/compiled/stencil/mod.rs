//! The copy-and-patch tier (feature `stencil`, issue 53): a decoded program
//! made into machine code by copying, for each micro-op, a stencil compiled
//! at build time from the micro-op's own body (interp/stencils/lib.rs,
//! interp/build.rs), and patching its holes: register fields, the imm, the
//! pc, fuel counts and where control goes next. A stencil whose last
//! instruction is a jump to the next one is copied without it.
//!
//! The code speaks the compiled tiers' protocol (compiled/entry.rs): the
//! loop that runs Cranelift's code runs it (compiled/run.rs). A block's
//! head charges the block's fuel or leaves `SHORT`; a micro-op the
//! interpreter runs (one that reads or changes the kernel, MOD by zero,
//! `End`) leaves with its pc and the fuel of the rest of its block given
//! back; jumps go straight to their target's code. Entries are the blocks'
//! heads. The memory is written, then made executable: never both.

mod memory;
pub(crate) mod run;

use crate::exec::compiled::entry::{Compiled, Entry};
use crate::exec::inst::{HEAD, Inst, len_in_imm};
use crate::exec::step::SHAPES;
use crate::ops::Opcode;

use memory::Memory;

/// One stencil: its machine code and where its holes are.
pub(crate) struct Stencil {
    pub code: &'static [u8],
    pub holes: &'static [Hole],
}

/// A hole: its offset in the stencil's code, and what goes there.
pub(crate) struct Hole(pub usize, pub HoleKind);

/// What a hole takes (interp/stencils/lib.rs names each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HoleKind {
    /// Register field `a`, `b` or `c`: the register's byte offset, a
    /// 32-bit displacement from the register file.
    A,
    B,
    C,
    /// The imm.
    Imm,
    /// The micro-op's pc.
    Pc,
    /// Units of fuel: the block's length at a head, what an exit gives back.
    Len,
    /// A 32-bit displacement to the next stencil.
    Continue,
    /// A 32-bit displacement to a jump's target.
    Jump,
    /// A 32-bit displacement to the exit that hands a micro-op to the
    /// interpreter.
    Exit,
    /// A 32-bit displacement to the exit of a block the fuel does not cover.
    Short,
}

/// Every stencil (build.rs writes it from the object file): each
/// micro-op's by its opcode byte (`None`: the interpreter runs it), and
/// the protocol's.
pub(crate) struct Stencils {
    pub ops: [Option<&'static Stencil>; 256],
    /// A block's head: charges its length, or leaves by the short exit.
    pub head: Stencil,
    /// Leaves for the interpreter at its micro-op.
    pub interpret: Stencil,
    /// The two exits, back to the loop: to run one micro-op in the
    /// interpreter, and the rest of a turn that ends inside a block.
    pub leave: Stencil,
    pub leave_short: Stencil,
}

include!(concat!(env!("OUT_DIR"), "/stencils.rs"));

/// `Ok` where this build has stencils for the host, else why not.
pub(crate) fn available() -> Result<(), String> {
    match STENCILS {
        Some(_) => Ok(()),
        None => Err(format!(
            "no stencils for this host ({}-{}): x86-64 Linux only",
            std::env::consts::ARCH,
            std::env::consts::OS
        )),
    }
}

/// Whether the stencil code pays for program `insts` in the `tiered`
/// variant: at most one micro-op in five is one the interpreter runs (one
/// that reads or changes the kernel, HALT). Each such micro-op leaves the
/// code for the loop and enters it again at the next head, which makes a
/// kernel-dense program slower in stencil code than in the tail variant
/// (submit_heavy, a third of whose micro-ops are the kernel's, 1.5× its
/// first answer); the ALU loops have one in nine or fewer (J10).
#[cfg(feature = "jit")]
pub(crate) fn pays(insts: &[Inst]) -> bool {
    let Some(s) = STENCILS.as_ref() else {
        return false;
    };
    // The micro-ops: every instruction but `End`.
    let ops = &insts[..insts.len().saturating_sub(1)];
    let left = ops
        .iter()
        .filter(|i| {
            SHAPES[usize::from(i.op & !HEAD)]
                .first
                .is_none_or(|op| s.ops[op as usize].is_none())
        })
        .count();
    left * 5 <= ops.len()
}

/// A program's code: its memory and, for each pc, the entry where a block
/// starts.
pub(crate) struct Code {
    /// Holds the code while the entries are used.
    _memory: Memory,
    entries: Box<[Option<Entry>]>,
}

impl Code {
    /// Copies and patches the stencils of the decoded program `insts`
    /// (`End` last).
    pub(crate) fn compile(insts: &[Inst]) -> Result<Code, String> {
        available()?;
        let s = STENCILS.as_ref().expect("available");
        let (bytes, starts, heads) = emit(s, insts);
        let memory = Memory::new(&bytes)?;
        let mut entries = vec![None; insts.len()].into_boxed_slice();
        for pc in heads {
            // SAFETY: `starts[pc]` is the offset of a head stencil in the
            // code just mapped, an `extern "C" fn(*mut u32, u32, u32) ->
            // u64` (stencils/lib.rs).
            entries[pc] =
                Some(unsafe { std::mem::transmute::<*const u8, Entry>(memory.at(starts[pc])) });
        }
        Ok(Code {
            _memory: memory,
            entries,
        })
    }

    /// The compiled program, valid while `self` lives.
    pub(crate) fn entry(&self) -> Compiled {
        Compiled(self.entries.as_ptr())
    }
}

/// The code `Code::compile` would map for `insts`, before it is mapped
/// (every jump a displacement inside it), and the offset where each pc's
/// code starts (`kmst explain FILE --dispatch stencil`).
pub(crate) fn listing(insts: &[Inst]) -> Result<(Vec<u8>, Vec<usize>), String> {
    available()?;
    let s = STENCILS.as_ref().expect("available");
    let (bytes, starts, _) = emit(s, insts);
    Ok((bytes, starts))
}

/// The stencil of micro-op `op` (`None`: `End`); `interpret` for one the
/// interpreter runs.
fn stencil_of(s: &Stencils, op: Option<Opcode>) -> &Stencil {
    op.and_then(|op| s.ops[op as usize]).unwrap_or(&s.interpret)
}

/// The code of `insts`, the offset where each pc's code starts, and the
/// pcs whose code starts with a head stencil: the entries.
///
/// Each block starts with a head charging its length. So does the rest of
/// a block after a micro-op the interpreter runs (which leaves the code
/// with the rest of its block's fuel): the loop runs that one micro-op and
/// enters the code again right after it, instead of running the rest of
/// the block in the interpreter up to the next block's head (J12).
fn emit(s: &Stencils, insts: &[Inst]) -> (Vec<u8>, Vec<usize>, Vec<usize>) {
    // Room for the longest unit at every pc and a jump to patch at every
    // pc, so that neither buffer grows: the allocations are the same few
    // whatever the program's size (harness/tests/exec_compile_memory.rs).
    let longest = s
        .ops
        .iter()
        .flatten()
        .map(|st| st.code.len())
        .max()
        .unwrap_or(0)
        .max(s.interpret.code.len());
    let mut out = Vec::with_capacity(
        s.leave.code.len() + s.leave_short.code.len() + insts.len() * (s.head.code.len() + longest),
    );
    let exits = Exits {
        leave: out.len(),
        short: out.len() + s.leave.code.len(),
    };
    out.extend_from_slice(s.leave.code);
    out.extend_from_slice(s.leave_short.code);
    let mut starts = vec![0; insts.len()];
    // Jumps' displacements, patched once every start is known: (the hole's
    // offset, the target pc).
    let mut jumps = Vec::with_capacity(insts.len());
    let mut heads = Vec::with_capacity(insts.len());
    let mut block_end = 0;
    // Whether the micro-op before leaves the code for the interpreter.
    let mut after_exit = false;
    for (pc, i) in insts.iter().enumerate() {
        starts[pc] = out.len();
        // The unit's (first) micro-op: a pair's second keeps its own.
        let op = SHAPES[usize::from(i.op & !HEAD)].first;
        let head = if i.op & HEAD != 0 {
            let len = if len_in_imm(op) {
                i.imm
            } else {
                u32::from(i.c)
            };
            block_end = pc + len as usize;
            Some(len)
        } else if after_exit && pc < block_end {
            // The rest of the block, entered after the micro-op before.
            Some((block_end - pc) as u32)
        } else {
            None
        };
        if let Some(len) = head {
            heads.push(pc);
            copy(&mut out, &s.head, exits, |kind| match kind {
                HoleKind::Len => Some(len),
                HoleKind::Pc => Some(pc as u32),
                _ => None,
            });
        }
        // What the rest of the block gives back when this micro-op leaves.
        let back = block_end.saturating_sub(pc).max(1) as u32;
        let stencil = stencil_of(s, op);
        after_exit = std::ptr::eq(stencil, &s.interpret);
        let jump = copy(&mut out, stencil, exits, |kind| match kind {
            // A register's byte offset in the register file.
            HoleKind::A => Some(u32::from(i.a) * 4),
            HoleKind::B => Some(u32::from(i.b) * 4),
            HoleKind::C => Some(u32::from(i.c) * 4),
            HoleKind::Imm => Some(i.imm),
            HoleKind::Pc => Some(pc as u32),
            HoleKind::Len => Some(back),
            _ => None,
        });
        if let Some(place) = jump {
            // The decoder's distance in bytes, `(target - pc) * 16`.
            let target = (pc as i64 + i64::from(i.imm as i32) / 16) as usize;
            jumps.push((place, target));
        }
    }
    for (place, target) in jumps {
        displace(&mut out, place, starts[target]);
    }
    (out, starts, heads)
}

/// Where the code's two exits are: back to the loop to interpret a
/// micro-op, and the exit of a block the fuel does not cover.
#[derive(Clone, Copy)]
struct Exits {
    leave: usize,
    short: usize,
}

/// Appends `stencil` with its holes filled: each value by `value`, the
/// next stencil (the code right after this one), the exits. A jump's
/// target is not laid out yet: its hole's offset is returned.
fn copy(
    out: &mut Vec<u8>,
    stencil: &Stencil,
    exits: Exits,
    value: impl Fn(HoleKind) -> Option<u32>,
) -> Option<usize> {
    let at = out.len();
    out.extend_from_slice(stencil.code);
    let end = out.len();
    let mut jump = None;
    for &Hole(off, kind) in stencil.holes {
        let place = at + off;
        match kind {
            HoleKind::Continue => displace(out, place, end),
            HoleKind::Exit => displace(out, place, exits.leave),
            HoleKind::Short => displace(out, place, exits.short),
            HoleKind::Jump => jump = Some(place),
            _ => {
                if let Some(v) = value(kind) {
                    out[place..place + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    jump
}

/// Writes at `place` the 32-bit displacement of a jump to `to` (x86-64:
/// from the end of the 4-byte field).
fn displace(out: &mut [u8], place: usize, to: usize) {
    let d = to as i64 - (place as i64 + 4);
    out[place..place + 4].copy_from_slice(&(d as i32).to_le_bytes());
}

#[cfg(test)]
mod tests;
