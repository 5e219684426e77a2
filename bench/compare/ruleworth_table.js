'use strict';
// Prints ruleworth.sh's raw output as one markdown table per mode:
// node ruleworth_table.js FILE
//
// Rows are configurations (default, --no-opt, one flag off), columns the
// queries; a cell is the median wall seconds with the median CPU seconds
// (user + system) in parentheses. Columns named "@100k" (or whatever the
// small dataset holds) come from the small dataset. A cell is bold when
// its CPU time is more than 15% away from the default configuration's on
// the same query and data: the flag is worth something there.
const fs = require('fs');

const file = process.argv[2];
if (!file) {
  console.error('usage: node ruleworth_table.js RAW_FILE');
  process.exit(2);
}
const cells = {}; // mode -> config -> column -> {wall, cpu, rows}
const columns = {}; // mode -> ordered column names
const configs = {}; // mode -> ordered configs
for (const ln of fs.readFileSync(file, 'utf8').split('\n')) {
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
let bad = 0;
for (const mode of Object.keys(cells)) {
  const cols = columns[mode];
  console.log(`\n${mode}: median wall s (CPU s); bold: CPU more than 15% away from the default's\n`);
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
      const s = `${fmt(x.wall)} (${fmt(x.cpu)})`;
      return d && Math.abs(x.cpu / d.cpu - 1) > 0.15 ? `**${s}**` : s;
    });
    console.log(`| ${config} | ${row.join(' | ')} |`);
  }
}
process.exit(bad);
