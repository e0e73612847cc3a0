'use strict';
// node fill.cjs DB N [HOME]: N synthetic sessions (~10 prompts of 40-400 chars each) written in one
// transaction; with HOME, one empty file per session there (for the stat floor in startup.cjs).
// Prints JSON: engine, ms (the transaction), bytes of db and -wal after a checkpoint, maxRSS.
const fs = require('node:fs');
const path = require('node:path');
const { open, prng, ms, now } = require('./engine.cjs');
const [dbfile, nArg, home] = process.argv.slice(2);
const N = Number(nArg);
for (const f of [dbfile, `${dbfile}-wal`, `${dbfile}-shm`]) fs.rmSync(f, { force: true });
const r = prng(45);
const pick = (a) => a[Math.floor(r() * a.length)];
const WORDS =
  'the a fix add test build run error in on for with to of and make it this that file code function why does when update remove refactor index cache search picker session resume shell fzf sqlite node type config parse json stream output input write read check should can please help me now again'.split(
    ' ',
  );
const sentence = (min, max) => {
  const len = min + Math.floor(r() * (max - min));
  let s = '';
  while (s.length < len) s += (s ? ' ' : '') + pick(WORDS);
  return s.slice(0, len);
};
const hex = (n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(r() * 16)];
  return s;
};
const HARN = ['pi', 'pi', 'pi', 'claude', 'claude', 'codex'];
const DIRS = Math.max(1, Math.round(N / 26));
const t0ms = Date.UTC(2026, 0, 1);

// generate first (not timed), then write (timed)
const sessions = [];
for (let i = 0; i < N; i++) {
  const h = pick(HARN);
  const id = `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;
  const dir = `/home/user/src/project-${i % DIRS}`;
  const file = home ? path.join(home, `d${i % DIRS}`, `${id}.jsonl`) : `/home/user/.${h}/sessions/${id}.jsonl`;
  const prompts = [];
  const np = 5 + Math.floor(r() * 11);
  for (let n = 0; n < np; n++) prompts.push(sentence(40, 400));
  const started = t0ms + Math.floor(r() * 300 * 86400e3);
  sessions.push({ h, id, dir, file, prompts, started, updated: started + Math.floor(r() * 86400e3) });
}
if (home) {
  for (let d = 0; d < DIRS; d++) fs.mkdirSync(path.join(home, `d${d}`), { recursive: true });
  for (const s of sessions) fs.writeFileSync(s.file, '');
}
const db = open(dbfile);
db.exec(fs.readFileSync(path.join(__dirname, 'schema.sql'), 'utf8'));
const insSrc = db.stmt('INSERT INTO sources (path, dev, ino, size, mtime_ms, offset, state) VALUES (?, ?, ?, ?, ?, ?, ?)');
const insSes = db.stmt(`INSERT INTO sessions (id, source, harness, sid, short, cwd, title, first_prompt, last_prompt, prompts,
  branch, model, started, updated, file, hidden, hidden_reason, parent, forked_from, live, pid, resume)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
const insP = db.stmt('INSERT INTO prompts (session, n, text) VALUES (?, ?, ?)');
const state = Buffer.alloc(64, 7);
const t = now();
db.exec('BEGIN IMMEDIATE');
let k = 0;
for (const s of sessions) {
  k++;
  let st = { dev: 2049, ino: 1000 + k, size: 50000 + k, mtimeMs: s.updated };
  if (home) {
    const x = fs.statSync(s.file, { bigint: false });
    st = { dev: x.dev, ino: x.ino, size: x.size, mtimeMs: x.mtimeMs };
  }
  insSrc.run(s.file, st.dev, st.ino, st.size, st.mtimeMs, st.size, state);
  insSes.run(
    k,
    k,
    s.h,
    s.id,
    s.id.slice(0, 8),
    s.dir,
    k % 3 ? null : sentence(10, 50),
    s.prompts[0].slice(0, 400),
    s.prompts[s.prompts.length - 1].slice(0, 400),
    s.prompts.length,
    k % 4 ? 'main' : null,
    'model-x',
    s.started,
    s.updated,
    s.file,
    k % 9 === 0 ? 1 : 0,
    k % 9 === 0 ? 'subagent' : null,
    null,
    null,
    0,
    null,
    JSON.stringify({ cwd: s.dir, argv: [s.h, '--resume', s.id] }),
  );
  for (const [n, p] of s.prompts.entries()) insP.run(k, n, p);
}
db.exec('COMMIT');
const writeMs = ms(t);
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
db.close();
const size = (f) => {
  try {
    return fs.statSync(f).size;
  } catch {
    return 0;
  }
};
console.log(
  JSON.stringify({
    engine: db.engine,
    node: process.version,
    N,
    writeMs: +writeMs.toFixed(1),
    db: size(dbfile),
    wal: size(`${dbfile}-wal`),
    promptBytes: sessions.reduce((a, s) => a + s.prompts.join('').length, 0),
    maxRssMiB: +(process.resourceUsage().maxRSS / 1024).toFixed(1),
  }),
);
