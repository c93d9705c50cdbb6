//! The two template syntaxes of docs/asm.md: the inline template of a
//! SUBMIT or ENQUEUE (`handler=N, group=(F, C), args=[...], ...`, checked by
//! the builder's `template`, S9), and `.template N key=value, ...`, which
//! writes every named byte of a template as given, so the corpus can hold
//! templates the check rejects.

use super::Assembler;
use super::cursor::Cursor;
use crate::asm::AsmError;
use crate::asm::lex::Tok;
use crate::builder::{Operand, template};
use crate::format::{ARGS, Command, MAX_PATCHES, NO_REGISTER, Template};

impl Assembler {
    /// `handler=N, group=(F, C), args=[...], exclusive, result` (the builder's template, S9).
    pub(super) fn inline_template(
        &mut self,
        c: &mut Cursor,
        submit: bool,
    ) -> Result<Template, AsmError> {
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
    pub(super) fn explicit_template(&mut self, c: &mut Cursor) -> Result<(), AsmError> {
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
}
