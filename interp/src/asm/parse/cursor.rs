//! The read position in one line's tokens, and the readers every statement
//! shares: punctuation, names, integers in a range, registers, operands and
//! `key=` keys, each with the error message that names what was expected.
//! Kept apart from the statements so the parser reads as the grammar of
//! docs/asm.md.

use crate::asm::AsmError;
use crate::asm::lex::{Tok, Token};
use crate::builder::{Operand, Reg};

/// The tokens of one line and a read position.
pub(super) struct Cursor<'a> {
    pub(super) toks: &'a [Token],
    pub(super) at: usize,
    pub(super) line: usize,
    pub(super) end_col: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn err<T>(&self, col: usize, message: impl Into<String>) -> Result<T, AsmError> {
        Err(AsmError {
            line: self.line,
            column: col,
            message: message.into(),
        })
    }

    pub(super) fn col(&self) -> usize {
        self.toks.get(self.at).map_or(self.end_col, |t| t.col)
    }

    pub(super) fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.at).map(|t| &t.tok)
    }

    pub(super) fn next(&mut self) -> Option<&'a Token> {
        let t = self.toks.get(self.at);
        self.at += 1;
        t
    }

    pub(super) fn describe(&self) -> String {
        match self.peek() {
            None => "the end of the line".into(),
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Directive(s)) => format!("`.{s}`"),
            Some(Tok::Int(v)) => format!("`{v}`"),
            Some(Tok::Punct(c)) => format!("`{c}`"),
            Some(Tok::Arrow) => "`<-`".into(),
        }
    }

    pub(super) fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    pub(super) fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        if yes {
            self.at += 1;
        }
        yes
    }

    pub(super) fn expect_punct(&mut self, c: char) -> Result<(), AsmError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.err(
                self.col(),
                format!("expected `{c}`, found {}", self.describe()),
            )
        }
    }

    pub(super) fn expect_end(&self) -> Result<(), AsmError> {
        if self.peek().is_none() {
            Ok(())
        } else {
            self.err(
                self.col(),
                format!("expected the end of the line, found {}", self.describe()),
            )
        }
    }

    pub(super) fn ident(&mut self) -> Result<(&'a str, usize), AsmError> {
        match self.toks.get(self.at) {
            Some(Token {
                tok: Tok::Ident(s),
                col,
            }) => {
                self.at += 1;
                Ok((s.as_str(), *col))
            }
            _ => self.err(
                self.col(),
                format!("expected a name, found {}", self.describe()),
            ),
        }
    }

    /// An integer in `lo..=hi`, naming `what` in the error.
    pub(super) fn int(&mut self, lo: i128, hi: i128, what: &str) -> Result<i128, AsmError> {
        let col = self.col();
        match self.peek() {
            Some(Tok::Int(v)) => {
                self.at += 1;
                if (lo..=hi).contains(v) {
                    Ok(*v)
                } else {
                    self.err(col, format!("{what} {v} is out of range {lo}..={hi}"))
                }
            }
            _ => self.err(col, format!("expected {what}, found {}", self.describe())),
        }
    }

    pub(super) fn byte(&mut self, what: &str) -> Result<u8, AsmError> {
        Ok(self.int(0, 255, what)? as u8)
    }

    pub(super) fn u32(&mut self, what: &str) -> Result<u32, AsmError> {
        Ok(self.int(0, u32::MAX.into(), what)? as u32)
    }

    /// A 32-bit value: 0..=2^32-1 or a negative decimal down to -2^31 (two's complement).
    pub(super) fn value32(&mut self, what: &str) -> Result<u32, AsmError> {
        Ok(self.int(i32::MIN.into(), u32::MAX.into(), what)? as i64 as u32)
    }

    /// `rN` with N up to `max` (15 for operands, 255 in raw patch entries).
    pub(super) fn reg(&mut self, max: u32) -> Result<u8, AsmError> {
        let col = self.col();
        if let Some(Tok::Ident(s)) = self.peek()
            && let Some(n) = register_number(s)
        {
            self.at += 1;
            return match n {
                Some(n) if n <= max => Ok(n as u8),
                _ => self.err(col, format!("unknown register {s}")),
            };
        }
        self.err(
            col,
            format!("expected a register, found {}", self.describe()),
        )
    }

    /// Whether the next token is a register name.
    pub(super) fn at_reg(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if register_number(s).is_some())
    }

    /// An integer or a register (a template's argument or group field).
    pub(super) fn operand(&mut self, lo: i128, hi: i128, what: &str) -> Result<Operand, AsmError> {
        if self.at_reg() {
            Ok(Operand::Reg(Reg::new(self.reg(15)?).expect("at most 15")))
        } else {
            Ok(Operand::Int(self.int(lo, hi, what)? as i64))
        }
    }

    /// `key=` for one of `keys`; returns the key and its column.
    pub(super) fn key(&mut self, keys: &[&str]) -> Result<(&'a str, usize), AsmError> {
        let (k, col) = self.ident()?;
        if !keys.contains(&k) {
            return self.err(
                col,
                format!("unknown key `{k}` (expected one of {})", keys.join(", ")),
            );
        }
        Ok((k, col))
    }
}

/// `Some(Some(n))` for `rN`, `Some(None)` for `r` and digits too large to be any register,
/// `None` for a name that is not register-shaped.
fn register_number(s: &str) -> Option<Option<u32>> {
    let digits = s.strip_prefix('r')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse::<u32>().ok())
}
