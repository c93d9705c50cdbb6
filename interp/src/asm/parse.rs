//! The assembler: `.kms` text to upload bytes (docs/asm.md).

use std::collections::HashMap;

use super::AsmError;
use super::lex::{Tok, Token, tokens};
use crate::builder::{Operand, Reg, template};
use crate::format::{ARGS, Command, Header, MAX_PATCHES, MicroOp, NO_REGISTER, Template, Upload};
use crate::ops::{ImmKind, Opcode, RegField};

/// The largest `.size` accepted (a guard against typos allocating gigabytes).
const MAX_SIZE: i128 = 1 << 30;

/// The tokens of one line and a read position.
struct Cursor<'a> {
    toks: &'a [Token],
    at: usize,
    line: usize,
    end_col: usize,
}

impl<'a> Cursor<'a> {
    fn err<T>(&self, col: usize, message: impl Into<String>) -> Result<T, AsmError> {
        Err(AsmError {
            line: self.line,
            column: col,
            message: message.into(),
        })
    }

    fn col(&self) -> usize {
        self.toks.get(self.at).map_or(self.end_col, |t| t.col)
    }

    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.at).map(|t| &t.tok)
    }

    fn next(&mut self) -> Option<&'a Token> {
        let t = self.toks.get(self.at);
        self.at += 1;
        t
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "the end of the line".into(),
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Directive(s)) => format!("`.{s}`"),
            Some(Tok::Int(v)) => format!("`{v}`"),
            Some(Tok::Punct(c)) => format!("`{c}`"),
            Some(Tok::Arrow) => "`<-`".into(),
        }
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        if yes {
            self.at += 1;
        }
        yes
    }

    fn expect_punct(&mut self, c: char) -> Result<(), AsmError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.err(
                self.col(),
                format!("expected `{c}`, found {}", self.describe()),
            )
        }
    }

    fn expect_end(&self) -> Result<(), AsmError> {
        if self.peek().is_none() {
            Ok(())
        } else {
            self.err(
                self.col(),
                format!("expected the end of the line, found {}", self.describe()),
            )
        }
    }

    fn ident(&mut self) -> Result<(&'a str, usize), AsmError> {
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
    fn int(&mut self, lo: i128, hi: i128, what: &str) -> Result<i128, AsmError> {
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

    fn byte(&mut self, what: &str) -> Result<u8, AsmError> {
        Ok(self.int(0, 255, what)? as u8)
    }

    fn u32(&mut self, what: &str) -> Result<u32, AsmError> {
        Ok(self.int(0, u32::MAX.into(), what)? as u32)
    }

    /// A 32-bit value: 0..=2^32-1 or a negative decimal down to -2^31 (two's complement).
    fn value32(&mut self, what: &str) -> Result<u32, AsmError> {
        Ok(self.int(i32::MIN.into(), u32::MAX.into(), what)? as i64 as u32)
    }

    /// `rN` with N up to `max` (15 for operands, 255 in raw patch entries).
    fn reg(&mut self, max: u32) -> Result<u8, AsmError> {
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
    fn at_reg(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if register_number(s).is_some())
    }

    /// An integer or a register (a template's argument or group field).
    fn operand(&mut self, lo: i128, hi: i128, what: &str) -> Result<Operand, AsmError> {
        if self.at_reg() {
            Ok(Operand::Reg(Reg::new(self.reg(15)?).expect("at most 15")))
        } else {
            Ok(Operand::Int(self.int(lo, hi, what)? as i64))
        }
    }

    /// `key=` for one of `keys`; returns the key and its column.
    fn key(&mut self, keys: &[&str]) -> Result<(&'a str, usize), AsmError> {
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
    labels: HashMap<String, u32>,
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

    /// `handler=N, group=(F, C), args=[...], exclusive, result` (the builder's template, S9).
    fn inline_template(&mut self, c: &mut Cursor, submit: bool) -> Result<Template, AsmError> {
        let start = c.col();
        let mut handler = None;
        let mut group = None;
        let mut args = Vec::new();
        let (mut exclusive, mut result) = (false, false);
        let keys: &[&str] = if submit {
            &["handler", "group", "args", "exclusive", "result"]
        } else {
            &["handler", "args", "exclusive", "result"]
        };
        loop {
            let (k, kcol) = c.key(keys)?;
            let dup = match k {
                "exclusive" => std::mem::replace(&mut exclusive, true),
                "result" => std::mem::replace(&mut result, true),
                _ => {
                    c.expect_punct('=')?;
                    match k {
                        "handler" => handler
                            .replace(c.int(1, crate::check::MAX_HANDLER.into(), "handler")? as i64)
                            .is_some(),
                        "group" => {
                            c.expect_punct('(')?;
                            let f = c.operand(0, 65_535, "group first")?;
                            c.expect_punct(',')?;
                            let n = c.operand(0, 65_535, "group count")?;
                            c.expect_punct(')')?;
                            group.replace((f, n)).is_some()
                        }
                        _ => {
                            let dup = !args.is_empty();
                            args = self.arg_list(c)?;
                            dup
                        }
                    }
                }
            };
            if dup {
                return c.err(kcol, format!("`{k}` given twice"));
            }
            if !c.eat_punct(',') {
                break;
            }
        }
        let Some(handler) = handler else {
            return c.err(start, "the template needs `handler=`");
        };
        let group = submit.then(|| group.unwrap_or((Operand::Int(0), Operand::Int(0))));
        template(handler, group, &args, exclusive, result).or_else(|e| c.err(start, e.to_string()))
    }

    /// `[OPERAND, ...]`: up to ten integers or registers, at most four registers.
    fn arg_list(&self, c: &mut Cursor) -> Result<Vec<Operand>, AsmError> {
        let open = c.col();
        c.expect_punct('[')?;
        let mut args = Vec::new();
        while !c.eat_punct(']') {
            if !args.is_empty() {
                c.expect_punct(',')?;
            }
            let col = c.col();
            args.push(c.operand(i32::MIN.into(), u32::MAX.into(), "argument")?);
            if args.len() > ARGS {
                return c.err(col, "more than 10 arguments");
            }
        }
        let registers = args.iter().filter(|a| matches!(a, Operand::Reg(_))).count();
        if registers > MAX_PATCHES {
            return c.err(open, format!("{registers} register arguments, more than 4"));
        }
        Ok(args)
    }

    /// `.template N key=value, ...`: every named byte of a template.
    fn explicit_template(&mut self, c: &mut Cursor) -> Result<(), AsmError> {
        let ncol = c.col();
        let n = c.u32("template number")?;
        if n as usize != self.templates.len() {
            return c.err(
                ncol,
                format!(
                    "template {n} defined out of order; the next template is {}",
                    self.templates.len()
                ),
            );
        }
        let mut t = Template {
            first_register: NO_REGISTER,
            count_register: NO_REGISTER,
            command: Command::default(),
            ..Template::default()
        };
        let mut patch_count = None;
        let mut patches = 0usize;
        let mut handler = false;
        const KEYS: [&str; 9] = [
            "handler",
            "group",
            "args",
            "patches",
            "first",
            "count",
            "flags",
            "patch_count",
            "exclusive",
        ];
        let mut seen = [false; 10];
        while c.peek().is_some() {
            let (k, kcol) = c.key(&[&KEYS[..], &["result"]].concat())?;
            let i = KEYS.iter().position(|&x| x == k).unwrap_or(9);
            if std::mem::replace(&mut seen[i], true) {
                return c.err(kcol, format!("`{k}` given twice"));
            }
            match k {
                "exclusive" => t.command.flags |= crate::format::flags::EXCLUSIVE,
                "result" => t.command.flags |= crate::format::flags::RESULT,
                _ => {
                    c.expect_punct('=')?;
                    match k {
                        "handler" => {
                            t.command.handler = c.byte("handler")?;
                            handler = true;
                        }
                        "group" => {
                            c.expect_punct('(')?;
                            t.command.first = c.int(0, 65_535, "group first")? as u16;
                            c.expect_punct(',')?;
                            t.command.count = c.int(0, 65_535, "group count")? as u16;
                            c.expect_punct(')')?;
                        }
                        "args" => {
                            c.expect_punct('[')?;
                            let mut k = 0;
                            while !c.eat_punct(']') {
                                if k > 0 {
                                    c.expect_punct(',')?;
                                }
                                if k == ARGS {
                                    return c.err(c.col(), "more than 10 arguments");
                                }
                                t.command.args[k] = c.value32("argument")?;
                                k += 1;
                            }
                        }
                        "patches" => {
                            c.expect_punct('[')?;
                            while !c.eat_punct(']') {
                                if patches > 0 {
                                    c.expect_punct(',')?;
                                }
                                if patches == MAX_PATCHES {
                                    return c.err(c.col(), "more than 4 patch entries");
                                }
                                t.patch_arg[patches] = c.byte("patch argument")?;
                                if !matches!(c.next().map(|t| &t.tok), Some(Tok::Arrow)) {
                                    c.at -= 1;
                                    return c.err(
                                        c.col(),
                                        format!("expected `<-`, found {}", c.describe()),
                                    );
                                }
                                t.patch_reg[patches] = c.reg(255)?;
                                patches += 1;
                            }
                        }
                        "first" | "count" => {
                            let v = if c.at_reg() { c.reg(255)? } else { c.byte(k)? };
                            if k == "first" {
                                t.first_register = v;
                            } else {
                                t.count_register = v;
                            }
                        }
                        "flags" => t.command.flags |= c.byte("flags")?,
                        _ => patch_count = Some(c.byte("patch_count")?),
                    }
                }
            }
            c.eat_punct(',');
        }
        if !handler {
            return c.err(ncol, "the template needs `handler=`");
        }
        t.patch_count = patch_count.unwrap_or(patches as u8);
        self.templates.push(t);
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
