'use strict';
// Prints ruleworth.sh's raw output as one markdown table per mode:
// node ruleworth_table.js FILE
//
// Rows are configurations (default, --no-opt, one flag off), columns the
// queries; a cell is the median wall seconds with the median CPU seconds
// (user + system) in parentheses. Columns named "@small" come from the
// small dataset. Where a flag leaves a query's optimized plan as the
// default's (ruleworth.sh's "plan|" lines), the cell is "=": the run is
// just another measurement of the default plan. Those runs, with the
// default's, give each column its noise band (the "same plan" row: the
// least and greatest CPU median); a cell is bold when its CPU time lies
// outside that band, i.e. the flag's change is larger than the noise.
// Where the band has fewer than 3 runs (a mode that ran only the changed
// plans), a cell shows its CPU time's ratio to the default's instead.
const fs = require('fs');

const file = process.argv[2];
if (!file) {
  console.error('usage: node ruleworth_table.js RAW_FILE');
  process.exit(2);
}
const cells = {}; // mode -> config -> column -> {wall, cpu, rows}
const columns = {}; // mode -> ordered column names
const configs = {}; // mode -> ordered configs
const plans = {}; // "flag q" -> same | changed | error
for (const ln of fs.readFileSync(file, 'utf8').split('\n')) {
  const pm = ln.match(/^plan\|(\S+) (\S+) (\S+)$/);
  if (pm) {
    plans[`${pm[1]} ${pm[2]}`] = pm[3];
    continue;
  }
  const m = ln.match(/^(\w+)\|(\S+) (\S+) (.*)$/);
  if (!m) continue;
  const [, mode, label, q, rest] = m;
  const f = Object.fromEntries(rest.split(' ').map((kv) => kv.split('=')).filter((x) => x.length === 2));
  const small = label.startsWith('small:');
  const config = small ? label.slice('small:'.length) : label;
  const col = small ? `${q}@small` : q;
  cells[mode] = cells[mode] || {};
  columns[mode] = columns[mode] || [];
  configs[mode] = configs[mode] || [];
  if (!columns[mode].includes(col)) columns[mode].push(col);
  if (!configs[mode].includes(config)) configs[mode].push(config);
  (cells[mode][config] = cells[mode][config] || {})[col] = { wall: Number(f.median_s), cpu: Number(f.cpu_s), rows: f.rows };
}
const fmt = (x) => (x >= 1 ? x.toFixed(2) : x >= 0.1 ? x.toFixed(3) : x >= 0.01 ? x.toFixed(4) : x.toFixed(5));
// samePlan: the flag of config leaves the plan of column col as the default's.
const samePlan = (config, col) => {
  const m = config.match(/^(\w+)=false$/);
  return config === 'default' || (m && plans[`${m[1]} ${col.replace(/@small$/, '')}`] === 'same');
};
let bad = 0;
for (const mode of Object.keys(cells)) {
  const cols = columns[mode];
  const band = {};
  for (const c of cols) {
    const xs = configs[mode].filter((k) => samePlan(k, c) && cells[mode][k][c]).map((k) => cells[mode][k][c].cpu);
    band[c] = [Math.min(...xs), Math.max(...xs), xs.length];
  }
  console.log(`\n${mode}: median wall s (CPU s); "=": the default's plan; bold: CPU outside the same-plan band; Nx: CPU / default's where no band was measured\n`);
  console.log(`| configuration | ${cols.join(' | ')} |`);
  console.log(`|---|${cols.map(() => '---:').join('|')}|`);
  const def = cells[mode].default || {};
  for (const config of configs[mode]) {
    const row = cols.map((c) => {
      const x = cells[mode][config][c];
      if (!x) return '—';
      const d = def[c];
      if (d && x.rows !== d.rows) {
        console.error(`${mode} ${config} ${c}: ${x.rows} rows, default ${d.rows}`);
        bad = 1;
      }
      if (config !== 'default' && samePlan(config, c)) return '=';
      const s = `${fmt(x.wall)} (${fmt(x.cpu)})`;
      const [lo, hi, n] = band[c];
      if (config === 'default') return s;
      if (n < 3) return d ? `${s} ${(x.cpu / d.cpu).toFixed(2)}x` : s; // no band to judge by: the CPU ratio to the default
      return x.cpu < lo || x.cpu > hi ? `**${s}**` : s;
    });
    console.log(`| ${config} | ${row.join(' | ')} |`);
  }
  console.log(`| same plan: CPU band (runs) | ${cols.map((c) => `${fmt(band[c][0])}-${fmt(band[c][1])} (${band[c][2]})`).join(' | ')} |`);
}
process.exit(bad);
