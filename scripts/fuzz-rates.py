#!/usr/bin/env python3
"""Every fuzz target's rate against its floor (docs/fuzzing.md, "Rates").

    scripts/fuzz-rates.py LOGDIR            check: each LOGDIR/TARGET.log
                                            (a `scripts/fuzz.sh run TARGET 60`
                                            output) against fuzz/rates.tsv
    scripts/fuzz-rates.py --update LOGDIR   write the logs' rates into
                                            fuzz/rates.tsv

fuzz/rates.tsv holds, per target, libFuzzer's `stat::average_exec_per_sec`
of a 60-second run from the committed seeds, as measured when the file was
last written. A target fails when its run reached less than half of that
(a halved rate is a regression, not noise: the runs of one target spread
by a third at most on this machine, docs/fuzzing.md). Exit 0 when every
target with a log is at or above its floor, 1 when one is below (named),
2 on a missing log, rate or table row.
"""

import pathlib
import re
import sys

TABLE = pathlib.Path(__file__).resolve().parent.parent / "fuzz" / "rates.tsv"
RATE = re.compile(r"stat::average_exec_per_sec:\s*(\d+)")


def rate_of(log: pathlib.Path) -> int:
    """The rate a libFuzzer log reports (its last `average_exec_per_sec`)."""
    found = RATE.findall(log.read_text(errors="replace"))
    if not found:
        raise SystemExit(f"fuzz-rates: no stat::average_exec_per_sec in {log}")
    return int(found[-1])


def read_table() -> dict:
    rates = {}
    for line in TABLE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        target, rate = line.split("\t")[:2]
        rates[target] = int(rate)
    return rates


def main(argv: list) -> int:
    update = bool(argv) and argv[0] == "--update"
    if update:
        argv = argv[1:]
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    logs = sorted(pathlib.Path(argv[0]).glob("*.log"))
    if not logs:
        print(f"fuzz-rates: no TARGET.log in {argv[0]}", file=sys.stderr)
        return 2
    measured = {log.stem: rate_of(log) for log in logs}
    if update:
        lines = [
            "# target\texec/s: libFuzzer's stat::average_exec_per_sec of a",
            "# 60-second run from the committed seeds (scripts/fuzz.sh run,",
            "# FUZZ_ONE_BUILD=1); CI fails a target below half of it",
            "# (scripts/fuzz-rates.py, docs/fuzzing.md \"Rates\").",
        ]
        lines += [f"{t}\t{r}" for t, r in sorted(measured.items())]
        TABLE.write_text("\n".join(lines) + "\n")
        print(f"fuzz-rates: wrote {TABLE}")
        return 0
    table = read_table()
    low = []
    print(f"{'target':<16}{'exec/s':>8}{'table':>8}{'floor':>8}")
    for target, rate in measured.items():
        if target not in table:
            print(f"fuzz-rates: {target} has no row in {TABLE}", file=sys.stderr)
            return 2
        floor = table[target] // 2
        mark = "" if rate >= floor else "  below half the table's rate"
        print(f"{target:<16}{rate:>8}{table[target]:>8}{floor:>8}{mark}")
        if rate < floor:
            low.append(target)
    if low:
        print(f"fuzz-rates: below half their rate: {', '.join(low)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
