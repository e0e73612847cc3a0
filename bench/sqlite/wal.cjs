'use strict';
// WAL behaviour with a writer holding a transaction, per engine:
//   node wal.cjs DB            (driver; ENGINE and the Node binary for children from env CHILD_NODE)
// A writer updates every session and adds a marker, then holds its transaction open; meanwhile
// readers run the rows query (timed; must not see the marker), a second writer tries to begin
// (must wait, then fail after its busy timeout); then the writer is killed with SIGKILL mid-
// transaction, and a reader checks integrity and that nothing of it is visible.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { open, median, ms, now } = require('./engine.cjs');
const role = process.argv[2];
// in a function: its early returns end the run (a top-level return is Node's CommonJS wrapper only, not JavaScript)
function main() {
  if (role === 'writer') {
    const db = open(process.argv[3]);
    db.exec('BEGIN IMMEDIATE');
    db.exec('UPDATE sessions SET updated = updated + 1');
    db.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('marker', 1)");
    process.stdout.write('held\n');
    setInterval(() => {}, 1000); // hold until killed
    return;
  }
  if (role === 'reader') {
    const db = open(process.argv[3], { readonly: true });
    const t = now();
    const v = db.get(
      `SELECT group_concat(head || tail, '') AS v FROM (SELECT head, tail FROM sessions WHERE hidden = 0 ORDER BY updated DESC)`,
    ).v;
    const readMs = ms(t);
    const marker = db.get("SELECT count(*) AS n FROM meta WHERE key = 'marker'").n;
    const integrity = process.argv[4] === 'check' ? db.get('PRAGMA integrity_check').integrity_check : undefined;
    console.log(JSON.stringify({ readMs: +readMs.toFixed(1), bytes: v.length, marker, integrity }));
    return;
  }
  if (role === 'writer2') {
    const db = open(process.argv[3], { timeout: 300 });
    const t = now();
    try {
      db.exec('BEGIN IMMEDIATE');
      db.exec('COMMIT');
      console.log(JSON.stringify({ began: true, waitedMs: +ms(t).toFixed(0) }));
    } catch (e) {
      console.log(JSON.stringify({ began: false, waitedMs: +ms(t).toFixed(0), error: e.message }));
    }
    return;
  }
  // driver
  const src = process.argv[2];
  const db = `${__dirname}/data/tmp/wal-${process.env.ENGINE}.db`;
  fs.mkdirSync(`${__dirname}/data/tmp`, { recursive: true });
  for (const f of [db, `${db}-wal`, `${db}-shm`]) fs.rmSync(f, { force: true });
  fs.copyFileSync(src, db);
  const node = process.env.CHILD_NODE || process.execPath;
  const child = (...a) => JSON.parse(spawnSync(node, [__filename, ...a], { encoding: 'utf8', env: process.env }).stdout);
  const quiet = [0, 1, 2, 3, 4].map(() => child('reader', db).readMs);
  const w = spawn(node, [__filename, 'writer', db], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  w.stdout.once('data', () => {
    const during = [0, 1, 2, 3, 4].map(() => child('reader', db));
    const w2 = child('writer2', db);
    w.kill('SIGKILL');
    w.on('exit', () => {
      const after = child('reader', db, 'check');
      const w3 = child('writer2', db);
      console.log(
        JSON.stringify({
          engine: process.env.ENGINE,
          readerMsNoWriter: median(quiet),
          readerMsWriterHolding: median(during.map((d) => d.readMs)),
          readerSawUncommitted: during.some((d) => d.marker),
          secondWriter: w2,
          afterKill9: { sawUncommitted: !!after.marker, integrity: after.integrity, nextWriter: w3 },
        }),
      );
    });
  });
}
main();
