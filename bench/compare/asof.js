'use strict';
// The as-of benchmark's queries on Polars (docs/performance.md, "As-of join
// and group_by_dynamic"), for bench/compare/asof.sh: one line per query,
//
//   polars <query> median_s=... min_s=... cpu_s=... rows=N check=<sum>
//
//   POLARS_MAX_THREADS=1 node asof.js --data=DIR [--runs=5] [--warmup=1]
//
// DIR holds left.parquet and right.parquet (go run ./bench/compare/asofgen).
// nodejs-polars is loaded from $ANCHORS_HOME/node_modules (default
// ~/.cache/dfopt-anchors), never from the repo. The tables are read into
// memory (one chunk per column) before the clock starts, and each lazy
// plan is built before it too: the timed region is the native collect.
// cpu_s is the median CPU time (user + system) over the same region.
// check is the sum of the query's last column (nulls skipped), to compare
// with dfopt's (exec/asof_bench_test.go's TestAsofBenchChecks prints them).
const path = require('path');
const os = require('os');
const { createRequire } = require('module');

const HOME = process.env.ANCHORS_HOME || path.join(os.homedir(), '.cache', 'dfopt-anchors');
const pl = createRequire(path.join(HOME, 'package.json'))('nodejs-polars');

const opt = { data: '', runs: '5', warmup: '1' };
for (const a of process.argv.slice(2)) {
  const m = a.match(/^--([^=]+)=(.*)$/);
  if (!m || !(m[1] in opt)) {
    console.error(`asof.js: unknown argument ${a}`);
    process.exit(2);
  }
  opt[m[1]] = m[2];
}
const left = pl.readParquet(path.join(opt.data, 'left.parquet')).rechunk();
const right = pl.readParquet(path.join(opt.data, 'right.parquet')).rechunk();

const queries = {
  asof_backward: () => left.lazy().joinAsof(right.lazy(), { on: 't' }),
  asof_backward_by: () => left.lazy().joinAsof(right.lazy(), { on: 't', by: 'g' }),
  asof_nearest_tolerance: () => left.lazy().joinAsof(right.lazy(), { on: 't', strategy: 'nearest', tolerance: 3 }),
  group_by_dynamic: () => left.lazy().groupByDynamic({ indexColumn: 't', every: '1000i' })
    .agg(pl.col('x').sum().alias('s'), pl.len()),
  rolling: () => left.lazy().groupByRolling({ indexColumn: 't', period: '100i' }).agg(pl.col('x').sum().alias('s')),
};

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
for (const [name, build] of Object.entries(queries)) {
  const plan = build();
  const walls = [], cpus = [];
  let out;
  for (let i = 0; i < Number(opt.warmup) + Number(opt.runs); i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    out = plan.collectSync();
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const c = process.cpuUsage(c0);
    if (i >= Number(opt.warmup)) {
      walls.push(wall);
      cpus.push((c.user + c.system) / 1e6);
    }
  }
  const last = out.getColumn(out.columns[out.columns.length - 1]);
  const check = Number(last.cast(pl.Float64).sum());
  console.log(`polars ${name} median_s=${median(walls).toFixed(4)} min_s=${Math.min(...walls).toFixed(4)} ` +
    `cpu_s=${median(cpus).toFixed(4)} rows=${out.height} check=${check.toFixed(1)}`);
}
