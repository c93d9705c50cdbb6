//! The assembler: `.kms` text to upload bytes (docs/asm.md).
//!
//! This file holds the statements: labels, `.stream`, `.size`, `.op`, the
//! micro-op lines and the end (labels resolved, header fields overridden,
//! size set). The token readers are in [`cursor`], the two template
//! syntaxes in [`template`].

use std::collections::BTreeMap;

use super::AsmError;
use super::lex::{Tok, tokens};
use crate::format::{Header, MicroOp, Template, Upload};
use crate::ops::{ImmKind, Opcode, RegField};

mod cursor;
mod template;

use cursor::Cursor;

/// The largest `.size` accepted (a guard against typos allocating gigabytes).
const MAX_SIZE: i128 = 1 << 30;

/// A jump target waiting for its label.
struct Fixup {
    op: usize,
    name: String,
    line: usize,
    col: usize,
}

#[derive(Default)]
struct Assembler {
    header: Option<Header>,
    overrides: [Option<u32>; 4],
    ops: Vec<MicroOp>,
    templates: Vec<Template>,
    /// Ordered, not hashed: a `HashMap`'s random seed would free its keys
    /// in a different order each process, and so move the heap's later
    /// allocations (and the instructions `realloc` copies) from one run of
    /// a measurement to the next (performance.md, "Instruction counts as a
    /// contract").
    labels: BTreeMap<String, u32>,
    fixups: Vec<Fixup>,
    size: Option<usize>,
}

impl Assembler {
    fn line(&mut self, text: &str, line: usize) -> Result<(), AsmError> {
        let (toks, end_col) = tokens(text, line)?;
        let mut c = Cursor {
            toks: &toks,
            at: 0,
            line,
            end_col,
        };
        // Labels.
        while let (Some(Tok::Ident(name)), Some(Tok::Punct(':'))) =
            (c.peek(), toks.get(c.at + 1).map(|t| &t.tok))
        {
            let col = c.col();
            if self.labels.contains_key(name) {
                return c.err(col, format!("label `{name}` is defined twice"));
            }
            self.labels.insert(name.clone(), self.ops.len() as u32);
            c.at += 2;
        }
        let col = c.col();
        match c.peek() {
            None => Ok(()),
            Some(Tok::Directive(d)) => {
                c.at += 1;
                match d.as_str() {
                    "stream" => self.stream(&mut c, col),
                    "template" => self.explicit_template(&mut c),
                    "op" => self.raw_op(&mut c),
                    "size" => self.size(&mut c, col),
                    _ => c.err(col, format!("unknown directive `.{d}`")),
                }
            }
            Some(Tok::Ident(m)) => {
                let Some(op) = Opcode::from_mnemonic(m) else {
                    return c.err(col, format!("unknown micro-op `{m}`"));
                };
                c.at += 1;
                self.micro_op(&mut c, op, col)
            }
            Some(_) => c.err(col, format!("expected a micro-op, found {}", c.describe())),
        }
    }

    fn stream(&mut self, c: &mut Cursor, col: usize) -> Result<(), AsmError> {
        if self.header.is_some() {
            return c.err(col, "`.stream` given twice");
        }
        if !self.ops.is_empty() {
            return c.err(col, "`.stream` must come before the first micro-op");
        }
        const KEYS: [&str; 8] = [
            "max_steps",
            "deadline_us",
            "req",
            "seed",
            "magic",
            "version",
            "op_count",
            "command_count",
        ];
        let mut values: [Option<u32>; 8] = [None; 8];
        while c.peek().is_some() {
            let (k, kcol) = c.key(&KEYS)?;
            c.expect_punct('=')?;
            let v = c.u32(k)?;
            let i = KEYS.iter().position(|&x| x == k).expect("a known key");
            if values[i].replace(v).is_some() {
                return c.err(kcol, format!("`{k}` given twice"));
            }
            c.eat_punct(',');
        }
        for (i, name) in [(0, "max_steps"), (3, "seed")] {
            if values[i].is_none() {
                return c.err(col, format!("`.stream` needs `{name}=`"));
            }
        }
        self.header = Some(Header {
            max_steps: values[0].unwrap_or(0),
            deadline_us: values[1].unwrap_or(0),
            req: values[2].unwrap_or(0),
            seed: values[3].unwrap_or(0),
        });
        self.overrides = [values[4], values[5], values[6], values[7]];
        Ok(())
    }

    fn need_header(&self, c: &Cursor, col: usize) -> Result<(), AsmError> {
        if self.header.is_none() {
            return c.err(col, "a micro-op before `.stream`");
        }
        Ok(())
    }

    fn size(&mut self, c: &mut Cursor, col: usize) -> Result<(), AsmError> {
        if self.size.is_some() {
            return c.err(col, "`.size` given twice");
        }
        self.size = Some(c.int(0, MAX_SIZE, "size")? as usize);
        c.expect_end()
    }

    fn raw_op(&mut self, c: &mut Cursor) -> Result<(), AsmError> {
        self.need_header(c, c.col())?;
        let op = c.byte("opcode")?;
        c.expect_punct(',')?;
        let a = c.byte("field a")?;
        c.expect_punct(',')?;
        let b = c.byte("field b")?;
        c.expect_punct(',')?;
        let cc = c.byte("field c")?;
        c.expect_punct(',')?;
        let imm = c.value32("imm")?;
        c.expect_end()?;
        self.ops.push(MicroOp {
            op,
            a,
            b,
            c: cc,
            imm,
        });
        Ok(())
    }

    fn micro_op(&mut self, c: &mut Cursor, opcode: Opcode, col: usize) -> Result<(), AsmError> {
        self.need_header(c, col)?;
        let mut op = MicroOp::new(opcode, 0, 0, 0, 0);
        let mut first = true;
        let mut comma = |c: &mut Cursor| -> Result<(), AsmError> {
            if !std::mem::take(&mut first) {
                c.expect_punct(',')?;
            }
            Ok(())
        };
        for field in opcode.regs() {
            comma(c)?;
            let r = c.reg(15)?;
            match field {
                RegField::A => op.a = r,
                RegField::B => op.b = r,
                RegField::C => op.c = r,
            }
        }
        match opcode.imm_kind() {
            ImmKind::None => {}
            ImmKind::Value => {
                comma(c)?;
                op.imm = if opcode == Opcode::Wait {
                    c.u32("wait count")?
                } else {
                    c.value32("imm")?
                };
            }
            ImmKind::Target => {
                comma(c)?;
                if c.eat_punct('@') {
                    op.imm = c.u32("micro-op index")?;
                } else {
                    let (name, ncol) = c.ident()?;
                    self.fixups.push(Fixup {
                        op: self.ops.len(),
                        name: name.to_owned(),
                        line: c.line,
                        col: ncol,
                    });
                }
            }
            ImmKind::Template => {
                comma(c)?;
                if c.eat_punct('#') {
                    op.imm = c.u32("template index")?;
                } else {
                    let t = self.inline_template(c, opcode == Opcode::Submit)?;
                    op.imm = self.templates.len() as u32;
                    self.templates.push(t);
                }
            }
        }
        if c.eat_punct('{') {
            self.unused_fields(c, opcode, &mut op)?;
        }
        c.expect_end()?;
        self.ops.push(op);
        Ok(())
    }

    /// `{a=N b=N c=N imm=N}`: values of fields the micro-op does not read.
    fn unused_fields(
        &self,
        c: &mut Cursor,
        opcode: Opcode,
        op: &mut MicroOp,
    ) -> Result<(), AsmError> {
        let mut free: Vec<&str> = ["a", "b", "c"]
            .into_iter()
            .zip([RegField::A, RegField::B, RegField::C])
            .filter(|(_, f)| !opcode.regs().contains(f))
            .map(|(n, _)| n)
            .collect();
        if opcode.imm_kind() == ImmKind::None {
            free.push("imm");
        }
        while !c.eat_punct('}') {
            let (k, _) = c.key(&free)?;
            c.expect_punct('=')?;
            match k {
                "a" => op.a = c.byte("field a")?,
                "b" => op.b = c.byte("field b")?,
                "c" => op.c = c.byte("field c")?,
                _ => op.imm = c.u32("imm")?,
            }
            c.eat_punct(',');
        }
        Ok(())
    }

    fn finish(mut self, last_line: usize) -> Result<Vec<u8>, AsmError> {
        let Some(header) = self.header else {
            return Err(AsmError {
                line: last_line.max(1),
                column: 1,
                message: "no `.stream` line".into(),
            });
        };
        for f in &self.fixups {
            let Some(&target) = self.labels.get(&f.name) else {
                return Err(AsmError {
                    line: f.line,
                    column: f.col,
                    message: format!("unknown label `{}`", f.name),
                });
            };
            self.ops[f.op].imm = target;
        }
        let mut bytes = Upload {
            header,
            ops: self.ops,
            templates: self.templates,
        }
        .encode();
        // magic, version, op_count, command_count: the real values unless given.
        for (i, v) in self.overrides.iter().enumerate() {
            if let Some(v) = v {
                bytes[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        if let Some(n) = self.size {
            bytes.resize(n, 0);
        }
        Ok(bytes)
    }
}

/// Assembles `.kms` text into upload bytes (docs/asm.md).
///
/// The result is whatever the text says, including uploads the check rejects
/// (the raw forms exist for that); run [`crate::check::check`] on it to know.
pub fn assemble(text: &str) -> Result<Vec<u8>, AsmError> {
    let mut asm = Assembler::default();
    let mut last = 0;
    for (i, line) in text.lines().enumerate() {
        asm.line(line, i + 1)?;
        last = i + 1;
    }
    asm.finish(last)
}
