#!/usr/bin/env bash
# Rewrites the fuzz targets' seed corpora (fuzz/corpus/TARGET/) and the
# dictionary (fuzz/kmst.dict) from corpus/streams; see docs/fuzzing.md.
# The seed directories are emptied first, so a seed of a removed stream goes
# too (keep fuzzer-found inputs in a separate working corpus, not here).
set -euo pipefail
cd "$(dirname "$0")/.."
for target in check sim_raw sim_structured builder; do
  rm -rf "fuzz/corpus/$target"
done
cargo run -q -p kmst-cli -- fuzz-seeds --corpus corpus/streams --out fuzz/corpus --dict fuzz/kmst.dict
