#!/bin/bash -eu
# Builds every kmst fuzz target and ships its seed corpus and dictionary.
cd "$SRC/kmst"
cargo fuzz build -O --debug-assertions
for target in check sim_raw sim_structured builder; do
  cp "fuzz/target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
  if [ -d "fuzz/corpus/$target" ]; then
    (cd "fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
  cp fuzz/kmst.dict "$OUT/$target.dict"
done
