#!/bin/bash
# The fuzz targets, each built and run with its own options
# (docs/fuzzing.md). CI (.ci/run) and ClusterFuzzLite (.clusterfuzzlite/build.sh)
# call this script, so the options live here only.
#
#   scripts/fuzz.sh build                      build every target
#   scripts/fuzz.sh run TARGET [SECONDS] [-- LIBFUZZER_ARGS...]
#                                              fuzz TARGET (default 60 s) from a
#                                              temporary copy of its seeds, with
#                                              the dictionary; exit 1 on a finding
#   scripts/fuzz.sh bin TARGET                 the path of TARGET's binary
#   scripts/fuzz.sh list                       the targets
#   scripts/fuzz.sh keep [TARGET...]           keep every input in
#                                              fuzz/artifacts/TARGET/ as a regression
#                                              input (fuzz/regressions/TARGET/, which
#                                              `cargo test` replays) and report it
#
# Options per target:
# - Every target: release build with debug assertions (-O --debug-assertions),
#   AddressSanitizer, the dictionary fuzz/kmst.dict; Cranelift and its support
#   crates without coverage instrumentation (scripts/fuzz-rustc.sh).
# - sizes: built as sim_structured (below), with its own limits (run_args).
# - resume: built and run as sim_structured; its input is generator bytes too.
# - sim_structured: built without comparison tracing (--no-trace-compares)
#   in its own target directory. Its input is generator bytes
#   (arbitrary::Unstructured), which no comparison in the kmst code reads
#   directly, so the traced comparisons guide nothing; over four
#   implementations they cost 40 % of its time. docs/fuzzing.md ("Exec rate")
#   has the measurements.
# - FUZZ_ONE_BUILD=1 (CI: .ci/run sets it): every target built and run as
#   the untraced ones are, so that one build (fuzz/target/untraced) serves
#   every target, not two builds of the engine and Cranelift under ASan (the two
#   took half of CI's fuzzing step). In a minute's run from the seeds the
#   untraced build reached as much coverage as the traced one, or more, on
#   the three traced targets: it runs more inputs (docs/fuzzing.md, "CI and
#   ClusterFuzzLite"). Comparison tracing pays in long runs, which
#   ClusterFuzzLite makes without this variable.
set -euo pipefail
cd "$(dirname "$0")/.."
# Coverage in kmst's code only, not in its code generator's: the fuzz
# builds' rustc (a wrapper) builds Cranelift and its support crates without
# the coverage passes.
fuzz_rustc="$PWD/scripts/fuzz-rustc.sh"

triple=x86_64-unknown-linux-gnu

# cargo-fuzz build options of a target (also given to `cargo fuzz run`, which
# builds first, so that it finds the same binary).
build_args() {
  if [ "${FUZZ_ONE_BUILD:-}" = 1 ]; then
    echo "-O --debug-assertions --no-trace-compares --target-dir $(target_dir "$1")"
    return
  fi
  case "$1" in
    sim_structured|sim_edges|scenario|sizes|resume) echo "-O --debug-assertions --no-trace-compares --target-dir $(target_dir "$1")" ;;
    *) echo "-O --debug-assertions" ;;
  esac
}

# libFuzzer options of a target beyond the common ones.
# - sizes: programs up to the format's limit; a run slower than 30 s or a
#   process above 2 GiB is a finding (a compile that grows with the square
#   of the program took minutes and gigabytes at 65,535 micro-ops).
# - The targets whose input is generator bytes (sim_structured, scenario,
#   builder, sim_edges, resume): without the entropic schedule (-entropic=0). Its
#   bookkeeping grows with the features each input touches, and a
#   generated stream touches the whole kernel: sim_structured ran 34 to
#   55 % more inputs a minute, scenario 38 to 47 %, with more coverage;
#   builder and sim_edges as many, with 5 to 13 % more features. The
#   raw-byte targets (check, sim_raw) ran fewer without it, so they keep it
#   (docs/fuzzing.md, "Rates of 60-second runs").
run_args() {
  case "$1" in
    sizes) echo "-timeout=30 -rss_limit_mb=2048" ;;
    sim_structured|scenario|builder|sim_edges|resume) echo "-entropic=0" ;;
    *) echo "" ;;
  esac
}

# Where a target's build goes.
target_dir() {
  if [ "${FUZZ_ONE_BUILD:-}" = 1 ]; then
    echo "fuzz/target/untraced"
    return
  fi
  case "$1" in
    sim_structured|sim_edges|scenario|sizes|resume) echo "fuzz/target/untraced" ;;
    *) echo "fuzz/target" ;;
  esac
}

targets() {
  cargo fuzz list
}

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

cmd="${1:-}"
[ -n "$cmd" ] || usage
shift
case "$cmd" in
  list)
    targets
    ;;
  build)
    export RUSTC_WRAPPER="$fuzz_rustc"
    for t in $(targets); do
      # shellcheck disable=SC2046
      cargo fuzz build $(build_args "$t") "$t"
    done
    ;;
  bin)
    [ $# -eq 1 ] || usage
    echo "$(target_dir "$1")/$triple/release/$1"
    ;;
  run)
    [ $# -ge 1 ] || usage
    target="$1"
    shift
    seconds=60
    if [ $# -gt 0 ] && [ "$1" != "--" ]; then
      seconds="$1"
      shift
    fi
    [ "${1:-}" = "--" ] && shift
    # The list first, then the test: `grep -q` would close the pipe early.
    all="$(targets)"
    if ! grep -qx -- "$target" <<<"$all"; then
      echo "unknown fuzz target \`$target\` (targets: $(tr '\n' ' ' <<<"$all"))" >&2
      exit 2
    fi
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    # libFuzzer writes new inputs into the first directory: a temporary one,
    # so the committed seeds stay as they are.
    if [ -d "fuzz/corpus/$target" ]; then
      cp -R "fuzz/corpus/$target/." "$work/"
    fi
    export RUSTC_WRAPPER="$fuzz_rustc"
    # shellcheck disable=SC2046
    cargo fuzz run $(build_args "$target") "$target" "$work" -- \
      -max_total_time="$seconds" -dict="$PWD/fuzz/kmst.dict" -print_final_stats=1 \
      $(run_args "$target") "$@" || {
      echo "fuzz target $target failed; its input is in fuzz/artifacts/$target/" >&2
      echo "(keep it as a regression test and see the report: scripts/fuzz.sh keep $target)" >&2
      exit 1
    }
    ;;
  keep)
    # Every artifact becomes a regression input, then
    # `cargo test -p kmst-harness --test fuzz_corpus` replays it (and fails
    # until the divergence is fixed). Exit 1 if any still diverges.
    if [ $# -eq 0 ]; then
      for d in fuzz/artifacts/*/; do
        [ -d "$d" ] && set -- "$@" "$(basename "$d")"
      done
    fi
    status=0
    for target in "$@"; do
      for artifact in fuzz/artifacts/"$target"/*; do
        [ -f "$artifact" ] || continue
        cargo run -q -p kmst-cli -- replay "$artifact" --target "$target" --keep || status=1
      done
    done
    exit "$status"
    ;;
  -h | --help | help)
    usage
    ;;
  *)
    usage
    ;;
esac
