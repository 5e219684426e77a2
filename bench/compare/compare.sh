#!/usr/bin/env bash
# dfopt, DuckDB and Polars on the same bench queries, one thread each, in the
# same sitting: ROUNDS rounds, each running every engine once (RUNS timed
# runs per query after one warm-up, each engine in a fresh process), the
# engine order reversed every other round (dfopt duckdb polars, then
# polars duckdb dfopt, ...), with the load average noted before each round.
# summarize.js then prints, per query, the median of the round medians and
# their spread, and the ratios taken within each round.
#
#   bash bench/compare/compare.sh DATA_DIR
#
# DATA_DIR holds t.parquet and d.parquet (dfopt gen-bench -out DATA_DIR).
# Env: ROUNDS (default 5), RUNS (default 5), QUERIES (plan files under
# bench/queries without .json; default "q5 q8 q8p sql/q9"), SOURCE
# (memory, the default: every engine reads the files into memory first and
# the load is not timed; or parquet: every run reads the files), OUT (the
# raw results, default $ANCHORS_HOME/results/compare-<UTC time>.txt),
# ANCHORS_HOME (default ~/.cache/dfopt-anchors: where the engines are
# installed; never the repo), DFOPT_COMMIT (the commit to record when the
# tree is not a git checkout, e.g. a git archive of it).
#
# The engines (pinned: nodejs-polars 0.25.2 with its linux-x64-gnu binary,
# @duckdb/node-api 1.5.6-r.1) are installed with npm into $ANCHORS_HOME when
# they are missing. Nothing here is part of the Go build or CI.
set -euo pipefail
DATA=${1:?usage: compare.sh DATA_DIR}
DATA=$(cd "$DATA" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-5}
QUERIES=${QUERIES:-"q5 q8 q8p sql/q9"}
SOURCE=${SOURCE:-memory}
export ANCHORS_HOME=${ANCHORS_HOME:-$HOME/.cache/dfopt-anchors}
OUT=${OUT:-$ANCHORS_HOME/results/compare-$(date -u +%Y%m%dT%H%M%SZ).txt}
mkdir -p "$(dirname "$OUT")"

if ! (cd "$ANCHORS_HOME" 2>/dev/null && node -e "require('nodejs-polars'); require('@duckdb/node-api')" 2>/dev/null); then
  mkdir -p "$ANCHORS_HOME"
  # nodejs-polars-linux-x64-gnu is named explicitly: it declares node >= 22,
  # and on older Node npm would skip it silently as an optional dependency.
  (cd "$ANCHORS_HOME" && npm install --no-audit --no-fund --save-exact \
    nodejs-polars@0.25.2 nodejs-polars-linux-x64-gnu@0.25.2 @duckdb/node-api@1.5.6-r.1)
fi

BIN=$(mktemp -d)/dfopt
trap 'rm -rf "$(dirname "$BIN")"' EXIT
(cd "$REPO" && go build -o "$BIN" ./cmd/dfopt)

files=() anchor=()
for q in $QUERIES; do
  files+=("$REPO/bench/queries/$q.json")
  b=$(basename "$q")
  anchor+=("Q${b#q}")
done
anchor_list=$(IFS=,; echo "${anchor[*]}")
mem_flag=()
[ "$SOURCE" = memory ] && mem_flag=(--memory)

run_dfopt() {
  GOMAXPROCS=1 "$BIN" bench "${mem_flag[@]}" -n "$RUNS" --data "$DATA" "${files[@]}" | sed -n 's/^q/dfopt q/p'
}
run_duckdb() {
  node --expose-gc "$HERE/anchors.js" --engine=duckdb --data="$DATA" --queries="$anchor_list" \
    --source="$SOURCE" --runs="$RUNS"
}
run_polars() {
  POLARS_MAX_THREADS=1 node --expose-gc "$HERE/anchors.js" --engine=polars --data="$DATA" \
    --queries="$anchor_list" --source="$SOURCE" --runs="$RUNS"
}

{
  if commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null); then
    git -C "$REPO" diff --quiet HEAD -- . || commit="$commit+changes"
  else
    commit=${DFOPT_COMMIT:-unknown}
  fi
  echo "# compare.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) commit=$commit"
  echo "# $(uname -srm); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); $(go version); node $(node --version)"
  echo "# source=$SOURCE rounds=$ROUNDS runs=$RUNS queries=$QUERIES"
} | tee "$OUT"
for r in $(seq "$ROUNDS"); do
  order="dfopt duckdb polars"
  [ $((r % 2)) -eq 0 ] && order="polars duckdb dfopt"
  echo "# round $r order=$order load=$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
  for e in $order; do
    "run_$e" | sed "s/^/round=$r /" | tee -a "$OUT"
  done
done
echo "# end $(date -u +%Y-%m-%dT%H:%M:%SZ) load=$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
node "$HERE/summarize.js" "$OUT"
