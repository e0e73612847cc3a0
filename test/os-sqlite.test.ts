// The SQLite engine (lib/os/sqlite.ts) on the Node running the tests: Node 20 in the main run, Node
// 22 in .ci/run's second pass (docs/development.md). The same calls give the same values on both.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineName, errorCode, openDatabase, openImmutable } from '../lib/os/sqlite.js';
import { envFor, ROOT, run, tempHome } from './helpers.js';

const emitWarning = process.emitWarning;
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
/** node:sqlite from 22.16 (setReturnArrays, isTransaction); Node's own builds carry FTS5. */
const WANT = major > 22 || (major === 22 && minor >= 16) ? 'node:sqlite' : 'better-sqlite3';

function betterLoaded(): boolean {
  return Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes(`${path.sep}better-sqlite3${path.sep}`));
}

/** A WAL-mode database closed cleanly (no -wal, no -shm left), as a harness leaves it between runs. */
function walLess(dir: string): string {
  const file = path.join(dir, 'store.db');
  const w = openDatabase(file);
  w.pragma('journal_mode = WAL');
  w.exec("CREATE TABLE t(a TEXT, n INTEGER); INSERT INTO t VALUES ('one', 1), ('two', 2);");
  w.close();
  return file;
}

describe('the SQLite engine', () => {
  it(`is ${WANT} on Node ${process.versions.node}`, () => {
    expect(engineName()).toBe(WANT);
    // on node:sqlite the Node-20 build of better-sqlite3 is never loaded (it could not be, on this ABI)
    expect(betterLoaded()).toBe(WANT === 'better-sqlite3');
    // the SQLite warning's filter was in place only while node:sqlite loaded: other warnings still print
    expect(process.emitWarning).toBe(emitWarning);
  });

  it('round-trips rows: text, real, integer, blob, null; get, all, iterate, run; a transaction', () => {
    const db = openDatabase(path.join(tempHome(), 'x.db'));
    db.exec('CREATE TABLE r(k TEXT PRIMARY KEY, x REAL, i INTEGER, b BLOB, z TEXT)');
    const ins = db.prepare('INSERT INTO r VALUES(?,?,?,?,?)');
    expect(db.inTransaction).toBe(false);
    db.exec('BEGIN IMMEDIATE');
    expect(db.inTransaction).toBe(true);
    ins.run('a', 1.5, 7, Buffer.from([0, 1, 255]), null);
    ins.run('b', 1_700_000_000_123.25, -3, Buffer.alloc(0), 'z');
    db.exec('COMMIT');
    expect(db.inTransaction).toBe(false);
    const a = db.prepare('SELECT * FROM r WHERE k = ?').get('a') as Record<string, unknown>;
    expect({ ...a }).toEqual({ k: 'a', x: 1.5, i: 7, b: Buffer.from([0, 1, 255]), z: null });
    expect(Buffer.isBuffer(a.b)).toBe(true);
    expect(db.prepare('SELECT * FROM r WHERE k = ?').get('nope')).toBeUndefined();
    const all = db.prepare('SELECT k, x, i FROM r ORDER BY k').all() as object[];
    expect(all.map((r) => ({ ...r }))).toEqual([
      { k: 'a', x: 1.5, i: 7 },
      { k: 'b', x: 1_700_000_000_123.25, i: -3 },
    ]);
    expect([...db.prepare('SELECT k FROM r ORDER BY k DESC').iterate()].map((r) => (r as { k: string }).k)).toEqual(['b', 'a']);
    // a loop left early leaves the statement usable
    const it = db.prepare('SELECT k FROM r ORDER BY k');
    for (const _ of it.iterate()) break;
    expect(it.all()).toHaveLength(2);
    db.close();
  });

  it('pluck: the first column only, as a mode of the statement until turned off', () => {
    const db = openDatabase(':memory:');
    db.exec("CREATE TABLE p(a TEXT, b INTEGER); INSERT INTO p VALUES ('x', 1), ('y', 2);");
    const s = db.prepare('SELECT a, b FROM p ORDER BY a').pluck();
    expect(s.get()).toBe('x');
    expect(s.all()).toEqual(['x', 'y']);
    expect([...s.iterate()]).toEqual(['x', 'y']);
    expect(db.prepare("SELECT x'00ff'").pluck().get()).toEqual(Buffer.from([0, 255]));
    expect(db.prepare('SELECT a FROM p WHERE a = ?').pluck().get('none')).toBeUndefined();
    expect({ ...(s.pluck(false).get() as object) }).toEqual({ a: 'x', b: 1 });
    db.close();
  });

  it('pragmas: rows, or the first value with simple; user_version written and read', () => {
    const db = openDatabase(path.join(tempHome(), 'p.db'));
    expect(db.pragma('journal_mode = WAL', { simple: true })).toBe('wal');
    db.pragma('user_version = 42');
    expect(db.pragma('user_version', { simple: true })).toBe(42);
    expect((db.pragma('user_version') as object[]).map((r) => ({ ...r }))).toEqual([{ user_version: 42 }]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  it('an integer beyond 2^53 reads as the nearest number, as better-sqlite3 gives it', () => {
    const db = openDatabase(':memory:');
    expect(db.prepare('SELECT 9007199254740993 AS n').pluck().get()).toBe(Number(9007199254740993n));
    expect({ ...(db.prepare('SELECT -9223372036854775808 AS n').get() as object) }).toEqual({ n: Number(-9223372036854775808n) });
    db.close();
  });

  it('read-only: never created, never written; a broken file says SQLITE_NOTADB', () => {
    const dir = tempHome();
    expect(() => openDatabase(path.join(dir, 'missing.db'), { readonly: true })).toThrow();
    expect(fs.readdirSync(dir)).toEqual([]);
    const file = walLess(dir);
    const db = openDatabase(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
    expect(() => db.exec("INSERT INTO t VALUES ('x', 3)")).toThrow();
    db.close();
    const bad = path.join(dir, 'bad.db');
    fs.writeFileSync(bad, 'not a database '.repeat(400));
    let code = '';
    try {
      openDatabase(bad).prepare('SELECT * FROM sqlite_master').all();
    } catch (err) {
      code = errorCode(err);
    }
    expect(code).toBe('SQLITE_NOTADB');
  });

  it("openImmutable reads a harness's WAL-mode database without a -wal, and nothing appears beside it", () => {
    const dir = tempHome();
    const file = walLess(dir);
    const bytes = fs.readFileSync(file);
    expect(bytes[18]).toBe(2); // the header says WAL
    expect(fs.readdirSync(dir)).toEqual(['store.db']);
    const db = openImmutable(file, 1000);
    if (!db) throw new Error('not opened');
    expect((db.prepare('SELECT a FROM t ORDER BY n').pluck().all() as string[]).join()).toBe('one,two');
    expect(() => db.exec("INSERT INTO t VALUES ('x', 3)")).toThrow();
    db.close();
    expect(fs.readdirSync(dir)).toEqual(['store.db']);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('doctor names the engine and its SQLite, and loading it prints no warning', () => {
    const h = tempHome();
    const r = run(h, ['doctor', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).sqlite).toMatchObject({ ok: true, engine: WANT, version: expect.stringMatching(/^3\.\d+\.\d+$/) });
  });

  it("the CLI loads better-sqlite3 from the build's one-file copy, given its addon (not the package's files, nor `bindings`); a copy of another version is not used", () => {
    const h = tempHome();
    fs.mkdirSync(path.join(h, '.claude', 'projects'), { recursive: true });
    // what the process loaded through require, written as it exits
    const seen = path.join(h, 'loaded.json');
    const pre = path.join(h, 'pre.cjs');
    fs.writeFileSync(
      pre,
      `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(Object.keys(require.cache))));`,
    );
    const loaded = (bin: string): string[] => {
      const r = spawnSync(process.execPath, ['-r', pre, bin, 'index'], { env: envFor(h), encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(fs.readFileSync(seen, 'utf8')) as string[];
    };
    const pkgFiles = (l: string[]) =>
      l.filter((f) => f.includes(`${path.sep}better-sqlite3${path.sep}lib${path.sep}`) || f.includes(`${path.sep}bindings${path.sep}`));
    const got = loaded(path.join(ROOT, 'bin', 'resume'));
    if (WANT === 'node:sqlite') {
      expect(got.filter((f) => f.includes('sqlite3'))).toEqual([]);
      return;
    }
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8'));
    expect(got).toContain(path.join(ROOT, 'dist', `sqlite3-${version}.cjs`));
    expect(got.some((f) => f.endsWith('better_sqlite3.node'))).toBe(true);
    expect(pkgFiles(got)).toEqual([]);
    // an install whose better-sqlite3 is not the version the copy was made from: the package's own files
    const other = tempHome();
    fs.cpSync(path.join(ROOT, 'bin'), path.join(other, 'bin'), { recursive: true });
    fs.cpSync(path.join(ROOT, 'dist'), path.join(other, 'dist'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(other, 'node_modules'));
    fs.writeFileSync(path.join(other, 'package.json'), fs.readFileSync(path.join(ROOT, 'package.json')));
    fs.renameSync(path.join(other, 'dist', `sqlite3-${version}.cjs`), path.join(other, 'dist', 'sqlite3-0.0.0.cjs'));
    const fell = loaded(path.join(other, 'bin', 'resume'));
    expect(fell.filter((f) => f.includes(`${path.sep}dist${path.sep}sqlite3`))).toEqual([]);
    expect(pkgFiles(fell).length).toBeGreaterThan(0);
  });
});
