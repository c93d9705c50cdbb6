//! The disassembler: upload bytes to `.kms` text (docs/asm.md).
//!
//! Any bytes give text. An upload the check accepts prints in the ordinary
//! forms (labels `L<pc>` for jump targets, inline templates when the table is
//! one template per SUBMIT/ENQUEUE in order and each inline form gives the same
//! template, else explicit `.template` lines), and re-assembles to the same
//! bytes when its ignored bytes are zero. Anything else starts with a comment
//! giving the check's verdict and uses the raw forms (`.op`, header overrides,
//! `.size`) for what the ordinary forms cannot say.

use std::fmt::Write as _;

use crate::builder::{Operand, Reg, template};
use crate::check::{MAX_HANDLER, check};
use crate::format::{
    HEADER_LEN, MAGIC, MicroOp, NO_REGISTER, OP_LEN, REGISTERS, TEMPLATE_LEN, Template, VERSION,
    flags, read_u32, upload_len,
};
use crate::ops::{ImmKind, Opcode, RegField};

/// The opcode, if the micro-op prints in its ordinary form (known opcode, used registers < 16).
fn ordinary(op: &MicroOp) -> Option<Opcode> {
    let opcode = op.opcode()?;
    let ok = opcode
        .regs()
        .iter()
        .all(|f| usize::from(field(op, *f)) < REGISTERS);
    ok.then_some(opcode)
}

fn field(op: &MicroOp, f: RegField) -> u8 {
    match f {
        RegField::A => op.a,
        RegField::B => op.b,
        RegField::C => op.c,
    }
}

/// One micro-op as a line of text; `target` names a jump target, `inline` is
/// the inline template text for SUBMIT/ENQUEUE (else `#N`).
fn op_text(op: &MicroOp, target: &dyn Fn(u32) -> String, inline: Option<&str>) -> String {
    let Some(opcode) = ordinary(op) else {
        return format!(".op {}, {}, {}, {}, {}", op.op, op.a, op.b, op.c, op.imm);
    };
    let mut parts: Vec<String> = opcode
        .regs()
        .iter()
        .map(|f| format!("r{}", field(op, *f)))
        .collect();
    match opcode.imm_kind() {
        ImmKind::None => {}
        ImmKind::Value => parts.push(op.imm.to_string()),
        ImmKind::Target => parts.push(target(op.imm)),
        ImmKind::Template => {
            parts.push(inline.map_or_else(|| format!("#{}", op.imm), str::to_owned))
        }
    }
    let mut text = opcode.mnemonic().to_owned();
    if !parts.is_empty() {
        text.push(' ');
        text.push_str(&parts.join(", "));
    }
    let mut unused: Vec<String> = [("a", RegField::A), ("b", RegField::B), ("c", RegField::C)]
        .into_iter()
        .filter(|(_, f)| !opcode.regs().contains(f) && field(op, *f) != 0)
        .map(|(n, f)| format!("{n}={}", field(op, f)))
        .collect();
    if opcode.imm_kind() == ImmKind::None && op.imm != 0 {
        unused.push(format!("imm={}", op.imm));
    }
    if !unused.is_empty() {
        let _ = write!(text, " {{{}}}", unused.join(" "));
    }
    text
}

/// One micro-op in assembly, jump targets as `@N` and templates as `#N`.
pub fn format_op(op: &MicroOp) -> String {
    op_text(op, &|t| format!("@{t}"), None)
}

fn operand_text(o: Operand) -> String {
    match o {
        Operand::Int(v) => v.to_string(),
        Operand::Reg(r) => r.to_string(),
    }
}

/// The inline form of `t` for a SUBMIT (`submit`) or ENQUEUE, if assembling it gives `t` back.
fn inline_text(t: &Template, submit: bool) -> Option<String> {
    let c = &t.command;
    if c.flags & !(flags::EXCLUSIVE | flags::RESULT) != 0 || !(1..=MAX_HANDLER).contains(&c.handler)
    {
        return None;
    }
    let exclusive = c.flags & flags::EXCLUSIVE != 0;
    let result = c.flags & flags::RESULT != 0;
    let mut args: Vec<Operand> = c.args.iter().map(|&a| Operand::Int(i64::from(a))).collect();
    for (arg, reg) in t.patches() {
        let slot = args.get_mut(usize::from(arg))?;
        *slot = Operand::Reg(Reg::new(reg)?);
    }
    while args.last() == Some(&Operand::Int(0)) {
        args.pop();
    }
    let group_field = |value: u16, reg: u8| match reg {
        NO_REGISTER => Some(Operand::Int(i64::from(value))),
        r => Reg::new(r).map(Operand::Reg),
    };
    let group = if submit {
        Some((
            group_field(c.first, t.first_register)?,
            group_field(c.count, t.count_register)?,
        ))
    } else {
        None
    };
    if template(i64::from(c.handler), group, &args, exclusive, result).ok()? != *t {
        return None;
    }
    let mut text = format!("handler={}", c.handler);
    if let Some((f, n)) = group
        && (f, n) != (Operand::Int(0), Operand::Int(0))
    {
        let _ = write!(text, ", group=({}, {})", operand_text(f), operand_text(n));
    }
    if !args.is_empty() {
        let list: Vec<String> = args.into_iter().map(operand_text).collect();
        let _ = write!(text, ", args=[{}]", list.join(", "));
    }
    if exclusive {
        text.push_str(", exclusive");
    }
    if result {
        text.push_str(", result");
    }
    Some(text)
}

fn group_register_text(r: u8) -> String {
    if usize::from(r) < REGISTERS {
        format!("r{r}")
    } else {
        format!("0x{r:02x}")
    }
}

/// The explicit `.template N ...` line: every named byte, defaults left out.
fn explicit_text(n: usize, t: &Template) -> String {
    let c = &t.command;
    let mut items = vec![format!("handler={}", c.handler)];
    if (c.first, c.count) != (0, 0) {
        items.push(format!("group=({}, {})", c.first, c.count));
    }
    let used = c.args.iter().rposition(|&a| a != 0).map_or(0, |i| i + 1);
    if used > 0 {
        let list: Vec<String> = c.args[..used].iter().map(u32::to_string).collect();
        items.push(format!("args=[{}]", list.join(", ")));
    }
    let live = usize::from(t.patch_count).min(t.patch_arg.len());
    let stored = (0..t.patch_arg.len())
        .rposition(|k| t.patch_arg[k] != 0 || t.patch_reg[k] != 0)
        .map_or(0, |k| k + 1);
    let listed = live.max(stored);
    if listed > 0 {
        let list: Vec<String> = (0..listed)
            .map(|k| format!("{}<-r{}", t.patch_arg[k], t.patch_reg[k]))
            .collect();
        items.push(format!("patches=[{}]", list.join(", ")));
    }
    if t.first_register != NO_REGISTER {
        items.push(format!("first={}", group_register_text(t.first_register)));
    }
    if t.count_register != NO_REGISTER {
        items.push(format!("count={}", group_register_text(t.count_register)));
    }
    if c.flags != 0 {
        items.push(format!("flags=0x{:02x}", c.flags));
    }
    if usize::from(t.patch_count) != listed {
        items.push(format!("patch_count={}", t.patch_count));
    }
    format!(".template {n} {}", items.join(", "))
}

/// An upload as `.kms` text (see the module doc).
pub fn disassemble(data: &[u8]) -> String {
    let mut out = String::new();
    let verdict = check(data, data.len() as u64);
    if let Err(e) = verdict {
        let _ = writeln!(
            out,
            "; the check rejects this upload: reason {} at pc {}",
            e.reason, e.pc
        );
    }
    let mut head = [0u8; HEADER_LEN];
    let n = data.len().min(HEADER_LEN);
    head[..n].copy_from_slice(&data[..n]);
    let word = |i: usize| read_u32(&head, 4 * i);
    let (op_count, command_count) = (u64::from(word(2)), u64::from(word(3)));
    let len = data.len() as u64;

    // What the data holds of the layout the header describes.
    let ops_room = len.saturating_sub(HEADER_LEN as u64) / OP_LEN as u64;
    let ops: Vec<MicroOp> = (0..op_count.min(ops_room) as usize)
        .map(|i| MicroOp::read(&data[HEADER_LEN + i * OP_LEN..]))
        .collect();
    let templates_at = HEADER_LEN as u64 + (op_count * OP_LEN as u64).div_ceil(64) * 64;
    let templates_room = len.saturating_sub(templates_at) / TEMPLATE_LEN as u64;
    let templates: Vec<Template> = (0..command_count.min(templates_room) as usize)
        .map(|j| {
            let at = templates_at as usize + j * TEMPLATE_LEN;
            Template::read(&data[at..at + TEMPLATE_LEN])
        })
        .collect();

    let mut line = format!(
        ".stream max_steps={} deadline_us={} req={} seed={}",
        word(4),
        word(5),
        word(6),
        word(7)
    );
    if word(0) != MAGIC {
        let _ = write!(line, " magic=0x{:08x}", word(0));
    }
    if word(1) != VERSION {
        let _ = write!(line, " version={}", word(1));
    }
    if op_count != ops.len() as u64 {
        let _ = write!(line, " op_count={op_count}");
    }
    if command_count != templates.len() as u64 {
        let _ = write!(line, " command_count={command_count}");
    }
    out.push_str(&line);
    out.push('\n');

    // Inline templates when the k-th ordinary SUBMIT/ENQUEUE uses template k, for all k.
    let uses: Vec<(usize, bool)> = ops
        .iter()
        .filter_map(|op| {
            let opcode = ordinary(op)?;
            (opcode.imm_kind() == ImmKind::Template)
                .then_some((op.imm as usize, opcode == Opcode::Submit))
        })
        .collect();
    let inline: Option<Vec<String>> = (uses.len() == templates.len()
        && uses.iter().enumerate().all(|(k, &(imm, _))| imm == k))
    .then(|| {
        uses.iter()
            .zip(&templates)
            .map(|(&(_, submit), t)| inline_text(t, submit))
            .collect()
    })
    .flatten();
    if inline.is_none() {
        for (j, t) in templates.iter().enumerate() {
            out.push_str(&explicit_text(j, t));
            out.push('\n');
        }
    }

    let mut is_target = vec![false; ops.len()];
    for op in &ops {
        if ordinary(op).is_some_and(|o| o.imm_kind() == ImmKind::Target)
            && let Some(t) = is_target.get_mut(op.imm as usize)
        {
            *t = true;
        }
    }
    let target = |t: u32| {
        if (t as usize) < ops.len() {
            format!("L{t}")
        } else {
            format!("@{t}")
        }
    };
    let mut next_inline = 0;
    for (pc, op) in ops.iter().enumerate() {
        if is_target[pc] {
            let _ = writeln!(out, "L{pc}:");
        }
        let text = match (&inline, ordinary(op).map(Opcode::imm_kind)) {
            (Some(list), Some(ImmKind::Template)) => {
                next_inline += 1;
                op_text(op, &target, Some(&list[next_inline - 1]))
            }
            _ => op_text(op, &target, None),
        };
        let _ = writeln!(out, "        {text}");
    }
    if upload_len(ops.len(), templates.len()) as u64 != len {
        let _ = writeln!(out, ".size {len}");
    }
    out
}
