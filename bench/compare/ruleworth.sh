#!/usr/bin/env bash
# What each optimizer rule is worth on every bench query: dfopt bench with the
# default flags, with --no-opt, and with each rule or arm flag off in turn
# (the others at their defaults), one thread, in memory and from Parquet.
#
#   bash bench/compare/ruleworth.sh DATA_DIR [SMALL_DIR]
#
# DATA_DIR holds the full t.parquet and d.parquet (dfopt gen-bench). The
# SQL-shaped queries of bench/queries/sql (a filter over a cross join) are
# cross products of 10M x 1,000 rows when collapse_cross_join is off or the
# plan is not optimized, which no machine holds: those cells run over
# SMALL_DIR instead (default: a 100,000-row dataset generated into a
# temporary directory), with the default flags beside them on the same data.
# Env: RUNS (timed runs per query, default 5), MODES (default "memory
# parquet"), FLAGS (default: every rule and arm flag dfopt bench accepts,
# verify excepted), OUT (the raw output, default
# $ANCHORS_HOME/results/ruleworth-<UTC time>.txt, ANCHORS_HOME defaulting to
# ~/.cache/dfopt-anchors). Prints a table per mode: median wall seconds, and
# CPU seconds (user + system) in parentheses, per query and configuration.
set -euo pipefail
DATA=$(cd "${1:?usage: ruleworth.sh DATA_DIR [SMALL_DIR]}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RUNS=${RUNS:-5}
MODES=${MODES:-"memory parquet"}
ANCHORS_HOME=${ANCHORS_HOME:-$HOME/.cache/dfopt-anchors}
OUT=${OUT:-$ANCHORS_HOME/results/ruleworth-$(date -u +%Y%m%dT%H%M%SZ).txt}
mkdir -p "$(dirname "$OUT")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BIN=$TMP/dfopt
(cd "$REPO" && go build -o "$BIN" ./cmd/dfopt)
SMALL=${2:-}
if [ -z "$SMALL" ]; then
  SMALL=$TMP/small
  "$BIN" gen-bench -out "$SMALL" -rows 100000 -rowgroup 25000 >/dev/null
fi
SMALL=$(cd "$SMALL" && pwd)
if [ -z "${FLAGS:-}" ]; then
  FLAGS=$("$BIN" bench -h 2>&1 | sed -n 's/.*(names: \(.*\)).*/\1/p' | tr -d ' ' | tr ',' '\n' | grep -vx verify | tr '\n' ' ')
fi
main=("$REPO"/bench/queries/*.json)
sql=("$REPO"/bench/queries/sql/*.json)

bench() { # LABEL DATA ARGS... FILES...
  local label=$1 data=$2
  shift 2
  GOMAXPROCS=1 "$BIN" bench -n "$RUNS" --data "$data" "$@" | sed -n "s/^q/$label q/p" | tee -a "$OUT"
}

{
  if commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null); then
    git -C "$REPO" diff --quiet HEAD -- . || commit="$commit+changes"
  else
    commit=${DFOPT_COMMIT:-unknown}
  fi
  echo "# ruleworth.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) commit=$commit runs=$RUNS load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# flags: $FLAGS"
} | tee "$OUT"
for mode in $MODES; do
  m=()
  [ "$mode" = memory ] && m=(--memory)
  echo "# mode=$mode load=$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
  bench "$mode|default" "$DATA" "${m[@]}" "${main[@]}" "${sql[@]}"
  bench "$mode|--no-opt" "$DATA" "${m[@]}" --no-opt "${main[@]}"
  bench "$mode|small:default" "$SMALL" "${m[@]}" "${sql[@]}"
  bench "$mode|small:--no-opt" "$SMALL" "${m[@]}" --no-opt "${sql[@]}"
  for f in $FLAGS; do
    if [ "$f" = collapse_cross_join ]; then
      bench "$mode|$f=false" "$DATA" "${m[@]}" --flags "$f=false" "${main[@]}"
      bench "$mode|small:$f=false" "$SMALL" "${m[@]}" --flags "$f=false" "${sql[@]}"
    else
      bench "$mode|$f=false" "$DATA" "${m[@]}" --flags "$f=false" "${main[@]}" "${sql[@]}"
    fi
  done
done
echo "# end $(date -u +%Y-%m-%dT%H:%M:%SZ) load=$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
node "$HERE/ruleworth_table.js" "$OUT"
