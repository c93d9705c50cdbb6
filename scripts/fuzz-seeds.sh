#!/usr/bin/env bash
# Rewrites the fuzz targets' seed corpora (fuzz/corpus/TARGET/) and the
# dictionary (fuzz/kmst.dict) from corpus/streams; see docs/fuzzing.md.
# The seed directories of every target (fuzz/fuzz_targets/*.rs) are emptied
# first, so a seed of a removed stream goes too (keep fuzzer-found inputs in
# a separate working corpus, not here). `cargo test -p kmst-cli --test
# fuzz_seeds_cli` fails when the committed seeds differ from these.
set -euo pipefail
cd "$(dirname "$0")/.."
for source in fuzz/fuzz_targets/*.rs; do
  rm -rf "fuzz/corpus/$(basename "$source" .rs)"
done
cargo run -q -p kmst-cli -- fuzz-seeds --corpus corpus/streams --out fuzz/corpus --dict fuzz/kmst.dict
