#!/usr/bin/env bash
# Instructions, branches and mispredictions per kmst micro-op for every
# runner of the peers example (kmst's dispatch variants, wasmi with and
# without fuel, native Rust) on its ALU workloads, from callgrind's branch
# simulator, counting only one whole run (`peers --once`, `measured_run`).
# The counters beside the times of docs/dispatch.md's table; `kmst compare
# --counters` gives the same counters for kmst's own workloads.
#
#   scripts/peer-counters.sh            # a markdown table
#   scripts/peer-counters.sh --tsv      # workload runner Ir Bc Bcm Bi Bim ops
#   WORKLOADS="alu" RUNNERS="tail wasmi" scripts/peer-counters.sh
#
# Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
tsv=0
[ "${1:-}" = "--tsv" ] && tsv=1
command -v valgrind >/dev/null || { echo "peer-counters: needs valgrind (for example: apt install valgrind)" >&2; exit 2; }
cargo build --quiet --release -p kmst-benches --example peers >&2
bin="${CARGO_TARGET_DIR:-target}/release/examples/peers"
runners="${RUNNERS:-$("$bin" --runners | tr '\n' ' ')}"
workloads="${WORKLOADS:-alu alu_chain rand_mod branchy}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
rows=()
for w in $workloads; do
  for r in $runners; do
    line="$(valgrind --tool=callgrind --branch-sim=yes --collect-atstart=no \
      --toggle-collect='*measured_run*' --callgrind-out-file="$out/cg" \
      "$bin" --once "$w" "$r" 2>"$out/log")" || { cat "$out/log" >&2; exit 1; }
    ops="$(sed -n 's/.*, \([0-9]*\) micro-ops$/\1/p' <<<"$line")"
    # Ir Bc Bcm Bi Bim; callgrind leaves trailing zeros out.
    events="$(sed -n 's/^summary: //p' "$out/cg" | awk '{ for (i = NF + 1; i <= 5; i++) $i = 0; print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 }')"
    rows+=("$w	$r	$events	$ops")
    echo "peer-counters: $w $r" >&2
  done
done
if [ "$tsv" = 1 ]; then
  printf '%s\n' "${rows[@]}"
  exit 0
fi
echo "| workload | runner | instr/op | branches/op | mispred/op | indirect/op | ind. mispred/op |"
echo "|---|---|---:|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
  awk -F'\t' '{ printf "| %s | %s | %.2f | %.2f | %.3f | %.2f | %.3f |\n", $1, $2, $3/$8, $4/$8, $5/$8, $6/$8, $7/$8 }' <<<"$row"
done
