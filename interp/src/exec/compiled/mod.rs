//! The compiled tiers (feature `jit`), in one place: `lower.rs`, the
//! vocabulary every body's lowering is written in (`OpBody::lower`), which
//! a compiled tier implements; `cranelift/`, the tier built with Cranelift,
//! and its loop (the `jit` variant); `tiered.rs`, the variant that moves a
//! program from the interpreter to compiled code once it is hot. A second
//! compiled tier is a folder beside `cranelift/`. The folder spans the
//! layers (docs/dispatch.md "Layers"): `lower.rs` sits with the leaf types,
//! `cranelift/` with the decoder, the loops with the dispatch loops.

pub(crate) mod cranelift;
pub(crate) mod lower;
#[cfg(feature = "stencil")]
pub(crate) mod stencil;
pub(crate) mod tiered;
