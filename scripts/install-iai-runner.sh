#!/usr/bin/env bash
# Installs gungraun-runner (the runner of the callgrind benchmarks,
# benches/benches/*_iai.rs) at exactly the version of the gungraun crate that
# benches/ uses (the runner refuses any other), unless it is already
# installed at that version. Valgrind must be installed separately
# (e.g. `apt-get install valgrind`).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
# The version pinned in benches/Cargo.toml (`gungraun = "=X.Y.Z"`).
version="$(sed -n 's/^gungraun = "=\([0-9][0-9.]*\)".*/\1/p' "$root/benches/Cargo.toml")"
if [ -z "$version" ]; then
    echo "install-iai-runner: no pinned gungraun version in benches/Cargo.toml" >&2
    exit 2
fi

# The runner's own --version only answers when called by the benchmark
# harness, so ask cargo: a line "gungraun-runner v0.20.0:".
installed="$(cargo install --list 2>/dev/null |
    sed -n 's/^gungraun-runner v\([0-9][0-9.]*\):.*/\1/p' || true)"

if [ "$installed" = "$version" ]; then
    echo "gungraun-runner $version is installed"
else
    echo "installing gungraun-runner $version (found: ${installed:-none})"
    cargo install gungraun-runner --version "$version" --locked
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "install-iai-runner: valgrind is not on PATH (apt-get install valgrind)" >&2
fi
