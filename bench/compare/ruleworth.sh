#!/usr/bin/env bash
# What each optimizer rule is worth on every bench query: dfopt bench with the
# default flags, with --no-opt, and with each rule or arm flag off in turn
# (the others at their defaults), one thread, in memory and from Parquet.
#
#   bash bench/compare/ruleworth.sh DATA_DIR [SMALL_DIR]
#
# DATA_DIR holds the full t.parquet and d.parquet (dfopt gen-bench). The
# SQL-shaped queries of bench/queries/sql (a filter over a cross join) are
# cross products of 10M x 1,000 rows when the plan is not optimized, which
# no machine holds: --no-opt runs them over SMALL_DIR instead (default: a
# 100,000-row dataset generated into a temporary directory), with the
# default flags and collapse_cross_join=false beside them on the same data.
# (With collapse_cross_join off alone, join_pushdown still moves Q9's
# name == "n7" into d, so its cross product is 10M x 1 rows: it runs at
# full size too.) The explain of every query with each flag off is
# compared with the default's first, so the table can tell a flag that
# changes nothing from one that changes the plan.
# Env: RUNS (timed runs per query, default 5), MODES (default "memory
# parquet"), SAME_MODES (default "memory": the modes in which a flag also
# runs the queries whose plan it leaves as the default's, which measures
# the noise; in the other modes only the queries it changes run), FLAGS (default: every rule and arm flag dfopt bench accepts,
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
SAME_MODES=${SAME_MODES:-memory}
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
  # dfopt bench -h exits 2 after printing its usage.
  FLAGS=$({ "$BIN" bench -h 2>&1 || true; } | sed -n 's/.*(names: \(.*\)).*/\1/p' | tr -d ' ' | tr ',' '\n' | grep -vx verify | tr '\n' ' ')
fi
main=("$REPO"/bench/queries/*.json)
sql=("$REPO"/bench/queries/sql/*.json)

# same_plan FLAG FILE: prints "same" when the optimized plan of FILE with FLAG
# off is the default's (dfopt explain of a copy of the file carrying the
# flag in its "flags"; the copies live under $TMP/queries, beside a link
# to DATA, so their relative table paths resolve), "changed" otherwise.
mkdir -p "$TMP/queries/sql"
ln -s "$DATA" "$TMP/data"
same_plan() {
  local flag=$1 file=$2 rel base copy
  rel=${file#"$REPO"/bench/queries/}
  base=$TMP/queries/$rel
  copy=$TMP/queries/${rel%.json}.off.json
  cp "$file" "$base"
  node -e 'const fs = require("fs"); const d = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    d.flags = { ...(d.flags || {}), [process.argv[3]]: false };
    fs.writeFileSync(process.argv[2], JSON.stringify(d));' "$file" "$copy" "$flag"
  local a b
  a=$("$BIN" explain "$base") || { echo error; return; }
  b=$("$BIN" explain "$copy") || { echo error; return; }
  if [ "$(sed '/^tier:/,$d' <<<"$a")" = "$(sed '/^tier:/,$d' <<<"$b")" ]; then
    echo same
  else
    echo changed
  fi
}

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
for f in $FLAGS; do
  for file in "${main[@]}" "${sql[@]}"; do
    q=$(basename "$file" .json)
    echo "plan|$f $q $(same_plan "$f" "$file")" | tee -a "$OUT"
  done
done
for mode in $MODES; do
  m=()
  [ "$mode" = memory ] && m=(--memory)
  echo "# mode=$mode load=$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
  bench "$mode|default" "$DATA" "${m[@]}" "${main[@]}" "${sql[@]}"
  bench "$mode|--no-opt" "$DATA" "${m[@]}" --no-opt "${main[@]}"
  bench "$mode|small:default" "$SMALL" "${m[@]}" "${sql[@]}"
  bench "$mode|small:--no-opt" "$SMALL" "${m[@]}" --no-opt "${sql[@]}"
  for f in $FLAGS; do
    files=()
    for file in "${main[@]}" "${sql[@]}"; do
      if [[ " $SAME_MODES " == *" $mode "* ]] || grep -qx "plan|$f $(basename "$file" .json) changed" "$OUT"; then
        files+=("$file")
      fi
    done
    [ ${#files[@]} -gt 0 ] && bench "$mode|$f=false" "$DATA" "${m[@]}" --flags "$f=false" "${files[@]}"
    if [ "$f" = collapse_cross_join ]; then
      bench "$mode|small:$f=false" "$SMALL" "${m[@]}" --flags "$f=false" "${sql[@]}"
    fi
  done
done
echo "# end $(date -u +%Y-%m-%dT%H:%M:%SZ) load=$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
node "$HERE/ruleworth_table.js" "$OUT"
