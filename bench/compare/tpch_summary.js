'use strict';
// Summarizes one sitting of tpch.sh: node tpch_summary.js OUT_DIR
// Reads OUT_DIR/files.txt (the plan files dfopt bench ran, in order),
// dfopt-memory.txt and dfopt-parquet.txt (dfopt bench --threads 1,2), and
// duckdb.json, polars-t1.json, polars-t2.json (bench_duckdb.js,
// bench_polars.js), and prints Markdown tables: per query the median wall
// seconds, dfopt's SQL-style / dataframe-style factor, dfopt's ratio to each
// engine, the geometric means, and the two-thread speedups. Every number
// comes from this one sitting.
const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
if (!dir) { console.error('usage: node tpch_summary.js OUT_DIR'); process.exit(2); }
const files = fs.readFileSync(path.join(dir, 'files.txt'), 'utf8').trim().split('\n');
const label = (f) => (path.basename(path.dirname(f)) === 'sql' ? 'sql/' : '') + path.basename(f, '.json');

// dfopt bench output: one pass per thread count, a header then one line per file in order.
function readDfopt(name) {
  const out = {}; // threads -> label -> {median, rows}
  let threads = null, i = 0;
  for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) {
    const h = line.match(/^bench: mode=\S+ opt=\S+ runs=\d+ gomaxprocs=(\d+)/);
    if (h) { threads = Number(h[1]); out[threads] = {}; i = 0; continue; }
    const m = line.match(/^q\d+ median_s=([0-9.]+) min_s=\S+ max_s=\S+(?: optimize_s=([0-9.]+))? cpu_s=([0-9.]+) rows=(\d+)/);
    if (m && threads !== null) {
      out[threads][label(files[i++])] = { median: Number(m[1]), optimize: Number(m[2] || 0), cpu: Number(m[3]), rows: Number(m[4]) };
    }
  }
  return out;
}
const readJSON = (name) => { try { return JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')); } catch (e) { return null; } };
const mem = readDfopt('dfopt-memory.txt');
const pq = readDfopt('dfopt-parquet.txt');
const duck = readJSON('duckdb.json');
const pol1 = readJSON('polars-t1.json');
const pol2 = readJSON('polars-t2.json');
const dq = (mode, q) => duck && duck.modes[mode] && duck.modes[mode].queries[q] ? duck.modes[mode].queries[q].median : null;
const pl = (p, q) => p && Object.values(p.modes)[0].queries[q] ? Object.values(p.modes)[0].queries[q].median : null;
const queries = [...new Set(files.map((f) => path.basename(f, '.json')))];

const f3 = (x) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(3));
const f2 = (x) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(2));
const ratio = (a, b) => (a && b ? a / b : null);
const geo = (xs) => { const v = xs.filter((x) => x > 0); return v.length ? Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length) : null; };
function table(title, header, rows) {
  console.log(`\n${title}\n`);
  console.log('| ' + header.join(' | ') + ' |');
  console.log('|' + header.map(() => '---').join('|') + '|');
  for (const r of rows) console.log('| ' + r.join(' | ') + ' |');
}

console.log(fs.readFileSync(path.join(dir, 'meta.txt'), 'utf8').trim().split('\n').map((l) => l.replace(/^# /, '')).join('  \n'));
for (const [title, data, dmode] of [['In memory, one thread (median wall seconds)', mem, 'memory:1'], ['From Parquet, one thread (median wall seconds)', pq, 'parquet:1']]) {
  const rows = [], cols = { df: [], sql: [], duck: [], pol: [] };
  for (const q of queries) {
    const d = data[1] && data[1][q], s = data[1] && data[1]['sql/' + q];
    const dk = dq(dmode, q), p = dmode === 'memory:1' ? pl(pol1, q) : null;
    if (d && dk && (dmode !== 'memory:1' || p)) { cols.df.push(d.median); cols.duck.push(dk); if (p) cols.pol.push(p); if (s) cols.sql.push(s.median); }
    rows.push([q, f3(d && d.median), f3(s && s.median), f2(ratio(s && s.median, d && d.median)), f3(dk), f2(ratio(d && d.median, dk)),
      ...(dmode === 'memory:1' ? [f3(p), f2(ratio(d && d.median, p))] : []), (d ? d.optimize.toFixed(4) : "-"), String(d ? d.rows : '-')]);
  }
  rows.push(['geomean', f3(geo(cols.df)), f3(geo(cols.sql)), '', f3(geo(cols.duck)), f2(ratio(geo(cols.df), geo(cols.duck))),
    ...(dmode === 'memory:1' ? [f3(geo(cols.pol)), f2(ratio(geo(cols.df), geo(cols.pol)))] : []), '', '']);
  table(title, ['query', 'dfopt df', 'dfopt sql', 'sql/df', 'DuckDB', 'df/DuckDB', ...(dmode === 'memory:1' ? ['Polars', 'df/Polars'] : []), 'optimize s', 'rows'], rows);
}
// CPU time (process user + system) beside the wall time: on a machine
// whose cores other processes compete for, the wall time of whichever
// engine ran at the higher load grows and its CPU time much less.
{
  const dc = (q) => (duck && duck.modes['memory:1'] && duck.modes['memory:1'].queries[q] ? duck.modes['memory:1'].queries[q].cpu_median : null);
  const pc = (q) => (pol1 && Object.values(pol1.modes)[0].queries[q] ? Object.values(pol1.modes)[0].queries[q].cpu_median : null);
  const rows = [], cols = { df: [], duck: [], pol: [] };
  for (const q of queries) {
    const d = mem[1] && mem[1][q] ? mem[1][q].cpu : null, k = dc(q), p = pc(q);
    if (d && k && p) { cols.df.push(d); cols.duck.push(k); cols.pol.push(p); }
    rows.push([q, f3(d), f3(k), f2(ratio(d, k)), f3(p), f2(ratio(d, p))]);
  }
  rows.push(['geomean', f3(geo(cols.df)), f3(geo(cols.duck)), f2(ratio(geo(cols.df), geo(cols.duck))), f3(geo(cols.pol)), f2(ratio(geo(cols.df), geo(cols.pol)))]);
  table('In memory, one thread (median CPU seconds)', ['query', 'dfopt df', 'DuckDB', 'df/DuckDB', 'Polars', 'df/Polars'], rows);
}
const rows = [];
for (const q of queries) {
  const sp = (a, b) => f2(ratio(a, b));
  rows.push([q, sp(mem[1] && mem[1][q] && mem[1][q].median, mem[2] && mem[2][q] && mem[2][q].median),
    sp(mem[1] && mem[1]['sql/' + q] && mem[1]['sql/' + q].median, mem[2] && mem[2]['sql/' + q] && mem[2]['sql/' + q].median),
    sp(pq[1] && pq[1][q] && pq[1][q].median, pq[2] && pq[2][q] && pq[2][q].median),
    sp(dq('memory:1', q), dq('memory:2', q)), sp(dq('parquet:1', q), dq('parquet:2', q)), sp(pl(pol1, q), pl(pol2, q))]);
}
table('Two threads: speedup over one (median 1T / median 2T)', ['query', 'dfopt df memory', 'dfopt sql memory', 'dfopt df Parquet', 'DuckDB memory', 'DuckDB Parquet', 'Polars memory'], rows);
