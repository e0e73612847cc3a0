// Read-only SQLite for the harnesses that keep sessions in a database (opencode, Cursor).
// better-sqlite3 is a native module: it is loaded lazily, only when a database changed and has to be
// read, so a listing that reuses the index never loads it. When it cannot load, the harness reports
// one line on stderr and the other harnesses still list.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type Db = BetterSqlite3.Database;

let ctor: (new (file: string, opts: BetterSqlite3.Options) => Db) | null = null;
let loadError: string | null = null;

/** The better-sqlite3 constructor, or an Error saying why it cannot be loaded. */
function load(): typeof ctor {
  if (ctor || loadError) return ctor;
  try {
    const req = createRequire(import.meta.url);
    ctor = req('better-sqlite3');
  } catch (err) {
    loadError = `cannot load better-sqlite3 (${firstLine(err)})`;
  }
  return ctor;
}

export function firstLine(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return (m.split('\n')[0] ?? '').trim();
}

/**
 * Open a database read-only: never created, never written, never checkpointed. SQLite reads the
 * `-wal` itself, so a database being written by its harness is read at its last commit. A writer
 * holding an exclusive lock makes this wait at most `busyMs`, then fail.
 */
export function openReadonly(file: string, busyMs = 1000): Db {
  const C = load();
  if (!C) throw new Error(loadError ?? 'cannot load better-sqlite3');
  if (!hasWal(file) && !exists(`${file}-journal`)) {
    // No -wal with data, and no rollback journal (no writer is changing the file itself): the
    // database file holds every commit. Opening it in place would make
    // SQLite create empty -wal/-shm companions beside it (a write under the harness's root), so it
    // is read into memory instead. An image whose header says WAL mode is marked as a rollback-
    // journal database in the copy only (bytes 18-19), which in-memory SQLite requires.
    const st = fs.statSync(file);
    if (st.size <= MAX_IN_MEMORY) {
      const buf = fs.readFileSync(file);
      if (buf.length >= 20 && buf[18] === 2 && buf[19] === 2) {
        buf[18] = 1;
        buf[19] = 1;
      }
      return new C(buf as unknown as string, { readonly: true, timeout: busyMs });
    }
  }
  return new C(file, { readonly: true, fileMustExist: true, timeout: busyMs });
}

/** Larger databases without a -wal are opened in place (SQLite may then add empty companions). */
const MAX_IN_MEMORY = 256 << 20;

function exists(file: string): boolean {
  try {
    fs.statSync(file);
    return true;
  } catch {
    return false;
  }
}

function hasWal(file: string): boolean {
  try {
    return fs.statSync(`${file}-wal`).size > 0;
  } catch {
    return false;
  }
}

/** Column names of a table ([] when the table does not exist). `table_info` is a read-only pragma. */
export function columns(db: Db, table: string): Set<string> {
  const rows = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

const warned = new Set<string>();

/** One warning line per harness and process (many databases may fail for the same reason). */
export function warnOnce(harness: string, msg: string): void {
  if (warned.has(harness)) return;
  warned.add(harness);
  process.stderr.write(`resume: ${harness}: ${msg.replace(/[\r\n]+/g, ' ')}\n`);
}

/** For doctor: can better-sqlite3 be loaded here, and which SQLite does it carry? */
export function sqliteStatus(): { ok: boolean; version: string | null; error: string | null } {
  const C = load();
  if (!C) return { ok: false, version: null, error: loadError };
  try {
    const db = new C(':memory:', {});
    try {
      const v = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
      return { ok: true, version: v, error: null };
    } finally {
      db.close();
    }
  } catch (err) {
    return { ok: false, version: null, error: firstLine(err) };
  }
}

/**
 * The `-wal` of a database as a change-detection dependency, only while it holds data. A reader
 * makes SQLite create an empty `-wal` when none exists; counting that as a change would read the
 * database twice. Data only ever moves between the -wal and the database file, whose own size and
 * time the index watches.
 */
export function walDeps(db: string): string[] {
  const wal = `${db}-wal`;
  try {
    return fs.statSync(wal).size > 0 ? [wal] : [];
  } catch {
    return [];
  }
}
