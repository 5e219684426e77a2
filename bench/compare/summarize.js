'use strict';
// Summarizes compare.sh's raw results: node summarize.js FILE
//
// Per query and engine: the median of the round medians (seconds) and
// their range, wall time and CPU time (user + system of the engine's
// process over the timed region; on a busy machine the wall time grows with
// the load and the CPU time does not). Ratios are taken within each round
// (the engines of one round ran minutes apart at most), then summarized the
// same way: dfopt / DuckDB, dfopt / Polars, both in wall and CPU time, and, for every
// query QxP with a twin Qx, Qx / QxP per engine (a query against the same
// query with its filters pushed by hand). Rows and the integer checksums
// must agree across engines; a disagreement is printed and the exit code
// is 1.
const fs = require('fs');

const file = process.argv[2];
if (!file) {
  console.error('usage: node summarize.js RESULTS_FILE');
  process.exit(2);
}
const recs = [];
for (const ln of fs.readFileSync(file, 'utf8').split('\n')) {
  const m = ln.match(/^round=(\d+) (\w+) (\S+) (.*)$/);
  if (!m || m[4].startsWith('skipped')) continue;
  const f = {};
  for (const kv of m[4].split(' ')) {
    const i = kv.indexOf('=');
    if (i > 0) f[kv.slice(0, i)] = kv.slice(i + 1);
  }
  recs.push({ round: Number(m[1]), engine: m[2], query: m[3], f });
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) => (x >= 1 ? x.toFixed(2) : x >= 0.1 ? x.toFixed(3) : x.toFixed(4));
const summary = (xs) => (xs.length ? `${fmt(median(xs))} (${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})` : '—');

const engines = ['dfopt', 'duckdb', 'polars'];
const queries = [...new Set(recs.map((r) => r.query))];
const rounds = [...new Set(recs.map((r) => r.round))];
const get = (e, q, r) => recs.find((x) => x.engine === e && x.query === q && x.round === r);
const series = (e, q, key = 'median_s') => rounds.map((r) => get(e, q, r)).filter(Boolean).map((x) => Number(x.f[key]));
const ratios = (num, den, key = 'median_s') => rounds.map((r) => [num(r), den(r)])
  .filter(([a, b]) => a && b).map(([a, b]) => Number(a.f[key]) / Number(b.f[key]));

let bad = 0;
for (const q of queries) {
  const seen = {};
  for (const x of recs.filter((r) => r.query === q)) {
    for (const [k, v] of Object.entries(x.f)) {
      if (k !== 'rows' && !k.startsWith('sum(')) continue;
      if (k.startsWith('sum(') && !/^-?\d+$/.test(v)) continue; // float sums: not compared
      if (k in seen && seen[k].v !== v) {
        console.log(`MISMATCH ${q} ${k}: ${seen[k].e} ${seen[k].v}, ${x.engine} ${v}`);
        bad = 1;
      }
      seen[k] = seen[k] || { v, e: x.engine };
    }
  }
}

console.log(`rounds: ${rounds.length}; each cell: median of the round medians (min-max of them), seconds or ratio`);
for (const key of ['median_s', 'cpu_s']) {
  console.log('');
  console.log(key === 'median_s' ? 'Wall time:' : 'CPU time (user + system of the process):');
  console.log('');
  console.log('| query | dfopt | DuckDB | Polars | dfopt / DuckDB | dfopt / Polars |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const q of queries) {
    const d = (r) => get('dfopt', q, r);
    console.log(`| ${q} | ${summary(series('dfopt', q, key))} | ${summary(series('duckdb', q, key))} | ` +
      `${summary(series('polars', q, key))} | ${summary(ratios(d, (r) => get('duckdb', q, r), key))} | ` +
      `${summary(ratios(d, (r) => get('polars', q, r), key))} |`);
  }
}
const twins = queries.filter((q) => q.endsWith('p') && queries.includes(q.slice(0, -1)));
for (const key of twins.length ? ['median_s', 'cpu_s'] : []) {
  console.log('');
  console.log(`| written / pushed by hand, ${key === 'median_s' ? 'wall' : 'CPU'} | ` + engines.join(' | ') + ' |');
  console.log('|---|' + engines.map(() => '---:').join('|') + '|');
  for (const p of twins) {
    const q = p.slice(0, -1);
    console.log(`| ${q} / ${p} | ` +
      engines.map((e) => summary(ratios((r) => get(e, q, r), (r) => get(e, p, r), key))).join(' | ') + ' |');
  }
}
process.exit(bad);
