#!/usr/bin/env bash
# Instructions per run of every bundled workload on every dispatch variant,
# counted by callgrind (exact and repeatable, whatever the machine's load):
# each workload runs once and then 1+N times under callgrind, and the
# difference divided by N is one run's count (check, pre-decode, simulate),
# free of the process start and the workload's assembly.
#
#   scripts/icount.sh                 # a markdown table on standard output
#   scripts/icount.sh --tsv           # workload, variant, instructions
#   VARIANTS="tail switch" WORKLOADS="alu" N=4 scripts/icount.sh
#
# Needs valgrind. Used for docs/performance.md's instruction table and to
# compare two commits (run on each, diff the TSVs).
set -euo pipefail
cd "$(dirname "$0")/.."
tsv=0
[ "${1:-}" = "--tsv" ] && tsv=1
n="${N:-4}"
workloads="${WORKLOADS:-alu alu_chain rand_mod branchy submit_heavy queue_stress jobs_1000 long_wait long_wait_1}"
command -v valgrind >/dev/null || { echo "icount: valgrind is not installed" >&2; exit 2; }
cargo build --quiet --release -p kmst-benches --example run_workload >&2
bin="${CARGO_TARGET_DIR:-target}/release/examples/run_workload"
# Every variant of this build, then the reference model (Implementation::all).
variants="${VARIANTS:-$("$bin" --variants | tr '\n' ' ')}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
count() { # workload variant runs -> total instructions
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bin" "$1" "$2" "$3" >/dev/null 2>"$out/log"
  sed -n 's/^summary: //p' "$out/cg"
}
rows=()
for w in $workloads; do
  for v in $variants; do
    one="$(count "$w" "$v" 1)"
    more="$(count "$w" "$v" $((n + 1)))"
    rows+=("$w	$v	$(( (more - one) / n ))")
    echo "icount: $w $v" >&2
  done
done
if [ "$tsv" = 1 ]; then
  printf '%s\n' "${rows[@]}"
  exit 0
fi
echo "Instructions per run (callgrind; commit $(git rev-parse --short HEAD), $(uname -m), $(rustc --version | cut -d' ' -f2-))"
echo
printf '| workload |'; for v in $variants; do printf ' %s |' "$v"; done; echo
printf '|---|'; for v in $variants; do printf -- '---:|'; done; echo
for w in $workloads; do
  printf '| %s |' "$w"
  for v in $variants; do
    for r in "${rows[@]}"; do
      IFS=$'\t' read -r rw rv rc <<<"$r"
      [ "$rw" = "$w" ] && [ "$rv" = "$v" ] && printf ' %s |' "$rc"
    done
  done
  echo
done
