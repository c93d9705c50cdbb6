//! The compiled tier (feature `jit`): a decoded program compiled with
//! Cranelift, a function per region of the program (plan.rs), each
//! micro-op built by its body's lowering (`OpBody::lower`,
//! compiled/lower.rs), run by the `jit` dispatch variant's loop
//! (`run.rs`), which hands the micro-ops that read or change the
//! kernel to the interpreter one at a time. Compiled once per program, when
//! a run with the `jit` variant starts (`dispatch::prepare`): a scenario
//! running one upload in several streams compiles it once.
//!
//! - `lowering.rs`: which body lowers a unit, and what a lowering does
//!   (a survey that builds nothing);
//! - `plan.rs`: the regions, entries and fuel tests of a program;
//! - `compile.rs`: a region's IR, safe code;
//! - `code.rs`: the one module with `unsafe` code: the function made
//!   runnable, called, and its memory freed;
//! - `run.rs`: the `jit` variant's loop, the one place the code runs.

mod code;
mod compile;
mod lowering;
mod plan;
pub(crate) mod run;

pub(crate) use code::{Code, available, call, entry_at};
pub(crate) use compile::{GO, PC_MASK, SHORT};
pub(crate) use plan::REGION;

/// What the compiled tier's tests share: a checked and decoded program.
#[cfg(all(test, feature = "stencil"))]
pub(crate) use testing::program as testing_program;

#[cfg(test)]
mod testing {
    use crate::check::CheckedUpload;
    use crate::exec::decode::Program;
    use crate::format::{Header, MicroOp, Upload};
    use crate::ops::Opcode;

    /// The decoded program of `ops`: (opcode, a, b, c, imm) each.
    pub(crate) fn program(ops: &[(Opcode, u8, u8, u8, u32)]) -> Program {
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
}
