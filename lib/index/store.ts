// The index database (index.db): one SQLite file (node:sqlite or better-sqlite3: lib/os/sqlite.ts), WAL. What the sources gave
// (sources), what is listed (sessions) and every prompt (prompts) live here; check.bin and rows.bin
// beside it are written from it (lib/index/files.ts).
//
// One writer at a time: a builder takes the write lock with BEGIN IMMEDIATE and holds it while it
// parses, so a second builder waits for it (busy timeout) and then finds the work done. Readers
// (preview, show, words) read the last commit and never wait for a writer. A writer killed at any
// moment leaves the last commit: SQLite rolls the rest back on the next open.
//
// Opening it costs loading the engine (better-sqlite3 on Node 20: ~2 ms from the build's one-file
// copy, lib/os/sqlite.ts) and reading the listing out of it: the no-change path (check.bin,
// rows.bin) does not open the database at all.
import fs from 'node:fs';
import { ExitError } from '../errors.js';
import { type Db, EngineError, errorCode, type OpenOptions, openDatabase, type Statement } from '../os/sqlite.js';
import { fold } from '../select/rank.js';
import type { LineState, Session, SessionCore, Source } from '../types.js';
import { byBytes } from '../util/text.js';
import { sleepSync } from '../util/time.js';
import { type DirRec, type DirStore, dirRec } from './dirs.js';
import { INDEX_VERSION } from './files.js';
import { recency } from './stream.js';

export type { Db };

/** A source as the database keeps it: its stat, where its parse stopped, and what it gave. */
export interface Entry {
  size: number;
  mtime: number;
  ino: number;
  sig: string;
  src: Source;
  offset: number;
  tail: string;
  /** the parser's state, continued by an append ({} when not kept) */
  state: LineState;
  /** its sessions before the finish pass (without allPrompts) */
  sessions: SessionCore[];
  error?: string;
}

const SCHEMA = `
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sources(
  path TEXT PRIMARY KEY,
  harness TEXT NOT NULL,
  size REAL NOT NULL, mtime REAL NOT NULL, ino REAL NOT NULL, sig TEXT NOT NULL,
  src TEXT NOT NULL,
  off REAL NOT NULL,
  tail TEXT NOT NULL,
  state TEXT NOT NULL,
  sessions TEXT NOT NULL,
  error TEXT
);
CREATE INDEX sources_harness ON sources(harness, path);
CREATE INDEX sources_failed ON sources(harness) WHERE error IS NOT NULL;
CREATE TABLE sessions(
  key TEXT PRIMARY KEY,
  harness TEXT NOT NULL,
  id TEXT NOT NULL,
  file TEXT NOT NULL,
  at REAL NOT NULL,
  short TEXT NOT NULL,
  link TEXT,
  fork INTEGER NOT NULL,
  doc TEXT NOT NULL,
  folded TEXT,
  rec BLOB
);
CREATE INDEX sessions_id ON sessions(id);
CREATE INDEX sessions_order ON sessions(at DESC, id, rec);
CREATE INDEX sessions_file ON sessions(file);
CREATE INDEX sessions_link ON sessions(harness, link);
CREATE TABLE prompts(path TEXT NOT NULL, key TEXT NOT NULL, texts TEXT NOT NULL, folded TEXT, PRIMARY KEY(path, key));
CREATE INDEX prompts_key ON prompts(key);
CREATE TABLE sigs(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size REAL NOT NULL, mtime REAL NOT NULL, ino REAL NOT NULL, head BLOB NOT NULL, tail BLOB NOT NULL, bloom BLOB NOT NULL, poff REAL, pst TEXT);
CREATE TABLE pieces(id INTEGER PRIMARY KEY, role INTEGER NOT NULL, flags INTEGER NOT NULL, key INTEGER NOT NULL, text TEXT NOT NULL);
CREATE VIRTUAL TABLE words USING fts5(text, content='pieces', content_rowid='id', tokenize='unicode61 remove_diacritics 0', detail='none', columnsize=0);
CREATE TABLE sgroup(key TEXT PRIMARY KEY, root TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX sgroup_root ON sgroup(root);
CREATE TABLE schild(path TEXT PRIMARY KEY, root TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE smeta(root TEXT NOT NULL, meta TEXT NOT NULL, plain INTEGER NOT NULL, scan INTEGER NOT NULL);
CREATE TABLE dirs(path TEXT PRIMARY KEY, rec TEXT NOT NULL);
`;
// (rowid tables: their rows, a parser state or a session's prompts, are far larger than the small
// rows WITHOUT ROWID is made for.) `folded`: the text lower-cased with its accents taken off (rank.ts
// fold), where that is not the text itself, so that LIKE, which folds ASCII case only, finds `cafe`
// in `Café` as words are matched. `sigs`: each file a search reads, its signature (lib/search/sigs.ts);
// `pieces` and `words`: its text that is not tool output, and a full-text table over it (pieces.ts;
// a piece's id is its file's `sigs` id and its place in the file, pieces.ts FILE_SPAN: no column or
// index of files, which were 7% of the search index).
// `sgroup`, `schild`, `smeta`: the group map, which search group each session that is not a group's
// root and each child transcript is in, and each group's metadata (lib/search/groupmap.ts). `dirs`:
// each directory discovery listed, by its stat (dirs.ts DirRec, as JSON).

/** A database by the engine; none that loads is exit 2, with what to do (for the user to fix). */
function open(file: string, opts: OpenOptions): Db {
  try {
    return openDatabase(file, opts);
  } catch (err) {
    if (err instanceof EngineError) throw new ExitError(2, noEngine(err.detail));
    throw err;
  }
}

/**
 * Why no engine loads, and the fix. Not installed is the usual case: npm leaves an optional
 * dependency out, saying nothing unless asked, when its build fails (no C++ toolchain, as in slim
 * container images; or no network to fetch Node's headers), so installing again alone changes nothing.
 */
export function noEngine(detail: string): string {
  const builtIn = 'or use Node 22.16+, which has SQLite built in';
  if (/Cannot find module 'better-sqlite3/.test(detail))
    return `cannot load better-sqlite3 for the index: not installed (npm leaves it out when its build fails); install a C++ toolchain (make, g++, python3) and install resume again, ${builtIn}`;
  return `cannot load better-sqlite3 for the index (${detail}); run \`npm rebuild better-sqlite3\` where resume is installed, ${builtIn}`;
}

/** How long a builder waits for another to finish (a cold build of a large home takes seconds). */
const WRITE_WAIT_MS = 120_000;
/** How long a builder asks again for a new file another one is making WAL (openWrite). */
const SWITCH_WAIT_MS = 5_000;

/**
 * The database for writing, created when missing; one of another version, or one SQLite cannot
 * read, is removed and made again (the index is a cache: everything in it comes from the sources).
 */
export function openWrite(file: string): Db {
  const until = Date.now() + SWITCH_WAIT_MS;
  // an old or broken file is removed and made again once; a "locked" answer is asked again until `until`
  let remade = false;
  for (;;) {
    let db: Db | null = null;
    let ino = -1;
    try {
      db = open(file, { timeout: WRITE_WAIT_MS });
      ino = inoOf(file);
      // (a database in memory: no cache directory to keep one in)
      if (file !== ':memory:') fs.chmodSync(file, 0o600);
      configure(db);
      ensureSchema(db);
      return db;
    } catch (err) {
      try {
        db?.close();
      } catch {
        /* closing a broken handle */
      }
      // Builders that open a new file together each read it, then each ask for it whole to make it
      // WAL: SQLite answers one of them "locked" at once (waiting could deadlock) rather than after
      // the busy timeout. Asked again a moment later, it finds the file WAL (seen under load: the
      // losing builder went on with a database in memory and parsed everything a second time).
      if (errorCode(err).startsWith('SQLITE_BUSY') && Date.now() < until) {
        sleepSync(20);
        continue;
      }
      if (remade || (!(err instanceof Stale) && !isCorrupt(err))) throw err;
      remade = true;
      // an old or broken file: removed (with its WAL) and made anew; unless another process has
      // put a new one in its place meanwhile (then that one is opened)
      if (ino >= 0 && inoOf(file) === ino) for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    }
  }
}

/** A writer's settings. */
function configure(db: Db): void {
  // 16 KiB pages (on a new file; WAL fixes the size after): a file's signature is a row of 1-4 KiB,
  // of which a 4 KiB page held one (the signatures took twice their bytes at 22,000 sessions)
  db.pragma('page_size = 16384');
  db.pragma('journal_mode = WAL');
  // a cache: a commit need not reach the disk before the run goes on (a crash of the machine may
  // lose the last commits, or leave a file SQLite refuses, which is built again)
  db.pragma('synchronous = OFF');
  // a small page cache: a build writes each source once and reads little back (SQLite's 16 MiB
  // default was most of the memory a full build added at 22,000 sessions)
  db.pragma('cache_size = -4000');
}

/** The tables of this version made in an empty database; Stale when it holds another version's. */
function ensureSchema(db: Db): void {
  if ((db.pragma('user_version', { simple: true }) as number) === INDEX_VERSION) return;
  db.exec('BEGIN IMMEDIATE');
  // Read again under the write lock: another builder may have made it while this one waited, and a
  // version read before its commit with tables read after it took a new index for an old one
  // (removed under that builder, which then built into a deleted file: the work done twice).
  if ((db.pragma('user_version', { simple: true }) as number) !== INDEX_VERSION) {
    const tables = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number;
    if (tables > 0) {
      db.exec('ROLLBACK');
      throw new Stale();
    }
    db.exec(SCHEMA);
    db.pragma(`user_version = ${INDEX_VERSION}`);
  }
  db.exec('COMMIT');
}

class Stale extends Error {}

/** The file's inode, or -1 (none, or a database in memory). */
function inoOf(file: string): number {
  try {
    return file === ':memory:' ? -1 : fs.statSync(file).ino;
  } catch {
    return -1;
  }
}

function isCorrupt(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT');
}

/** The database for reading, or null when there is none of this version (or it cannot be read). */
export function openRead(file: string): Db | null {
  if (!fs.existsSync(file)) return null;
  try {
    const db = open(file, { readonly: true, timeout: 5000 });
    if ((db.pragma('user_version', { simple: true }) as number) === INDEX_VERSION) return db;
    db.close();
  } catch {
    /* none to read */
  }
  return null;
}

/**
 * `fn` over the database opened for reading, then closed; null when there is none of this version,
 * or `fn` fails on it (a reader of the index falls back to what it does without one).
 */
export function withRead<T>(file: string, fn: (db: Db) => T): T | null {
  const db = openRead(file);
  if (!db) return null;
  try {
    return fn(db);
  } catch {
    return null;
  } finally {
    db.close();
  }
}

const stmts = new WeakMap<Db, Map<string, Statement>>();

/** A statement prepared once per database handle (a build runs some of these 22,000 times). */
function st(db: Db, sql: string): Statement {
  let m = stmts.get(db);
  if (!m) {
    m = new Map();
    stmts.set(db, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = db.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

export function getMeta(db: Db, k: string): string | null {
  const r = st(db, 'SELECT v FROM meta WHERE k = ?').pluck().get(k) as string | undefined;
  return r ?? null;
}

export function setMeta(db: Db, k: string, v: string): void {
  st(db, 'INSERT INTO meta(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v').run(k, v);
}

/** A source's stat as stored, with its harness. */
export interface SourceStat {
  size: number;
  mtime: number;
  ino: number;
  sig: string;
  harness: string;
}

/** The stored stat of every source (the builder compares the discovery with it). */
export function sourceStats(db: Db): Map<string, SourceStat> {
  const out = new Map<string, SourceStat>();
  for (const r of db.prepare('SELECT path, size, mtime, ino, sig, harness FROM sources').iterate() as Iterable<
    SourceStat & { path: string }
  >) {
    out.set(r.path, { size: r.size, mtime: r.mtime, ino: r.ino, sig: r.sig, harness: r.harness });
  }
  return out;
}

interface SourceRow {
  path: string;
  size: number;
  mtime: number;
  ino: number;
  sig: string;
  src: string;
  off: number;
  tail: string;
  state: string;
  sessions: string;
  error: string | null;
}

function entryOf(r: SourceRow): Entry | null {
  try {
    const e: Entry = {
      size: r.size,
      mtime: r.mtime,
      ino: r.ino,
      sig: r.sig,
      src: JSON.parse(r.src),
      offset: r.off,
      tail: r.tail,
      state: JSON.parse(r.state),
      sessions: JSON.parse(r.sessions),
    };
    if (r.error !== null) e.error = r.error;
    return e;
  } catch {
    return null;
  }
}

/** These sources' entries, with the parser state to continue. */
export function loadEntries(db: Db, paths: Iterable<string>): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const q = db.prepare('SELECT * FROM sources WHERE path = ?');
  for (const p of paths) {
    const r = q.get(p) as SourceRow | undefined;
    const e = r && entryOf(r);
    if (e) out.set(p, e);
  }
  return out;
}

/** Every entry of one harness (or of all), for a finish pass over it or for doctor. */
export function harnessEntries(db: Db, harness: string | null): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const rows = (
    harness ? db.prepare('SELECT * FROM sources WHERE harness = ?').iterate(harness) : db.prepare('SELECT * FROM sources').iterate()
  ) as Iterable<SourceRow>;
  for (const r of rows) {
    const e = entryOf(r);
    if (e) out.set(r.path, e);
  }
  return out;
}

/** The paths of a harness's sources whose file name contains `part`. */
export function findSources(db: Db, harness: string, part: string): string[] {
  const out: string[] = [];
  for (const p of db
    .prepare('SELECT path FROM sources WHERE harness = ? AND instr(path, ?) > 0')
    .pluck()
    .iterate(harness, part) as Iterable<string>) {
    if (p.slice(p.lastIndexOf('/') + 1).includes(part)) out.push(p);
  }
  return out;
}

/**
 * Write a parsed source: its entry and its sessions' prompts. (A finish pass over stored sources reads
 * their whole states: what it reads of one, `finish.reads`, is most of it anyway.) The state is kept
 * without its prompts (`all`): they are in the prompts table, and an append gets them back from
 * there (storedPrompts). They were 49 of the states' 71 MB at 22,000 sessions, written twice.
 */
export function putSource(db: Db, e: Entry): void {
  const sessions = e.sessions.map(({ allPrompts: _, ...s }) => s);
  const state = e.state && 'all' in e.state ? { ...e.state, all: undefined } : (e.state ?? {});
  st(
    db,
    'INSERT OR REPLACE INTO sources(path, harness, size, mtime, ino, sig, src, off, tail, state, sessions, error) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)',
  ).run(
    e.src.path,
    e.src.harness,
    e.size,
    e.mtime,
    e.ino,
    e.sig,
    JSON.stringify(e.src),
    e.offset,
    e.tail,
    JSON.stringify(state),
    JSON.stringify(sessions),
    e.error ?? null,
  );
  st(db, 'DELETE FROM prompts WHERE path = ?').run(e.src.path);
  // a session's prompts as one JSON array (a row per prompt was most of a build's writing)
  const ins = st(db, 'INSERT OR IGNORE INTO prompts(path, key, texts, folded) VALUES(?,?,?,?)');
  for (const s of e.sessions) {
    if (!Array.isArray(s.allPrompts) || !s.allPrompts.length) continue;
    const texts = JSON.stringify(s.allPrompts);
    ins.run(e.src.path, `${s.harness}:${s.id}`, texts, foldedOf(texts));
  }
}

/** The prompts of each of a source's sessions as stored (sanitised); null when a row is damaged. */
export function storedPrompts(db: Db, p: string): string[][] | null {
  const out: string[][] = [];
  for (const t of st(db, 'SELECT texts FROM prompts WHERE path = ?').pluck().iterate(p) as Iterable<string>) {
    try {
      const a = JSON.parse(t) as unknown;
      if (!Array.isArray(a) || !a.every((v) => typeof v === 'string')) return null;
      out.push(a);
    } catch {
      return null;
    }
  }
  return out;
}

/** A source gone: its entry and prompts. */
export function dropSource(db: Db, p: string): void {
  st(db, 'DELETE FROM sources WHERE path = ?').run(p);
  st(db, 'DELETE FROM prompts WHERE path = ?').run(p);
}

/**
 * A text folded as words are matched (rank.ts fold), or null when that is the text in any case:
 * ASCII, and general punctuation (`…`, `—`, quotes), which has no case and no accents. (A prompt
 * clipped with `…` made every long prompt "not ASCII": the fold of a 1,000-prompt session was a
 * quarter of an append to it.)
 */
function foldedOf(text: string): string | null {
  return /[\u0080-\u200f\u2028-\u202f\u205f-\uffff]/.test(text) ? fold(text) : null;
}

export function putSession(db: Db, s: Session, short: string, rec: Buffer | null): void {
  const doc = JSON.stringify(s);
  st(
    db,
    'INSERT OR REPLACE INTO sessions(key, harness, id, file, at, short, link, fork, doc, folded, rec) VALUES(?,?,?,?,?,?,?,?,?,?,?)',
  ).run(s.key, s.harness, s.id, s.file, recency(s), short, s.link ?? null, s.forkedFrom ? 1 : 0, doc, foldedOf(doc), rec);
}

export function dropSession(db: Db, key: string): void {
  st(db, 'DELETE FROM sessions WHERE key = ?').run(key);
}

/**
 * The sessions of a harness whose stored record holds one of `ids` (as JSON writes it) anywhere: at
 * 22,000 sessions, one scan of the harness's records for each id (~8 ms) where parsing every one of
 * them (2,600 Codex threads) took ~20 ms of an append.
 */
export function sessionsMentioning(db: Db, harness: string, ids: Iterable<string>): Session[] {
  const out = new Map<string, Session>();
  const q = st(db, 'SELECT key, doc FROM sessions WHERE harness = ? AND instr(doc, ?) > 0');
  for (const id of ids) {
    if (!id) continue;
    for (const r of q.iterate(harness, JSON.stringify(id).slice(1, -1)) as Iterable<{ key: string; doc: string }>)
      if (!out.has(r.key)) out.set(r.key, JSON.parse(r.doc));
  }
  return [...out.values()];
}

/** Every session with its short id, newest first as byRecency orders them (ties by id). */
export function allRows(db: Db): Array<{ session: Session; short: string }> {
  const out: Array<{ session: Session; short: string }> = [];
  for (const r of db.prepare('SELECT doc, short FROM sessions ORDER BY at DESC, id').iterate() as Iterable<{
    doc: string;
    short: string;
  }>) {
    out.push({ session: JSON.parse(r.doc), short: r.short });
  }
  return out;
}

/** The sessions of one harness, or of some files. */
export function sessionsWhere(db: Db, q: { harness: string } | { files: Iterable<string> }): Session[] {
  const out: Session[] = [];
  if ('harness' in q) {
    for (const d of db.prepare('SELECT doc FROM sessions WHERE harness = ?').pluck().iterate(q.harness) as Iterable<string>)
      out.push(JSON.parse(d));
    return out;
  }
  const st = db.prepare('SELECT doc FROM sessions WHERE file = ?').pluck();
  for (const f of q.files) for (const d of st.iterate(f) as Iterable<string>) out.push(JSON.parse(d));
  return out;
}

/** The rows.bin records of every session in order, with the time each sorts by; null when one is missing. */
export function allRecords(db: Db): Buffer[] | null {
  const out: Buffer[] = [];
  for (const r of db.prepare('SELECT rec FROM sessions ORDER BY at DESC, id').pluck().iterate() as Iterable<Buffer | null>) {
    if (!r) return null;
    out.push(r);
  }
  return out;
}

/** A sorted record: its bytes, and the time and id it sorts by (allRecords' order). */
export interface SortedRec {
  rec: Buffer;
  at: number;
  id: string;
}

/** The records of these keys' sessions (a key with none is left out), newest first; null when one has no record. */
export function sortedRecords(db: Db, keys: Iterable<string>): SortedRec[] | null {
  const q = st(db, 'SELECT rec, at, id FROM sessions WHERE key = ?');
  const out: SortedRec[] = [];
  for (const k of keys) {
    const r = q.get(k) as { rec: Buffer | null; at: number; id: string } | undefined;
    if (!r) continue;
    if (!r.rec) return null;
    out.push({ rec: r.rec, at: r.at, id: r.id });
  }
  return out.sort((x, y) => y.at - x.at || byBytes(x.id, y.id));
}

/** Every session's key, id and short id. */
export function allIds(db: Db): Array<{ key: string; id: string; short: string }> {
  return db.prepare('SELECT key, id, short FROM sessions').all() as Array<{ key: string; id: string; short: string }>;
}

export function setShort(db: Db, key: string, short: string, rec: Buffer | null): void {
  st(db, 'UPDATE sessions SET short = ?, rec = ? WHERE key = ?').run(short, rec, key);
}

/** A session by key, with its short id; null when none has it. */
export function sessionByKey(db: Db, key: string): { session: Session; short: string } | null {
  const r = st(db, 'SELECT doc, short FROM sessions WHERE key = ?').get(key) as { doc: string; short: string } | undefined;
  return r ? { session: JSON.parse(r.doc), short: r.short } : null;
}

/** The sessions with this id (of any harness), with their short ids. */
export function sessionsById(db: Db, id: string): Array<{ session: Session; short: string }> {
  return (st(db, 'SELECT doc, short FROM sessions WHERE id = ?').all(id) as Array<{ doc: string; short: string }>).map((r) => ({
    session: JSON.parse(r.doc),
    short: r.short,
  }));
}

/**
 * The sessions whose id starts with `low` (lower case), compared as resolve's prefix step compares
 * (lower-cased, then startsWith), without reading every session: the ids are looked at in the
 * index on them, and only the sessions that match are read. (SQLite's lower() knows ASCII alone: an
 * id with any other character is handed to the comparison here whatever its start.)
 */
export function sessionsByIdPrefix(db: Db, low: string): Array<{ session: Session; short: string }> {
  const ids = st(db, "SELECT rowid, id FROM sessions WHERE lower(substr(id, 1, ?)) = ? OR id GLOB '*[^ -~]*'")
    .raw()
    .all(low.length, low) as Array<[number, string]>;
  const doc = st(db, 'SELECT doc, short FROM sessions WHERE rowid = ?');
  return ids
    .filter(([, id]) => id.toLowerCase().startsWith(low))
    .map(([rowid]) => {
      const r = doc.get(rowid) as { doc: string; short: string };
      return { session: JSON.parse(r.doc) as Session, short: r.short };
    });
}

/** What the index keeps of a session key besides its session. */
export interface KeyInfo {
  short: string;
  file: string;
  id: string;
}

/** The stored short id, file and session id of a key, or null. */
export function keyInfo(db: Db, key: string): KeyInfo | null {
  return (st(db, 'SELECT short, file, id FROM sessions WHERE key = ?').get(key) as KeyInfo | undefined) ?? null;
}

/** The files of a harness's sessions with this link key. */
export function linkFiles(db: Db, harness: string, link: string): string[] {
  return st(db, 'SELECT file FROM sessions WHERE harness = ? AND link = ?').pluck().all(harness, link) as string[];
}

/** Which harnesses have sources whose parse failed, with the message of one. */
export function failures(db: Db): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of st(db, 'SELECT harness, error FROM sources WHERE error IS NOT NULL').all() as Array<{ harness: string; error: string }>)
    out[r.harness] = r.error;
  return out;
}

/** Everything of these harnesses (all when null), for a rebuild. */
export function clearHarnesses(db: Db, harnesses: readonly string[] | null): void {
  if (!harnesses) {
    // (and the search index: `index --rebuild` discards all of it; the full-text table is told to
    // forget every piece it indexed, which an external-content table cannot find out itself)
    db.exec(
      "DELETE FROM sources; DELETE FROM sessions; DELETE FROM prompts; INSERT INTO words(words) VALUES('delete-all'); DELETE FROM pieces; DELETE FROM sigs;",
    );
    return;
  }
  for (const h of harnesses) {
    db.prepare('DELETE FROM prompts WHERE path IN (SELECT path FROM sources WHERE harness = ?)').run(h);
    db.prepare('DELETE FROM sources WHERE harness = ?').run(h);
    db.prepare('DELETE FROM sessions WHERE harness = ?').run(h);
  }
}

/** The sessions of these files of a harness: their keys. */
export function keysOfFiles(db: Db, harness: string, files: Iterable<string>): string[] {
  const out: string[] = [];
  const q = st(db, 'SELECT key FROM sessions WHERE harness = ? AND file = ?').pluck();
  for (const f of files) out.push(...(q.all(harness, f) as string[]));
  return out;
}

/** The keys of a harness's sessions. */
export function keysOfHarness(db: Db, harness: string): string[] {
  return st(db, 'SELECT key FROM sessions WHERE harness = ?').pluck().all(harness) as string[];
}

/** A session's document by key (null when none). */
export function docOf(db: Db, key: string): Session | null {
  const d = st(db, 'SELECT doc FROM sessions WHERE key = ?').pluck().get(key) as string | undefined;
  return d ? JSON.parse(d) : null;
}

/** The id of a key's session, or null. */
export function idOfKey(db: Db, key: string): string | null {
  return (st(db, 'SELECT id FROM sessions WHERE key = ?').pluck().get(key) as string | undefined) ?? null;
}

/** The sessions with this id (keys and short ids). */
export function keysWithId(db: Db, id: string): Array<{ key: string; short: string }> {
  return st(db, 'SELECT key, short FROM sessions WHERE id = ?').all(id) as Array<{ key: string; short: string }>;
}

/** The ids just before and just after `id` in byte order (other ids only). */
export function neighbours(db: Db, id: string): string[] {
  const out: string[] = [];
  const before = st(db, 'SELECT id FROM sessions WHERE id < ? ORDER BY id DESC LIMIT 1').pluck().get(id) as string | undefined;
  const after = st(db, 'SELECT id FROM sessions WHERE id > ? ORDER BY id LIMIT 1').pluck().get(id) as string | undefined;
  if (before !== undefined) out.push(before);
  if (after !== undefined) out.push(after);
  return out;
}

/**
 * The directory listings remembered in the database, asked for one directory at a time (dirs.ts);
 * a damaged database remembers none (the directories are read, and the build that follows makes it anew).
 */
export function dirStore(db: Db): DirStore {
  return {
    get(dir) {
      try {
        const t = st(db, 'SELECT rec FROM dirs WHERE path = ?').pluck().get(dir) as string | undefined;
        return t === undefined ? undefined : dirRec(t);
      } catch {
        return undefined;
      }
    },
    count() {
      try {
        return st(db, 'SELECT count(*) FROM dirs').pluck().get() as number;
      } catch {
        return 0;
      }
    },
  };
}

/** The listings read this run written (in the caller's transaction); with `keep`, every directory not in it forgotten. */
export function putDirs(db: Db, read: Record<string, DirRec>, keep: string[] | null): void {
  const put = st(db, 'INSERT OR REPLACE INTO dirs(path, rec) VALUES(?, ?)');
  for (const [dir, rec] of Object.entries(read)) put.run(dir, JSON.stringify(rec));
  if (keep) st(db, 'DELETE FROM dirs WHERE path NOT IN (SELECT value FROM json_each(?))').run(JSON.stringify(keep));
}
