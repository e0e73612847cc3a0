'use strict';
// In-process parts of the 22,000-session no-change `rows` path (medians of 9, after one warm-up),
// less noisy than whole-process timings on a busy machine:  node inproc.cjs DB PATHLIST
const fs = require('node:fs');
const { open, median, ms, now } = require('./engine.cjs');
const [dbfile, list] = process.argv.slice(2);
const T = {};
const time = (name, f) => {
  f();
  const ts = [];
  for (let i = 0; i < 9; i++) {
    const t = now();
    f();
    ts.push(ms(t));
  }
  T[name] = +median(ts).toFixed(1);
};
const t = now();
const db = open(dbfile, { readonly: true });
T['require+open'] = +ms(t).toFixed(1);
const paths = fs.readFileSync(list, 'utf8').split('\n').filter(Boolean);
time('sources: read path,size,mtime (all rows)', () => db.rows('SELECT path, size, mtime_ms FROM sources'));
time('sources: iterate path,size,mtime', () => {
  let n = 0;
  for (const _row of db.iter('SELECT path, size, mtime_ms FROM sources')) n++;
  return n;
});
time('paths from a text file', () => fs.readFileSync(list, 'utf8').split('\n'));
time('stat every path', () => {
  for (const p of paths) fs.statSync(p, { throwIfNoEntry: false });
});
time('rows: JS renders (iterate 8 columns)', () =>
  db.rows('SELECT harness, sid, short, cwd, branch, title, first_prompt, updated FROM sessions WHERE hidden = 0 ORDER BY updated DESC'),
);
time('rows: SQL joins pre-rendered (one string)', () =>
  db.get(
    `SELECT group_concat(head || CASE WHEN d < 3600 THEN CAST(round(d / 60) AS INT) || 'm' WHEN d < 86400 THEN CAST(round(d / 3600) AS INT) || 'h' ELSE CAST(round(d / 86400) AS INT) || 'd' END || tail, '') AS v FROM (SELECT head, tail, (? - updated) / 1000.0 AS d FROM sessions WHERE hidden = 0 ORDER BY updated DESC)`,
    Date.now(),
  ),
);
time('saved output blob', () => db.get("SELECT value FROM meta WHERE key = 'rows'"));
console.log(JSON.stringify({ engine: db.engine, node: process.version, ...T }));
