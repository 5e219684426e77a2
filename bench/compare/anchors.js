'use strict';
// The bench queries on DuckDB and Polars, for compare.sh: one engine per
// process, one line per query on stdout:
//
//   <engine> <query> median_s=... min_s=... max_s=... cpu_s=... rows=N <checksum> runs=<s,s,...>
//
//   node --expose-gc anchors.js --engine=duckdb|polars --data=DIR \
//     [--queries=Q5,Q8,Q8p] [--source=memory|parquet] [--runs=5] [--warmup=1]
//
// DIR holds t.parquet and d.parquet (dfopt gen-bench). The engines are
// loaded from $ANCHORS_HOME/node_modules (default ~/.cache/dfopt-anchors;
// compare.sh installs them there), never from the repo.
//
// Threads: DuckDB runs with SET threads = 1; Polars reads POLARS_MAX_THREADS
// when it starts, so the caller sets POLARS_MAX_THREADS=1.
// source=memory: DuckDB loads the files into tables first; Polars reads them
// into DataFrames rechunked to one chunk per column (dfopt --memory holds
// one contiguous batch per table too). Loading is not timed.
// Timed region: DuckDB connection.run(sql) (parse, optimize, execute,
// materialize the result natively); Polars the native collect of a lazy
// plan built before the clock starts (nodejs-polars' JS expression
// wrappers cost about a millisecond each, which is binding overhead).
// cpu_s is the median CPU time (user + system, every thread of the
// process) over the same region: unlike the wall time it does not grow
// when other processes compete for the cores, so it is the figure to
// compare on a busy machine, as dfopt bench's cpu_s.
//
// The queries are those of bench/queries (docs/performance.md, "The
// queries"), written step by step (a subquery per dataframe step), so the
// engine's optimizer, not the author, does the pushdown. Q8p is Q8 with the
// filters pushed by hand. Q9 is SQL's FROM t, d WHERE t.k = d.k AND ...;
// it is not defined for Polars, whose cross join of 10M x 1,000 rows would
// be materialized (Polars does not turn a filter over a cross join into a
// hash join).
const path = require('path');
const os = require('os');
const { createRequire } = require('module');

const HOME = process.env.ANCHORS_HOME || path.join(os.homedir(), '.cache', 'dfopt-anchors');
const req = createRequire(path.join(HOME, 'package.json'));

const opt = { engine: '', data: '', queries: 'Q5,Q8,Q8p', source: 'memory', runs: '5', warmup: '1' };
for (const a of process.argv.slice(2)) {
  const m = a.match(/^--([^=]+)=(.*)$/);
  if (!m || !(m[1] in opt)) {
    console.error(`anchors.js: unknown argument ${a}`);
    process.exit(2);
  }
  opt[m[1]] = m[2];
}
if (!opt.data) {
  console.error('anchors.js: --data=DIR (the folder with t.parquet and d.parquet) is required');
  process.exit(2);
}
const RUNS = Number(opt.runs), WARMUP = Number(opt.warmup);
const tPath = path.join(opt.data, 't.parquet');
const dPath = path.join(opt.data, 'd.parquet');
const gc = global.gc || (() => {});
const now = () => Number(process.hrtime.bigint()) / 1e9;
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const med = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const Q6_STEPS = [
  { w: 'x1', sql: 'a * 3', pl: (pl, I) => pl.col('a').mul(I(3)) },
  { f: 'k < 500', pl: (pl, I) => pl.col('k').lt(I(500)) },
  { w: 'x2', sql: 'x1 + b', pl: (pl) => pl.col('x1').add(pl.col('b')) },
  { f: "s <> 's3'", pl: (pl) => pl.col('s').neq(pl.lit('s3')) },
  { w: 'x3', sql: 'f0 * 2.0', pl: (pl) => pl.col('f0').mul(pl.lit(2.0)) },
  { f: 'a > -500000', pl: (pl, I) => pl.col('a').gt(I(-500000)) },
  { w: 'x4', sql: 'x2 * 0.5', pl: (pl) => pl.col('x2').mul(pl.lit(0.5)) },
  { f: 'id % 3 = 0', pl: (pl, I) => pl.col('id').modulo(I(3)).eq(I(0)) },
  { w: 'x5', sql: 'f1 + f2', pl: (pl) => pl.col('f1').add(pl.col('f2')) },
  { f: 'x4 > 0', pl: (pl) => pl.col('x4').gt(pl.lit(0.0)) },
];

// Each query: SQL over tables T and D, a Polars lazy plan over t and d,
// and the integer columns whose sums form the checksum (as dfopt bench
// prints them).
const Q = {
  Q1: {
    sql: (T) => `SELECT id, a FROM ${T} WHERE a > 900000`,
    pl: (pl, I, t) => t.filter(pl.col('a').gt(I(900000))).select('id', 'a'),
    sums: ['id', 'a'],
  },
  Q1s: {
    sql: (T) => `SELECT id, a FROM ${T} WHERE a > 990000`,
    pl: (pl, I, t) => t.filter(pl.col('a').gt(I(990000))).select('id', 'a'),
    sums: ['id', 'a'],
  },
  Q2: {
    sql: (T) => `SELECT id, c FROM (SELECT *, a * 2 + 1 AS c FROM ${T}) q WHERE k < 10`,
    pl: (pl, I, t) => t.withColumns(pl.col('a').mul(I(2)).add(I(1)).alias('c'))
      .filter(pl.col('k').lt(I(10))).select('id', 'c'),
    sums: ['id', 'c'],
  },
  Q3: {
    sql: (T) => `SELECT * FROM ${T} ORDER BY a DESC LIMIT 100`,
    pl: (pl, I, t) => t.sort('a', true).head(100),
    sums: ['a'],
  },
  Q4: {
    sql: (T) => `SELECT k, sum(a) AS sum_a, avg(b) AS mean_b, count(*) AS cnt FROM ${T} GROUP BY k`,
    pl: (pl, I, t) => t.groupBy('k').agg(
      pl.col('a').sum().alias('sum_a'), pl.col('b').mean().alias('mean_b'), pl.len().alias('cnt')),
    sums: ['k', 'sum_a', 'cnt'],
  },
  Q5: {
    sql: (T, D) => `SELECT id, name, a FROM (SELECT * FROM ${T} t JOIN ${D} d USING (k)) q WHERE name = 'n7'`,
    pl: (pl, I, t, d) => t.join(d, { on: 'k', how: 'inner' })
      .filter(pl.col('name').eq(pl.lit('n7'))).select('id', 'name', 'a'),
    sums: ['id', 'a'],
  },
  Q6: {
    sql: (T) => {
      let s = `SELECT * FROM ${T}`;
      Q6_STEPS.forEach((st, i) => {
        s = st.w ? `SELECT *, ${st.sql} AS ${st.w} FROM (${s}) s${i}` : `SELECT * FROM (${s}) s${i} WHERE ${st.f}`;
      });
      return `SELECT id, k, x4 FROM (${s}) s_out`;
    },
    pl: (pl, I, t) => {
      let q = t;
      for (const st of Q6_STEPS) q = st.w ? q.withColumns(st.pl(pl, I).alias(st.w)) : q.filter(st.pl(pl, I));
      return q.select('id', 'k', 'x4');
    },
    sums: ['id', 'k'],
  },
  Q7: {
    sql: (T) => `SELECT id, k, a FROM ${T} LIMIT 100`,
    pl: (pl, I, t) => t.select('id', 'k', 'a').head(100),
    sums: ['id', 'k', 'a'],
  },
  Q8: {
    sql: (T, D) => `SELECT id, k, name, a FROM (SELECT * FROM ${T} t JOIN ${D} d USING (k)) q
                    WHERE k < 100 AND a > 900000 AND name <> 'n7'`,
    pl: (pl, I, t, d) => t.join(d, { on: 'k', how: 'inner' })
      .filter(pl.col('k').lt(I(100)).and(pl.col('a').gt(I(900000))).and(pl.col('name').neq(pl.lit('n7'))))
      .select('id', 'k', 'name', 'a'),
    sums: ['id', 'k', 'a'],
  },
  Q8p: {
    sql: (T, D) => `SELECT id, k, name, a FROM (SELECT * FROM ${T} WHERE k < 100 AND a > 900000) t
                    JOIN (SELECT * FROM ${D} WHERE k < 100 AND name <> 'n7') d USING (k)`,
    pl: (pl, I, t, d) => t.filter(pl.col('k').lt(I(100)).and(pl.col('a').gt(I(900000))))
      .join(d.filter(pl.col('k').lt(I(100)).and(pl.col('name').neq(pl.lit('n7')))), { on: 'k', how: 'inner' })
      .select('id', 'k', 'name', 'a'),
    sums: ['id', 'k', 'a'],
  },
  Q9: {
    sql: (T, D) => `SELECT id, name, a FROM ${T} t, ${D} d WHERE t.k = d.k AND name = 'n7'`,
    sums: ['id', 'a'],
  },
};

function line(engine, q, times, cpus, rows, sums) {
  const cks = Q[q].sums.map((c, i) => `sum(${c})=${sums[i]}`).join(' ');
  console.log(`${engine} ${q.toLowerCase()} median_s=${med(times).toFixed(6)} min_s=${Math.min(...times).toFixed(6)} ` +
    `max_s=${Math.max(...times).toFixed(6)} cpu_s=${med(cpus).toFixed(6)} rows=${rows} ${cks} ` +
    `runs=${times.map((x) => x.toFixed(6)).join(',')}`);
}

async function duckdb(queries) {
  const { DuckDBInstance } = req('@duckdb/node-api');
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  await conn.run('SET threads = 1');
  let T = `read_parquet('${tPath.replace(/'/g, "''")}')`, D = `read_parquet('${dPath.replace(/'/g, "''")}')`;
  if (opt.source === 'memory') {
    await conn.run(`CREATE TABLE t AS SELECT * FROM ${T}`);
    await conn.run(`CREATE TABLE d AS SELECT * FROM ${D}`);
    T = 't'; D = 'd';
  }
  for (const q of queries) {
    const sql = Q[q].sql(T, D);
    const times = [], cpus = [];
    let rows = null;
    for (let r = 0; r < WARMUP + RUNS; r++) {
      gc();
      const c0 = cpu(), t0 = now();
      const res = await conn.run(sql);
      const dt = now() - t0, dc = cpu() - c0;
      if (r === 0) rows = res.rowCount;
      if (r >= WARMUP) { times.push(dt); cpus.push(dc); }
    }
    const chk = await conn.runAndReadAll(`SELECT ${Q[q].sums.map((c) => `sum(${c})::VARCHAR`).join(', ')} FROM (${sql}) chk`);
    line('duckdb', q, times, cpus, rows, chk.getRows()[0]);
  }
}

async function polars(queries) {
  const pl = req('nodejs-polars');
  const { _DataFrame } = req('nodejs-polars/bin/dataframe');
  const I = (v) => pl.lit(v).cast(pl.Int64);
  let mk;
  if (opt.source === 'memory') {
    const T = pl.readParquet(tPath).rechunk(), D = pl.readParquet(dPath).rechunk();
    mk = () => [T.lazy(), D.lazy()];
  } else {
    mk = () => [pl.scanParquet(tPath), pl.scanParquet(dPath)];
  }
  for (const q of queries) {
    if (!Q[q].pl) {
      console.log(`polars ${q.toLowerCase()} skipped (not defined for Polars)`);
      continue;
    }
    const times = [], cpus = [];
    let rows = null, sums = null;
    for (let r = 0; r < WARMUP + RUNS; r++) {
      gc();
      const native = Q[q].pl(pl, I, ...mk())._ldf;
      const c0 = cpu(), t0 = now();
      const res = await native.collect();
      const dt = now() - t0, dc = cpu() - c0;
      if (r === 0) {
        const df = _DataFrame(res);
        rows = df.height;
        const rec = df.select(...Q[q].sums.map((c) => pl.col(c).sum().alias(c))).toRecords()[0];
        sums = Q[q].sums.map((c) => String(rec[c]));
      }
      if (r >= WARMUP) { times.push(dt); cpus.push(dc); }
    }
    line('polars', q, times, cpus, rows, sums);
  }
}

(async () => {
  const queries = opt.queries.split(',');
  for (const q of queries) {
    if (!Q[q]) throw new Error(`unknown query ${q}`);
  }
  if (opt.engine === 'duckdb') await duckdb(queries);
  else if (opt.engine === 'polars') await polars(queries);
  else throw new Error(`--engine=duckdb|polars, not ${opt.engine}`);
})().catch((e) => { console.error(e); process.exit(1); });
