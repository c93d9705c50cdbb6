//! A function's machine code as a listing, for `kmst explain`: its
//! instructions in Intel syntax (`iced-x86`) with what each is for marked
//! (the load of the next handler and the jump to it, a return to the loop,
//! a field or register read), a loop's arm through its jump table, and a
//! compiled region's data apart from its code.

use iced_x86::{
    Decoder, DecoderOptions, FlowControl, Formatter, Instruction, IntelFormatter, Mnemonic, OpKind,
    Register,
};
use std::fmt::Write as _;

use kmst::exec::dispatch::explain;

use crate::binary::{Binary, Function};

/// One instruction of a listing.
pub struct Line {
    /// From the start of the listing.
    pub offset: u64,
    pub text: String,
    /// What it is for, where it is part of the dispatch or calls out.
    pub note: Option<String>,
}

/// `bytes`, loaded at file address `addr`, as instructions.
pub fn decode(bytes: &[u8], addr: u64) -> Vec<Instruction> {
    let mut decoder = Decoder::with_ip(64, bytes, addr, DecoderOptions::NONE);
    let mut out = Vec::new();
    while decoder.can_decode() {
        out.push(decoder.decode());
    }
    out
}

/// A compiled region's `bytes` (at address `addr`) as its instructions and
/// the data among them, each data run as a line of the listing: the jump
/// tables (a `lea` of the table, the `movsxd` that reads an entry; the
/// table ends where the first entry's code begins), the constants after the
/// code (read rip-relative), and the zero bytes that pad up to them.
pub fn code_and_data(bytes: &[u8], addr: u64) -> (Vec<Instruction>, Vec<Line>) {
    let end = addr + bytes.len() as u64;
    let inside = |t: u64| t >= addr && t < end;
    let all = decode(bytes, addr);
    let word = |at: u64| {
        let k = (at - addr) as usize;
        bytes
            .get(k..k + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut data: Vec<(u64, u64, String)> = Vec::new();
    for (k, i) in all.iter().enumerate() {
        if i.mnemonic() != Mnemonic::Movsxd || i.memory_index_scale() != 4 {
            continue;
        }
        let base = i.memory_base().full_register();
        let Some(table) = all[..k]
            .iter()
            .rev()
            .find(|j| j.mnemonic() == Mnemonic::Lea && j.op0_register().full_register() == base)
            .filter(|j| j.is_ip_rel_memory_operand() && inside(j.ip_rel_memory_address()))
            .map(Instruction::ip_rel_memory_address)
        else {
            continue;
        };
        let (mut at, mut stop) = (table, end);
        while at + 4 <= stop {
            let Some(target) = word(at).map(|e| table.wrapping_add(e as i64 as u64)) else {
                break;
            };
            if !inside(target) {
                break;
            }
            stop = stop.min(target);
            at += 4;
        }
        if at > table {
            let n = (at - table) / 4;
            data.push((table, at, format!("(jump table: {n} entries of 4 bytes)")));
        }
    }
    let in_data = |at: u64, data: &[(u64, u64, String)]| data.iter().any(|d| at >= d.0 && at < d.1);
    // The constants: the lowest address the code reads rip-relative.
    let pool = all
        .iter()
        .filter(|i| !in_data(i.ip(), &data) && i.mnemonic() != Mnemonic::Lea)
        .filter(|i| i.is_ip_rel_memory_operand() && inside(i.ip_rel_memory_address()))
        .map(Instruction::ip_rel_memory_address)
        .filter(|&d| !in_data(d, &data))
        .min();
    if let Some(pool) = pool {
        // The zero bytes before it pad the code to the constants' alignment.
        let mut from = pool;
        while from > addr && bytes[(from - addr - 1) as usize] == 0 {
            from -= 1;
        }
        if from < pool {
            data.push((from, pool, format!("(padding: {} bytes)", pool - from)));
        }
        data.push((pool, end, format!("(constants: {} bytes)", end - pool)));
    }
    data.sort_by_key(|d| d.0);
    // The code again, from each end of data to the next start.
    let mut code = Vec::new();
    let mut at = addr;
    for (from, to, _) in data
        .iter()
        .chain(std::iter::once(&(end, end, String::new())))
    {
        if *from > at {
            code.extend(decode(
                &bytes[(at - addr) as usize..(*from - addr) as usize],
                at,
            ));
        }
        at = at.max(*to);
    }
    let lines = data
        .into_iter()
        .map(|(from, _, text)| Line {
            offset: from - addr,
            text,
            note: None,
        })
        .collect();
    (code, lines)
}

/// The direct target of a branch or call, if it has one.
fn direct_target(i: &Instruction) -> Option<u64> {
    let direct = matches!(
        i.flow_control(),
        FlowControl::UnconditionalBranch | FlowControl::ConditionalBranch | FlowControl::Call
    ) && !matches!(i.op0_kind(), OpKind::Register | OpKind::Memory);
    direct.then(|| i.near_branch_target())
}

/// The listing of `instrs`, their offsets from `base`, the dispatch marked
/// (`bin` names what a call or a jump out reaches). `inside` is the
/// function the code belongs to: a direct jump out of it is a tail call.
pub fn listing(
    bin: Option<&Binary>,
    instrs: &[Instruction],
    base: u64,
    inside: (u64, u64),
) -> Vec<Line> {
    let mut formatter = IntelFormatter::new();
    formatter.options_mut().set_hex_prefix("0x");
    formatter.options_mut().set_hex_suffix("");
    formatter
        .options_mut()
        .set_space_after_operand_separator(true);
    let named = |t: u64| {
        bin.and_then(|b| b.name_of(t))
            .unwrap_or_else(|| format!("{t:#x}"))
    };
    let mut lines: Vec<Line> = instrs
        .iter()
        .map(|i| {
            let mut text = String::new();
            match direct_target(i) {
                // A branch within the function by its offset, else by name.
                Some(t) => {
                    formatter.format_mnemonic(i, &mut text);
                    if t >= inside.0 && t < inside.1 {
                        let _ = write!(text, " +{}", t - base);
                    } else {
                        let _ = write!(text, " {}", named(t));
                    }
                }
                None => formatter.format(i, &mut text),
            }
            Line {
                offset: i.ip().wrapping_sub(base),
                text,
                note: None,
            }
        })
        .collect();
    let roles = Roles::of(instrs);
    for (k, i) in instrs.iter().enumerate() {
        lines[k].note = roles.note(i);
        let target = direct_target(i);
        let note = match i.flow_control() {
            // `jmp [rip+X]`: a call's tail through a pointer slot.
            FlowControl::IndirectBranch if i.is_ip_rel_memory_operand() => {
                let to = bin.and_then(|b| b.slot_target(i.ip_rel_memory_address()));
                Some(format!(
                    "jump to {}",
                    to.map_or("a function".to_owned(), named)
                ))
            }
            FlowControl::IndirectBranch if i.op0_kind() == OpKind::Memory => {
                let base = i.memory_base().full_register();
                if let Some(lea) = (0..k).rev().find(|&j| {
                    instrs[j].mnemonic() == Mnemonic::Lea
                        && instrs[j].op0_register().full_register() == base
                }) {
                    lines[lea].note = Some("the handler table's address".to_owned());
                }
                Some("dispatch: load the next handler and jump to it".to_owned())
            }
            FlowControl::IndirectBranch => {
                let reg = i.op0_register().full_register();
                // The load of the target, or of its offset in a jump
                // table (a `movsxd` a few instructions before).
                let near = k.saturating_sub(6)..k;
                let load = (0..k)
                    .rev()
                    .find(|&j| writes_from_memory(&instrs[j], reg))
                    .or_else(|| {
                        near.rev()
                            .find(|&j| instrs[j].mnemonic() == Mnemonic::Movsxd)
                    });
                if let Some(load) = load {
                    lines[load].note = Some(if instrs[load].mnemonic() == Mnemonic::Movsxd {
                        "dispatch: the next arm's offset from the jump table".to_owned()
                    } else {
                        "dispatch: load the next handler".to_owned()
                    });
                    // `add reg, table`: the arm's address.
                    if let Some(add) = (load + 1..k).find(|&j| {
                        instrs[j].mnemonic() == Mnemonic::Add
                            && instrs[j].op0_kind() == OpKind::Register
                            && instrs[j].op0_register().full_register() == reg
                    }) {
                        lines[add].note = Some("plus the table's address".to_owned());
                    }
                    // The table's address, where the listing loads it.
                    if instrs[load].mnemonic() == Mnemonic::Movsxd {
                        let base = instrs[load].memory_base().full_register();
                        if let Some(lea) = (0..load).rev().find(|&j| {
                            instrs[j].mnemonic() == Mnemonic::Lea
                                && instrs[j].op0_register().full_register() == base
                        }) {
                            lines[lea].note = Some("the jump table's address".to_owned());
                        }
                    }
                }
                Some("dispatch: jump to it".to_owned())
            }
            FlowControl::UnconditionalBranch => match target {
                Some(t) if t < inside.0 || t >= inside.1 => {
                    Some(format!("dispatch: jump to {}", named(t)))
                }
                Some(t) if instrs.get(k + 1).is_some_and(|n| n.ip() == t) => {
                    Some("(followed)".to_owned())
                }
                _ => None,
            },
            FlowControl::Return => Some("return to the loop".to_owned()),
            FlowControl::Call => target.map(|t| format!("call {}", named(t))),
            FlowControl::IndirectCall if i.is_ip_rel_memory_operand() => {
                let to = bin.and_then(|b| b.slot_target(i.ip_rel_memory_address()));
                Some(format!(
                    "call {}",
                    to.map_or("a function".to_owned(), named)
                ))
            }
            _ => None,
        };
        if note.is_some() {
            lines[k].note = note;
        }
    }
    lines
}

/// What a listing's registers hold, read from its memory operands: the
/// instruction pointer (the base of the loads of an instruction's fields,
/// `kmst::exec::dispatch::explain::inst_fields`) and the register file
/// (the base of the loads and stores scaled by 4).
struct Roles {
    ip: Option<Register>,
    regs: Option<Register>,
    fields: [(usize, usize, &'static str); 6],
}

impl Roles {
    fn of(instrs: &[Instruction]) -> Roles {
        let fields = explain::inst_fields();
        let most = |pick: &dyn Fn(&Instruction) -> Option<Register>| {
            let mut counts: Vec<(Register, usize)> = Vec::new();
            for r in instrs.iter().filter_map(pick) {
                match counts.iter_mut().find(|(x, _)| *x == r) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((r, 1)),
                }
            }
            counts.into_iter().max_by_key(|&(_, n)| n).map(|(r, _)| r)
        };
        // A byte load of a register field (a, b or c) or the op byte.
        let ip = most(&|i: &Instruction| {
            let byte_field = fields.iter().any(|&(at, size, _)| {
                size == 1
                    && (at as u64 == i.memory_displacement64()
                        || (at + explain::INST_LEN) as u64 == i.memory_displacement64())
            });
            (memory_operand(i)
                && i.memory_index() == Register::None
                && i.memory_size().size() == 1
                && byte_field)
                .then(|| i.memory_base().full_register())
        });
        let regs = most(&|i: &Instruction| {
            (memory_operand(i)
                && i.memory_index() != Register::None
                && i.memory_index_scale() == 4
                && i.memory_size().size() == 4
                && i.mnemonic() != Mnemonic::Movsxd)
                .then(|| i.memory_base().full_register())
        });
        Roles { ip, regs, fields }
    }

    /// What `i` does with the instruction pointer, the register file or the
    /// fuel, where that can be read from it.
    fn note(&self, i: &Instruction) -> Option<String> {
        let len = explain::INST_LEN as u64;
        if memory_operand(i)
            && i.memory_index() == Register::None
            && Some(i.memory_base().full_register()) == self.ip
            && self.ip.is_some()
        {
            let d = i.memory_displacement64();
            let (next, d) = if d >= len {
                ("the next instruction's ", d - len)
            } else {
                ("", d)
            };
            let field = self.fields.iter().find(|&&(at, _, _)| at as u64 == d)?;
            if i.mnemonic() == Mnemonic::Sub {
                // A head subtracts its block's length, kept in this field.
                return Some(format!(
                    "fuel: the block charged (its length, in {})",
                    field.2
                ));
            }
            return Some(format!("{next}{}", field.2));
        }
        if memory_operand(i)
            && i.memory_index() != Register::None
            && Some(i.memory_base().full_register()) == self.regs
            && self.regs.is_some()
        {
            let store = i.op0_kind() == OpKind::Memory;
            return Some(if store {
                "a register written".to_owned()
            } else {
                "a register read".to_owned()
            });
        }
        let on_ip =
            i.op0_kind() == OpKind::Register && Some(i.op0_register().full_register()) == self.ip;
        let steps = (i.mnemonic() == Mnemonic::Add && on_ip && i.immediate(1) == len)
            || (i.mnemonic() == Mnemonic::Lea
                && i.memory_base().full_register() == self.ip.unwrap_or(Register::None)
                && i.memory_index() == Register::None
                && i.memory_displacement64() == len);
        if steps {
            return Some("the next instruction".to_owned());
        }
        if i.mnemonic() == Mnemonic::Dec {
            return Some("fuel: one unit counted".to_owned());
        }
        if i.mnemonic() == Mnemonic::And
            && i.op_count() == 2
            && i.op1_kind() != OpKind::Register
            && i.op1_kind() != OpKind::Memory
            && i.immediate(1) as u32 == !u32::from(explain::HEAD_BIT)
        {
            return Some("the head bit cleared: the handler index".to_owned());
        }
        None
    }
}

/// Whether one of `i`'s operands is memory (not a `lea`'s address).
fn memory_operand(i: &Instruction) -> bool {
    i.mnemonic() != Mnemonic::Lea && (0..i.op_count()).any(|n| i.op_kind(n) == OpKind::Memory)
}

/// Whether `i` writes register `reg` (full width) from memory: a handler
/// pointer loaded from a table or an instruction.
fn writes_from_memory(i: &Instruction, reg: Register) -> bool {
    i.mnemonic() != Mnemonic::Lea
        && i.op_count() == 2
        && i.op0_kind() == OpKind::Register
        && i.op0_register().full_register() == reg
        && i.op1_kind() == OpKind::Memory
}

/// The arm of the loop function `f` that runs entry `index` of its jump
/// table (`arms` entries): where LLVM put the `match` on the handler index,
/// a table of 32-bit offsets from its own address (`lea` of the table,
/// `movsxd` of an entry, `add`, `jmp`). The arm is its path from its entry
/// to the next dispatch: the straight line, each jump within the loop
/// followed, a conditional branch not taken (the common path), up to the
/// loop's indirect jump, a return or a jump out. `Err` says why it was not
/// found.
pub fn arm(
    bin: &Binary,
    f: &Function<'_>,
    index: u8,
    arms: usize,
) -> Result<Vec<Instruction>, String> {
    let instrs = decode(f.bytes, f.addr);
    let end = f.addr + f.bytes.len() as u64;
    let inside = |t: u64| t >= f.addr && t < end;
    let mut targets = None;
    for (k, i) in instrs.iter().enumerate() {
        if !(i.flow_control() == FlowControl::IndirectBranch && i.op0_kind() == OpKind::Register) {
            continue;
        }
        // The entry's load, `movsxd reg, [base + index*4]`, then the
        // table's address: the last `lea base, [rip+X]` before it.
        let Some(entry) = instrs[..k]
            .iter()
            .rev()
            .take(4)
            .find(|j| j.mnemonic() == Mnemonic::Movsxd && j.op1_kind() == OpKind::Memory)
        else {
            continue;
        };
        let table_reg = entry.memory_base();
        let Some(table) = instrs[..k]
            .iter()
            .rev()
            .find(|j| {
                j.mnemonic() == Mnemonic::Lea
                    && j.op0_register().full_register() == table_reg.full_register()
                    && j.is_ip_rel_memory_operand()
            })
            .map(|j| j.ip_rel_memory_address())
        else {
            continue;
        };
        let Some(raw) = bin.bytes_at(table, 4 * arms as u64) else {
            continue;
        };
        let t: Vec<u64> = raw
            .chunks_exact(4)
            .map(|c| table.wrapping_add(i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64 as u64))
            .collect();
        if t.iter().all(|&t| inside(t)) {
            targets = Some(t);
            break;
        }
    }
    let targets =
        targets.ok_or_else(|| format!("{}: no jump table over the handler index found", f.name))?;
    // The path from the arm's entry.
    let at = |ip: u64| instrs.binary_search_by_key(&ip, Instruction::ip).ok();
    let mut k = at(targets[usize::from(index)]).ok_or("the arm's entry is not an instruction")?;
    let mut path = Vec::new();
    let mut seen = std::collections::HashSet::new();
    while path.len() < 4096 && seen.insert(k) {
        let i = instrs[k];
        path.push(i);
        match i.flow_control() {
            FlowControl::UnconditionalBranch => {
                match direct_target(&i).filter(|&t| inside(t)).and_then(at) {
                    Some(next) => k = next,
                    None => break,
                }
            }
            FlowControl::IndirectBranch | FlowControl::Return => break,
            _ => k += 1,
        }
        if k >= instrs.len() {
            break;
        }
    }
    Ok(path)
}
