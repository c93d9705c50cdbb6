//! A compiled program made runnable, called, and freed: all the compiled
//! tier's `unsafe` code. Cranelift's JIT module maps the code readable and
//! executable once it is finished, never writable and executable at once.
//!
//! What the generated code may touch: the 16 registers at `regs` (loads
//! and stores at the constant offsets 0..64 of the register numbers the
//! check allowed, reason 4) and its own stack; it calls nothing.

use std::sync::OnceLock;

use cranelift_codegen::ir::UserFuncName;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};

use super::compile;
use crate::exec::inst::Inst;
use crate::exec::lower::Compiled;

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
        flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
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

/// A compiled program: its function and the memory that holds it.
pub(crate) struct Code {
    /// `None` only while dropping.
    module: Option<JITModule>,
    entry: Compiled,
}

impl Code {
    /// Compiles the decoded program `insts`. `Err` names what failed: no
    /// Cranelift backend for this host, or the compiler's own error.
    pub(crate) fn compile(insts: &[Inst]) -> Result<Code, String> {
        let isa = isa()?;
        let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
        let mut ctx = module.make_context();
        compile::signature(
            &mut ctx.func.signature,
            module.target_config().pointer_type(),
        );
        let id = module
            .declare_function("program", Linkage::Local, &ctx.func.signature)
            .map_err(|e| e.to_string())?;
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        let mut fctx = FunctionBuilderContext::new();
        let target = module.target_config();
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            compile::build(&mut b, insts);
            b.finalize(target);
        }
        module
            .define_function(id, &mut ctx)
            .map_err(|e| format!("{e:?}"))?;
        module.clear_context(&mut ctx);
        module.finalize_definitions().map_err(|e| e.to_string())?;
        let ptr = module.get_finalized_function(id);
        // SAFETY: `ptr` is the finished function just defined with the
        // signature `compile::signature` gives: (pointer, i32, i32) -> i64
        // in the host's default calling convention, which is `extern "C"`'s.
        let entry = unsafe { std::mem::transmute::<*const u8, Compiled>(ptr) };
        Ok(Code {
            module: Some(module),
            entry,
        })
    }

    /// The compiled function, valid while `self` lives.
    pub(crate) fn entry(&self) -> Compiled {
        self.entry
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the function's only pointer is `entry`, handed out
            // for turns of runs that borrow the program holding `self`, so
            // none runs now and none is called after.
            unsafe { module.free_memory() };
        }
    }
}

/// Runs compiled code `entry` from micro-op `pc` with `fuel`: the result
/// `(fuel << 32) | kind | pc` (compile.rs).
///
/// # Safety
/// `entry` is the function of a live [`Code`] compiled from the program
/// `pc` is in (`pc <= op_count`), and `regs` points at that stream's 16
/// registers, borrowed by nothing else during the call.
#[inline(always)]
pub(crate) unsafe fn call(entry: Compiled, regs: *mut u32, pc: u32, fuel: u32) -> u64 {
    // SAFETY: the caller's contract; the code touches only `regs[0..16]`.
    unsafe { entry(regs, pc, fuel) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::CheckedUpload;
    use crate::exec::decode::Program;
    use crate::format::{Header, MicroOp, Upload};
    use crate::ops::Opcode::{self, *};

    fn program(ops: &[(Opcode, u8, u8, u8, u32)]) -> Program {
        let upload = Upload {
            header: Header {
                max_steps: 1000,
                deadline_us: 0,
                req: 1,
                seed: 1,
            },
            ops: ops
                .iter()
                .map(|&(code, a, b, c, imm)| MicroOp {
                    op: code as u8,
                    a,
                    b,
                    c,
                    imm,
                })
                .collect(),
            templates: vec![],
        };
        let data = upload.encode();
        let checked = CheckedUpload::new(&data, data.len() as u64).expect("a valid upload");
        Program::decode(&checked)
    }

    fn run(code: &Code, regs: &mut [u32; 16], pc: u32, fuel: u32) -> (u32, u32, bool) {
        // SAFETY: `code` was compiled from the program `pc` is in, and
        // `regs` is a stream's 16 registers.
        let out = unsafe { call(code.entry(), regs.as_mut_ptr(), pc, fuel) };
        (
            out as u32 & !(super::super::SHORT as u32),
            (out >> 32) as u32,
            out & super::super::SHORT != 0,
        )
    }

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
        assert_eq!(run(&code, &mut regs, 0, 100), (4, 84, false));
        assert_eq!((regs[1], regs[2]), (0, 15));
        // Fuel 5: pc 0 (1), one loop (3), then 1 left, short of the block of 3.
        let mut regs = [0u32; 16];
        assert_eq!(run(&code, &mut regs, 0, 5), (1, 1, true));
        assert_eq!((regs[1], regs[2]), (4, 3));
        // Entering mid-block at pc 2 charges pcs 2 and 3.
        let mut regs = [0u32; 16];
        regs[1] = 1;
        assert_eq!(run(&code, &mut regs, 2, 2), (4, 0, false));
    }

    #[test]
    fn a_halt_at_a_block_end_gets_its_fuel_back() {
        // One block: SET, ADDI, HALT. Fuel 10 pays 3 at pc 0; two run and
        // HALT is left to the interpreter with its unit: 10 - 2.
        let p = program(&[(Set, 1, 0, 0, 5), (Addi, 1, 1, 0, 1), (Halt, 1, 0, 0, 0)]);
        let code = Code::compile(&p.insts).expect("a backend");
        let mut regs = [0u32; 16];
        assert_eq!(run(&code, &mut regs, 0, 10), (2, 8, false));
        assert_eq!(regs[1], 6);
    }

    #[test]
    fn mod_by_zero_is_left_to_the_interpreter() {
        // pc 0 MOD r1 = r2 % r3 with r3 = 0: nothing runs, the fuel is whole.
        let p = program(&[(Mod, 1, 2, 3, 0), (Halt, 1, 0, 0, 0)]);
        let code = Code::compile(&p.insts).expect("a backend");
        let mut regs = [0u32; 16];
        regs[2] = 7;
        assert_eq!(run(&code, &mut regs, 0, 10), (0, 10, false));
        regs[3] = 4;
        assert_eq!(run(&code, &mut regs, 0, 10), (1, 9, false));
        assert_eq!(regs[1], 3);
    }
}
