//! How a decoded program is cut for the compiler (J1, performance.md):
//! where compiled code can be entered, what each entry charges, and the
//! regions each compiled as a function of its own. Linear in the program,
//! so that the compile is too: a region holds at most about
//! [`REGION`] micro-ops whatever the program's size, and Cranelift's cost
//! grows faster than linearly only in the size of one function.
//!
//! - **Entries**: the block heads (inst.rs "Blocks") and the micro-op after
//!   one the interpreter runs inside a block (RESULT). A turn that starts
//!   anywhere else (its budget ran out mid-block) runs in the interpreter
//!   until the next entry (dispatch/jit.rs).
//! - **Charges**: entering at pc `p` charges the micro-ops from `p` to its
//!   block's end at once ([`Plan::rem`]), as the interpreter's head handler
//!   charges a block.
//! - **Regions**: runs of whole blocks, cut at a head where the fewest
//!   jumps cross, so that a loop rarely straddles two functions; a jump or
//!   a fall-through to another region leaves the function, which the loop
//!   enters again at the target (`GO`, compile.rs).

use std::ops::Range;

use super::compile::{Survey, op_index};
use crate::exec::inst::{HEAD, Inst, len_in_imm};

/// The micro-ops a region aims at (J1): the compile of one function
/// grows faster than its size, so the regions are bounded; larger regions
/// leave fewer loops straddling two of them.
pub(crate) const REGION: u32 = 1024;

/// The compiler's view of a decoded program.
pub(crate) struct Plan {
    /// For each pc: the micro-ops from it to its block's end, its own counted.
    pub rem: Vec<u32>,
    /// For each pc: whether compiled code can be entered there.
    pub entry: Vec<bool>,
    /// For each pc: whether the interpreter runs its micro-op.
    pub interpret: Vec<bool>,
    /// For each pc: the registers its compiled code reads or writes, a bit each.
    pub uses: Vec<u16>,
    /// The regions, in order, covering every pc once.
    pub regions: Vec<Range<u32>>,
}

impl Plan {
    /// Cuts `insts` (a decoded program and its `End`) into regions of about
    /// `region` micro-ops (at least 1).
    pub(crate) fn new(insts: &[Inst], region: u32) -> Plan {
        let n = insts.len();
        let mut rem = Vec::with_capacity(n);
        let mut entry = Vec::with_capacity(n);
        let mut interpret = Vec::with_capacity(n);
        let mut uses = Vec::with_capacity(n);
        // Jumps crossing the cut before each pc (a difference array).
        let mut cross = vec![0i32; n + 1];
        let mut end = 0u32;
        let mut after_interpret = false;
        for (pc, inst) in insts.iter().enumerate() {
            let pc32 = pc as u32;
            let head = inst.op & HEAD != 0;
            let index = op_index(inst.op);
            if head {
                let len = if len_in_imm(index.first_opcode()) {
                    inst.imm
                } else {
                    u32::from(inst.c)
                };
                end = pc32 + len;
            }
            assert!(pc32 < end, "every micro-op sits in its head's block");
            rem.push(end - pc32);
            entry.push(head || after_interpret);
            let survey = Survey::of(index, inst, pc32);
            after_interpret = survey.interprets;
            interpret.push(survey.interprets);
            uses.push(survey.uses);
            if let Some(target) = survey.jump {
                let (lo, hi) = (pc32.min(target) as usize, pc32.max(target) as usize);
                cross[lo + 1] += 1;
                cross[hi + 1] -= 1;
            }
        }
        let mut running = 0;
        for c in &mut cross {
            running += *c;
            *c = running;
        }
        let regions = cut(insts, &cross, region.max(1));
        Plan {
            rem,
            entry,
            interpret,
            uses,
            regions,
        }
    }
}

/// The regions: from each start, the head within `region` micro-ops (in
/// its second half where there is one) that the fewest jumps cross, the
/// farthest of equals; a block longer than the space left is kept whole.
fn cut(insts: &[Inst], cross: &[i32], region: u32) -> Vec<Range<u32>> {
    let n = insts.len() as u32;
    let head = |pc: u32| insts[pc as usize].op & HEAD != 0;
    let mut regions = Vec::with_capacity((n / region + 1) as usize);
    let mut start = 0u32;
    while start < n {
        if n - start <= region {
            regions.push(start..n);
            break;
        }
        let last = start + region;
        let half = start + region / 2;
        let mut best: Option<(i32, u32)> = None;
        let mut pc = last;
        while pc > start && (pc > half || best.is_none()) {
            if head(pc) {
                let c = cross[pc as usize];
                if best.is_none_or(|(b, _)| c < b) {
                    best = Some((c, pc));
                }
            }
            pc -= 1;
        }
        let stop = match best {
            Some((_, pc)) => pc,
            // No head within the region: the block that starts at `start`
            // runs past it; cut at the next head.
            None => (last..n).find(|&pc| head(pc)).unwrap_or(n),
        };
        regions.push(start..stop);
        start = stop;
    }
    regions
}
