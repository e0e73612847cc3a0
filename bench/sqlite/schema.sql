-- A realistic index schema: what issue 45 asks the database to hold.
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sources (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  dev INTEGER NOT NULL, ino INTEGER NOT NULL,
  size INTEGER NOT NULL, mtime_ms REAL NOT NULL,  -- ms as fs.Stats gives it: ns exceed 2^53 (node:sqlite throws on those unless BigInt reads)
  offset INTEGER NOT NULL,          -- bytes parsed to
  state BLOB                        -- the adapter's carried parse state
);
CREATE TABLE IF NOT EXISTS sessions (  -- every ls --json field
  id INTEGER PRIMARY KEY,
  source INTEGER NOT NULL REFERENCES sources(id),
  harness TEXT NOT NULL, sid TEXT NOT NULL, short TEXT NOT NULL,
  cwd TEXT NOT NULL, title TEXT, first_prompt TEXT, last_prompt TEXT, prompts INTEGER NOT NULL,
  branch TEXT, model TEXT, started INTEGER NOT NULL, updated INTEGER NOT NULL, file TEXT NOT NULL,
  hidden INTEGER NOT NULL, hidden_reason TEXT, parent TEXT, forked_from TEXT,
  live INTEGER NOT NULL, pid INTEGER, resume TEXT NOT NULL,
  UNIQUE (harness, sid)
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated DESC);
CREATE TABLE IF NOT EXISTS prompts (
  session INTEGER NOT NULL REFERENCES sessions(id), n INTEGER NOT NULL, text TEXT NOT NULL,
  PRIMARY KEY (session, n)
) WITHOUT ROWID;
