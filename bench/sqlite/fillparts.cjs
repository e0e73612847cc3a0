'use strict';
// Where the 22,000-session write goes: the same data written with parts left out or reshaped.
// node fillparts.cjs N VARIANT  (all | noprompts | promptsrowid | promptsjoined | noindexes)
const fs = require('node:fs');
const { open, prng, ms, now } = require('./engine.cjs');
const [nArg, variant] = process.argv.slice(2);
const N = Number(nArg);
const r = prng(45);
const W = 'the a fix add test build run error in on for with to of and make it this that file code function'.split(' ');
const sent = (min, max) => {
  const len = min + Math.floor(r() * (max - min));
  let s = '';
  while (s.length < len) s += (s ? ' ' : '') + W[Math.floor(r() * W.length)];
  return s.slice(0, len);
};
const S = [];
for (let i = 0; i < N; i++) {
  const p = [];
  const np = 5 + Math.floor(r() * 11);
  for (let n = 0; n < np; n++) p.push(sent(40, 400));
  S.push({ id: `${Math.floor(r() * 1e16).toString(16)}-${i}`, p, u: Math.floor(r() * 1e12) });
}
const f = `${__dirname}/data/tmp/parts-${variant}.db`;
for (const x of [f, `${f}-wal`, `${f}-shm`]) fs.rmSync(x, { force: true });
const db = open(f);
db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;');
const idx = variant !== 'noindexes';
db.exec(`CREATE TABLE sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL ${idx ? 'UNIQUE' : ''}, dev INT, ino INT, size INT, mtime_ns INT, offset INT, state BLOB);
CREATE TABLE sessions (id INTEGER PRIMARY KEY, source INT, harness TEXT, sid TEXT, short TEXT, cwd TEXT, title TEXT, first_prompt TEXT, last_prompt TEXT, prompts INT,
 branch TEXT, model TEXT, started INT, updated INT, file TEXT, hidden INT, hidden_reason TEXT, parent TEXT, forked_from TEXT, live INT, pid INT, resume TEXT ${idx ? ', UNIQUE(harness, sid)' : ''});
${idx ? 'CREATE INDEX su ON sessions(updated DESC);' : ''}
${variant === 'promptsrowid' ? 'CREATE TABLE prompts (session INT, n INT, text TEXT);' : variant === 'promptsjoined' ? 'CREATE TABLE prompts (session INTEGER PRIMARY KEY, texts TEXT);' : 'CREATE TABLE prompts (session INT, n INT, text TEXT, PRIMARY KEY(session, n)) WITHOUT ROWID;'}`);
const a = db.stmt('INSERT INTO sources VALUES (?,?,?,?,?,?,?,?)');
const b = db.stmt('INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)');
const c = variant === 'promptsjoined' ? db.stmt('INSERT INTO prompts VALUES (?,?)') : db.stmt('INSERT INTO prompts VALUES (?,?,?)');
const st = Buffer.alloc(64, 1);
const t = now();
db.exec('BEGIN');
S.forEach((s, k) => {
  const path = `/home/user/.pi/sessions/d${k % 846}/${s.id}.jsonl`;
  a.run(k, path, 1, k, 1000, s.u, 1000, st);
  b.run(
    k,
    k,
    'pi',
    s.id,
    s.id.slice(0, 8),
    '/home/user/p',
    null,
    s.p[0],
    s.p[s.p.length - 1],
    s.p.length,
    'main',
    'm',
    s.u,
    s.u,
    path,
    0,
    null,
    null,
    null,
    0,
    null,
    '{"cwd":"/x","argv":["pi"]}',
  );
  if (variant === 'noprompts') return;
  if (variant === 'promptsjoined') c.run(k, s.p.join('\x1e'));
  else for (const [n, p] of s.p.entries()) c.run(k, n, p);
});
db.exec('COMMIT');
console.log(`${db.engine} ${variant}: ${ms(t).toFixed(0)} ms, ${fs.statSync(f).size + fs.statSync(`${f}-wal`).size} bytes`);
