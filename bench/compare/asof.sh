#!/usr/bin/env bash
# dfopt and Polars on the as-of benchmark (docs/performance.md, "As-of join
# and group_by_dynamic"), one thread each, in the same sitting: ROUNDS
# rounds, each running dfopt's Go benchmark (exec BenchmarkAsof, -count=RUNS)
# and then Polars (bench/compare/asof.js, RUNS timed runs after a warm-up),
# with the load average noted before each round.
#
#   bash bench/compare/asof.sh [DATA_DIR]
#
# DATA_DIR (default a temporary directory) receives left.parquet and
# right.parquet from go run ./bench/compare/asofgen (1,000,000 rows each;
# the Go benchmark builds the same rows in memory, bench.AsofRecords).
# Env: ROUNDS (default 3), RUNS (default 5), ANCHORS_HOME (default
# ~/.cache/dfopt-anchors: where nodejs-polars is installed, see compare.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DATA=${1:-$(mktemp -d)}
mkdir -p "$DATA"
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-5}
export ANCHORS_HOME=${ANCHORS_HOME:-$HOME/.cache/dfopt-anchors}

(cd "$REPO" && go run ./bench/compare/asofgen -out "$DATA")
echo "commit $(cd "$REPO" && git rev-parse --short HEAD 2>/dev/null || echo unknown) date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd "$REPO" && go test -run '^$' -bench '^BenchmarkAsof$' -benchtime 3x -count "$RUNS" -cpu 1 ./exec) |
    awk '/^BenchmarkAsof\// { name = $1; sub(/^BenchmarkAsof\//, "", name); sub(/-[0-9]+$/, "", name)
      for (i = 1; i < NF; i++) { if ($(i+1) == "ns/op") wall = $i; if ($(i+1) == "cpu-ns/op") cpu = $i }
      printf "dfopt %s wall_s=%.4f cpu_s=%.4f\n", name, wall / 1e9, cpu / 1e9 }'
  POLARS_MAX_THREADS=1 node "$HERE/asof.js" --data="$DATA" --runs="$RUNS"
done
