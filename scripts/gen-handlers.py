#!/usr/bin/env python3
"""Writes interp/src/exec/dispatch/handlers.rs, every handler written out under its
own name, from the lists it names: `for_each_op!` (interp/src/ops.rs),
`for_each_fused!` (interp/src/exec/inst.rs) and `sources!`
(interp/src/exec/operand.rs). CPython's way: the output is checked
in, read in every diff, and CI fails when it is stale (docs/dispatch.md, "Reading
a handler").

    python3 scripts/gen-handlers.py          write the file again
    python3 scripts/gen-handlers.py --check  exit 1 when it differs (nothing written)

A script rather than a test of the crate: after a change to a list, the crate
does not build until the file is written again.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generated import write_or_check  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = os.path.join(ROOT, "interp", "src", "ops.rs")
INST = os.path.join(ROOT, "interp", "src", "exec", "inst.rs")
OPERAND = os.path.join(ROOT, "interp", "src", "exec", "operand.rs")
OUT = os.path.join(ROOT, "interp", "src", "exec", "dispatch", "handlers.rs")

# A source of `for_each_fused!` as its type and in words.
SOURCES = {
    "": ("Regs", "its operands from the register file"),
    "a": ("src::a", "its `a` from the accumulator"),
    "b": ("src::b", "its `b` from the accumulator"),
    "c": ("src::c", "its `c` from the accumulator"),
    "in_place": ("src::in_place", "in place (its `b` is its `a`)"),
    "in_place_c": ("src::in_place_c", "in place (its `b` is its `a`), its `c` from the accumulator"),
    "group": ("src::group",
              "its first core and count from the registers the decoder wrote into `a` and `b`"),
}

# Kinds of handler: (suffix, cfg feature)
KINDS = [("counted", "chain"), ("charged", "chain"), ("head", "chain"), ("sub", "subroutine"),
         ("indirect", "indirect"), ("switch", "switch"), ("loop_match", "loop_match")]

KIND_DOC = {
    "counted": "The counted handler (tail, threaded): one unit of fuel a micro-op, then\n/// the next unit's counted or head handler. A turn starts here.",
    "charged": "The charged handler (tail, threaded): inside a block whose head paid,\n/// it counts nothing.",
    "head": "The head handler (tail, threaded): charges the whole block when the\n/// fuel covers it and goes on charged; else runs on counted.",
    "sub": "The subroutine: the unit counted, back to the subroutine loop.",
    "indirect": "The indirect handler: the unit counted, then the central dispatch.",
    "loop_match": "The loop_match arm: the unit counted.",
}
SAFETY_DOC = {
    "counted": "The handler contract (handler.rs).",
    "charged": "The handler contract (handler.rs); `fuel` may be 0 (the head paid).",
    "head": "The handler contract (handler.rs); `fuel` may be 0, and `ip` is a head\n/// with its block's length (`len_in_imm`).",
    "sub": "The handler contract (handler.rs).",
    "indirect": "The handler contract (handler.rs).",
    "switch": "The handler contract (handler.rs).",
    "loop_match": "The handler contract (handler.rs).",
}

SIG = {
    "counted": "<O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, _: Free, ctx: *mut (), fuel: u32) -> Exit",
    "charged": "<O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, _: Free, ctx: *mut (), fuel: u32) -> Exit",
    "head": "<O: Observer, N: NextHandler>(ip: *const Inst, regs: *mut u32, acc: u32, _: Free, ctx: *mut (), fuel: u32) -> Exit",
    "sub": "<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Result<(*const Inst, u32), Exit>",
    "indirect": "<O: Observer, C: Central>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Exit",
    "switch": "<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Flow",
    "switch_pair": "<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: u32) -> Result<(*const Inst, u32), Exit>",
    "loop_match": "<O: Observer>(ip: *const Inst, regs: *mut u32, ctx: *mut (), fuel: &mut u32) -> Flow",
}


def step(body, src, at, fuel, out, err):
    """One micro-op run: the body, the observer told, or the exit recorded."""
    e = f"exit_at::<O>(ctx, {at}, {fuel}, why)"
    if err:
        e = f"Err({e})"
    return [
        f"let {out} = match bodies::{body}::run::<O, {src}>({at}, regs, &mut *ctx.cast::<Ctx<O>>(), &mut acc) {{",
        f"    Ok(next) => next,",
        f"    Err(why) => return {e},",
        "};",
        f"observe::<O>(ctx, {at});",
    ]


def counted_steps(unit, fuel, err, stop):
    """The unit run counted from `fuel` units: its micro-ops, a pair stopping
    between them at one unit (`stop(mid)` is that statement). Leaves `next`."""
    steps = unit["idle"]
    if len(steps) == 1:
        (b, s), = steps
        return step(b, s, "ip", fuel, "next", err)
    (a, sa), (b, sb) = steps
    return (step(a, sa, "ip", fuel, "mid", err)
            + ["debug_assert!(mid == ip.add(1));",
               f"if {fuel} == 1 {{",
               "    // S17: the fuel ran out between the two.",
               f"    {stop('mid')}",
               "}"]
            + step(b, sb, "mid", f"{fuel} - 1", "next", err))


def charged_steps(unit, steps, left):
    """The unit run inside a paid block, `left` after the charge: a micro-op
    that stops gives its own unit back, and a pair's first the second's too."""
    if len(steps) == 1:
        (b, s), = steps
        return step(b, s, "ip", f"{left} + 1", "next", False)
    (a, sa), (b, sb) = steps
    return (step(a, sa, "ip", f"{left} + 2", "mid", False)
            + ["debug_assert!(mid == ip.add(1));"]
            + step(b, sb, "mid", f"{left} + 1", "next", False))


def used(unit):
    return len(unit["steps"])


def body(kind, unit):
    n = used(unit)
    if kind == "counted":
        return (["let mut acc = acc;"]
                + counted_steps(unit, "fuel", False, lambda mid: f"return exit_at::<O>(ctx, {mid}, 0, Exit::Fuel);")
                + [f"let fuel = fuel - {n};",
                   "if fuel == 0 {",
                   "    return exit_at::<O>(ctx, next, 0, Exit::Fuel);",
                   "}",
                   "become (N::counted::<O>((*next).op))(next, regs, acc, Free::uninit(), ctx, fuel)"])
    if kind == "charged":
        return (["let mut acc = acc;"] + charged_steps(unit, unit["steps"], "fuel")
                + ["become (N::of::<O>(next))(next, regs, acc, Free::uninit(), ctx, fuel)"])
    if kind == "head":
        imm = unit["len_in_imm"]
        hot = charged_steps(unit, unit["idle"], "left") + [
            "become (N::of::<O>(next))(next, regs, acc, Free::uninit(), ctx, left)"]
        return ([f"const IMM: bool = len_in_imm({imm});",
                 "let len = if IMM { (*ip).imm } else { u32::from((*ip).c) };",
                 "let (left, short) = fuel.overflowing_sub(len);",
                 "if !short {",
                 "    let mut acc = acc;"]
                + ["    " + l for l in hot]
                + ["} else {",
                   "    // The turn ends inside this block (kinds.rs `short_block`).",
                   "    match short_block::<O, N, IMM>(ip, ctx, left) {",
                   "        Ok((counted, fuel)) => become counted(ip, regs, acc, Free::uninit(), ctx, fuel),",
                   "        Err(why) => why,",
                   "    }",
                   "}"])
    if kind == "sub":
        return (["let mut acc = 0;"]
                + counted_steps(unit, "fuel", True, lambda mid: f"return Ok(({mid}, 0));")
                + [f"Ok((next, fuel - {n}))"])
    if kind == "indirect":
        return (["let mut acc = 0;"]
                + counted_steps(unit, "fuel", False, lambda mid: f"return exit_at::<O>(ctx, {mid}, 0, Exit::Fuel);")
                + [f"match fuel - {n} {{",
                   "    0 => exit_at::<O>(ctx, next, 0, Exit::Fuel),",
                   "    left => become (C::central::<O>())(next, regs, ctx, left),",
                   "}"])
    if kind == "loop_match":
        return (["let mut acc = 0;", "let fuel_in = *fuel;"]
                + counted_steps(unit, "fuel_in", True, lambda mid: f"return Err(exit_at::<O>(ctx, {mid}, 0, Exit::Fuel));")
                + [f"let left = fuel_in - {n};",
                   "if left == 0 {",
                   "    return Err(exit_at::<O>(ctx, next, 0, Exit::Fuel));",
                   "}",
                   "*fuel = left;",
                   "Ok(next)"])
    if kind == "switch":
        steps = unit["steps"]
        if len(steps) == 1:
            (b, _), = steps
            return [f"bodies::{b}::run::<O, Regs>(ip, regs, &mut *ctx.cast::<Ctx<O>>(), &mut 0)"]
        return (["let mut acc = 0;"]
                + counted_steps(dict(idle=[(b, "Regs") for b, _ in steps]), "fuel", True,
                                lambda mid: f"return Ok(({mid}, 0));")
                + ["Ok((next, fuel - 2))"])
    raise ValueError(kind)


SWITCH_DOC = {1: "The switch loop's arm: the body alone; the loop counts it.",
              2: "The switch loop's arm for a superinstruction: both micro-ops counted,\n/// `(next, fuel left)` back to the loop, which goes on from there."}
SAFETY_LINE = {
    "counted": "the handler contract; the body's `next` meets it again, with fuel left.",
    "charged": "the handler contract; the next instruction is in the block, or a head.",
    "head": "the handler contract; the block's other units run charged when the\n        // fuel covers it, else counted.",
    "sub": "the handler contract.",
    "indirect": "the handler contract; the central dispatch runs only with fuel left.",
    "switch": "the handler contract.",
    "loop_match": "the handler contract.",
}


def handler(kind, feature, unit):
    name = f"{unit['snake']}_{kind}"
    doc = SWITCH_DOC[used(unit)] if kind == "switch" else KIND_DOC[kind]
    lines = [f"/// {unit['doc']}", "///", f"/// {doc}", "///", "/// # Safety", f"/// {SAFETY_DOC[kind]}",
             f'#[cfg(feature = "{feature}")]']
    sig = SIG["switch_pair" if kind == "switch" and used(unit) == 2 else kind]
    chained = kind in ("counted", "charged", "head", "indirect")
    if kind == "switch" and used(unit) == 1:
        sig = sig.replace("fuel: u32", "_: u32")
    if not chained:
        if kind != "sub":
            # An arm of its loop (the subroutine's address is in its table).
            lines.append("#[inline(always)]")
        lines.append(f"pub(crate) unsafe fn {name}{sig} {{")
    else:
        lines.append(f"fn {name}{sig} {{")
    lines.append(f"    // SAFETY: {SAFETY_LINE[kind]}")
    lines.append("    unsafe {")
    lines += ["        " + l for l in body(kind, unit)]
    lines += ["    }", "}"]
    lines = "\n".join(lines).split("\n")
    if chained:
        lines = ["become_fn! {"] + ["    " + l for l in lines] + ["}"]
    return lines


HEADER = """\
// @generated by scripts/gen-handlers.py from `for_each_op!` (ops.rs),
// `for_each_fused!` (exec/inst.rs) and `sources!` (exec/operand.rs): do not
// edit. `python3 scripts/gen-handlers.py` writes it again; CI fails when it
// is stale.

//! Every handler of the interpreter, written out under its own name: one
//! section a unit (a micro-op, `End`, a superinstruction, an operand
//! variant), in handler-index order, each holding the unit's code under
//! every variant of the build:
//!
//! - `NAME_counted`, `NAME_charged`, `NAME_head`: the tail and threaded
//!   variants' chained handlers (kinds.rs says what each kind does);
//! - `NAME_sub`: the subroutine loop's (and the compiled tier's) unit;
//! - `NAME_indirect`: the indirect variant's handler;
//! - `NAME_switch`, `NAME_loop_match`: the arm of each loop.
//!
//! Each runs the micro-op's body (`bodies::Name::run`, bodies/), tells the
//! observer, and records where the turn stopped (`exit_at`) or goes on.
//! `kmst explain NAME` prints each one's machine code (docs/dispatch.md,
//! "Reading a handler").

#![allow(unused_imports)]

#[cfg(any(feature = "chain", feature = "subroutine", feature = "indirect"))]
use super::kinds::*;
use crate::exec::bodies::{self, Ctx, OpBody};
use crate::exec::handler::become_fn;
use crate::exec::inst::{Exit, Flow, Free, HANDLERS, Inst, OpIndex, len_in_imm};
use crate::exec::observer::Observer;
use crate::exec::operand::{Regs, src};
use crate::exec::step::{exit_at, observe};
use crate::ops::Opcode;
"""

FOOTER = """\
        }
    };
}
pub(crate) use for_each_handler;

// The sections are in handler-index order, one a handler index; a list
// changed since this file was written fails to build here (and where the
// tables are built): run `python3 scripts/gen-handlers.py`.
macro_rules! in_index_order {
    ($($index:ident: $($name:ident)*;)*) => {
        const _: () = {
            let mut k = 0;
            $(
                assert!(OpIndex::$index as usize == k);
                k += 1;
            )*
            assert!(k == HANDLERS);
        };
    };
}
for_each_handler!(in_index_order);
"""


def block(path, macro):
    """The text from `macro_rules! macro` on in file `path`."""
    text = open(path, encoding="utf-8").read()
    start = text.index(f"macro_rules! {macro}")
    return text[start:]


def lists():
    ops = re.findall(r'^\s+(\w+) = \d+, (\w+), \[[a-c ]*\], \w+, "([^"]*)";$',
                     block(OPS, "for_each_op"), re.M)
    fused_text = block(INST, "for_each_fused")
    fused = re.findall(r"^\s+(\w+) = (\w+)(?:\((\w+)\))? \+ (\w+)(?:\((\w+)\))?;$", fused_text, re.M)
    variants = re.findall(r"^\s+(\w+) = (\w+)\((\w+)\);$", fused_text, re.M)
    held = dict(re.findall(r"^\s+(\w+): \[[\w, ]*\], held (\w+);$", block(OPERAND, "sources"), re.M))
    if not ops or not fused or not variants or not held:
        sys.exit("gen-handlers: a list was not found where this script reads it")
    return ops, fused, variants, held


def snake(name):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def units():
    """Every unit in handler-index order: its index, name, doc line, its
    micro-ops with their sources (`steps`), the same where nothing is held
    (`idle`: a variant's source `held`, operand.rs), and its first
    micro-op for `len_in_imm`."""
    ops, fused, variants, held = lists()

    def idle(t):
        return t if t == "Regs" else ("Regs" if held[t[len("src::"):]] == "Regs" else "src::" + held[t[len("src::"):]])

    mnemonic = {name: mn.upper() for name, mn, _ in ops}
    out = []
    for name, mn, doc in ops:
        steps = [(name, "Regs")]
        out.append(dict(index=name, doc=f"`{mn.upper()}`: {doc}.", steps=steps, idle=steps,
                        len_in_imm=f"Some(Opcode::{name})"))
    steps = [("End", "Regs")]
    out.append(dict(index="End", doc="`End`, the sentinel after the last micro-op: ends the stream (S15).",
                    steps=steps, idle=steps, len_in_imm="None"))
    for name, first, fsrc, second, ssrc in fused:
        (ft, fw), (st, sw) = SOURCES[fsrc], SOURCES[ssrc]
        steps = [(first, ft), (second, st)]
        out.append(dict(index=name, steps=steps, idle=steps, len_in_imm=f"Some(Opcode::{first})",
                        doc=f"The superinstruction {mnemonic[first]} ({fw}) then {mnemonic[second]} ({sw})."))
    for name, base, s in variants:
        t, w = SOURCES[s]
        out.append(dict(index=name, steps=[(base, t)], idle=[(base, idle(t))],
                        len_in_imm=f"Some(Opcode::{base})", doc=f"{mnemonic[base]}, {w}."))
    for u in out:
        u["snake"] = snake(u["index"])
    return out


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render():
    us = units()
    text = HEADER + (
        "\n/// The build stops here first when a list changed since this file was\n"
        "/// written: run `python3 scripts/gen-handlers.py`.\n"
        f"const _RUN_SCRIPTS_GEN_HANDLERS_PY: [(); HANDLERS] = [(); {len(us)}];\n")
    sections, fns = [], []
    for u in us:
        # The section's first line is the one after the blank one.
        sections.append(text.count("\n") + 2)
        text += f"\n// {u['snake']}: {u['doc']}\n"
        at = []
        for kind, feature in KINDS:
            text += "\n"
            body = handler(kind, feature, u)
            fn = next(k for k, l in enumerate(body) if f"fn {u['snake']}_{kind}<" in l)
            at.append(text.count("\n") + 1 + fn)
            text += "\n".join(body) + "\n"
        fns.append(at)
    kinds = ", ".join(f'"{k}"' for k, _ in KINDS)
    text += ("\n/// The kinds of handler, as each handler's name ends.\n"
             "#[allow(dead_code)] // read by explain.rs, which a build of switch or loop_match alone leaves out\n"
             f"pub(crate) const KINDS: [&str; {len(KINDS)}] = [{kinds}];\n")
    text += ("\n/// Every unit in handler-index order: its name (the handlers' names\n"
             "/// without the kind), what it is, the first line of its section, and\n"
             "/// the line of each of its handlers (`fn`), in the order of [`KINDS`].\n"
             "#[allow(dead_code)] // as KINDS\n"
             f"pub(crate) const UNITS: [(&str, &str, u32, [u32; {len(KINDS)}]); HANDLERS] = [\n")
    for u, line, at in zip(us, sections, fns):
        text += f"    ({rust_str(u['snake'])}, {rust_str(u['doc'])}, {line}, {at}),\n"
    text += "];\n"
    kinds = " ".join(k for k, _ in KINDS)
    text += ("\n/// Calls `$m!` with every unit's handlers in handler-index order, one\n"
             f"/// entry `Index: {kinds};` each.\n"
             "#[allow(unused_macros)]\n"
             "macro_rules! for_each_handler {\n    ($m:ident) => {\n        $m! {\n")
    for u in us:
        text += f"            {u['index']}: {' '.join(f'{u[chr(115)+chr(110)+chr(97)+chr(107)+chr(101)]}_{k}' for k, _ in KINDS)};\n"
    text += FOOTER
    ones = "".join(f"            {u['index']}: {u['snake']}_switch;\n" for u in us if used(u) == 1)
    pairs = "".join(f"            {u['index']}: {u['snake']}_switch;\n" for u in us if used(u) == 2)
    text += ("\n/// Calls `$m!` with the switch loop's arms, `[one micro-op] [superinstructions]`,\n"
             "/// one entry `Index: NAME_switch;` each: the two return differently.\n"
             "#[allow(unused_macros)]\n"
             "macro_rules! for_each_switch_arm {\n    ($m:ident) => {\n        $m! {\n"
             f"            [\n{ones}            ]\n            [\n{pairs}            ]\n"
             "        }\n    };\n}\n#[allow(unused_imports)]\npub(crate) use for_each_switch_arm;\n")
    return text


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when the file is stale")
    args = p.parse_args()
    return write_or_check(OUT, render(), args.check, "gen-handlers")

if __name__ == "__main__":
    sys.exit(main())
