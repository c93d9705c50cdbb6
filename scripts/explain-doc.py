#!/usr/bin/env python3
"""docs/dispatch.md's side-by-side of the styles: ADD's machine code under every
variant, from `kmst explain add --dispatch all` on a release build.

    scripts/explain-doc.py           build the release kmst (cargo build --release -p
                                     kmst-cli) and rewrite the block between the markers
    scripts/explain-doc.py --check   exit 1 when the block differs from what the build
                                     prints now (nothing written)
    KMST=PATH scripts/explain-doc.py use that kmst instead of building one

The listings are the compiler's: a new nightly or a change to a handler moves
them, and this script writes them again. Exit status: 0 written (or current),
1 stale (--check), 2 a command that failed or a marker missing.
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generated import write_or_check  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "dispatch.md")
BEGIN = "<!-- explain:begin -->"
END = "<!-- explain:end -->"

# The handler shown for each variant, with what the reader looks at in it.
SHOWN = [
    ("tail", "add_charged", "ADD inside a block its head paid for: the body, then the next "
     "handler read from the table by the next instruction's op byte, and one jump"),
    ("tail", "add_counted", "the same, counted: one unit of fuel, and the exit when none is left"),
    ("tail", "add_head", "at a block's head: the whole block charged with one `sub`; too "
     "little fuel goes on as the counted handler"),
    ("threaded", "add_charged", "the next handler read from the next instruction itself: "
     "one load less than tail"),
    ("switch", "add_switch, inlined into switch::run", "the arm's path through the one loop "
     "function: shared code reached by jumps, the fuel counted, one shared jump table"),
    ("indirect", "add_indirect, inlined into indirect::central",
     "every `become` has a known callee, so LLVM inlines the ring into the central "
     "dispatch: a switch loop whose arms count the fuel themselves"),
    ("loop_match", "add_loop_match, inlined into loop_match::run", "the `#[loop_match]` state machine: "
     "a longer path to the same kind of jump table"),
    ("subroutine", "add_sub", "the unit returns to its loop with (next, fuel left) written "
     "through memory"),
]


def kmst_binary(args):
    path = os.environ.get("KMST")
    if path:
        return path
    if subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "kmst-cli"],
                      cwd=ROOT).returncode != 0:
        sys.exit("explain-doc: the release build failed")
    return os.path.join(ROOT, "target", "release", "kmst")


def section(out, name, dispatch):
    """The heading and listing of handler `name` under `dispatch` in `out`."""
    head = f"== {name} under {dispatch}:"
    start = out.find(head)
    if start < 0:
        sys.exit(f"explain-doc: no listing of {name} under {dispatch}")
    lines = out[start:].split("\n")
    body = []
    for line in lines[1:]:
        if line.startswith("== ") or line.startswith("# ") or not line.strip():
            break
        body.append(line)
    return body


def block(kmst):
    out = subprocess.run([kmst, "explain", "add", "--dispatch", "all"], cwd=ROOT,
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    table = out.split("\n\n", 1)[0]
    rustc = subprocess.run(["rustc", "--version"], cwd=ROOT, stdout=subprocess.PIPE,
                           text=True).stdout.strip()
    text = [BEGIN, "",
            f"`kmst explain add --dispatch all` on a release build ({rustc}, x86-64). "
            "Instructions per handler:", "", "```text", table, "```", ""]
    for dispatch, name, what in SHOWN:
        body = section(out, name, dispatch)
        # The source and symbol lines say where; the listing is what runs.
        listing = [l for l in body if re.match(r"^\s+\d+  ", l)]
        size = next((l.strip() for l in body if "instructions" in l), "")
        text += [f"**{dispatch}**, `{name}`: {what} ({size}).", "", "```text"]
        text += [l[3:] for l in listing]
        text += ["```", ""]
    text.append(END)
    return "\n".join(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when the block is stale")
    args = p.parse_args()
    doc = open(DOC, encoding="utf-8").read()
    if BEGIN not in doc or END not in doc:
        print(f"explain-doc: {DOC} has no {BEGIN} ... {END} block", file=sys.stderr)
        return 2
    new = block(kmst_binary(args))
    before, rest = doc.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    return write_or_check(DOC, before + new + after, args.check, "explain-doc")


if __name__ == "__main__":
    sys.exit(main())
