#!/usr/bin/env bash
# dfopt, DuckDB and Polars on the TPC-H queries, over the same Parquet files,
# in one sitting: dfopt bench (both plan styles of bench/tpch/queries, in
# memory and from Parquet, one and two threads), then DuckDB (SQL, in memory
# and from Parquet, one and two threads) and Polars (lazy plans, in memory,
# one and two threads), each checking its answers against go-tpc's SF1 answer
# files at SF1; tpch_summary.js then prints the tables: per query, the
# medians, dfopt's SQL/dataframe factor and dfopt's ratio to each engine,
# taken from this sitting only, with the load average before and after.
#
#   bash bench/compare/tpch.sh DATA_DIR
#
# DATA_DIR holds the eight tables (dfopt gen-tpch -sf 1 -out DATA_DIR).
# Env: RUNS (timed runs per query, default 3), QUERIES (default: every
# query with plan files, e.g. "q1 q6"), OUT (the raw results directory,
# default $ANCHORS_HOME/results/tpch-<UTC time>), ANCHORS_HOME (default
# ~/.cache/dfopt-anchors: where the engines are installed; never the repo),
# WORTH=1 (also dfopt bench --worth in memory, one thread: the worth table),
# DFOPT_COMMIT (the commit to record when the tree is not a git checkout),
# MEMORY1=1 (only the in-memory one-thread runs of the three engines: the
# first table, in a third of the time).
#
# The engines (pinned: nodejs-polars 0.25.2 with its linux-x64-gnu binary,
# @duckdb/node-api 1.5.6-r.1) are installed with npm into $ANCHORS_HOME when
# they are missing. Nothing here is part of the Go build or CI.
set -euo pipefail
DATA=${1:?usage: tpch.sh DATA_DIR}
DATA=$(cd "$DATA" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RUNS=${RUNS:-3}
export ANCHORS_HOME=${ANCHORS_HOME:-$HOME/.cache/dfopt-anchors}
OUT=${OUT:-$ANCHORS_HOME/results/tpch-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"

if ! (cd "$ANCHORS_HOME" 2>/dev/null && node -e "require('nodejs-polars'); require('@duckdb/node-api')" 2>/dev/null); then
  mkdir -p "$ANCHORS_HOME"
  (cd "$ANCHORS_HOME" && npm install --no-audit --no-fund --save-exact \
    nodejs-polars@0.25.2 nodejs-polars-linux-x64-gnu@0.25.2 @duckdb/node-api@1.5.6-r.1)
fi
export NODE_PATH=$ANCHORS_HOME/node_modules TPCH_NODE_HOME=$ANCHORS_HOME TPCH_DATA=$DATA

BIN=$(mktemp -d)/dfopt
trap 'rm -rf "$(dirname "$BIN")"' EXIT
(cd "$REPO" && go build -o "$BIN" ./cmd/dfopt)

if [ -z "${QUERIES:-}" ]; then
  QUERIES=$(cd "$REPO/bench/tpch/queries" && ls q*.json | sed 's/\.json$//' | sort -V | tr '\n' ' ')
fi
files=()
for q in $QUERIES; do
  files+=("$REPO/bench/tpch/queries/$q.json")
  [ -f "$REPO/bench/tpch/queries/sql/$q.json" ] && files+=("$REPO/bench/tpch/queries/sql/$q.json")
done
qlist=$(echo $QUERIES | tr ' ' ',')
printf '%s\n' "${files[@]}" > "$OUT/files.txt"

if commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null); then
  git -C "$REPO" diff --quiet HEAD -- . || commit="$commit+changes"
else
  commit=${DFOPT_COMMIT:-unknown}
fi
{
  echo "# tpch.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) commit=$commit"
  echo "# $(uname -srm); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); $(go version); node $(node --version)"
  echo "# data=$DATA runs=$RUNS queries=$QUERIES"
  echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/meta.txt"

threads=1,2 dmodes=memory:1,memory:2,parquet:1,parquet:2
[ "${MEMORY1:-0}" = 1 ] && threads=1 dmodes=memory:1
"$BIN" bench --memory --threads "$threads" -n "$RUNS" --data "$DATA" "${files[@]}" | tee "$OUT/dfopt-memory.txt"
if [ "${MEMORY1:-0}" = 1 ]; then
  : > "$OUT/dfopt-parquet.txt"
else
  "$BIN" bench --threads 1,2 -n "$RUNS" --data "$DATA" "${files[@]}" | tee "$OUT/dfopt-parquet.txt"
fi
if [ "${WORTH:-0}" = 1 ]; then
  "$BIN" bench --memory --threads 1 --worth -n "$RUNS" --data "$DATA" "${files[@]}" | tee "$OUT/dfopt-worth.txt"
fi
node "$HERE/tpch/bench_duckdb.js" --queries="$qlist" --runs="$RUNS" --report=0 --history=0 \
  --modes="$dmodes" --out="$OUT/duckdb.json"
POLARS_MAX_THREADS=1 node "$HERE/tpch/bench_polars.js" --queries="$qlist" --runs="$RUNS" --report=0 --history=0 --out="$OUT/polars-t1.json"
if [ "${MEMORY1:-0}" != 1 ]; then
  POLARS_MAX_THREADS=2 node "$HERE/tpch/bench_polars.js" --queries="$qlist" --runs="$RUNS" --report=0 --history=0 --out="$OUT/polars-t2.json"
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/meta.txt"
node "$HERE/tpch_summary.js" "$OUT" | tee "$OUT/summary.md"
