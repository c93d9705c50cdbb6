#!/usr/bin/env python3
"""Writes docs/architecture.svg, the picture of docs/architecture.md, from the
description below: the boxes (a name, the folders and files they stand for, a
note), the frames around them and the arrows between them. Plain SVG, no
dependencies.

    python3 scripts/architecture.py          write the picture again
    python3 scripts/architecture.py --check  exit 1 when it differs or names a
                                             path that does not exist (nothing written)

Every path a box names is checked, so a folder moved without the picture
fails CI (.ci/run, the layers step).
"""

import argparse
import os
import sys
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generated import write_or_check  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "architecture.svg")

WIDTH, HEIGHT = 900, 820
# Column x positions and widths inside the engine's frame.
A, B, C, COL = 30, 350, 630, 250

# The boxes: name, the paths shown under it (each must exist), the files
# inside the first path shown on one line (each must exist), notes, and the
# box's top-left corner and width. Its height follows from its lines.
BOXES = {
    "build": dict(name="builder, assembler", paths=["interp/src/builder.rs", "interp/src/asm/"],
                  notes=["a stream made in code or from .kms"], x=B, y=50, w=COL),
    "ops": dict(name="the micro-ops", paths=["interp/src/ops.rs"],
                notes=["for_each_op!: each one defined once;", "the check, bodies and handlers", "are generated from it"],
                x=C, y=50, w=240),
    "check": dict(name="check", paths=["interp/src/check.rs"],
                  notes=["the kernel's check (S2..S6)"], x=A, y=50, w=COL),
    "decode": dict(name="decode", paths=["interp/src/exec/decode/"],
                   notes=["16-byte instructions, blocks, pairs"], x=A, y=150, w=COL),
    "machine": dict(name="machine", paths=["interp/src/exec/machine/"],
                    notes=["the pass loop, the turns, the idle skip"], x=A, y=250, w=COL),
    "dispatch": dict(name="dispatch", paths=["interp/src/exec/dispatch/"],
                     files=["handlers.rs", "kinds.rs"],
                     notes=["a loop per variant; the handlers"], x=A, y=350, w=COL),
    "bodies": dict(name="bodies", paths=["interp/src/exec/bodies/"],
                   notes=["each micro-op written once"], x=A, y=470, w=COL),
    "compiled": dict(name="compiled tiers", paths=["interp/src/exec/compiled/"],
                     files=["cranelift/", "stencil/", "tiered.rs", "lower.rs"],
                     notes=["jit, tiered: Cranelift code;", "stencil: copied stencils"], x=B, y=350, w=COL),
    "kernel": dict(name="kernel", paths=["interp/src/exec/kernel/"],
                   notes=["slots and the sweep, the job", "queue, the groups, the records,", "the completion models"],
                   x=C, y=250, w=240, h=282),
    "types": dict(name="shared types", paths=["types/"],
                  notes=["parameters, answers, scenarios"], x=10, y=585, w=230),
    "reference": dict(name="reference model", paths=["reference/"],
                      notes=["the oracle, straight from the specification"], x=390, y=585, w=500),
    "harness": dict(name="harness", paths=["harness/"], notes=["answers, corpus,", "compare, profile"],
                    x=25, y=720, w=160),
    "fuzz": dict(name="fuzz targets", paths=["fuzz/"], notes=["libFuzzer,", "ClusterFuzzLite"], x=197, y=720, w=160),
    "benches": dict(name="benchmarks", paths=["benches/"], notes=["criterion, callgrind,", "wasmi, native Rust"],
                    x=369, y=720, w=160),
    "cli": dict(name="command line", paths=["cli/"], notes=["kmst run, compare, ..."], x=541, y=720, w=160),
    "python": dict(name="Python package", paths=["python/"], notes=["PyO3, maturin"], x=713, y=720, w=160),
}

# Frames drawn behind the boxes: a title, the path it stands for, the corners.
FRAMES = [
    dict(name="kmst, the engine", path="interp/", x=10, y=10, w=880, h=555),
    dict(name="what judges and drives them: the same inputs through both, every answer compared",
         path=None, x=10, y=680, w=880, h=130),
]

# Arrows: from (box, side), to (box, side), a label, where the label goes.
# A side is n, s, e or w, with an optional offset along it ("e+20"); "w="
# takes the other end's height (or, for n and s, its x): a level arrow.
ARROWS = [
    (("build", "w"), ("check", "e="), "an upload", "above"),
    (("check", "s"), ("decode", "n"), "accepted", "right"),
    (("decode", "s"), ("machine", "n"), "the program", "right"),
    (("machine", "s"), ("dispatch", "n"), "each turn", "right"),
    (("dispatch", "s"), ("bodies", "n"), "each micro-op", "right"),
    (("dispatch", "e"), ("compiled", "w="), "jit, tiered", "above"),
    (("compiled", "s-60"), ("bodies", "e-12"), "lowers each body", "below"),
    (("machine", "e"), ("kernel", "w="), "passes, sweep, the queue's turn", "above"),
    (("bodies", "e+12"), ("kernel", "w="), "SUBMIT, ENQUEUE, WAIT, ...", "below"),
]
# Arrows between two points (a frame's edge to a box or a frame): from, to,
# a label, where it goes.
FREE_ARROWS = [
    ((315, 680), (315, 565), "every variant", "right"),
    ((640, 680), (640, 647), "the oracle", "right"),
]

FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
MONO = "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\""
LINE = 16


def lines_of(box):
    """The box's text lines: (kind, text)."""
    out = [("name", box["name"])]
    out += [("path", p) for p in box["paths"]]
    if box.get("files"):
        out.append(("path", ", ".join(box["files"])))
    out += [("note", n) for n in box.get("notes", [])]
    return out


def height(box):
    return box.get("h", 14 + LINE * len(lines_of(box)))


def anchor(name, spec, other=None):
    """The point `spec` ("e", "e+20", "w-12", "w=") of box `name`; "=" takes
    the other end's y on a side (e, w) or its x on a top or bottom (n, s)."""
    box = BOXES[name]
    side, rest = spec[0], spec[1:]
    x, y, w, h = box["x"], box["y"], box["w"], height(box)
    off = int(rest) if rest not in ("", "=") else 0
    p = {
        "n": (x + w / 2 + off, y),
        "s": (x + w / 2 + off, y + h),
        "e": (x + w, y + h / 2 + off),
        "w": (x, y + h / 2 + off),
    }[side]
    if rest == "=":
        p = (p[0], other[1]) if side in "ew" else (other[0], p[1])
    return p


def fmt(v):
    return f"{v:g}"


def arrow(p, q, label, where):
    (x1, y1), (x2, y2) = p, q
    out = [f'<line x1="{fmt(x1)}" y1="{fmt(y1)}" x2="{fmt(x2)}" y2="{fmt(y2)}" '
           f'stroke="#333" stroke-width="1.5" marker-end="url(#head)"/>']
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    lx, ly, a = {
        "above": (mx, my - 6, "middle"),
        "below": (mx, my + 14, "middle"),
        "right": (mx + 8, my + 4, "start"),
        "left": (mx - 8, my + 4, "end"),
    }[where]
    out.append(f'<text x="{fmt(lx)}" y="{fmt(ly)}" text-anchor="{a}" font-size="11" {FONT} '
               f'fill="#333" font-style="italic">{escape(label)}</text>')
    return out


def render():
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<!-- generated by scripts/architecture.py: do not edit by hand -->",
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}">',
        "<defs>",
        '<marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker>',
        "</defs>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
    ]
    for f in FRAMES:
        out.append(f'<rect x="{f["x"]}" y="{f["y"]}" width="{f["w"]}" height="{f["h"]}" rx="8" '
                   f'fill="#f4f6f8" stroke="#8a96a3" stroke-dasharray="6 4"/>')
        title = f'<tspan font-weight="bold">{escape(f["name"])}</tspan>'
        if f["path"]:
            title += f' <tspan {MONO} font-size="12">{escape(f["path"])}</tspan>'
        out.append(f'<text x="{f["x"] + 12}" y="{f["y"] + 20}" font-size="13" {FONT} fill="#333">{title}</text>')
    for name, box in BOXES.items():
        x, y, w, h = box["x"], box["y"], box["w"], height(box)
        out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="#ffffff" '
                   f'stroke="#34495e" stroke-width="1.5"/>')
        ty = y + 19
        for kind, text in lines_of(box):
            style = {
                "name": f'font-size="14" font-weight="bold" {FONT} fill="#1a2530"',
                "path": f'font-size="12" {MONO} fill="#1f5f8b"',
                "note": f'font-size="11.5" {FONT} fill="#444"',
            }[kind]
            out.append(f'<text x="{x + 10}" y="{ty}" {style}>{escape(text)}</text>')
            ty += LINE
    for (a, sa), (b, sb), label, where in ARROWS:
        p = anchor(a, sa)
        out += arrow(p, anchor(b, sb, p), label, where)
    for p, q, label, where in FREE_ARROWS:
        out += arrow(p, q, label, where)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def missing_paths():
    """Every path a box names that does not exist in the repository."""
    missing = []
    for box in BOXES.values():
        for p in box["paths"]:
            if not os.path.exists(os.path.join(ROOT, p)):
                missing.append(p)
        for f in box.get("files", []):
            p = os.path.join(box["paths"][0], f)
            if not os.path.exists(os.path.join(ROOT, p)):
                missing.append(p)
    for f in FRAMES:
        if f["path"] and not os.path.exists(os.path.join(ROOT, f["path"])):
            missing.append(f["path"])
    return missing


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when the picture is stale or names a missing path")
    args = p.parse_args()
    rel = os.path.relpath(OUT, ROOT)
    missing = missing_paths()
    if missing:
        print(f"architecture: {rel} names paths that do not exist: {', '.join(missing)}", file=sys.stderr)
        return 1
    return write_or_check(OUT, render(), args.check, "architecture")


if __name__ == "__main__":
    sys.exit(main())
