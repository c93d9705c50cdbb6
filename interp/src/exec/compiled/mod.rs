//! The compiled tiers (features `jit` and `stencil`), in one place:
//! `entry.rs`, the protocol every tier's code speaks, and `run.rs`, the
//! loop that runs any of them (both with either feature); `lower.rs`, the
//! vocabulary every body's lowering is written in (`OpBody::lower`) for
//! Cranelift; `cranelift/`, the tier built with Cranelift (the `jit`
//! variant); `stencil/`, the copy-and-patch tier (the `stencil` variant,
//! no Cranelift); `tiered.rs`, the variant that moves a program up the
//! tiers once it is hot (`jit`). The folder spans the layers
//! (docs/dispatch.md "Layers"): `entry.rs` and `lower.rs` sit with the
//! leaf types, the tiers with the decoder, the loops with the dispatch
//! loops.

#[cfg(feature = "jit")]
pub(crate) mod cranelift;
pub(crate) mod entry;
#[cfg(feature = "jit")]
pub(crate) mod lower;
pub(crate) mod run;
#[cfg(feature = "stencil")]
pub(crate) mod stencil;
#[cfg(feature = "jit")]
pub(crate) mod tiered;

/// What the compiled tiers' tests share: a checked and decoded program.
#[cfg(test)]
pub(crate) mod testing {
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
