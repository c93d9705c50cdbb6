#!/usr/bin/env python3
"""Operator mutants where cargo-mutants does not look: `unsafe fn` bodies and
macros (docs/fuzzing.md, "What cargo-mutants leaves out").

cargo-mutants never mutates an `unsafe fn`, nor the body of a `macro_rules!`
or the arguments of a macro call. In the fast engine that is most of the hot
code: the micro-op bodies, the operand reads, the dispatch loops and the
step functions. This script makes cargo-mutants' operator mutants (an `==`
made `!=`, a `+` made `-` or `*`, a `!` deleted, ...) in those places, builds
each with the test set of a cargo-mutants configuration and runs it, and sorts
the outcomes as cargo-mutants does: caught (a test failed), missed (all
passed), unviable (it did not build), timeout. Which files it reads, the
mutants it leaves out as equivalent (each with its reason) and which
cargo-mutants configuration's tests judge them are in
.cargo/mutants-unsafe.toml (the engine without the compiled tier) and
.cargo/mutants-unsafe-jit.toml (the compiled tier's lowerings).

    scripts/mutants-unsafe.py --list            # the mutants, one a line
    scripts/mutants-unsafe.py -j 2              # run them all
    scripts/mutants-unsafe.py -F 'in Add' -j 1  # only the names matching
    scripts/mutants-unsafe.py --baseline        # the test set, unmutated
    scripts/mutants-unsafe.py --first-failing mutants.out  # which binary kills

`cargo test` stops at the first test binary that fails, so a binary that is
never the first to fail for any caught mutant can leave the test set without
losing a kill. --first-failing counts, over a finished run's caught mutants
(this script's or cargo-mutants'), which binary failed first, and names the
binaries of the configuration's test set that never did.

Exit status: 0 when none was missed and none timed out, 2 when one was
missed, 3 when one timed out and none was missed, 1 on a bad baseline
(and, with --list, when an exclusion names no mutant or none is found).
Operators are found by their spacing (rustfmt puts a space on both sides of
a binary operator), so a few "mutants" are of a generic's `<` or a
pattern's `|`; they do not build and count as unviable.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".cargo" / "mutants-unsafe.toml"

# cargo-mutants' replacements for each binary operator.
BINARY = {
    "==": ["!="], "!=": ["=="],
    "<": ["==", ">", "<="], ">": ["==", "<", ">="], "<=": [">"], ">=": ["<"],
    "+": ["-", "*"], "-": ["+", "/"], "*": ["+", "/"], "/": ["%", "*"], "%": ["/", "+"],
    "&": ["|", "^"], "|": ["&", "^"], "^": ["|", "&"],
    "&&": ["||"], "||": ["&&"], "<<": [">>"], ">>": ["<<"],
    "+=": ["-=", "*="], "-=": ["+=", "/="], "*=": ["+=", "/="], "/=": ["%=", "*="],
    "%=": ["/=", "+="], "&=": ["|=", "^="], "|=": ["&=", "^="], "^=": ["|=", "&="],
    "<<=": [">>="], ">>=": ["<<="],
}
OPS = sorted(BINARY, key=len, reverse=True)
BINARY_RE = re.compile(r"(?<=\s)(" + "|".join(re.escape(o) for o in OPS) + r")(?=\s)")
NOT_RE = re.compile(r"(?<=[\s(])!(?=[A-Za-z_(*$])")
FN_RE = re.compile(r"\bfn\s+(\w+)")
MACRO_DEF_RE = re.compile(r"^\s*macro_rules!\s*(\w+)")
MACRO_CALL_RE = re.compile(r"^(\w+)!\s*\{")
CFG_RE = re.compile(r'^\s*#\[cfg\(feature = "(\w+)"\)\]\s*$')


def code_part(line):
    """The line without its comment (no string here holds `//`)."""
    at = line.find("//")
    return line if at < 0 else line[:at]


def regions(lines):
    """(first, last, name) for each `unsafe fn` body, `macro_rules!` and
    top-level macro call; the test modules are skipped."""
    out, i, n = [], 0, len(lines)
    while i < n:
        code = code_part(lines[i])
        stripped = code.strip()
        if stripped == "#[cfg(test)]" and i + 1 < n and lines[i + 1].lstrip().startswith("mod "):
            end = block_end(lines, i + 1)  # None for `mod tests;`
            i = (i + 1 if end is None else end) + 1
            continue
        name = None
        m = MACRO_DEF_RE.match(code) or MACRO_CALL_RE.match(code)
        if m:
            name = m.group(1)
        elif re.search(r"\bunsafe\s+(extern\s+\S+\s+)?fn\s+\w", code):
            name = FN_RE.search(code[code.index("unsafe"):]).group(1)
        if name is None:
            i += 1
            continue
        end = block_end(lines, i)
        if end is not None:
            out.append((i, end, name))
            i = end + 1
        else:
            i += 1
    return out


def block_end(lines, start):
    """The line where the brace block opened at or after `start` closes;
    None for a declaration that ends with `;` before any `{`."""
    depth, opened = 0, False
    for j in range(start, len(lines)):
        for ch in code_part(lines[j]):
            if ch == ";" and not opened:
                return None
            if ch == "{":
                depth += 1
                opened = True
            elif ch == "}" and opened:
                depth -= 1
                if depth == 0:
                    return j
    return None


def mutants_of(path, text):
    lines = text.split("\n")
    found = []
    for first, last, region_name in regions(lines):
        fn, in_assert = region_name, 0
        for j in range(first, last + 1):
            code = code_part(lines[j])
            # A line right under `#[cfg(feature = "…")]` is built only with
            # that feature: its mutants say so (`… in enter (feature jit)`).
            cfg = CFG_RE.match(code_part(lines[j - 1])) if j > first else None
            tag = f" (feature {cfg.group(1)})" if cfg else ""
            m = FN_RE.search(code)
            if m and j > first:
                fn = m.group(1)
            # An assertion (a `const { assert!(…) }` of a contract, over
            # several lines) guards the code; it is not what the code does.
            if "assert!(" in code or in_assert:
                in_assert += code.count("(") - code.count(")")
                continue
            s = code.strip()
            if not s or s.startswith("#["):
                continue
            where = f"{path}:{j + 1}"
            for m in BINARY_RE.finditer(code):
                for new in BINARY[m.group(1)]:
                    found.append((f"{where}:{m.start() + 1}: replace {m.group(1)} with {new} in {fn}{tag}",
                                  j, m.start(), m.group(1), new))
            for m in NOT_RE.finditer(code):
                found.append((f"{where}:{m.start() + 1}: delete ! in {fn}{tag}", j, m.start(), "!", ""))
    return found


def all_mutants(config):
    files = set()
    for g in config["examine_globs"]:
        files.update(glob.glob(str(ROOT / g), recursive=True))
    for g in config.get("exclude_globs", []):
        files.difference_update(glob.glob(str(ROOT / g), recursive=True))
    excluded = [re.compile(r) for r in config.get("exclude_re", [])]
    examined = [re.compile(r) for r in config.get("examine_re", [])]
    kept, dropped, used = [], [], set()
    for f in sorted(files):
        rel = os.path.relpath(f, ROOT)
        for m in mutants_of(rel, Path(f).read_text()):
            if examined and not any(r.search(m[0]) for r in examined):
                continue
            hits = [r.pattern for r in excluded if r.search(m[0])]
            used.update(hits)
            (dropped if hits else kept).append((rel,) + m)
    stale = [r.pattern for r in excluded if r.pattern not in used]
    return kept, dropped, stale


def cargo_args(engine):
    args = ["--profile", engine.get("profile", "test")]
    for p in engine["test_package"]:
        args += ["-p", p]
    if engine.get("no_default_features"):
        args.append("--no-default-features")
    if engine.get("features"):
        args += ["--features", ",".join(engine["features"])]
    return args + engine.get("additional_cargo_args", [])


def run(cmd, cwd, timeout):
    env = dict(os.environ, CARGO_TARGET_DIR=str(cwd / "target"))
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, ""


RUNNING_RE = re.compile(r"Running [^\n]*?/deps/(\w+)-[0-9a-f]+\b")


def first_failing(log):
    """The test binary a failed `cargo test` stopped in: the last it started."""
    runs = RUNNING_RE.findall(log)
    return runs[-1] if runs else None


def test_binaries(engine):
    """The test set's binaries, as cargo names them in target/*/deps."""
    args, names = engine.get("additional_cargo_args", []), []
    for i, arg in enumerate(args):
        if arg == "--lib":
            names += [p.replace("-", "_") for p in engine["test_package"]]
        elif arg == "--test":
            names.append(args[i + 1])
    return names


def first_failing_counts(out):
    """{binary: caught mutants it failed first} over a finished run in `out`:
    this script's outcomes.json, or cargo-mutants' (its logs read again)."""
    outcomes = json.loads((Path(out) / "outcomes.json").read_text())
    counts = {}
    if isinstance(outcomes, list):
        firsts = [o.get("first_failing") for o in outcomes if o["outcome"] == "caught"]
    else:
        firsts = []
        for o in outcomes["outcomes"]:
            if o.get("summary") == "CaughtMutant":
                log = (Path(out) / o["log_path"]).read_text(errors="replace")
                # The test phase follows the last `cargo test` without --no-run.
                firsts.append(first_failing(log[log.rfind("cargo test --profile"):]))
    for name in firsts:
        counts[name or "?"] = counts.get(name or "?", 0) + 1
    return counts


def first_failing_report(counts, binaries):
    """The lines --first-failing prints: each binary's count, then the test
    set's binaries never first, which are not known while some caught
    mutant's record names none."""
    lines = [f"{n:6} {name}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1])
             if name != "?"]
    never = ", ".join(b for b in binaries if b not in counts) or "none"
    if "?" in counts:
        lines.append(f"{counts['?']:6} not known (a run before this script recorded it, "
                     "or a log cut short)")
        never = f"not known (among the known: {never})" if len(counts) > 1 else "not known"
    return lines + [f"never first: {never}"]


def copy_tree(dest):
    if dest.exists():
        shutil.rmtree(dest)
    skip = shutil.ignore_patterns("target", ".git", "mutants.out*", "__pycache__", ".venv")
    shutil.copytree(ROOT, dest, ignore=skip, symlinks=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default=str(CONFIG), help="which files, which exclusions, which tests")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    ap.add_argument("--baseline", action="store_true",
                    help="run the configuration's test set unmutated, in this tree, and stop "
                    "(what `cargo mutants --baseline skip` leaves out)")
    ap.add_argument("-F", "--re", help="only the mutants whose name matches this regex")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="scratch trees built and tested at once")
    ap.add_argument("--timeout", type=int, default=60, help="seconds a mutant's tests may take")
    ap.add_argument("--build-timeout", type=int, default=600, help="seconds a build may take")
    ap.add_argument("--shard", help="k/n: every n-th mutant from the k-th (0-based)")
    ap.add_argument("-o", "--output", default="mutants.out-unsafe", help="directory of the outcomes")
    ap.add_argument("--scratch", default=None, help="where the scratch trees go (default: a temp dir)")
    ap.add_argument("--first-failing", metavar="DIR",
                    help="count which test binary failed first for each caught mutant of the "
                    "run in DIR (this script's -o, or cargo-mutants' mutants.out) and stop")
    a = ap.parse_args()

    config = tomllib.loads(Path(a.config).read_text())
    engine = tomllib.loads((ROOT / config["tests"]).read_text()) if "tests" in config else config
    if a.first_failing:
        if not (Path(a.first_failing) / "outcomes.json").is_file():
            print(f"{a.first_failing}: no outcomes.json here (give the run's output directory)",
                  file=sys.stderr)
            return 1
        print("\n".join(first_failing_report(first_failing_counts(a.first_failing),
                                              test_binaries(engine))))
        return 0
    if a.baseline:
        cmd = ["cargo", "test", *cargo_args(engine)]
        print(" ".join(cmd), flush=True)
        return subprocess.run(cmd, cwd=ROOT).returncode
    kept, dropped, stale = all_mutants(config)
    if a.re:
        kept = [m for m in kept if re.search(a.re, m[1])]
    if a.shard:
        k, n = (int(x) for x in a.shard.split("/"))
        kept = kept[k::n]
    if a.list:
        for m in kept:
            print(m[1])
        print(f"{len(kept)} mutants, {len(dropped)} excluded", file=sys.stderr)
        for r in stale:
            print(f"exclude_re {r!r} names no mutant: the code moved or changed", file=sys.stderr)
        if not kept:
            print("no mutants: the configuration's globs name no code", file=sys.stderr)
        return 1 if stale or not kept else 0

    out = Path(a.output)
    out.mkdir(parents=True, exist_ok=True)
    args = cargo_args(engine)
    scratch = Path(a.scratch or os.environ.get("TMPDIR", "/tmp")) / "kmst-mutants-unsafe"
    queue = list(kept)
    lock = threading.Lock()
    outcomes = []
    started = time.time()
    print(f"{len(kept)} mutants to test ({len(dropped)} excluded), {a.jobs} jobs", flush=True)

    def worker(w):
        tree = scratch / f"w{w}"
        copy_tree(tree)
        code, log = run(["cargo", "test", *args], tree, a.build_timeout + a.timeout)
        if code != 0:
            with lock:
                outcomes.append(("baseline", "failed", 0, None))
                print(f"job {w}: the unmutated tree fails its tests:\n{log[-3000:]}", flush=True)
            return
        while True:
            with lock:
                if not queue or any(o[1] == "failed" for o in outcomes):
                    return
                rel, name, line, col, old, new = queue.pop(0)
            path = tree / rel
            text = path.read_text()
            lines = text.split("\n")
            row = lines[line]
            assert row[col:col + len(old)] == old, name
            lines[line] = row[:col] + new + row[col + len(old):]
            path.write_text("\n".join(lines))
            t0, first = time.time(), None
            code, log = run(["cargo", "test", "--no-run", *args], tree, a.build_timeout)
            if code is None:
                outcome = "timeout"
            elif code != 0:
                outcome = "unviable"
            else:
                code, log = run(["cargo", "test", *args], tree, a.timeout)
                outcome = "timeout" if code is None else ("missed" if code == 0 else "caught")
                first = first_failing(log) if outcome == "caught" else None
            path.write_text(text)
            with lock:
                outcomes.append((name, outcome, time.time() - t0, first))
                done = len(outcomes)
                print(f"[{done}/{len(kept)} {time.time() - started:.0f}s] {outcome}: {name}", flush=True)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(a.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    if any(o[1] == "failed" for o in outcomes):
        return 1
    by = {}
    for name, outcome, _, _ in outcomes:
        by.setdefault(outcome, []).append(name)
    for outcome in ("caught", "missed", "unviable", "timeout"):
        (out / f"{outcome}.txt").write_text("".join(n + "\n" for n in sorted(by.get(outcome, []))))
    (out / "outcomes.json").write_text(json.dumps(
        [{"mutant": n, "outcome": o, "seconds": round(s, 1), "first_failing": f}
         for n, o, s, f in outcomes], indent=1))
    counts = {o: len(by.get(o, [])) for o in ("caught", "missed", "unviable", "timeout")}
    print(f"{len(outcomes)} tested: " + ", ".join(f"{v} {k}" for k, v in counts.items())
          + f"; {len(dropped)} excluded; {time.time() - started:.0f}s")
    if counts["missed"]:
        return 2
    return 3 if counts["timeout"] else 0


if __name__ == "__main__":
    sys.exit(main())
