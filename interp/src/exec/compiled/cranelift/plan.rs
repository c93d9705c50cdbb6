//! How a decoded program is cut for the compiler: the regions each
//! compiled as a function of its own (J1), the entries where compiled code
//! is entered and its fuel tested (J3), and what each tests and charges.
//! Linear in the program, so that the compile is too.
//!
//! - **Regions** (J1): runs of whole blocks (inst.rs "Blocks") of about
//!   [`REGION`] micro-ops, cut at a head where the fewest jumps cross, so
//!   that a loop rarely straddles two functions. Cranelift's cost grows
//!   faster than linearly only in the size of one function.
//! - **Entries** (J3): a region's first micro-op, the head of a loop (the
//!   target of a jump back), a jump's target in another region, the
//!   micro-op after one the interpreter runs, and, on a long path forward,
//!   a head every [`PATH`] micro-ops or so. An entry tests the fuel once
//!   against the longest path from it to the next entry or exit
//!   ([`Plan::test`]); the blocks on the way only subtract their lengths,
//!   which the test proved the fuel covers. When the test fails the rest of
//!   the turn runs in the interpreter, so the turn still ends after exactly
//!   the micro-op S17 says. A turn that begins anywhere else (where the last
//!   one's fuel ran out) runs in the interpreter up to an entry
//!   (compiled/run.rs).
//! - **Charges**: a block is charged whole where control enters it, from
//!   that pc to its end ([`Plan::rem`]), as the interpreter's head handler
//!   charges it; a micro-op left to the interpreter gives its part back.

use std::ops::Range;

use crate::exec::inst::{HEAD, Inst, len_in_imm};
use crate::exec::step::shape;

use super::lowering::{Survey, op_index};

/// The micro-ops a region aims at (J1): the compile of one function
/// grows faster than its size, so the regions are bounded; larger regions
/// leave fewer loops straddling two of them.
pub(crate) const REGION: u32 = 1024;

/// The longest path forward, in micro-ops, between two fuel tests (J3)
/// where blocks allow (a block is never split): a turn whose fuel no longer
/// covers the path runs in the interpreter for at most this many, and a
/// turn that begins past an entry for at most about as many before its
/// first entry.
pub(crate) const PATH: u32 = 32;

/// The fewest micro-ops compiled code runs after an entry that follows a
/// micro-op the interpreter ran (J5): a shorter run until the next such
/// micro-op costs more to enter and leave than to interpret.
pub(crate) const SHORTEST: usize = 4;

/// The compiler's view of a decoded program.
pub(crate) struct Plan {
    /// For each pc: the micro-ops from it to its block's end, its own counted.
    pub rem: Vec<u32>,
    /// For each pc: whether it is an entry.
    pub entry: Vec<bool>,
    /// For each head and entry: whether compiled code can reach it (code
    /// is built only for those).
    pub live: Vec<bool>,
    /// For each entry: the longest path from it to the next entry or exit,
    /// in micro-ops, which its fuel test asks for (0 elsewhere).
    pub test: Vec<u32>,
    /// For each pc: whether the interpreter runs its micro-op.
    pub interpret: Vec<bool>,
    /// For each pc: whether a jump at it or after it goes to it (a loop's
    /// head): its block's predecessors are not all built before it (J8).
    pub back: Vec<bool>,
    /// For each pc: the registers its compiled code reads or writes, a bit each.
    pub uses: Vec<u16>,
    /// The regions, in order, covering every pc once.
    pub regions: Vec<Range<u32>>,
}

impl Plan {
    /// Cuts `insts` (a decoded program and its `End`) into regions of about
    /// `region` micro-ops (at least 1) and marks their entries.
    pub(crate) fn of(insts: &[Inst], region: u32) -> Plan {
        let n = insts.len();
        let mut rem = Vec::with_capacity(n);
        let mut interpret = Vec::with_capacity(n);
        let mut uses = Vec::with_capacity(n);
        let mut jump = Vec::with_capacity(n);
        let mut falls = Vec::with_capacity(n);
        // Jumps crossing the cut before each pc (a difference array).
        let mut cross = vec![0i32; n + 1];
        let mut end = 0u32;
        for (pc, inst) in insts.iter().enumerate() {
            let pc32 = pc as u32;
            let index = op_index(inst.op);
            if inst.op & HEAD != 0 {
                let len = if len_in_imm(shape(index).first) {
                    inst.imm
                } else {
                    u32::from(inst.c)
                };
                end = pc32 + len;
            }
            assert!(pc32 < end, "every micro-op sits in its head's block");
            rem.push(end - pc32);
            let survey = Survey::of(index, inst, pc32);
            interpret.push(survey.interprets);
            uses.push(survey.uses);
            jump.push(survey.jump);
            falls.push(survey.falls);
            if let Some(target) = survey.jump {
                let (lo, hi) = (pc.min(target as usize), pc.max(target as usize));
                cross[lo + 1] += 1;
                cross[hi + 1] -= 1;
            }
        }
        let mut running = 0;
        for c in &mut cross {
            running += *c;
            *c = running;
        }
        let head = |pc: usize| insts[pc].op & HEAD != 0;
        let regions = cut(n as u32, &head, &cross, region.max(1));

        let mut back = vec![false; n];
        for (pc, t) in jump.iter().enumerate() {
            if let Some(t) = t.filter(|&t| t as usize <= pc) {
                back[t as usize] = true;
            }
        }

        // The entries every rule but the path's names.
        let mut entry = vec![false; n];
        let mut region_of = vec![0u32; n];
        for (k, r) in regions.iter().enumerate() {
            entry[r.start as usize] = true;
            region_of[r.start as usize..r.end as usize].fill(k as u32);
        }
        for pc in 0..n {
            if let Some(t) = jump[pc] {
                let t = t as usize;
                if t <= pc || region_of[t] != region_of[pc] {
                    entry[t] = true;
                }
            }
            // After a micro-op the interpreter ran, unless the code would
            // leave again within SHORTEST micro-ops (J5).
            if pc > 0 && interpret[pc - 1] {
                let last = pc + rem[pc] as usize - 1;
                let leaves_at = (pc..=last).find(|&p| interpret[p]);
                entry[pc] = leaves_at.is_none_or(|p| p - pc >= SHORTEST);
            }
        }

        // The path from each place control enters (a head or an entry) to
        // the next entry or exit, from the last back: every jump forward
        // lands on a head after it, every jump back on an entry. A
        // successor whose path would make this one's longer than PATH
        // becomes an entry of its own.
        let mut test = vec![0u32; n];
        let mut path = vec![0u32; n];
        for pc in (0..n).rev() {
            if !(head(pc) || entry[pc]) {
                continue;
            }
            let len = rem[pc];
            let last = pc + len as usize - 1;
            let mut longest = 0;
            // A block whose last micro-op is compiled is not the program's
            // last (End is interpreted): last + 1 is a pc.
            if !interpret[last] {
                let fall = falls[last].then_some(last + 1);
                for s in [fall, jump[last].map(|t| t as usize)].into_iter().flatten() {
                    if entry[s] || region_of[s] != region_of[pc] {
                        continue;
                    }
                    if len + path[s] > PATH {
                        entry[s] = true;
                        test[s] = path[s];
                    } else {
                        longest = longest.max(path[s]);
                    }
                }
            }
            path[pc] = len + longest;
            if entry[pc] {
                test[pc] = path[pc];
            }
        }

        // What compiled code can reach: the entries, and the blocks control
        // goes on to from them (forward: a jump back lands on an entry).
        let mut live = entry.clone();
        for pc in 0..n {
            if !live[pc] || !(head(pc) || entry[pc]) {
                continue;
            }
            let last = pc + rem[pc] as usize - 1;
            if (pc..=last).any(|p| interpret[p]) {
                continue;
            }
            if falls[last] {
                live[last + 1] = true;
            }
            if let Some(t) = jump[last] {
                live[t as usize] = true;
            }
        }
        Plan {
            rem,
            entry,
            live,
            test,
            back,
            interpret,
            uses,
            regions,
        }
    }
}

/// The regions: from each start, the head within `region` micro-ops (in
/// its second half where there is one) that the fewest jumps cross, the
/// farthest of equals; a block longer than the space left is kept whole.
fn cut(n: u32, head: &dyn Fn(usize) -> bool, cross: &[i32], region: u32) -> Vec<Range<u32>> {
    let mut regions = Vec::with_capacity((n / region + 1) as usize);
    let mut start = 0u32;
    // Each region ends before a head, and End (the last pc) is one: the
    // last region ends at n, and only there.
    loop {
        if n - start <= region {
            regions.push(start..n);
            break;
        }
        let last = start + region;
        let half = start + region / 2;
        let mut best: Option<(i32, u32)> = None;
        let mut pc = last;
        while pc > start && (pc > half || best.is_none()) {
            if head(pc as usize) {
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
            None => (last..n).find(|&pc| head(pc as usize)).unwrap_or(n),
        };
        regions.push(start..stop);
        start = stop;
    }
    regions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::compiled::testing::program;
    use crate::ops::Opcode::*;

    /// The pcs where `flags` is set.
    fn pcs(flags: &[bool]) -> Vec<usize> {
        (0..flags.len()).filter(|&pc| flags[pc]).collect()
    }

    #[test]
    fn a_long_path_forward_gets_an_entry_every_path_micro_ops() {
        // 70 JNZ r1 -> the next pc (each a block of one: a jump ends its
        // block), HALT at 70, End at 71. From the end back, a block's path
        // is 1 + its successor's: pc j's is 71 - j, until the successor's
        // reaches PATH (32) at pc 39, which becomes an entry testing 32;
        // then again at pc 7 (39 - 32). The region's first pc tests the
        // seven micro-ops from 0 to 7.
        let mut ops: Vec<_> = (0..70).map(|pc| (Jnz, 1, 0, 0, pc + 1)).collect();
        ops.push((Halt, 0, 0, 0, 0));
        let plan = Plan::of(&program(&ops).insts, REGION);
        assert_eq!(pcs(&plan.entry), [0, 7, 39]);
        assert_eq!((plan.test[0], plan.test[7], plan.test[39]), (7, 32, 32));
        assert_eq!(plan.regions.len(), 1, "one region: {:?}", plan.regions);
    }

    #[test]
    fn after_a_kernel_micro_op_only_a_run_of_shortest_is_entered() {
        // pc 0 TIME r1 | 1 ADD r2 = r2 + r1, 2 EVENT r2 | 3..8 ADDI r3 += 1
        // (five), 8 TIME r1 | 9 HALT r3 | 10 End. After TIME at 0 the code
        // would leave again at 2, one micro-op on: not an entry, nor
        // reached; after EVENT it runs five: an entry testing its block of
        // six (TIME charged with it, given back when it leaves). HALT and
        // End after a kernel micro-op leave at once.
        let mut ops = vec![(Time, 1, 0, 0, 0), (Add, 2, 2, 1, 0), (Event, 2, 0, 0, 0)];
        ops.extend((0..5).map(|_| (Addi, 3, 3, 0, 1)));
        ops.extend([(Time, 1, 0, 0, 0), (Halt, 3, 0, 0, 0)]);
        let plan = Plan::of(&program(&ops).insts, REGION);
        assert_eq!(pcs(&plan.entry), [0, 3]);
        assert_eq!(plan.test[3], 6);
        assert_eq!(pcs(&plan.interpret), [0, 2, 8, 9, 10]);
        // Code is built for the entries' blocks only.
        assert_eq!(pcs(&plan.live), [0, 3]);
    }

    #[test]
    fn regions_are_cut_between_loops_not_inside_one() {
        // Two loops of six micro-ops: pc 0 SET r1 = 2; 1..5 ADDI, 6 JNZ r1
        // -> 1; 7 SET r1 = 2; 8..13 the same loop back to 8; 14 HALT; 15
        // End. Regions of 10: the cut is a head in (5, 10] that no jump
        // crosses, the farthest: 8 (7 ties with it). The loop heads are
        // entries (a jump back), and so is each region's first pc.
        let mut ops = vec![(Set, 1, 0, 0, 2)];
        ops.extend((0..4).map(|_| (Addi, 2, 2, 0, 1)));
        ops.extend([
            (Addi, 1, 1, 0, u32::MAX),
            (Jnz, 1, 0, 0, 1),
            (Set, 1, 0, 0, 2),
        ]);
        ops.extend((0..4).map(|_| (Addi, 2, 2, 0, 1)));
        ops.extend([
            (Addi, 1, 1, 0, u32::MAX),
            (Jnz, 1, 0, 0, 8),
            (Halt, 2, 0, 0, 0),
        ]);
        let plan = Plan::of(&program(&ops).insts, 10);
        assert_eq!(plan.regions, [0..8, 8..16]);
        assert_eq!(pcs(&plan.entry), [0, 1, 8]);
        // A loop's test is its body, six micro-ops, and the longest way on
        // when it ends: SET at 7 (then another region), HALT at 14.
        assert_eq!((plan.test[1], plan.test[8]), (7, 7));
    }

    #[test]
    fn a_region_is_cut_at_the_head_the_fewest_jumps_cross() {
        // A cut before pc c is crossed by a jump between lo and hi when
        // lo < c <= hi. pc 0, 1, 3, 4 ADDI; 2 JNZ -> 8 (crosses the cuts
        // before 3..=8); 5..=20 JNZ r1 to its own pc (crossing nothing),
        // but 9 -> 10 and 16 -> 17 (each crossing the one cut after it);
        // 21 HALT, 22 End. Every pc from 5 on is a head.
        let mut ops = vec![(Addi, 2, 2, 0, 1); 5];
        ops[2] = (Jnz, 1, 0, 0, 8);
        ops.extend(
            (5..=20).map(|pc| (Jnz, 1, 0, 0, if pc == 9 || pc == 16 { pc + 1 } else { pc })),
        );
        ops.push((Halt, 2, 0, 0, 0));
        let plan = Plan::of(&program(&ops).insts, 10);
        // From 0, the candidates are the heads in (5, 10]: 6, 7 and 8 are
        // crossed once (by 2 -> 8), 9 never, 10 once (by 9 -> 10): the cut
        // is at 9, though 10 is farther. From 9, those in (14, 19]: 17 is
        // crossed (by 16 -> 17), 15, 16, 18 and 19 not: the farthest, 19.
        // The last 4 micro-ops (19..23) fit in one region.
        assert_eq!(plan.regions, [0..9, 9..19, 19..23]);
    }

    #[test]
    fn a_block_after_a_kernel_micro_op_is_entered_when_it_runs_on_to_the_end() {
        // pc 0 ADDI, 1 TIME | 2, 3 ADDI, 4 JNZ r1 -> 6 | 5 TIME | 6..=9
        // ADDI, 10 HALT | 11 End ("|" ends a block: TIME and HALT can end
        // the turn, a jump ends its block). After TIME at 1, the block
        // 2..=4 leaves no micro-op to the interpreter (TIME at 5 is the
        // next block's, and the jump may pass it): an entry (J5). After
        // TIME at 5, the code runs four micro-ops before HALT: SHORTEST,
        // an entry. After HALT, End leaves at once: not an entry.
        let mut ops = vec![(Addi, 2, 2, 0, 1), (Time, 1, 0, 0, 0)];
        ops.extend([(Addi, 2, 2, 0, 1), (Addi, 2, 2, 0, 1), (Jnz, 1, 0, 0, 6)]);
        ops.push((Time, 1, 0, 0, 0));
        ops.extend((6..=9).map(|_| (Addi, 2, 2, 0, 1)));
        ops.push((Halt, 2, 0, 0, 0));
        let plan = Plan::of(&program(&ops).insts, REGION);
        assert_eq!(pcs(&plan.interpret), [1, 5, 10, 11]);
        assert_eq!(pcs(&plan.entry), [0, 2, 6]);
        // Each tests its longest path to an exit: 0 its block with TIME
        // (2); 2 its block and, falling through, TIME at 5 (4); 6 its
        // block with HALT (5).
        assert_eq!((plan.test[0], plan.test[2], plan.test[6]), (2, 4, 5));
    }

    #[test]
    fn only_heads_past_the_half_are_candidates_for_a_cut() {
        // pc 0, 1 ADDI; 2 JNZ -> 2; 3 ADDI; 4 JNZ -> 4; 5 JNZ -> 11
        // (crossing the cuts before 6..=11); 6..=10 JNZ to its own pc; 11
        // HALT; 12 End. Regions of 10: the heads 3, 4 and 5 no jump
        // crosses, but they are in the first half; 6..=10 are crossed
        // once each: the farthest, 10.
        let mut ops = vec![(Addi, 2, 2, 0, 1); 2];
        ops.extend([(Jnz, 1, 0, 0, 2), (Addi, 2, 2, 0, 1), (Jnz, 1, 0, 0, 4)]);
        ops.push((Jnz, 1, 0, 0, 11));
        ops.extend((6..=10).map(|pc| (Jnz, 1, 0, 0, pc)));
        ops.push((Halt, 2, 0, 0, 0));
        let plan = Plan::of(&program(&ops).insts, 10);
        assert_eq!(plan.regions, [0..10, 10..13]);
    }

    #[test]
    fn code_is_built_only_for_what_compiled_code_reaches() {
        // pc 0 JMP -> 5; 1 ADDI, 2 JNZ r1 -> 4 | 3 ADDI | 4 ADDI | 5 HALT
        // | 6 End. Nothing reaches 1..=4 (no jump to 1, nothing falls into
        // it), so nothing they go to is reached through them: the code is
        // 0's block and HALT's (the block JMP goes to).
        let ops = [
            (Jmp, 0, 0, 0, 5),
            (Addi, 2, 2, 0, 1),
            (Jnz, 1, 0, 0, 4),
            (Addi, 2, 2, 0, 1),
            (Addi, 2, 2, 0, 1),
            (Halt, 2, 0, 0, 0),
        ];
        let plan = Plan::of(&program(&ops).insts, REGION);
        assert_eq!(pcs(&plan.entry), [0]);
        assert_eq!(pcs(&plan.live), [0, 5]);
    }
}
