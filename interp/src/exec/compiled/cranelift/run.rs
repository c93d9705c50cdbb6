//! The `jit` variant's loop: the compiled tiers' (compiled/run.rs) over
//! Cranelift's code, which `dispatch::prepare` made and the turn put in
//! the `Ctx` (machine/turn.rs). Its own entry, so that a test can tell the
//! variants' loops apart.

use crate::exec::handler::loop_entry;
use crate::exec::inst::{Exit, Inst};
use crate::exec::observer::Observer;

loop_entry! {
    "jit";
    /// Runs from `ip` until an exit: the compiled tiers' loop.
    ///
    /// # Safety
    /// As `compiled::run::run`.
    #[inline(never)]
    fn run<O: Observer>(ip, regs, ctx, fuel) {
        // SAFETY: the caller's contract.
        unsafe { crate::exec::compiled::run::run::<O>(ip, regs, ctx, fuel) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Code;
    use crate::check::CheckedUpload;
    use crate::exec::{Dispatch, Machine, NoObserver};
    use crate::format::{Header, MicroOp, Upload};
    use crate::ops::Opcode::{self, *};
    use crate::types::Params;

    /// A small xorshift: the tests' own randomness, the same every run.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// A random program of `n` micro-ops (the last HALT) over arithmetic,
    /// jumps anywhere and the kernel-facing micro-ops that need no template.
    fn program(rng: &mut Rng, n: usize) -> Vec<u8> {
        const KINDS: [Opcode; 15] = [
            Set, Addi, Addi, Add, Sub, Mul, And, Shr, Mod, Rand, Jnz, Jlt, Jmp, Time, ReadResult,
        ];
        let mut ops = Vec::with_capacity(n);
        for _ in 1..n {
            let code = if rng.below(20) == 0 {
                Event
            } else {
                KINDS[rng.below(KINDS.len() as u64) as usize]
            };
            let mut r = || rng.below(16) as u8;
            let (a, b, c) = (r(), r(), r());
            let imm = match code {
                Jnz | Jlt | Jmp => rng.below(n as u64) as u32,
                Set | Shr => rng.below(8) as u32,
                Addi => [1, u32::MAX, 3][rng.below(3) as usize],
                _ => 0,
            };
            ops.push(MicroOp {
                op: code as u8,
                a,
                b,
                c,
                imm,
            });
        }
        ops.push(MicroOp {
            op: Halt as u8,
            a: 1,
            b: 0,
            c: 0,
            imm: 0,
        });
        Upload {
            header: Header {
                max_steps: 5_000,
                deadline_us: 0,
                req: 1,
                seed: 1 + rng.below(1_000) as u32,
            },
            ops,
            templates: vec![],
        }
        .encode()
    }

    /// The compiled tier's answer with regions of `region` micro-ops.
    fn jit_with_regions(upload: &[u8], params: &Params, region: u32) -> crate::types::SimResult {
        let mut m = Machine::new(upload, params);
        let p = m.program_mut(0);
        let code = Code::compile_in(&p.insts, region).expect("a backend");
        let _ = p.code.set(std::rc::Rc::new(code));
        m.run(Dispatch::Jit, &mut NoObserver);
        m.into_result()
    }

    /// Regions of one to a few dozen micro-ops put jumps and fall-throughs
    /// across regions, entries at every region's start and turns that
    /// begin anywhere: whatever the cut, the answer is the interpreter's,
    /// turn for turn (S17: every turn budget from 1 up).
    #[test]
    fn any_cut_into_regions_answers_as_the_interpreter() {
        if crate::exec::jit_available().is_err() {
            return;
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for case in 0..60 {
            let n = 2 + rng.below(120) as usize;
            let upload = program(&mut rng, n);
            assert!(CheckedUpload::new(&upload, upload.len() as u64).is_ok());
            let params = Params {
                turn_budget: 1 + rng.below(100) as u32,
                max_passes: 20_000,
                ..Params::default()
            };
            let want = crate::exec::simulate(&upload, &params, Dispatch::Subroutine);
            for region in [1, 3, 8, 40] {
                let got = jit_with_regions(&upload, &params, region);
                assert!(
                    got == want,
                    "case {case}, regions of {region}, budget {}: {:?}",
                    params.turn_budget,
                    crate::format::Upload::read_checked(&upload)
                );
            }
        }
    }
}
