#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every kmst fuzz target, with its seed
# corpus and the dictionary (docs/fuzzing.md). scripts/fuzz.sh holds each
# target's build options.
cd "$SRC/kmst"
scripts/fuzz.sh build
for target in $(scripts/fuzz.sh list); do
  cp "$(scripts/fuzz.sh bin "$target")" "$OUT/"
  if [ -d "fuzz/corpus/$target" ]; then
    (cd "fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
  cp fuzz/kmst.dict "$OUT/$target.dict"
done
