#!/usr/bin/env bash
# rustc as the fuzz builds run it (scripts/fuzz.sh sets this script as
# RUSTC_WRAPPER): the compiled tier's code generator (Cranelift, its
# register allocator) and the support crates below are built without the
# coverage instrumentation cargo-fuzz turns on for every crate
# (`-Cpasses=sancov-module` and its `-sanitizer-coverage-*` options);
# AddressSanitizer and everything else stay as cargo-fuzz sets them.
# Instrumented, Cranelift's branches were seven in eight of the features
# libFuzzer tracked, and keeping count of them two thirds of its time
# (docs/fuzzing.md, "Exec rate"): coverage belongs to kmst's own code.
set -euo pipefail
rustc="$1"
shift
crate=""
prev=""
for arg in "$@"; do
  if [ "$prev" = "--crate-name" ]; then
    crate="$arg"
    break
  fi
  prev="$arg"
done
case "$crate" in
  cranelift_* | regalloc2 | hashbrown | gimli | bumpalo | indexmap | serde_json | \
    rustc_hash | target_lexicon | region | memmap2 | wasmtime_internal_* | foldhash | libm)
    args=()
    for arg in "$@"; do
      case "$arg" in
        -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage-*) ;;
        *) args+=("$arg") ;;
      esac
    done
    exec "$rustc" "${args[@]}"
    ;;
esac
exec "$rustc" "$@"
