'use strict';
// node perfile.cjs COPY_OF_INDEX_DB [QUERY ...]
//
// Issue 46, the picker's search as you type: would one full-text row per file and role answer a
// word most sessions hold fast enough, where the index's row per piece (`words`) does not? Adds to a
// COPY of an index database (a bench corpus's, `index --rebuild` first; never the cache in use) a
// contentless table `perfile` (deletable, as a kept index must be: `contentless_delete=1`, which
// refuses `columnsize=0`) holding, for each file and piece role, the text of all of that
// file's pieces of that role (rowid = file id * 8 + role), then times, in this process, the row ids
// of each query from it and from `words`, and prints its size. Section 6 of README.md.
const fs = require('node:fs');
const path = require('node:path');
const Database = require(path.join(__dirname, '..', '..', 'node_modules', 'better-sqlite3'));

const [file, ...given] = process.argv.slice(2);
if (!file || !fs.existsSync(file)) {
  process.stderr.write('usage: node perfile.cjs COPY_OF_INDEX_DB [QUERY ...]\n');
  process.exit(2);
}
const queries = given.length ? given : ['"webhook"*', '"webhook"* AND "backoff"*', '"we"*', '"zebrafishquux"*'];
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

const db = new Database(file);
db.pragma('journal_mode = WAL');
// (a second connection reads the pieces while the first writes: one connection cannot do both)
const rd = new Database(file, { readonly: true });
let t = process.hrtime.bigint();
db.exec(
  "DROP TABLE IF EXISTS perfile; CREATE VIRTUAL TABLE perfile USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0', detail='none')",
);
const add = db.prepare('INSERT INTO perfile(rowid, text) VALUES(?, ?)');
let docs = 0;
db.transaction(() => {
  let cur = -1;
  let texts = [];
  const flush = () => {
    if (cur >= 0) {
      add.run(cur, texts.join('\n'));
      docs++;
    }
    texts = [];
  };
  // a piece's id is its file's id << 24 plus its place (lib/search/pieces.ts)
  for (const [f, role, text] of rd.prepare('SELECT id >> 24, role, text FROM pieces ORDER BY id >> 24, role').raw().iterate()) {
    const k = f * 8 + role;
    if (k !== cur) {
      flush();
      cur = k;
    }
    texts.push(text);
  }
  flush();
})();
const built = ms(t);
const bytes = (glob) => db.prepare('SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name GLOB ?').pluck().get(glob);
console.log(`perfile: ${docs} rows from ${rd.prepare('SELECT count(*) FROM pieces').pluck().get()} pieces in ${built.toFixed(0)} ms;`);
console.log(`on disk ${(bytes('perfile*') / 2 ** 20).toFixed(1)} MiB (words: ${(bytes('words*') / 2 ** 20).toFixed(1)} MiB)`);

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const q of queries) {
  const time = (sql) => {
    const st = rd.prepare(sql).pluck();
    let n = 0;
    const runs = [];
    for (let i = 0; i < 5; i++) {
      t = process.hrtime.bigint();
      n = st.all(q).length;
      runs.push(ms(t));
    }
    return { n, ms: median(runs) };
  };
  const per = time('SELECT rowid FROM perfile WHERE perfile MATCH ?');
  const files = new Set(
    rd
      .prepare('SELECT rowid FROM perfile WHERE perfile MATCH ?')
      .pluck()
      .all(q)
      .map((id) => Math.floor(id / 8)),
  ).size;
  const pieces = time('SELECT rowid FROM words WHERE words MATCH ?');
  const joined = time('SELECT p.role, p.flags, p.key FROM words JOIN pieces p ON p.id = words.rowid WHERE words MATCH ?');
  console.log(
    `${q}: perfile ${per.n} rows (${files} files) ${per.ms.toFixed(1)} ms; words ${pieces.n} rows ${pieces.ms.toFixed(1)} ms, joined to pieces ${joined.ms.toFixed(1)} ms`,
  );
}
