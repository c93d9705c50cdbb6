#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every kmst fuzz target, with its seed
# corpus and the dictionary (docs/fuzzing.md). `cargo fuzz build` writes the
# binaries to fuzz/target/x86_64-unknown-linux-gnu/release/TARGET.
cd "$SRC/kmst"
cargo fuzz build -O --debug-assertions
release=fuzz/target/x86_64-unknown-linux-gnu/release
for target in $(cargo fuzz list); do
  cp "$release/$target" "$OUT/"
  if [ -d "fuzz/corpus/$target" ]; then
    (cd "fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
  cp fuzz/kmst.dict "$OUT/$target.dict"
done
