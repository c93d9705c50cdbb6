#!/usr/bin/env python3
"""Instruction counts as a contract: every cell against benches/icount-baseline.tsv.

A cell is one bundled workload (streams and scenarios) on one variant of
`Dispatch::ALL`, `jit_compile` (the compiled tier's compile, apart from its
run) or the reference model, or a first-answer step on a straight-line
upload (check, decode, a whole run); `icount_cell --list` names them all
(benches/src/bin/icount_cell.rs says what each counts). Each is run once
uncounted and then RUNS times (default 1) under callgrind, counting only the
cell's own work (`--toggle-collect=icount_cell::counted`), so a count is
exact and the same run after run.

    scripts/icount-check.py                 measure every cell and compare it with the
                                            baseline: exit 1 naming every cell more than
                                            its tolerance (1 %) above or below it
    UPDATE_ICOUNT=1 scripts/icount-check.py (or --update) measure and rewrite the baseline,
                                            then docs/performance.md's instruction tables
    scripts/icount-check.py --docs          only rewrite those tables from the baseline
    scripts/icount-check.py --twice         measure every cell twice and report any
                                            difference between the two (determinism)
    scripts/icount-check.py --cells 'alu/*' only the cells matching the pattern(s)

A cell that moves is a change of the engine's cost: when it is meant, update
the baseline in the same commit and say why in CHANGELOG.md or in the register
of docs/decisions.md when the counts went up (CONTRIBUTING.md, "The
instruction-count baseline").

Exit status: 0 every cell within its tolerance (or updated); 1 a cell off, new
or missing; 2 a usage error or a command that failed.
"""

import argparse
import concurrent.futures
import datetime
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "benches", "icount-baseline.tsv")
DOC = os.path.join(ROOT, "docs", "performance.md")
BEGIN = "<!-- icount-tables:begin -->"
END = "<!-- icount-tables:end -->"
EXAMPLE = "icount_cell"
TOLERANCE = 0.01
# Cells allowed to move by more than TOLERANCE, with the reason (none so far:
# every cell gives the same count run after run, `--twice`).
WIDER = {}
PROFILE = 'release (lto = "thin", codegen-units = 1)'


class Failed(Exception):
    """A command failed or an input is bad: exit 2 with this message."""


def out(cmd, **kw):
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, **kw)
    return p.stdout.strip() if p.returncode == 0 else None


def commit_stamp():
    rev = out(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    dirty = out(["git", "status", "--porcelain", "--untracked-files=no"])
    return rev + ("+dirty" if dirty else "")


def build(args):
    """The release build of the cell runner; its path."""
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    binary = os.path.join(target, "release", EXAMPLE)
    if not args.no_build:
        print(f"icount: cargo build --release -p kmst-benches --bin {EXAMPLE}", file=sys.stderr)
        if subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "kmst-benches",
                           "--bin", EXAMPLE], cwd=ROOT).returncode != 0:
            raise Failed("the build failed")
    if not os.path.exists(binary):
        raise Failed(f"no {binary}")
    return os.path.abspath(binary)


def list_cells(binary):
    """[(cell, micro-ops)] in the runner's order."""
    p = subprocess.run([binary, "--list"], stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise Failed(f"{EXAMPLE} --list exited with {p.returncode}")
    cells = []
    for line in p.stdout.splitlines():
        cell, ops = line.split("\t")
        cells.append((cell, int(ops)))
    return cells


def count(binary, cell, runs, tmp):
    """Instructions of one run of `cell`: callgrind over `runs` counted runs."""
    cg = os.path.join(tmp, cell.replace("/", "__") + ".cg")
    # The same process everywhere: the runner started from its own directory
    # as ./icount_cell with a fixed environment, so that neither the path of
    # the checkout nor the caller's environment moves the stack's contents
    # (and with them alignments that memcpy and friends branch on).
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
           f"--toggle-collect={EXAMPLE}::counted", f"--callgrind-out-file={cg}",
           f"./{EXAMPLE}", cell, str(runs)]
    p = subprocess.run(cmd, cwd=os.path.dirname(binary), env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise Failed(f"{cell}: valgrind exited with {p.returncode}:\n{p.stderr[-2000:]}")
    total = None
    with open(cg, encoding="utf-8") as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
    os.remove(cg)
    if total is None:
        raise Failed(f"{cell}: no total in callgrind's output")
    return total // runs


def measure(binary, cells, runs, jobs, order_hint):
    """{cell: instructions}, `jobs` cells at a time, the longest first."""
    tmp = tempfile.mkdtemp(prefix="icount.")
    try:
        todo = sorted(cells, key=lambda c: -order_hint.get(c, 1 << 62))
        result = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(count, binary, c, runs, tmp): c for c in todo}
            for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                c = futures[fut]
                result[c] = fut.result()
                if not os.environ.get("ICOUNT_QUIET"):
                    print(f"icount: [{n}/{len(todo)}] {c} {result[c]:,}", file=sys.stderr)
        return result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# The baseline file.


def read_baseline(path=BASELINE):
    """(header {key: value}, [(cell, instructions, micro-ops)])."""
    header, rows = {}, []
    if not os.path.exists(path):
        return header, rows
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                key, sep, value = line[1:].partition(":")
                if sep and re.fullmatch(r" ?[a-z ]+", key):
                    header[key.strip()] = value.strip()
                continue
            if not line.strip() or line.startswith("cell\t"):
                continue
            cols = line.split("\t")
            if len(cols) != 3:
                raise Failed(f"{path}:{n}: expected cell, instructions, micro-ops: {line!r}")
            rows.append((cols[0], int(cols[1]), int(cols[2])))
    return header, rows


def write_baseline(cells, counts, runs, path=BASELINE):
    rustc = out(["rustc", "--version"]) or "unknown"
    valgrind = out(["valgrind", "--version"]) or "unknown"
    lines = [
        "# Instruction counts of every cell, callgrind instructions per run: the contract that",
        "# scripts/icount-check.py checks in CI (1 % either way). Do not edit by hand:",
        "# `UPDATE_ICOUNT=1 scripts/icount-check.py` rewrites it (CONTRIBUTING.md, \"The",
        "# instruction-count baseline\"); benches/src/bin/icount_cell.rs says what a cell counts.",
        f"# commit: {commit_stamp()}",
        f"# date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')}",
        f"# rustc: {rustc}",
        f"# profile: {PROFILE}, RUSTFLAGS {os.environ.get('RUSTFLAGS') or 'unset'}",
        f"# machine: {os.uname().machine}",
        f"# valgrind: {valgrind}",
        f"# runs: {runs} counted after 1 uncounted",
        "cell\tinstructions\tmicro-ops",
    ]
    lines += [f"{c}\t{counts[c]}\t{ops}" for c, ops in cells]
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


# ---------------------------------------------------------------------------
# docs/performance.md's instruction tables, from the baseline.


def fmt(n):
    return f"{n:,}"


def per_op(count, ops):
    v = count / ops
    return fmt(round(v)) if v >= 999.995 else f"{v:.2f}"


def ratio(a, b):
    v = a / b
    return fmt(round(v)) if v >= 999.5 else f"{v:.0f}" if v >= 99.95 else f"{v:.1f}" if v >= 9.995 else f"{v:.2f}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def render(header, rows):
    counts = {c: i for c, i, _ in rows}
    ops = {c.split("/")[0]: o for c, _, o in rows}
    workloads, whats = [], []
    loads, steps = [], []
    for c, _, _ in rows:
        w, what = c.split("/")
        lw, lwhat = (loads, steps) if w.startswith("load_") else (workloads, whats)
        if w not in lw:
            lw.append(w)
        if what not in lwhat:
            lwhat.append(what)
    stamp = (f"*callgrind instructions per run, `benches/icount-baseline.tsv` (commit {header.get('commit', '?')}, "
             f"{header.get('date', '?')}; {header.get('machine', '?')}; {header.get('rustc', '?')}; "
             f"{header.get('runs', '?')} run).*")
    get = lambda w, v: counts.get(f"{w}/{v}")  # noqa: E731
    cell = lambda w, v, f: f(get(w, v)) if get(w, v) is not None else "-"  # noqa: E731
    o = ["<!-- generated from benches/icount-baseline.tsv by scripts/icount-check.py --docs: "
         "do not edit by hand -->", "", "### Instructions per run", "", stamp, "",
         "`jit`: the run with its program compiled before (check, pre-decode and run), "
         "`jit_compile`: that compile alone; every other cell a whole run.", ""]
    ratios = [b for b in ("switch", "reference") if b in whats and "tail" in whats]
    r = []
    for w in workloads:
        row = [w, fmt(ops[w])] + [cell(w, v, fmt) for v in whats]
        row += [ratio(get(w, b), get(w, "tail")) if get(w, b) and get(w, "tail") else "-" for b in ratios]
        r.append(row)
    o += table(["workload", "micro-ops"] + whats + [f"{b} / tail" for b in ratios], r)
    o += ["", "### Instructions per micro-op", "",
          stamp.replace("per run,", "per run divided by the micro-ops of a run,"), ""]
    r = [[w] + [cell(w, v, lambda x, w=w: per_op(x, ops[w]) if ops[w] else "-") for v in whats] for w in workloads]
    o += table(["workload"] + whats, r)
    if loads:
        o += ["", "### The first answer", "", stamp, "",
              "A straight-line upload of N micro-ops (`kmst_benches::straight_upload`): the check, the decode "
              "(`Prepared::new`: the check, the pre-decode, the upload's copy) and a whole run; the last row "
              "is the cost per micro-op between the two largest sizes.", ""]
        r = [[fmt(ops[lw])] + [cell(lw, s, fmt) for s in steps] for lw in loads]
        if len(loads) >= 2:
            a, b = loads[-2], loads[-1]
            d = ops[b] - ops[a]
            r.append([f"per micro-op, {fmt(ops[a])} → {fmt(ops[b])}"] +
                     [f"{(get(b, s) - get(a, s)) / d:.2f}" if get(a, s) is not None and get(b, s) is not None
                      else "-" for s in steps])
        o += table(["micro-ops"] + steps, r)
    return "\n".join(o) + "\n"


def write_docs(path=DOC):
    header, rows = read_baseline()
    if not rows:
        raise Failed(f"{BASELINE}: no cells")
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    if doc.count(BEGIN) != 1 or doc.count(END) != 1 or doc.index(END) < doc.index(BEGIN):
        raise Failed(f"{path}: needs one `{BEGIN}` and, after it, one `{END}`")
    i, j = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    new = doc[:i] + "\n" + render(header, rows) + doc[j:]
    if new != doc:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(path + ".tmp", path)
    print(f"icount: {os.path.relpath(path, ROOT)}: instruction tables written from the baseline", file=sys.stderr)


# ---------------------------------------------------------------------------


def main(argv):
    ap = argparse.ArgumentParser(prog="scripts/icount-check.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="rewrite the baseline (as UPDATE_ICOUNT=1)")
    ap.add_argument("--docs", action="store_true", help="only rewrite docs/performance.md's tables from the baseline")
    ap.add_argument("--twice", action="store_true", help="measure twice and report the cells whose counts differ")
    ap.add_argument("--cells", nargs="+", metavar="PATTERN", help="only the cells matching (fnmatch: 'alu/*')")
    ap.add_argument("--runs", type=int, default=int(os.environ.get("ICOUNT_RUNS", "1")),
                    help="counted runs per cell (default 1, ICOUNT_RUNS)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("ICOUNT_JOBS", os.cpu_count() or 1)),
                    help="cells at a time (default: one per core, ICOUNT_JOBS)")
    ap.add_argument("--no-build", action="store_true", help="use the runner already built")
    ap.add_argument("--tsv", action="store_true", help="print the measured counts (cell, instructions)")
    args = ap.parse_args(argv)
    update = args.update or os.environ.get("UPDATE_ICOUNT") == "1"
    try:
        if args.docs:
            write_docs()
            return 0
        if shutil.which("valgrind") is None:
            raise Failed("valgrind is not installed")
        binary = build(args)
        cells = list_cells(binary)
        if args.cells:
            if update:
                raise Failed("--update writes every cell: leave --cells out")
            cells = [(c, o) for c, o in cells if any(fnmatch.fnmatchcase(c, p) for p in args.cells)]
            if not cells:
                raise Failed("no cell matches " + " ".join(args.cells))
        header, rows = read_baseline()
        base = {c: (i, o) for c, i, o in rows}
        hint = {c: i for c, (i, _) in base.items()}
        names = [c for c, _ in cells]
        got = measure(binary, names, args.runs, args.jobs, hint)
        if args.twice:
            again = measure(binary, names, args.runs, args.jobs, hint)
            diff = [(c, got[c], again[c]) for c in names if got[c] != again[c]]
            for c, a, b in diff:
                print(f"icount: {c}: {a:,} then {b:,} ({b - a:+,})")
            print(f"icount: {len(names) - len(diff)} of {len(names)} cells gave the same count twice")
            if diff:
                return 1
        if args.tsv:
            for c in names:
                print(f"{c}\t{got[c]}")
        if update:
            write_baseline(cells, got, args.runs)
            print(f"icount: {os.path.relpath(BASELINE, ROOT)}: {len(cells)} cells written", file=sys.stderr)
            write_docs()
            return 0
        rustc = out(["rustc", "--version"])
        other_rustc = bool(header.get("rustc")) and rustc != header["rustc"]
        bad = []
        for c, ops in cells:
            if c not in base:
                bad.append(f"{c}: {got[c]:,}, not in the baseline (a new cell)")
                continue
            b, bops = base[c]
            tol = WIDER.get(c, (TOLERANCE,))[0]
            change = (got[c] - b) / b if b else (0.0 if got[c] == 0 else float("inf"))
            if abs(change) > tol:
                way = "more" if change > 0 else "fewer"
                bad.append(f"{c}: {got[c]:,} against {b:,}, {abs(change) * 100:.2f} % {way} "
                           f"(tolerance {tol * 100:g} %)")
            if ops != bops:
                bad.append(f"{c}: {ops:,} micro-ops a run against the baseline's {bops:,}")
        if not args.cells:
            bad += [f"{c}: in the baseline, no longer a cell" for c in base if c not in dict(cells)]
        if bad:
            print(f"icount: {len(bad)} of {len(cells)} cells off their baseline "
                  f"({os.path.relpath(BASELINE, ROOT)}):")
            for line in bad:
                print(f"  {line}")
            if other_rustc and os.environ.get("ICOUNT_STRICT") != "1":
                # The counts are a contract for the compiler the baseline
                # names (the pinned nightly); another one (the nightly
                # workflow's newest) is reported, not failed.
                print(f"icount: not failed: the baseline was made with {header['rustc']}, this is {rustc}\n"
                      "(ICOUNT_STRICT=1 fails anyway; moving the pin refreshes the baseline)")
                return 0
            print("If the change is meant, run `UPDATE_ICOUNT=1 scripts/icount-check.py` and commit the baseline\n"
                  "and docs/performance.md with it (and say why in CHANGELOG.md when the counts went up).",
                  file=sys.stderr)
            return 1
        print(f"icount: every one of {len(cells)} cells within its tolerance of the baseline")
        return 0
    except Failed as e:
        print(f"icount: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
