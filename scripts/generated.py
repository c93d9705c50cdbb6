"""What the scripts that write a checked-in file share: write it when it
changed, or with --check exit 1 when it is stale (gen-handlers.py,
architecture.py, explain-doc.py)."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_or_check(path, want, check, script):
    """Writes `want` to `path` when it differs; with `check`, writes nothing
    and returns 1 when it differs (naming `script`, which writes it), else 0."""
    rel = os.path.relpath(path, ROOT)
    have = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if check:
        if have != want:
            print(f"{script}: {rel} is stale: run python3 scripts/{script}.py", file=sys.stderr)
            return 1
        print(f"{script}: {rel} is current")
        return 0
    if have != want:
        with open(path, "w", encoding="utf-8") as f:
            f.write(want)
    return 0
