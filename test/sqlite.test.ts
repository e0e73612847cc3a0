// Read-only SQLite: a database is never written, and no companion file appears beside it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openReadonly } from '../lib/harness/sqlite.js';
import { openDatabase } from '../lib/os/sqlite.js';
import { tempHome } from './helpers.js';

function walDb(): string {
  const dir = tempHome();
  const file = path.join(dir, 'opencode.db');
  const w = openDatabase(file);
  w.pragma('journal_mode = WAL');
  w.exec("CREATE TABLE t(a TEXT); INSERT INTO t VALUES ('one'), ('two');");
  w.close(); // a clean close checkpoints and removes -wal and -shm
  return file;
}

describe('openReadonly', () => {
  it('reads a WAL-mode database without a -wal and creates nothing beside it', () => {
    const file = walDb();
    const before = fs.readdirSync(path.dirname(file));
    const bytes = fs.readFileSync(file);
    expect(before).toEqual(['opencode.db']);
    const db = openReadonly(file);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
    expect(() => db.exec("INSERT INTO t VALUES ('x')")).toThrow();
    db.close();
    expect(fs.readdirSync(path.dirname(file))).toEqual(before);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('sees the commits still in the -wal of a database being written', () => {
    const file = walDb();
    const w = openDatabase(file);
    w.pragma('journal_mode = WAL');
    w.pragma('wal_autocheckpoint = 0');
    w.exec("INSERT INTO t VALUES ('three')");
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);
    const db = openReadonly(file);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 3 });
    db.close();
    w.close();
  });
});
