//! A compiled program made runnable, called, and freed: all the compiled
//! tier's `unsafe` code. Cranelift's JIT module maps the code readable and
//! executable once it is finished, never writable and executable at once.
//!
//! What the generated code may touch: the 16 registers at `regs` (loads
//! and stores at the constant offsets 0..64 of the register numbers the
//! check allowed, `Reason::BadRegister`) and its own stack; it calls nothing.

use std::sync::OnceLock;

use cranelift_codegen::ir::UserFuncName;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Module, default_libcall_names};

use super::compile;
use super::plan::{self, Plan};
use crate::exec::compiled::entry::{Compiled, Entry};
use crate::exec::inst::Inst;

/// `Ok` when Cranelift has a backend for this host, else what is missing.
pub(crate) fn available() -> Result<(), String> {
    cranelift_native::builder().map(|_| ()).map_err(|e| {
        format!(
            "no Cranelift backend for this host ({}-{}): {e}",
            std::env::consts::ARCH,
            std::env::consts::OS
        )
    })
}

/// The host's target, built once per process (inferring the CPU's
/// features takes longer than compiling a small program).
fn isa() -> Result<OwnedTargetIsa, String> {
    static ISA: OnceLock<Result<OwnedTargetIsa, String>> = OnceLock::new();
    ISA.get_or_init(|| {
        available()?;
        let mut flags = settings::builder();
        // No optimization passes (J4): the IR is built from the bodies
        // already simple, and the e-graph pass was most of the compile of
        // long straight runs (its rewrites of a chain of adds) while the
        // compiled loops ran no faster for it.
        flags.set("opt_level", "none").map_err(|e| e.to_string())?;
        // Cranelift's IR verifier in debug builds (every test), not in
        // release: it took a third to a half of a program's compile (D31).
        let verify = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        flags
            .set("enable_verifier", verify)
            .map_err(|e| e.to_string())?;
        cranelift_native::builder()
            .map_err(|e| e.to_string())?
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())
    })
    .clone()
}

/// A compiled program: each region's function, the table of entries, and
/// the memory that holds the code.
pub(crate) struct Code {
    /// `None` only while dropping.
    module: Option<JITModule>,
    /// For each pc: the function of its region where it is an entry.
    entries: Box<[Option<Entry>]>,
}

impl Code {
    /// Compiles the decoded program `insts`. `Err` names what failed: no
    /// Cranelift backend for this host, or the compiler's own error.
    pub(crate) fn compile(insts: &[Inst]) -> Result<Code, String> {
        Code::compile_in(insts, plan::REGION)
    }

    /// [`Code::compile`] with regions of about `region` micro-ops.
    pub(crate) fn compile_in(insts: &[Inst], region: u32) -> Result<Code, String> {
        Code::compile_seen(insts, region, &mut |_, _| {})
    }

    /// [`Code::compile_in`], handing each region's pcs and machine code to
    /// `seen` as it is compiled (`kmst explain`).
    pub(crate) fn compile_seen(
        insts: &[Inst],
        region: u32,
        seen: &mut dyn FnMut(std::ops::Range<u32>, &[u8]),
    ) -> Result<Code, String> {
        let isa = isa()?;
        let plan = Plan::of(insts, region);
        let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
        let mut ctx = module.make_context();
        let mut fctx = FunctionBuilderContext::new();
        let target = module.target_config();
        let mut ids = Vec::with_capacity(plan.regions.len());
        // One function at a time: the context is cleared after each, so
        // the compiler's memory is that of one region (J1).
        for region in &plan.regions {
            compile::signature(&mut ctx.func.signature, target.pointer_type());
            let id = module
                .declare_anonymous_function(&ctx.func.signature)
                .map_err(|e| e.to_string())?;
            ctx.func.name = UserFuncName::user(0, id.as_u32());
            {
                let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
                compile::build(&mut b, insts, &plan, region.clone());
                b.finalize(target);
            }
            module
                .define_function(id, &mut ctx)
                .map_err(|e| format!("{e:?}"))?;
            if let Some(compiled) = ctx.compiled_code() {
                seen(region.clone(), compiled.code_buffer());
            }
            module.clear_context(&mut ctx);
            ids.push(id);
        }
        module.finalize_definitions().map_err(|e| e.to_string())?;
        let mut entries = vec![None; insts.len()].into_boxed_slice();
        for (region, &id) in plan.regions.iter().zip(&ids) {
            let ptr = module.get_finalized_function(id);
            // SAFETY: `ptr` is the finished function just defined with the
            // signature `compile::signature` gives: (pointer, i32, i32) ->
            // i64 in the host's default calling convention, `extern "C"`'s.
            let f = unsafe { std::mem::transmute::<*const u8, Entry>(ptr) };
            for pc in region.clone() {
                if plan.entry[pc as usize] {
                    entries[pc as usize] = Some(f);
                }
            }
        }
        Ok(Code {
            module: Some(module),
            entries,
        })
    }

    /// The compiled program, valid while `self` lives.
    pub(crate) fn entry(&self) -> Compiled {
        Compiled(self.entries.as_ptr())
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the functions' only pointers are in `entries`, handed
            // out for turns of runs that borrow the program holding `self`,
            // so none runs now and none is called after.
            unsafe { module.free_memory() };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::compiled::entry::{call, entry_at};
    use crate::exec::compiled::testing::program;
    use crate::ops::Opcode::*;

    /// (pc, fuel, kind) of one call of the region entered at `pc`.
    fn run(code: &Code, regs: &mut [u32; 16], pc: u32, fuel: u32) -> (u32, u32, u64) {
        // SAFETY: `code` was compiled from the program `pc` is in, and
        // `regs` is a stream's 16 registers.
        let out = unsafe {
            let entry = entry_at(code.entry(), pc).expect("pc is an entry");
            call(entry, regs.as_mut_ptr(), pc, fuel)
        };
        // The word's layout (compile.rs): the pc in bits 0..30, the kind in
        // bits 30 and 31, the fuel in the high half.
        let kind = out & 0xC000_0000;
        ((out & 0x3FFF_FFFF) as u32, (out >> 32) as u32, kind)
    }

    const LEFT: u64 = 0;
    const SHORT: u64 = 1 << 31;
    const GO: u64 = 1 << 30;

    #[test]
    fn a_loop_runs_compiled_until_the_fuel_no_longer_covers_a_block() {
        // pc 0 SET r1 = 5; pc 1 ADDI r2 += 3; pc 2 ADDI r1 += -1 (wrapping);
        // pc 3 JNZ r1 -> 1; pc 4 HALT r2. Blocks (inst.rs "Blocks"): [0],
        // [1, 2, 3] (pc 1 a jump target), [4].
        let p = program(&[
            (Set, 1, 0, 0, 5),
            (Addi, 2, 2, 0, 3),
            (Addi, 1, 1, 0, u32::MAX),
            (Jnz, 1, 0, 0, 1),
            (Halt, 2, 0, 0, 0),
        ]);
        let code = Code::compile(&p.insts).expect("x86-64 and aarch64 have a backend");
        let mut regs = [0u32; 16];
        // Fuel 100: 1 + 5 loops of 3 = 16 micro-ops, then HALT is left to
        // the interpreter (not SHORT) with its fuel given back: 100 - 16.
        assert_eq!(run(&code, &mut regs, 0, 100), (4, 84, LEFT));
        assert_eq!((regs[1], regs[2]), (0, 15));
        // Fuel 5: pc 0 (1), one loop (3), then 1 left, short of the block of 3.
        let mut regs = [0u32; 16];
        assert_eq!(run(&code, &mut regs, 0, 5), (1, 1, SHORT));
        assert_eq!((regs[1], regs[2]), (4, 3));
        // The entries (plan.rs): the region's first micro-op (0) and the
        // loop's head (1). HALT's head (4) is reached only from the loop,
        // and End (5), after HALT, would leave at once: a turn that begins
        // at pc 2 to 5 runs in the interpreter up to an entry.
        let entries: Vec<bool> = (0..6)
            // SAFETY: every pc up to End is in the program.
            .map(|pc| unsafe { entry_at(code.entry(), pc) }.is_some())
            .collect();
        assert_eq!(entries, [true, true, false, false, false, false]);
    }

    #[test]
    fn a_halt_at_a_block_end_gets_its_fuel_back() {
        // One block: SET, ADDI, HALT. Fuel 10 pays 3 at pc 0; two run and
        // HALT is left to the interpreter with its unit: 10 - 2.
        let p = program(&[(Set, 1, 0, 0, 5), (Addi, 1, 1, 0, 1), (Halt, 1, 0, 0, 0)]);
        let code = Code::compile(&p.insts).expect("a backend");
        let mut regs = [0u32; 16];
        assert_eq!(run(&code, &mut regs, 0, 10), (2, 8, LEFT));
        assert_eq!(regs[1], 6);
    }

    #[test]
    fn mod_by_zero_is_left_to_the_interpreter() {
        // pc 0 MOD r1 = r2 % r3 with r3 = 0: nothing runs, the fuel is whole.
        let p = program(&[(Mod, 1, 2, 3, 0), (Halt, 1, 0, 0, 0)]);
        let code = Code::compile(&p.insts).expect("a backend");
        let mut regs = [0u32; 16];
        regs[2] = 7;
        assert_eq!(run(&code, &mut regs, 0, 10), (0, 10, LEFT));
        regs[3] = 4;
        assert_eq!(run(&code, &mut regs, 0, 10), (1, 9, LEFT));
        assert_eq!(regs[1], 3);
    }

    #[test]
    fn a_jump_to_another_region_leaves_with_go_and_the_fuel_left() {
        // Regions of one micro-op: pc 0 SET r1 = 2 (its own block, as pc 1
        // is a jump target); pc 1 ADDI r2 += 7; pc 2 ADDI r1 -= 1; pc 3
        // JNZ r1 -> 1; pc 4 HALT r2. Blocks [0], [1, 2, 3], [4]: a region
        // is cut only at a head, so the regions are [0], [1..4), [4], [5].
        let p = program(&[
            (Set, 1, 0, 0, 2),
            (Addi, 2, 2, 0, 7),
            (Addi, 1, 1, 0, u32::MAX),
            (Jnz, 1, 0, 0, 1),
            (Halt, 2, 0, 0, 0),
        ]);
        let code = Code::compile_in(&p.insts, 1).expect("a backend");
        let mut regs = [0u32; 16];
        // pc 0 runs (fuel 10 - 1) and falls through to pc 1, another region.
        assert_eq!(run(&code, &mut regs, 0, 10), (1, 9, GO));
        assert_eq!(regs[1], 2);
        // The loop's region runs both rounds inside itself (7 + 7), then
        // falls through to HALT's region: 9 - 2 * 3 left.
        assert_eq!(run(&code, &mut regs, 1, 9), (4, 3, GO));
        assert_eq!((regs[1], regs[2]), (0, 14));
        // HALT's region leaves it to the interpreter at once, fuel whole.
        assert_eq!(run(&code, &mut regs, 4, 3), (4, 3, LEFT));
    }

    #[test]
    fn a_backward_jump_across_regions_goes_to_the_loop_head() {
        // pc 0 SET r1 = 3; pc 1 ADDI r2 += 1 (a jump target); pc 2 JNZ r1
        // -> 3 (taken: a jump ends its block); pc 3 ADDI r1 -= 1; pc 4 JNZ
        // r1 -> 1; pc 5 HALT r2. Blocks [0], [1, 2], [3, 4], [5]; regions
        // of one micro-op cut at every head.
        let p = program(&[
            (Set, 1, 0, 0, 3),
            (Addi, 2, 2, 0, 1),
            (Jnz, 1, 0, 0, 3),
            (Addi, 1, 1, 0, u32::MAX),
            (Jnz, 1, 0, 0, 1),
            (Halt, 2, 0, 0, 0),
        ]);
        let code = Code::compile_in(&p.insts, 1).expect("a backend");
        let mut regs = [0u32; 16];
        regs[1] = 3;
        // [3, 4] runs (100 - 2) and jumps back to 1, in another region.
        assert_eq!(run(&code, &mut regs, 3, 100), (1, 98, GO));
        assert_eq!(regs[1], 2);
        // [1, 2] runs and its taken jump goes on at 3: 98 - 2.
        assert_eq!(run(&code, &mut regs, 1, 98), (3, 96, GO));
        assert_eq!(regs[2], 1);
        // With one region for the whole program the loop runs inside it:
        // from pc 0, 1 + 3 rounds of 4, then HALT: 100 - 13.
        let whole = Code::compile(&p.insts).expect("a backend");
        let mut regs = [0u32; 16];
        assert_eq!(run(&whole, &mut regs, 0, 100), (5, 87, LEFT));
        assert_eq!((regs[1], regs[2]), (0, 3));
    }
}
