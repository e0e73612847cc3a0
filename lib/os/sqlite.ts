// The SQLite engine: Node's built-in node:sqlite where the running Node has a usable one (Node >=
// 22.16 with FTS5), else better-sqlite3, a native module loaded lazily. Both sit behind the few calls
// the index (lib/index/store.ts) and the harness readers (lib/harness/sqlite.ts) use.
//
// Why both: DESIGN.md keeps Node >= 20, where node:sqlite does not exist; where it does, it costs
// ~0.5 ms to load against better-sqlite3's ~2 ms (from the build's one-file copy, below; 9-27 ms
// from the package's own files, bench/sqlite/README.md), and it needs no compiler at install. A
// better-sqlite3 build is bound to one Node ABI, so on Node >= 22 it is never loaded.
//
// Here rather than lib/util: which engine runs depends on the host (the running Node, a native
// module on disk), as the rest of lib/os does; lib/util holds primitives that do not.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A prepared statement: better-sqlite3's, or node:sqlite's behind the same calls. */
export interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** From now on, rows are their first column only (better-sqlite3's pluck). */
  pluck(on?: boolean): this;
  /** From now on, rows are arrays of their columns (better-sqlite3's raw). */
  raw(on?: boolean): this;
}

/** An open database. better-sqlite3's Database is one as it is; node:sqlite's is wrapped (NodeDb). */
export interface Db {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  /** `PRAGMA <sql>`: its rows, or with simple the first column of the first row. */
  pragma(sql: string, opts?: { simple?: boolean }): unknown;
  close(): unknown;
  readonly inTransaction: boolean;
}

export type EngineName = 'node:sqlite' | 'better-sqlite3';

export interface OpenOptions {
  /** never created, never written */
  readonly?: boolean;
  /** how long to wait for another connection's lock, ms */
  timeout?: number;
}

/** A failed load of better-sqlite3; `detail` is the first line of why. */
export class EngineError extends Error {
  constructor(readonly detail: string) {
    super(`cannot load better-sqlite3 (${detail})`);
  }
}

// ---- node:sqlite (typed here: @types/node follows the Node 20 floor) ----

interface NodeStatement {
  run(...p: unknown[]): unknown;
  get(...p: unknown[]): unknown;
  all(...p: unknown[]): unknown[];
  iterate(...p: unknown[]): IterableIterator<unknown>;
  setReturnArrays(on: boolean): void;
  setReadBigInts(on: boolean): void;
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction: boolean;
}
type NodeCtor = new (file: string | URL, opts?: { readOnly?: boolean; timeout?: number }) => NodeDatabase;
type BetterCtor = new (
  file: string | Buffer,
  opts?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number; nativeBinding?: string },
) => Db;

let chosen: { name: 'node:sqlite'; ctor: NodeCtor } | { name: 'better-sqlite3'; ctor: BetterCtor; addon: string | null } | null = null;

/**
 * better-sqlite3: its JavaScript from the one file the build made of it beside this bundle
 * (dist/sqlite3-VERSION.cjs, scripts/build.mjs; ~1 ms to load against ~5-7 ms for the package's
 * fifteen files), given its compiled addon by path, so that its own lookup (the `bindings` package:
 * a stack walk and a dozen paths probed, ~2 ms an open) never runs. The package as installed when
 * there is no such file of the installed version (the sources, as the tests run them; a package
 * updated since the build), or the addon is not where a build or a prebuilt download puts it.
 */
function betterSqlite(): { name: 'better-sqlite3'; ctor: BetterCtor; addon: string | null } {
  // (in the CommonJS bundle, its own require and directory: node:module's createRequire and the
  // conversion of import.meta.url took ~1.7 ms of each run that opens the index)
  const req = typeof require === 'function' ? require : createRequire(import.meta.url);
  const here = typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url));
  const pkg = req.resolve('better-sqlite3/package.json');
  const { version } = JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version?: string };
  const addon = path.join(path.dirname(pkg), 'build', 'Release', 'better_sqlite3.node');
  const bundled = path.join(here, `sqlite3-${version}.cjs`);
  if (version && fs.existsSync(bundled) && fs.existsSync(addon)) return { name: 'better-sqlite3', ctor: req(bundled) as BetterCtor, addon };
  return { name: 'better-sqlite3', ctor: req('better-sqlite3') as BetterCtor, addon: null };
}

/** node:sqlite when this Node has one with the calls used here and FTS5; null otherwise. */
function nodeSqlite(): NodeCtor | null {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof get !== 'function') return null;
  // Loading it warns "SQLite is an experimental feature" once per process: that warning alone is
  // dropped (a CLI's stderr is for its own errors); every other warning still prints.
  const emit = process.emitWarning;
  process.emitWarning = ((w: string | Error, ...rest: unknown[]) => {
    const a = rest[0];
    const type = typeof a === 'string' ? a : (a as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && String(w).includes('SQLite')) return;
    return (emit as (...a: unknown[]) => void).call(process, w, ...rest);
  }) as typeof process.emitWarning;
  let m: { DatabaseSync?: NodeCtor; StatementSync?: { prototype: object } } | undefined;
  try {
    m = get.call(process, 'node:sqlite') as typeof m;
  } catch {
    m = undefined;
  } finally {
    process.emitWarning = emit;
  }
  const C = m?.DatabaseSync;
  // setReturnArrays and isTransaction came in 22.16, file: URLs in 22.15; older builds take the other path
  if (!C || typeof (m?.StatementSync?.prototype as { setReturnArrays?: unknown })?.setReturnArrays !== 'function') return null;
  try {
    const db = new C(':memory:');
    try {
      if (!('isTransaction' in db)) return null;
      // the index's full-text tables need FTS5 (a Node built against a system SQLite may lack it)
      const r = db.prepare("SELECT sqlite_compileoption_used('ENABLE_FTS5') AS f").get() as { f: number } | undefined;
      return r?.f === 1 ? C : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

function choose(): NonNullable<typeof chosen> {
  if (chosen) return chosen;
  const n = nodeSqlite();
  if (n) {
    chosen = { name: 'node:sqlite', ctor: n };
    return chosen;
  }
  try {
    chosen = betterSqlite();
  } catch (err) {
    const m = err instanceof Error ? err.message : String(err);
    throw new EngineError((m.split('\n')[0] ?? '').trim());
  }
  return chosen;
}

/** The engine this process uses (choosing it, and loading better-sqlite3 if that is the one). */
export function engineName(): EngineName {
  return choose().name;
}

/** A database file (created unless read-only). Throws EngineError when no engine loads. */
export function openDatabase(file: string, opts: OpenOptions = {}): Db {
  const e = choose();
  if (e.name === 'node:sqlite') return new NodeDb(new e.ctor(file, { readOnly: !!opts.readonly, timeout: opts.timeout ?? 5000 }));
  return new e.ctor(file, { readonly: !!opts.readonly, fileMustExist: !!opts.readonly, timeout: opts.timeout ?? 5000, ...bound(e.addon) });
}

/**
 * A database read-only without a byte written beside it: no -wal, -shm or -journal is created, for
 * a file no writer is changing (the caller checks: no -wal with data, no -journal). node:sqlite
 * opens it as SQLite's `immutable=1` URI (no locks, no companions); better-sqlite3, whose SQLite
 * takes no URIs here, reads a copy in memory (a WAL-mode header is marked rollback-journal in the
 * copy only, bytes 18-19, which in-memory SQLite requires). null when the file is too large to copy.
 */
export function openImmutable(file: string, timeout: number): Db | null {
  const e = choose();
  if (e.name === 'node:sqlite') {
    const u = pathToFileURL(file);
    u.searchParams.set('immutable', '1');
    return new NodeDb(new e.ctor(u, { readOnly: true, timeout }));
  }
  if (fs.statSync(file).size > MAX_IN_MEMORY) return null;
  const buf = fs.readFileSync(file);
  if (buf.length >= 20 && buf[18] === 2 && buf[19] === 2) {
    buf[18] = 1;
    buf[19] = 1;
  }
  return new e.ctor(buf, { readonly: true, timeout, ...bound(e.addon) });
}

/** better-sqlite3's option naming its addon, when it was found (else its own lookup finds it). */
const bound = (addon: string | null) => (addon ? { nativeBinding: addon } : {});

const MAX_IN_MEMORY = 256 << 20;

const CODES: Record<number, string> = { 5: 'BUSY', 6: 'LOCKED', 8: 'READONLY', 10: 'IOERR', 11: 'CORRUPT', 14: 'CANTOPEN', 26: 'NOTADB' };

/**
 * An error's SQLite result code by better-sqlite3's name (`SQLITE_CORRUPT`, ...), '' when it has none.
 * node:sqlite gives the number (`errcode`, maybe extended) under code ERR_SQLITE_ERROR.
 */
export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; errcode?: unknown } | null;
  if (typeof e?.errcode === 'number') {
    const name = CODES[e.errcode & 0xff];
    return name ? `SQLITE_${name}` : '';
  }
  return typeof e?.code === 'string' && e.code.startsWith('SQLITE_') ? e.code : '';
}

/** For doctor: the engine, its SQLite, or why none loads. */
export function engineStatus(): { ok: boolean; engine: EngineName | null; version: string | null; error: string | null } {
  try {
    const db = openDatabase(':memory:');
    try {
      return { ok: true, engine: engineName(), version: db.prepare('SELECT sqlite_version()').pluck().get() as string, error: null };
    } finally {
      db.close();
    }
  } catch (err) {
    const m = err instanceof EngineError ? err.detail : err instanceof Error ? err.message : String(err);
    return { ok: false, engine: null, version: null, error: (m.split('\n')[0] ?? '').trim() };
  }
}

// ---- node:sqlite behind better-sqlite3's calls ----

/**
 * A value as better-sqlite3 gives it: a blob as a Buffer (node:sqlite gives a Uint8Array), an
 * integer as a number. node:sqlite throws on integers beyond 2^53 unless read as BigInts, so every
 * statement reads BigInts and they become numbers here, lossy beyond 2^53 as in better-sqlite3 (the
 * index keeps none: sizes, times and inodes are REAL; a harness's database may).
 */
function value(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

function row(r: unknown): unknown {
  if (r === undefined || r === null) return r;
  const o = r as Record<string, unknown>;
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'bigint' || (typeof v === 'object' && v !== null)) o[k] = value(v);
  }
  return o;
}

class NodeStmt implements Statement {
  private plucked = false;
  private arrays = false;
  constructor(private readonly s: NodeStatement) {
    s.setReadBigInts(true);
  }
  pluck(on = true): this {
    this.plucked = on;
    this.arrays = false;
    this.s.setReturnArrays(on);
    return this;
  }
  raw(on = true): this {
    this.arrays = on;
    this.plucked = false;
    this.s.setReturnArrays(on);
    return this;
  }
  private out(r: unknown): unknown {
    if (r === undefined) return r;
    if (this.arrays) return (r as unknown[]).map(value);
    return this.plucked ? value((r as unknown[])[0]) : row(r);
  }
  run(...p: unknown[]): unknown {
    return row(this.s.run(...p));
  }
  get(...p: unknown[]): unknown {
    return this.out(this.s.get(...p));
  }
  all(...p: unknown[]): unknown[] {
    const rs = this.s.all(...p);
    for (let i = 0; i < rs.length; i++) rs[i] = this.out(rs[i]);
    return rs;
  }
  *iterate(...p: unknown[]): IterableIterator<unknown> {
    for (const r of this.s.iterate(...p)) yield this.out(r);
  }
}

class NodeDb implements Db {
  constructor(private readonly db: NodeDatabase) {}
  prepare(sql: string): Statement {
    return new NodeStmt(this.db.prepare(sql));
  }
  exec(sql: string): void {
    this.db.exec(sql);
  }
  pragma(sql: string, opts: { simple?: boolean } = {}): unknown {
    const s = this.prepare(`PRAGMA ${sql}`);
    return opts.simple ? s.pluck().get() : s.all();
  }
  close(): void {
    this.db.close();
  }
  get inTransaction(): boolean {
    return this.db.isTransaction;
  }
}
