//! The `.kms` assembly text (docs/asm.md): assembler and disassembler.
//!
//! [`assemble`] turns text into upload bytes, including the raw forms that
//! write any byte the check reads, so the corpus can hold every fault.
//! [`disassemble`] prints an upload back so that, for an upload the check
//! accepts whose ignored bytes are zero, `assemble(disassemble(d)) == d`.
//! [`format_op`] prints one micro-op, for error messages that name "the
//! micro-op at the error's pc".

use std::fmt;

mod disasm;
mod lex;
mod parse;

pub use disasm::{disassemble, format_op};
pub use parse::assemble;

/// A `.kms` error: where (1-based line and column) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// The 1-based line of the source.
    pub line: usize,
    /// The 1-based column (in characters) within the line.
    pub column: usize,
    /// What is wrong, in one line.
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for AsmError {}
