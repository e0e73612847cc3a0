'use strict';
// node fts.cjs build DB TEXT (unicode61|trigram|unicode61-noprefix): contentless FTS5 over the
//   messages of TEXT (gentext.cjs), committed every ~8 MB as an incremental indexer would; prints
//   build ms, bytes, maxRSS; then 'optimize' and its ms and bytes.
// node fts.cjs query DB KIND: each probe query, first run and median of 5, in one process.
const fs = require('node:fs');
const { open, median, ms, now } = require('./engine.cjs');
const [cmd, dbfile, a, kind] = process.argv.slice(2);
const size = (f) => {
  try {
    return fs.statSync(f).size;
  } catch {
    return 0;
  }
};
const rss = () => +(process.resourceUsage().maxRSS / 1024).toFixed(1);
if (cmd === 'build') {
  const tok = kind;
  for (const f of [dbfile, `${dbfile}-wal`, `${dbfile}-shm`]) fs.rmSync(f, { force: true });
  const db = open(dbfile);
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;');
  db.exec('CREATE TABLE docs (id INTEGER PRIMARY KEY, session INTEGER NOT NULL)');
  const SPECS = {
    unicode61: "tokenize='unicode61 remove_diacritics 2', prefix='2 3'",
    'unicode61-noprefix': "tokenize='unicode61 remove_diacritics 2'",
    'unicode61-column': "tokenize='unicode61 remove_diacritics 2', detail=column",
    trigram: "tokenize='trigram'",
    'trigram-none': "tokenize='trigram', detail=none",
  };
  const spec = SPECS[tok];
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(text, content='', contentless_delete=1, ${spec})`);
  const insD = db.stmt('INSERT INTO docs (id, session) VALUES (?, ?)');
  const insF = db.stmt('INSERT INTO f (rowid, text) VALUES (?, ?)');
  const t = now();
  const fd = fs.openSync(a, 'r');
  const chunk = Buffer.allocUnsafe(8 << 20);
  let rest = '',
    id = 0,
    bytes = 0;
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, null);
    if (n <= 0) break;
    bytes += n;
    const text = rest + chunk.toString('utf8', 0, n);
    const lines = text.split('\n');
    rest = lines.pop();
    db.exec('BEGIN IMMEDIATE');
    for (const line of lines) {
      const tab = line.indexOf('\t');
      id++;
      insD.run(id, Number(line.slice(0, tab)));
      insF.run(id, line.slice(tab + 1));
    }
    db.exec('COMMIT');
  }
  const buildMs = ms(t);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const built = size(dbfile) + size(`${dbfile}-wal`);
  const t2 = now();
  db.exec("INSERT INTO f(f) VALUES ('optimize')");
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const optMs = ms(t2);
  db.exec('VACUUM');
  const vacuumed = size(dbfile);
  db.close();
  console.log(
    JSON.stringify({
      engine: db.engine,
      node: process.version,
      tok,
      textBytes: bytes,
      messages: id,
      buildMs: Math.round(buildMs),
      dbBytes: built,
      share: +(built / bytes).toFixed(3),
      optimizeMs: Math.round(optMs),
      afterOptimizeVacuum: vacuumed,
      shareOpt: +(vacuumed / bytes).toFixed(3),
      maxRssMiB: rss(),
    }),
  );
} else if (cmd === 'query') {
  const tri = a.startsWith('trigram');
  const db = open(dbfile, { readonly: true });
  const Q = [
    ['common word "test"', '"test"'],
    ['rare word "zanzibarquux"', '"zanzibarquux"'],
    ['word in none "qwxzvj"', '"qwxzvj"'],
    ['two words "error" "cache"', '"error" AND "cache"'],
    ['substring "retrier"', tri ? '"retrier"' : null],
  ];
  const res = [];
  for (const [name, q] of Q) {
    if (!q) {
      res.push({ name, note: 'not possible with a word tokenizer' });
      continue;
    }
    const forms = {
      sessions: () => db.rows('SELECT count(DISTINCT d.session) FROM f JOIN docs d ON d.id = f.rowid WHERE f MATCH ?', q)[0][0],
      top50bm25: () => db.rows('SELECT rowid FROM f WHERE f MATCH ? ORDER BY rank LIMIT 50', q).length,
    };
    const r = { name };
    for (const [form, f] of Object.entries(forms)) {
      const ts = [];
      let v;
      for (let i = 0; i < 5; i++) {
        const t = now();
        v = f();
        ts.push(ms(t));
      }
      r[form] = v;
      r[`${form}FirstMs`] = +ts[0].toFixed(1);
      r[`${form}MedMs`] = +median(ts).toFixed(1);
    }
    res.push(r);
  }
  console.log(JSON.stringify({ engine: db.engine, kind: a, maxRssMiB: rss(), res }));
}
