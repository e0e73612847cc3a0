'use strict';
// node addpre.cjs DB: add the pre-rendered row (two parts around the age, which changes with the
// clock) to every session, and the whole rendered output as one blob in meta (a saved output).
const { execFileSync } = require('node:child_process');
const { open } = require('./engine.cjs');
const db = open(process.argv[2]);
try {
  db.exec('ALTER TABLE sessions ADD COLUMN head TEXT; ALTER TABLE sessions ADD COLUMN tail TEXT;');
} catch {}
db.exec(`BEGIN; UPDATE sessions SET head = harness || ':' || sid || char(9) || short || char(9),
  tail = char(9) || harness || char(9) || replace(cwd, '/home/user', '~') || char(9) || coalesce(branch, '') || char(9) || coalesce(title, first_prompt) || char(10);
  CREATE INDEX IF NOT EXISTS sessions_visible ON sessions(updated DESC, head, tail) WHERE hidden = 0; COMMIT;`);
const out = execFileSync(process.execPath, [`${__dirname}/rows.cjs`, 'rows', process.argv[2]], { maxBuffer: 1 << 30 });
db.stmt("INSERT OR REPLACE INTO meta (key, value) VALUES ('rows', ?)").run(out);
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
db.close();
