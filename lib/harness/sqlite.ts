// Read-only SQLite for the harnesses that keep sessions in a database (opencode, Cursor), through
// the engine of lib/os/sqlite.ts (node:sqlite, or better-sqlite3 loaded lazily: only when a database
// changed and has to be read, so a listing that reuses the index never loads it). When no engine
// loads, the harness reports one line on stderr and the other harnesses still list.
import fs from 'node:fs';
import { type Db, engineStatus, openDatabase, openImmutable } from '../os/sqlite.js';

export type { Db };

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
  if (!hasWal(file) && !exists(`${file}-journal`)) {
    // No -wal with data, and no rollback journal (no writer is changing the file itself): the
    // database file holds every commit. Opening it in place would make SQLite create empty
    // -wal/-shm companions beside it (a write under the harness's root), so it is opened so that
    // nothing is written beside it (lib/os/sqlite.ts openImmutable; null: too large for that).
    const db = openImmutable(file, busyMs);
    if (db) return db;
  }
  return openDatabase(file, { readonly: true, timeout: busyMs });
}

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

/** For doctor: which engine loads here, and which SQLite it carries (or why none loads). */
export const sqliteStatus = engineStatus;

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
