#!/usr/bin/env python3
"""Render docs/performance.md's generated time tables and put them between its markers.

The times of `kmst compare --json`: ns per micro-op and the speed-ups over
the switch loop and over the reference model, each a median of samples with
the interval compare reports. (The instruction tables are generated from the
committed baseline, benches/icount-baseline.tsv, by `scripts/icount-check.py
--docs`, between markers of their own.)

The report is read from a file when given (--compare), else measured here by
running `cargo run --release -q -- compare --json` in the repository (about a
minute, and the machine should be quiet). The tables replace the text between
`<!-- perf-tables:begin -->` and `<!-- perf-tables:end -->` in the document
(--stdout prints them instead). Every table is stamped with the commit
(`+dirty` when tracked files differ from it), the machine, the compiler and
the date.

Exit status: 0 done; 1 a measuring command failed; 2 a usage error or bad
input (a malformed JSON, a document without its markers).
"""

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys

BEGIN = "<!-- perf-tables:begin -->"
END = "<!-- perf-tables:end -->"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class BadInput(Exception):
    """Input the script cannot use: exit 2 with this message."""


class CommandFailed(Exception):
    """A measuring command failed: exit 1 with this message."""


# ---------------------------------------------------------------------------
# Numbers, as `kmst compare` prints them (harness/src/compare/render.rs fmt3).


def fmt_count(n):
    return f"{n:,}"


def fmt3(v):
    """Three significant figures; all integer digits with separators from
    1,000 up; scientific below 0.001."""
    if v is None or not math.isfinite(v):
        return "-"
    a = abs(v)
    if a >= 999.5:
        return ("-" if v < 0 else "") + fmt_count(round(a))
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a == 0:
        return "0"
    if a < 0.001:
        m, e = f"{v:.2e}".split("e")
        return f"{m}e{int(e)}"
    decimals = max(2 - math.floor(math.log10(a)), 3)
    return f"{v:.{decimals}f}"


def fmt_ci(s):
    """`median [lo, hi]` of a compare summary object, or `-`."""
    if s is None:
        return "-"
    lo, hi = s["median_ci"]
    return f"{fmt3(s['median'])} [{fmt3(lo)}, {fmt3(hi)}]"


def table(header, rows, left=1):
    """A markdown table; the first `left` columns left-aligned, the rest right."""
    out = ["| " + " | ".join(header) + " |"]
    out.append("|" + "|".join("---" if i < left else "---:" for i in range(len(header))) + "|")
    for r in rows:
        out.append("| " + " | ".join(r) + " |")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Inputs.


def read_text(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise BadInput(f"cannot read the {what} {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise BadInput(f"the {what} {path} is not UTF-8 text") from None


def need(obj, key, kind, where):
    if not isinstance(obj, dict) or key not in obj:
        raise BadInput(f"{where}: no `{key}`")
    v = obj[key]
    if kind is float:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    elif kind is int:
        ok = isinstance(v, int) and not isinstance(v, bool)
    else:
        ok = isinstance(v, kind)
    if not ok:
        raise BadInput(f"{where}: `{key}` is not {kind.__name__}")
    return v


def check_summary(s, where, nullable):
    """A compare summary object (n, median, median_ci, median_ci_level, ...)."""
    if s is None:
        if nullable:
            return None
        raise BadInput(f"{where}: null")
    if not isinstance(s, dict):
        raise BadInput(f"{where}: not a summary object")
    need(s, "n", int, where)
    need(s, "median", float, where)
    ci = need(s, "median_ci", list, where)
    if len(ci) != 2 or not all(isinstance(x, (int, float)) for x in ci):
        raise BadInput(f"{where}: `median_ci` is not two numbers")
    level = s.get("median_ci_level")
    if level is not None and not isinstance(level, (int, float)):
        raise BadInput(f"{where}: `median_ci_level` is not a number")
    return s


def parse_compare(text, name):
    """The report of `kmst compare --json` (harness/src/compare/render.rs, to_json)."""
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{name}: not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    settings = need(d, "settings", dict, name)
    need(settings, "samples", int, f"{name}: settings")
    need(settings, "sample_time_ms", int, f"{name}: settings")
    workloads = need(d, "workloads", list, name)
    if not workloads:
        raise BadInput(f"{name}: no workloads")
    for k, w in enumerate(workloads):
        where = f"{name}: workloads[{k}]"
        wname = need(w, "name", str, where)
        where = f"{name}: workload {wname}"
        need(w, "ops", int, where)
        need(w, "passes", int, where)
        for j, v in enumerate(need(w, "variants", list, where)):
            vw = f"{where}, variants[{j}]"
            vname = need(v, "variant", str, vw)
            vw = f"{where}, {vname}"
            check_summary(v.get("ns_per_run"), f"{vw}: ns_per_run", False)
            check_summary(v.get("ns_per_op"), f"{vw}: ns_per_op", True)
            check_summary(v.get("speedup_vs_switch"), f"{vw}: speedup_vs_switch", True)
            check_summary(v.get("speedup_vs_reference"), f"{vw}: speedup_vs_reference", True)
    return d


# ---------------------------------------------------------------------------
# Measuring, when no file is given.


def run(cmd, what):
    print(f"perf-tables: {what}: {' '.join(cmd)}", file=sys.stderr)
    try:
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    except OSError as e:
        raise CommandFailed(f"cannot run {cmd[0]}: {e.strerror}") from None
    if p.returncode != 0:
        raise CommandFailed(f"{' '.join(cmd)} exited with {p.returncode}")
    return p.stdout


def output(cmd):
    """A short command's output, or None when it cannot run."""
    try:
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None
    return p.stdout.strip() if p.returncode == 0 else None


# ---------------------------------------------------------------------------
# The stamp.


def commit_stamp():
    rev = output(["git", "rev-parse", "--short", "HEAD"])
    if rev is None:
        return "unknown"
    dirty = output(["git", "status", "--porcelain", "--untracked-files=no"])
    return rev + ("+dirty" if dirty else "")


def machine_stamp():
    model = None
    cores = 0
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model is None:
                    model = value.strip()
                elif key == "processor":
                    cores += 1
    except OSError:
        pass
    cores = cores or os.cpu_count() or 0
    cpu = model or platform.processor() or "unknown CPU"
    return f"{platform.machine()}, {cpu}, {cores} cores"


def stamp(args, kind):
    rustc = output(["rustc", "--version"]) or "rustc unknown"
    date = args.date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    commit = args.commit or commit_stamp()
    return f"*{kind}; commit {commit}; {args.machine or machine_stamp()}; {rustc}; {date}.*"


# ---------------------------------------------------------------------------
# The tables.


def render(report, args):
    out = ["<!-- generated by scripts/perf-tables.py: change the script, not these tables -->"]

    # Times: ns per micro-op, then the two speed-ups.
    s = report["settings"]
    level = next(
        (x["ns_per_run"].get("median_ci_level") for w in report["workloads"] for x in w["variants"]
         if x["ns_per_run"].get("median_ci_level") is not None),
        None,
    )
    preset = f" --{args.compare_mode}" if args.compare_mode not in (None, "default") else ""
    source = (f"`kmst compare{preset} --json`, {s['samples']} samples per cell of at least "
              f"{s['sample_time_ms']} ms, the variants round-robin")
    interval = "the median [its order-statistic interval" + (
        f", coverage {100 * level:.1f} %]" if level is not None else "]")
    # The variants in the report's order (kmst compare's: this build's, then the reference).
    timed = list(dict.fromkeys(x["variant"] for w in report["workloads"] for x in w["variants"]))

    def cell(w, variant, key):
        x = next((x for x in w["variants"] if x["variant"] == variant), None)
        return fmt_ci(x.get(key)) if x else "-"

    def times(title, key, variants, what, count=False):
        rows = [[w["name"]] + ([fmt_count(w["ops"])] if count else []) + [cell(w, v, key) for v in variants]
                for w in report["workloads"]]
        out.extend(["", f"### {title}", "", stamp(args, source), "", f"Each cell: {interval}{what}.", ""])
        out.append(table(["workload"] + (["micro-ops"] if count else []) + variants, rows))

    times("Nanoseconds per micro-op", "ns_per_op", timed, "", count=True)
    times("Speed-up over the switch loop", "speedup_vs_switch",
          [v for v in timed if v not in ("switch", "reference")],
          " of the per-sample ratios `switch time / variant time`")
    times("Speed-up over the reference model", "speedup_vs_reference",
          [v for v in timed if v != "reference"],
          " of the per-sample ratios `reference time / variant time`")
    return "\n".join(out) + "\n"


def replace_between(doc, block, path):
    b, e = doc.count(BEGIN), doc.count(END)
    if b != 1 or e != 1:
        raise BadInput(f"{path}: needs exactly one `{BEGIN}` and one `{END}` (found {b} and {e})")
    i, j = doc.index(BEGIN), doc.index(END)
    if j < i:
        raise BadInput(f"{path}: `{END}` comes before `{BEGIN}`")
    return doc[: i + len(BEGIN)] + "\n" + block + doc[j:]


def main(argv):
    ap = argparse.ArgumentParser(
        prog="scripts/perf-tables.py",
        description=__doc__.split("\n\n")[0],
        epilog=(
            "examples:\n"
            "  scripts/perf-tables.py                      # measure (a minute), update the document\n"
            "  scripts/perf-tables.py --compare c.json --stdout\n"
            "  cargo run --release -q -- compare --full --json > c.json\n"
            "  scripts/perf-tables.py --compare c.json --compare-mode full\n\n"
            "exit status: 0 done, 1 a measuring command failed, 2 usage error or bad input"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--compare", metavar="FILE", help="JSON of `kmst compare --json` (default: run it)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="when running compare: pass --quick (seconds, CI quality)")
    mode.add_argument("--full", action="store_true", help="when running compare: pass --full (several minutes)")
    ap.add_argument(
        "--compare-mode",
        choices=("quick", "default", "full"),
        help="with --compare FILE: the preset the file was taken with, for the stamp (default: not stated)",
    )
    ap.add_argument("--doc", metavar="FILE", default=os.path.join(ROOT, "docs", "performance.md"),
                    help="the document to update (default: docs/performance.md)")
    ap.add_argument("--stdout", action="store_true", help="print the tables instead of updating the document")
    ap.add_argument("--commit", metavar="REV",
                    help="the commit to stamp, when the inputs were measured on another tree than this one")
    ap.add_argument("--machine", metavar="TEXT", help="the machine to stamp, when the inputs come from another machine")
    ap.add_argument("--date", metavar="YYYY-MM-DD", help="the date to stamp (default: today, UTC)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if args.compare and (args.quick or args.full):
        print("perf-tables: --quick and --full apply when compare runs here; with --compare FILE use --compare-mode",
              file=sys.stderr)
        return 2
    if args.compare_mode and not args.compare:
        print("perf-tables: --compare-mode describes a --compare FILE; to choose how compare runs here, "
              "use --quick or --full", file=sys.stderr)
        return 2
    if not args.compare:
        args.compare_mode = "quick" if args.quick else "full" if args.full else "default"

    try:
        if not args.stdout:
            doc = read_text(args.doc, "document")
            replace_between(doc, "", args.doc)  # the markers, before minutes of measuring
        if args.compare:
            report = parse_compare(read_text(args.compare, "compare JSON"), args.compare)
        else:
            cmd = ["cargo", "run", "--release", "-q", "--", "compare", "--json"]
            if args.compare_mode != "default":
                cmd.append("--" + args.compare_mode)
            report = parse_compare(run(cmd, "times"), "kmst compare --json")
        block = render(report, args)
        if args.stdout:
            sys.stdout.write(block)
            return 0
        new = replace_between(doc, block, args.doc)
        if new != doc:
            tmp = args.doc + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(new)
            os.replace(tmp, args.doc)
        print(f"perf-tables: {args.doc} updated", file=sys.stderr)
        return 0
    except BadInput as e:
        print(f"perf-tables: {e}", file=sys.stderr)
        return 2
    except CommandFailed as e:
        print(f"perf-tables: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
