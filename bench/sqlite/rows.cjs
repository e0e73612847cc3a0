'use strict';
// The `resume rows` path against the database, one process:
//   node rows.cjs small DB          require the engine, open read-only, one small SELECT (start-up cost)
//   node rows.cjs rows DB           + every session row, newest first, as TSV on stdout
//   node rows.cjs statrows DB       + first stat every source file and compare size/mtime (no-change check)
//   node rows.cjs pre DB            rows pre-rendered in the database (two columns around the age)
//   node rows.cjs statpre DB        stat every source + pre-rendered rows
//   node rows.cjs sqlcat DB         pre-rendered rows joined by SQLite (group_concat), one string out
//   node rows.cjs statsqlcat DB / statblob DB: the same after the stat of every source
//   node rows.cjs blob DB           the whole output saved as one blob in the database
//   node rows.cjs file TSVFILE      today's way: a hand-made file read whole and written out
//   node rows.cjs statfile TSVFILE LIST   stat every path in LIST (one a line), then the file
//   node rows.cjs stat LIST         the stat floor: only stat every path in LIST
const fs = require('node:fs');
const [mode, a, b] = process.argv.slice(2);
const out = (s) => {
  if (s.length) fs.writeSync(1, s);
};
const statAll = (paths) => {
  let changed = 0;
  for (const p of paths) {
    const s = fs.statSync(p, { throwIfNoEntry: false });
    if (!s) changed++;
  }
  return changed;
};
/** file, statfile, stat: no database, the paths' stat and the file read whole */
function noDatabase() {
  if (mode !== 'file')
    statAll(
      fs
        .readFileSync(mode === 'stat' ? a : b, 'utf8')
        .split('\n')
        .filter(Boolean),
    );
  if (mode !== 'stat') out(fs.readFileSync(a));
}
/** the no-change check: each source's size and mtime against what the database holds */
function statSources(db) {
  let changed = 0;
  for (const [path, size, mtime] of db.iter('SELECT path, size, mtime_ms FROM sources')) {
    const s = fs.statSync(path, { throwIfNoEntry: false });
    if (!s || s.size !== size || s.mtimeMs !== mtime) changed++;
  }
  if (changed) process.stderr.write(`changed: ${changed}\n`);
}
/** the whole output made inside SQLite: one string crosses into JS */
function sqlcat(db) {
  const v = db.get(
    `SELECT group_concat(head || CASE WHEN d < 3600 THEN CAST(round(d / 60) AS INT) || 'm' WHEN d < 86400 THEN CAST(round(d / 3600) AS INT) || 'h' ELSE CAST(round(d / 86400) AS INT) || 'd' END || tail, '') AS v
    FROM (SELECT head, tail, (? - updated) / 1000.0 AS d FROM sessions WHERE hidden = 0 ORDER BY updated DESC)`,
    Date.now(),
  ).v;
  out(v);
}
/** rows, statrows, pre, statpre: the rows put together in JS, each one whole or from its pre-rendered parts */
function rendered(db) {
  const nowMs = Date.now();
  const age = (t) => {
    const s = (nowMs - t) / 1000;
    return s < 3600 ? `${Math.round(s / 60)}m` : s < 86400 ? `${Math.round(s / 3600)}h` : `${Math.round(s / 86400)}d`;
  };
  const parts = [];
  if (mode === 'pre' || mode === 'statpre') {
    // pre-rendered rows: only the age is made per run (a covering partial index, no table reads)
    for (const [updated, head, tail] of db.iter('SELECT updated, head, tail FROM sessions WHERE hidden = 0 ORDER BY updated DESC'))
      parts.push(head, age(updated), tail);
    out(parts.join(''));
    return;
  }
  for (const [h, sid, short, cwd, branch, title, fp, updated] of db.iter(
    'SELECT harness, sid, short, cwd, branch, title, first_prompt, updated FROM sessions WHERE hidden = 0 ORDER BY updated DESC',
  )) {
    parts.push(`${h}:${sid}\t${short}\t${age(updated)}\t${h}\t${cwd.replace('/home/user', '~')}\t${branch ?? ''}\t${title ?? fp}\n`);
  }
  out(parts.join(''));
}
// in a function: its early returns end the run (a top-level return is Node's CommonJS wrapper only, not JavaScript)
function main() {
  if (mode === 'file' || mode === 'statfile' || mode === 'stat') {
    noDatabase();
    return;
  }
  const { open } = require('./engine.cjs');
  const db = open(a, { readonly: true });
  if (mode === 'small') {
    out(`${String(db.get('SELECT count(*) AS n FROM meta').n)}\n`);
    return;
  }
  if (mode.startsWith('stat')) statSources(db);
  if (mode === 'sqlcat' || mode === 'statsqlcat') {
    sqlcat(db);
    return;
  }
  if (mode === 'blob' || mode === 'statblob') {
    const v = db.get("SELECT value FROM meta WHERE key = 'rows'").value;
    fs.writeSync(1, v);
    return;
  }
  rendered(db);
}
main();
