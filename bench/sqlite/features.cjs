// Which SQLite, and are FTS5 / trigram / contentless-delete there, in this engine?
'use strict';
const engine = process.argv[2];
let db, all, run;
if (engine === 'better') {
  const D = require('/work/main/node_modules/better-sqlite3');
  db = new D(':memory:');
  all = (s) => db.prepare(s).all();
  run = (s) => db.exec(s);
} else {
  const { DatabaseSync } = require('node:sqlite');
  db = new DatabaseSync(':memory:');
  all = (s) => db.prepare(s).all();
  run = (s) => db.exec(s);
}
const out = { node: process.version, engine, sqlite: all('select sqlite_version() v')[0].v };
const tryit = (name, f) => {
  try {
    out[name] = f();
  } catch (e) {
    out[name] = `NO: ${e.message}`;
  }
};
tryit('fts5', () => {
  run('create virtual table f using fts5(t)');
  run("insert into f values ('hello world')");
  return all("select count(*) n from f where f match 'hello'")[0].n === 1 ? 'yes' : 'broken';
});
tryit('trigram', () => {
  run("create virtual table g using fts5(t, tokenize='trigram')");
  run("insert into g values ('webhookretrier')");
  return all("select count(*) n from g where g match 'retrier'")[0].n === 1 ? 'yes' : 'broken';
});
tryit('trigram_remove_diacritics', () => {
  run("create virtual table g2 using fts5(t, tokenize='trigram remove_diacritics 1')");
  return 'yes';
});
tryit('contentless_delete', () => {
  run("create virtual table h using fts5(t, content='', contentless_delete=1)");
  run("insert into h(rowid,t) values (1,'a b')");
  run('delete from h where rowid=1');
  return 'yes';
});
tryit('json', () => (all("select json_extract('{\"a\":1}','$.a') v")[0].v === 1 ? 'yes' : 'broken'));
tryit('compile_options', () =>
  all('pragma compile_options')
    .map((r) => Object.values(r)[0])
    .filter((o) => /FTS|JSON|THREADSAFE|DEFAULT_WAL|DQS|OMIT|MAX_|CACHE/.test(o))
    .join(' '),
);
console.log(JSON.stringify(out, null, 1));
