// The offset index. For every source under the roots: size, mtime and inode unchanged → reuse the
// entry without opening the file; grown (and the bytes before the old offset unchanged) → parse only
// the new complete lines; shrunk or rewritten → parse from byte 0; gone → drop.
//
// Files in the cache directory, each written atomically (temp file + rename, mode 0600):
//   files.json       — the stat of every source: `v<version> <build id>\n` then one JSON array
//                      (read when something changed, to tell what).
//   check.bin        — the same stats as bytes (float64 size, mtime, inode; then the paths): a
//                      no-change run builds the same bytes from its own stats and compares them,
//                      exactly, without parsing anything. Before them, per adapter, how many
//                      sources it added and its discovery memo (lib/index/discmemo.ts): the
//                      directories it listed, so an unchanged tree is not walked again.
//   rows.json        — what a row shows, per session (ListedSession), for `rows`: a fraction of
//                      the listing's size.
//   list.json        — the final sessions, whole (preview, ls, search, resolve).
//   rows.bin         — the rows `resume rows` prints, rendered (lib/index/rowbin.ts): a no-change
//                      `rows` copies them out, with only the age computed.
//   dirs.json        — directory listings by directory stat (lib/index/dirs.ts).
//   state/NN.json    — per source: offset, parser state (to continue an append), per-source
//                      sessions; sharded by a hash of the path into SHARDS files, so an append
//                      reads and rewrites one small shard, not the state of every source.
//   index.lock       — held by the one run that parses (lib/index/lock.ts); others wait for it.
// files.json and check.bin are written last and name the build: rows.json, rows.bin and list.json are used
// only when they carry the same build id, so a run that died half-way is never read as finished.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Adapter, Ctx, Harness, LineState, Root, Session, SessionCore, Source } from '../types.js';
import { ADAPTERS } from '../harness/registry.js';
import { cacheDir } from '../util/paths.js';
import { runJob, type Job, type JobResult } from './parse.js';
import { tailMatches } from './lines.js';
import { sanitizeSession } from '../util/redact.js';
import { DirCache, parseDirFile, type SeenDir } from './dirs.js';
import { setReaddirHook, setSymlinkHook, writeAtomic } from '../util/fsx.js';
import { dirsStand, makeMemo, parseMeta, type AdapterMeta, type Memo } from './discmemo.js';
import { shortIds } from '../select/filter.js';
import { tryLock, unlock, waitUnlocked } from './lock.js';
import { byRecency, OrderedStream, planOrder } from './stream.js';
import { readRowBin, rowBinChunks, type RowBin } from './rowbin.js';
import { ShardWriter } from './shardwriter.js';

/** Bump when any parser changes what it extracts: older caches are discarded and rebuilt. */
export const INDEX_VERSION = 11;

/**
 * What a listing row needs of a session (rows.json holds only these). `short` is the id's shortest
 * unique prefix among all sessions (`shortIds` of the whole listing), computed when it is built.
 */
export type ListedSession = Pick<
  Session,
  'key' | 'id' | 'harness' | 'cwd' | 'title' | 'firstPrompt' | 'branch' | 'started' | 'updated' | 'hidden' | 'hiddenReason'
> & { short: string };

export function listed(s: Session, short: string): ListedSession {
  return {
    key: s.key, id: s.id, short, harness: s.harness, cwd: s.cwd, title: s.title,
    // the row shows the title when there is one (kept when it is the prompt: a snapshot name may replace it)
    firstPrompt: s.title && s.title !== s.firstPrompt ? null : s.firstPrompt,
    branch: s.branch, started: s.started, updated: s.updated, hidden: s.hidden, hiddenReason: s.hiddenReason,
  };
}

interface Stat {
  size: number;
  mtime: number;
  ino: number;
  /** size:mtime of dependent files (SQLite -wal), '' when none */
  sig: string;
}

interface Entry extends Stat {
  src: Source;
  offset: number;
  tail: string;
  state: LineState;
  sessions: SessionCore[];
  error?: string;
}

interface StateFile {
  v: number;
  entries: Record<string, Entry>;
}

type FileStat = [number, number, number, string];

interface ListFile<S = Session> {
  v: number;
  /** build id, the same in files.json, rows.json and list.json */
  id: string;
  sessions: S[];
  skipped: Skipped;
  built: number;
}

export interface Skipped {
  /** named like a session file but not a regular file (FIFO, socket, device, directory) */
  notRegular: number;
  /** could not be stat'ed or read */
  unreadable: number;
  /** sources whose parse failed (message per harness) */
  failed: Record<string, string>;
}

export interface IndexResult {
  sessions: Session[];
  skipped: Skipped;
  /** sources found, parsed this run, reused, dropped */
  counts: { sources: number; parsed: number; appended: number; reused: number; dropped: number; bytes: number };
  roots: Map<Harness, Root[]>;
  changed: boolean;
  /** parser state per source path (only when asked: `withEntries`) */
  entries?: Record<string, Entry>;
  /** short ids of every session, when this run wrote the listing (computed once for it) */
  shorts?: Map<string, string>;
}

/** `listSessions`: what `rows` needs, read from rows.json when nothing changed. */
export interface ListingResult extends Omit<IndexResult, 'sessions' | 'entries'> {
  sessions: ListedSession[];
  /** with `rowBin` asked and nothing changed: the rendered rows (rows.bin), and `sessions` empty */
  rowBin?: RowBin;
}

export interface IndexOptions {
  rebuild?: boolean;
  /** restrict to these harnesses (discovery and parsing of others is skipped; their cache is kept) */
  harnesses?: Harness[];
  /** worker file for parallel parsing; without it everything is parsed on the main thread */
  workerFile?: string;
  /** called with (done, total) bytes while parsing, for a progress bar */
  progress?: (done: number, total: number, files: number, totalFiles: number) => void;
  /** load the per-source entries into the result even on a no-change run (doctor) */
  withEntries?: boolean;
  /**
   * A full build (cold index, rebuild, or a change a partial update cannot take) streams the
   * finished list through this, in batches whose concatenation is exactly the result's sessions, in
   * order, while files are still being read (lib/index/stream.ts: newest files first, a session is
   * handed over once no unread file can hold a newer one). A fast or partial run never calls it.
   */
  onSessions?: (sessions: Session[]) => void;
  /** listSessions: on a no-change run, hand back rows.bin (rendered rows) instead of reading rows.json */
  rowBin?: boolean;
}

function statOf(p: string): fs.Stats | null {
  try {
    return fs.statSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

function depSig(deps: string[] | undefined): string {
  if (!deps || deps.length === 0) return '';
  return deps
    .map((d) => {
      const s = statOf(d);
      return s ? `${s.size}:${s.mtimeMs}` : '-';
    })
    .join('|');
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}


/**
 * Is there a stored listing of this index version? Reads only its first bytes (the version is
 * written first): for callers that must know whether a run will be cold before starting it.
 */
export function haveListing(ctx: Ctx): boolean {
  let fd: number;
  try {
    fd = fs.openSync(indexFiles(ctx).list, 'r');
  } catch {
    return false;
  }
  try {
    const b = Buffer.alloc(32);
    const n = fs.readSync(fd, b, 0, 32, 0);
    return b.toString('latin1', 0, n).startsWith(`{"v":${INDEX_VERSION},`);
  } finally {
    fs.closeSync(fd);
  }
}

export const SHARDS = 16;

/** The state kept of a source once it is written, when nothing in the run reads it again (one object for all). */
const NO_STATE: LineState = Object.freeze({}) as LineState;

export interface IndexFiles {
  dir: string;
  list: string;
  rows: string;
  rowbin: string;
  files: string;
  check: string;
  dirs: string;
  lock: string;
  state: string;
}

export function indexFiles(ctx: Ctx): IndexFiles {
  const dir = cacheDir(ctx);
  const j = (n: string) => path.join(dir, n);
  return { dir, list: j('list.json'), rows: j('rows.json'), rowbin: j('rows.bin'), files: j('files.json'), check: j('check.bin'), dirs: j('dirs.json'), lock: j('index.lock'), state: j('state') };
}

/** The stat table as stored in files.json (after the id line); discovery order; in pieces (not one string). */
function* statTable(found: Found[]): Generator<string> {
  yield '[';
  for (let i = 0; i < found.length; i++) {
    const f = found[i]!;
    yield `${i > 0 ? ',' : ''}[${JSON.stringify(f.src.path)},${f.stat.size},${f.stat.mtime},${f.stat.ino},${JSON.stringify(f.stat.sig)}]`;
  }
  yield ']';
}

/**
 * The stat check a no-change run compares, exactly and without parsing: every source's size, mtime
 * and inode as float64 bytes, then every path (with its dependency signature) NUL-separated, in
 * discovery order. Stored in check.bin after a header line naming the version and build id; a run
 * builds the same bytes from its own stats and compares them with one memcmp.
 */
function checkBytes(found: Found[], withNames = true): { nums: Buffer; names: string } {
  const nums = new Float64Array(found.length * 3);
  for (let i = 0; i < found.length; i++) {
    const st = found[i]!.stat;
    nums[i * 3] = st.size;
    nums[i * 3 + 1] = st.mtime;
    nums[i * 3 + 2] = st.ino;
  }
  return { nums: Buffer.from(nums.buffer, nums.byteOffset, nums.byteLength), names: withNames ? found.map(checkName).join('\u0000') : '' };
}

/** A source's name in the check: its path, with its dependencies' signature after \u0001. */
function checkName(f: Found): string {
  return f.stat.sig ? `${f.src.path}\u0001${f.stat.sig}` : f.src.path;
}

function writeCheck(file: string, id: string, found: Found[], meta: AdapterMeta[]): void {
  const { nums } = checkBytes(found, false);
  const metaBuf = Buffer.from(JSON.stringify(meta), 'utf8');
  // per source: its kind (index in its adapter's memo kinds) * 2 + 1 for `whole`; 0 outside a memo
  const codes = Buffer.alloc(found.length);
  let i = 0;
  for (const m of meta) {
    for (let k = 0; k < m.n && i < found.length; k++, i++) {
      if (!m.memo) continue;
      const s = found[i]!.src;
      codes[i] = m.memo.kinds.indexOf(s.kind) * 2 + (s.mode === 'whole' ? 1 : 0);
    }
  }
  const head = `v${INDEX_VERSION} ${id} ${found.length} ${metaBuf.length}\n`;
  // the parts one after the other; the names as UTF-8 text, path by path (not one string)
  writeAtomic(file, (function* () {
    yield Buffer.from(head, 'latin1');
    yield metaBuf;
    yield codes;
    yield nums;
    for (let i = 0; i < found.length; i++) yield (i ? '\u0000' : '') + checkName(found[i]!);
  })());
}

/** check.bin read and split: build id, per-adapter meta (with the memos), and the stat bytes. */
interface StoredCheck {
  id: string;
  count: number;
  meta: AdapterMeta[];
  buf: Buffer;
  codesAt: number;
  numsAt: number;
  namesAt: number;
  /** the stored source paths in order (decoded on first use) */
  paths?: string[];
}

function readCheck(file: string): StoredCheck | null {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return null;
  }
  const nl = buf.indexOf(10);
  if (nl <= 0 || nl > 200) return null;
  const m = /^v(\d+) (\S+) (\d+) (\d+)$/.exec(buf.toString('latin1', 0, nl));
  if (!m || Number(m[1]) !== INDEX_VERSION) return null;
  const count = Number(m[3]);
  const metaAt = nl + 1;
  const codesAt = metaAt + Number(m[4]);
  const numsAt = codesAt + count;
  const namesAt = numsAt + count * 24;
  if (buf.length < namesAt) return null;
  const meta = parseMeta(buf.toString('utf8', metaAt, codesAt));
  if (!meta || meta.reduce((n, a) => n + a.n, 0) !== count) return null;
  return { id: m[2]!, count, meta, buf, codesAt, numsAt, namesAt };
}

/** The stored source paths (a path with dependencies carries their signature after \u0001). */
function storedPaths(c: StoredCheck): string[] {
  if (!c.paths) {
    const names = c.buf.toString('utf8', c.namesAt);
    const paths = c.count === 0 ? [] : names.split('\u0000');
    // a damaged names section serves no memo
    c.paths = paths.length === c.count ? paths : [];
  }
  return c.paths;
}

/**
 * The build id when the stored check matches these sources exactly; null otherwise. `live` (see
 * Discovered): the ranges whose paths a live discovery found; every other source is the stored
 * one at the same index, so only stats compare there. Null: compare every path.
 */
function matchCheck(c: StoredCheck | null, found: Found[], live: Array<[number, number]> | null = null): string | null {
  if (!c || c.count !== found.length) return null;
  if (live) {
    const nums = new Float64Array(found.length * 3);
    for (let i = 0; i < found.length; i++) {
      const st = found[i]!.stat;
      nums[i * 3] = st.size;
      nums[i * 3 + 1] = st.mtime;
      nums[i * 3 + 2] = st.ino;
    }
    if (Buffer.compare(Buffer.from(nums.buffer), c.buf.subarray(c.numsAt, c.namesAt)) !== 0) return null;
    if (live.length === 0) return c.id;
    const paths = storedPaths(c);
    if (paths.length !== c.count) return null;
    for (const [at, n] of live) {
      for (let i = at; i < at + n; i++) {
        const f = found[i]!;
        if (paths[i] !== (f.stat.sig ? `${f.src.path}\u0001${f.stat.sig}` : f.src.path)) return null;
      }
    }
    return c.id;
  }
  const { nums, names } = checkBytes(found);
  if (Buffer.compare(nums, c.buf.subarray(c.numsAt, c.namesAt)) !== 0) return null;
  const rest = c.buf.subarray(c.namesAt);
  if (rest.length !== Buffer.byteLength(names, 'utf8') || rest.toString('utf8') !== names) return null;
  return c.id;
}

function readFilesJson(file: string): { id: string; table: string } | null {
  const t = readText(file);
  if (!t) return null;
  const nl = t.indexOf('\n');
  if (nl <= 0) return null;
  const head = t.slice(0, nl);
  const m = /^v(\d+) (\S+)$/.exec(head);
  if (!m || Number(m[1]) !== INDEX_VERSION) return null;
  return { id: m[2]!, table: t.slice(nl + 1) };
}

function parseTable(table: string): Map<string, FileStat> | null {
  try {
    const a = JSON.parse(table) as unknown;
    if (!Array.isArray(a)) return null;
    const m = new Map<string, FileStat>();
    for (const r of a) {
      if (!Array.isArray(r) || r.length !== 5 || typeof r[0] !== 'string') return null;
      m.set(r[0], [r[1], r[2], r[3], r[4]]);
    }
    return m;
  } catch {
    return null;
  }
}

function validListFile<S>(f: ListFile<S> | null, id: string): f is ListFile<S> {
  return !!f && f.v === INDEX_VERSION && f.id === id && Array.isArray(f.sessions);
}

/** FNV-1a of the path, folded to a shard number. */
export function shardOf(p: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < p.length; i++) {
    h ^= p.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % SHARDS;
}

function shardFile(stateDir: string, n: number): string {
  return path.join(stateDir, `${String(n).padStart(2, '0')}.json`);
}

function loadShards(stateDir: string, which: Iterable<number>): Record<string, Entry> {
  const out: Record<string, Entry> = {};
  for (const n of which) {
    const f = readJson<StateFile>(shardFile(stateDir, n));
    if (!f || f.v !== INDEX_VERSION || !f.entries || typeof f.entries !== 'object' || Array.isArray(f.entries)) continue;
    for (const [p, e] of Object.entries(f.entries)) if (e && typeof e === 'object' && shardOf(p) === n) out[p] = e;
  }
  return out;
}

function allShards(): number[] {
  return Array.from({ length: SHARDS }, (_, i) => i);
}

function writeShards(stateDir: string, entries: Record<string, Entry>, which: Set<number>): void {
  const by = new Map<number, string[]>();
  for (const n of which) by.set(n, []);
  for (const p of Object.keys(entries)) by.get(shardOf(p))?.push(p);
  for (const [n, paths] of by) writeShard(stateDir, n, entries, paths);
}

/**
 * One shard: these entries, in this order, as `JSON.stringify({ v, entries })` gives them (the
 * same bytes), written entry by entry so a shard is never one string.
 */
function writeShard(stateDir: string, n: number, entries: Record<string, Entry>, paths: string[]): void {
  function* chunks(): Generator<string> {
    yield `{"v":${INDEX_VERSION},"entries":{`;
    for (let i = 0; i < paths.length; i++) yield (i ? ',' : '') + JSON.stringify(paths[i]) + ':' + JSON.stringify(entries[paths[i]!]);
    yield '}}';
  }
  writeAtomic(shardFile(stateDir, n), chunks());
}

export interface Found {
  src: Source;
  stat: Stat;
  /** the latest mtime of the file and its dependencies (SQLite -wal, side files): no session of it is newer */
  bound: number;
}

/** What a discovery found, and what check.bin is to record of it. */
interface Discovered {
  found: Found[];
  roots: Map<Harness, Root[]>;
  meta: AdapterMeta[];
  /** a memo was made or dropped this run: check.bin should be written again even if nothing else changed */
  metaChanged: boolean;
  /**
   * The ranges of `found` that a live discovery made, when every other range came whole from the
   * stored check's memos, each adapter has as many sources as the stored check gives it, and the
   * adapters are in its order: then only these ranges' paths need comparing with the stored ones
   * (the rest are the stored paths). Null: compare every path.
   */
  live: Array<[number, number]> | null;
}

/**
 * Discover with the directory cache installed (unchanged directories are not read again), and
 * write the cache back when a directory was read or went away. `stored` (check.bin): an adapter
 * whose memo still stands is not run at all (lib/index/discmemo.ts).
 */
function discoverCached(ctx: Ctx, adapters: Adapter<any>[], skipped: Skipped, files: IndexFiles, fresh: boolean, stored: StoredCheck | null = null): Discovered {
  // dirs.json is read only when an adapter runs and lists an existing directory
  const cache = new DirCache(fresh ? {} : () => parseDirFile(readText(files.dirs)));
  setReaddirHook((d) => cache.entries(d));
  let r: Discovered;
  try {
    r = discoverAll(ctx, adapters, skipped, cache, fresh ? null : stored);
  } finally {
    setReaddirHook(null);
  }
  // A run over some harnesses, or one that served a memo (its directories were not visited), keeps
  // the listings of directories it did not visit.
  const prune = adapters.length === ADAPTERS.length && !r.meta.some((m, i) => m.memo && stored?.meta[i]?.memo === m.memo);
  if (cache.dirty(prune)) {
    try {
      writeAtomic(files.dirs, JSON.stringify(cache.toFile(prune)));
    } catch {
      /* only costs speed */
    }
  }
  return r;
}

function discoverAll(ctx: Ctx, adapters: Adapter<any>[], skipped: Skipped, cache: DirCache | null, stored: StoredCheck | null): Discovered {
  const found: Found[] = [];
  const roots = new Map<Harness, Root[]>();
  const seen = new Set<string>();
  const meta: AdapterMeta[] = [];
  let metaChanged = !stored;
  const live: Array<[number, number]> = [];
  // where each adapter's sources start in the stored check
  const starts = new Map<string, { at: number; m: AdapterMeta }>();
  if (stored) {
    let at = 0;
    for (const m of stored.meta) {
      starts.set(m.name, { at, m });
      at += m.n;
    }
  }
  for (const a of adapters) {
    let rs: Root[] = [];
    try {
      rs = a.roots(ctx);
    } catch {
      rs = [];
    }
    roots.set(a.name, rs);
    const key = JSON.stringify(rs);
    let memo: Memo | undefined;
    const st = starts.get(a.name);
    if (a.listsOnly && stored && st?.m.memo && st.m.memo.key === key && dirsStand(st.m.memo.dirs)) {
      // Served only when every remembered source is still a regular file and new to this run: a
      // source gone without its directory changing means the memo (or check.bin) is not to be trusted.
      const srcs = fromMemo(stored, st.at, st.m.n, a.name, st.m.memo);
      const got = srcs && statAll(srcs, seen);
      if (got) {
        for (const f of got) found.push(f);
        memo = st.m.memo;
        meta.push({ name: a.name, n: got.length, memo });
        continue;
      }
    }
    let srcs: Source[];
    const trace: SeenDir[] = [];
    let symlinked = false;
    if (cache) cache.trace = trace;
    setSymlinkHook(() => {
      symlinked = true;
    });
    try {
      srcs = a.discover(ctx, rs.filter((r) => r.exists));
    } catch (err) {
      skipped.failed[a.name] = err instanceof Error ? err.message : String(err);
      srcs = [];
      symlinked = true; // nothing to remember of a failed discovery
    } finally {
      if (cache) cache.trace = null;
      setSymlinkHook(null);
    }
    if (a.listsOnly && cache) memo = makeMemo(key, trace, srcs, symlinked);
    if (st?.m.memo || memo) metaChanged = true;
    const before = found.length;
    for (const src of srcs) {
      if (seen.has(src.path)) continue;
      seen.add(src.path);
      const st = statOf(src.path);
      if (!st) {
        skipped.unreadable++;
        continue;
      }
      if (!st.isFile()) {
        skipped.notRegular++;
        continue;
      }
      const sig = depSig(src.deps);
      found.push({ src, stat: { size: st.size, mtime: st.mtimeMs, ino: st.ino, sig }, bound: sig ? boundOf(st.mtimeMs, sig) : st.mtimeMs });
    }
    const n = found.length - before;
    // a memo holds exactly what the discovery found: nothing skipped or shared with another adapter
    if (memo && n !== srcs.length) memo = undefined;
    meta.push(memo ? { name: a.name, n, memo } : { name: a.name, n });
    if (n > 0) live.push([before, n]);
  }
  // The stored check's segments are these adapters' only when it lists them in this order with the
  // same number of sources each (then a source's index here is its index there).
  const aligned = !!stored && stored.meta.length === adapters.length && stored.meta.every((m, i) => m.name === adapters[i]!.name && m.n === meta[i]!.n);
  return { found, roots, meta, metaChanged, live: aligned ? live : null };
}

/** Stat remembered sources: null when one is gone, not a regular file, or found already this run. */
function statAll(srcs: Source[], seen: Set<string>): Found[] | null {
  const out = new Array<Found>(srcs.length);
  for (let i = 0; i < srcs.length; i++) {
    const src = srcs[i]!;
    const st = seen.has(src.path) ? null : statOf(src.path);
    if (!st || !st.isFile()) {
      // undo: the adapter is discovered again
      for (let k = 0; k < i; k++) seen.delete(srcs[k]!.path);
      return null;
    }
    seen.add(src.path);
    out[i] = { src, stat: { size: st.size, mtime: st.mtimeMs, ino: st.ino, sig: '' }, bound: st.mtimeMs };
  }
  return out;
}

/** An adapter's sources as the stored check lists them (null when they do not fit its memo). */
function fromMemo(c: StoredCheck, at: number, n: number, h: Harness, m: Memo): Source[] | null {
  const paths = storedPaths(c);
  if (at + n > paths.length) return null;
  const out = new Array<Source>(n);
  for (let k = 0; k < n; k++) {
    const p = paths[at + k]!;
    const code = c.buf[c.codesAt + at + k]!;
    const kind = m.kinds[code >> 1];
    if (kind === undefined || p.includes('\u0001')) return null;
    out[k] = { path: p, harness: h, kind: kind as Source['kind'], mode: code & 1 ? 'whole' : 'lines' };
  }
  return out;
}

/** The file's mtime or a later one among its dependencies (from their `size:mtime|…` signature). */
function boundOf(mtime: number, sig: string): number {
  let b = mtime;
  for (const d of sig.split('|')) {
    const m = Number(d.slice(d.indexOf(':') + 1));
    if (d !== '-' && m > b) b = m;
  }
  return b;
}

function sameStat(a: Stat, b: FileStat | Stat | undefined): boolean {
  if (!b) return false;
  if (Array.isArray(b)) return a.size === b[0] && a.mtime === b[1] && a.ino === b[2] && a.sig === b[3];
  return a.size === b.size && a.mtime === b.mtime && a.ino === b.ino && a.sig === b.sig;
}

/** Whole sessions as listing rows (short ids computed over all of them). */
export function toListed(sessions: Session[], known?: Map<string, string>): ListedSession[] {
  const shorts = known ?? shortIds(sessions);
  return sessions.map((s) => listed(s, shorts.get(s.id) ?? s.id));
}

/** Bring the index up to date and return every session (hidden ones included), newest first. */
export async function updateIndex(ctx: Ctx, opts: IndexOptions = {}): Promise<IndexResult> {
  return (await update(ctx, opts, 'full')) as IndexResult;
}

/**
 * Bring the index up to date and return what a listing row needs of every session (hidden ones
 * included), newest first. When nothing changed this reads rows.json only: the API for `rows`.
 */
export async function listSessions(ctx: Ctx, opts: Omit<IndexOptions, 'withEntries'> = {}): Promise<ListingResult> {
  const r = await update(ctx, opts, 'rows');
  // a build computed the short ids as it wrote the listing
  if (r.sessions.length > 0 && !('short' in r.sessions[0]!)) r.sessions = toListed(r.sessions as Session[], (r as IndexResult).shorts);
  delete (r as IndexResult).entries;
  delete (r as IndexResult).shorts;
  return r as ListingResult;
}

type AnyResult = Omit<IndexResult, 'sessions'> & { sessions: Session[] | ListedSession[]; rowBin?: RowBin };

async function update(ctx: Ctx, opts: IndexOptions, want: 'full' | 'rows'): Promise<AnyResult> {
  const files = indexFiles(ctx);
  const asked = Date.now();
  let rebuild = !!opts.rebuild;
  for (;;) {
    // the discovery that found a change is handed to the builder (taken just before the lock)
    const fast = rebuild ? null : tryFast(ctx, opts, want, files);
    if (fast && 'sessions' in fast) return fast;
    const seen = fast ?? undefined;
    // Something to parse: one builder at a time. Without a usable cache directory, build unlocked.
    let locked = false;
    try {
      fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
      locked = tryLock(files.lock);
    } catch {
      return build(ctx, { ...opts, rebuild }, files, seen);
    }
    if (locked) {
      try {
        return await build(ctx, { ...opts, rebuild }, files, seen);
      } finally {
        try {
          unlock(files.lock);
        } catch {
          /* gone already */
        }
      }
    }
    await waitUnlocked(files.lock);
    // A rebuild asked for while another ran is satisfied by a listing built after the request.
    if (rebuild) {
      const l = readJson<{ built?: number }>(files.rows);
      if (l && typeof l.built === 'number' && l.built >= asked) rebuild = false;
    }
  }
}

interface Discovery {
  found: Found[];
  roots: Map<Harness, Root[]>;
  skipped: Skipped;
  meta: AdapterMeta[];
}

/**
 * The no-change run: discovery and stats match files.json, the stored listing is the answer.
 * Otherwise the discovery, for the builder (null: none was made).
 */
function tryFast(ctx: Ctx, opts: IndexOptions, want: 'full' | 'rows', files: IndexFiles): AnyResult | Discovery | null {
  if (opts.harnesses) return null;
  const skipped: Skipped = { notRegular: 0, unreadable: 0, failed: {} };
  const stored = readCheck(files.check);
  const { found, roots, meta, metaChanged, live } = discoverCached(ctx, ADAPTERS, skipped, files, false, stored);
  const id = matchCheck(stored, found, live);
  if (!id) return { found, roots, skipped, meta };
  if (metaChanged) {
    // the same sources, and a discovery memo made or dropped: record it for the next run
    try {
      writeCheck(files.check, id, found, meta);
    } catch {
      /* only costs speed */
    }
  }
  if (want === 'rows' && opts.rowBin) {
    const bin = readRowBinFile(files.rowbin, id, ctx.home);
    if (bin) {
      const counts = { sources: found.length, parsed: 0, appended: 0, reused: found.length, dropped: 0, bytes: 0 };
      return { sessions: [], rowBin: bin, skipped, counts, roots, changed: false } as AnyResult;
    }
  }
  const list = readJson<ListFile<Session | ListedSession>>(want === 'rows' ? files.rows : files.list);
  if (!validListFile(list, id)) return { found, roots, skipped, meta };
  const counts = { sources: found.length, parsed: 0, appended: 0, reused: found.length, dropped: 0, bytes: 0 };
  const res: AnyResult = { sessions: list.sessions as Session[], skipped: mergeSkipped(skipped, list.skipped), counts, roots, changed: false };
  if (opts.withEntries) res.entries = loadShards(files.state, allShards());
  // rows.bin missing, damaged or of another home: render it again from the listing just read
  if (want === 'rows' && opts.rowBin) {
    const ss = list.sessions as ListedSession[];
    const bin = rowBinChunks(id, ctx.home, ss.map((s) => ({ s, short: s.short })));
    try {
      if (bin) writeAtomic(files.rowbin, Buffer.concat(bin));
    } catch {
      /* only costs speed */
    }
  }
  return res;
}

/** rows.bin when it is whole and of this build and home; null otherwise (rows.json serves). */
function readRowBinFile(file: string, id: string, home: string): RowBin | null {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return null;
  }
  const r = readRowBin(buf);
  return r && r.id === id && r.home === home ? r : null;
}

async function build(ctx: Ctx, opts: IndexOptions, files: IndexFiles, seen?: Discovery): Promise<IndexResult> {
  const adapters = opts.harnesses ? ADAPTERS.filter((a) => opts.harnesses!.includes(a.name)) : ADAPTERS;
  // a discovery made just before this run took the lock serves (a rebuild reads every directory again)
  const d = seen && !opts.rebuild && !opts.harnesses ? seen : null;
  const skipped: Skipped = d ? d.skipped : { notRegular: 0, unreadable: 0, failed: {} };
  const { found, roots, meta } = d ?? discoverCached(ctx, adapters, skipped, files, !!opts.rebuild);
  const counts = { sources: found.length, parsed: 0, appended: 0, reused: 0, dropped: 0, bytes: 0 };

  // The stored listing (unless rebuilding): stats by path and the whole sessions of that build.
  const storedFiles = opts.rebuild ? null : readFilesJson(files.files);
  const table = storedFiles ? parseTable(storedFiles.table) : null;
  const list = table ? readJson<ListFile>(files.list) : null;
  const validList = !!table && validListFile(list, storedFiles!.id);
  const stats = validList ? table! : new Map<string, FileStat>();

  // Another builder may have finished while this run waited for the lock (and its rows.json is
  // sound; a damaged one is written again below, from the unchanged sources' stored sessions).
  if (
    validList && !opts.harnesses && found.length === stats.size && found.every((f) => sameStat(f.stat, stats.get(f.src.path))) &&
    validListFile(readJson<ListFile<ListedSession>>(files.rows), storedFiles!.id)
  ) {
    counts.reused = found.length;
    // check.bin may be what sent this run here (damaged, or written by an older build)
    try {
      writeCheck(files.check, storedFiles!.id, found, meta);
    } catch {
      /* only costs speed */
    }
    const res: IndexResult = { sessions: list!.sessions, skipped: mergeSkipped(skipped, list!.skipped), counts, roots, changed: false };
    if (opts.withEntries) res.entries = loadShards(files.state, allShards());
    return res;
  }

  // What changed: new or modified sources, and sources gone since the stored listing.
  const changedPaths = new Set<string>();
  for (const f of found) if (!validList || !sameStat(f.stat, stats.get(f.src.path))) changedPaths.add(f.src.path);
  const foundPaths = new Set(found.map((f) => f.src.path));
  const gonePaths = validList ? [...stats.keys()].filter((p) => !foundPaths.has(p)) : [];
  const harnessOf = new Map(found.map((f) => [f.src.path, f.src.harness]));
  for (const s of validList ? list!.sessions : []) if (!harnessOf.has(s.file)) harnessOf.set(s.file, s.harness);

  // A partial update touches only the shards of the changed sources. It is possible when the
  // stored listing is sound, and every affected harness maps one source to its own sessions
  // (`perSource`: no cross-source `finish` pass that would need every other source's state).
  const affected = new Set<Harness>();
  for (const p of [...changedPaths, ...gonePaths]) {
    const h = harnessOf.get(p);
    if (h) affected.add(h);
  }
  const partial =
    !opts.rebuild && !opts.harnesses && !opts.withEntries && validList &&
    [...affected].every((h) => {
      const a = ADAPTERS.find((x) => x.name === h);
      if (!a?.perSource) return false;
      return !a.finish || (!!a.linked && linkedAppendOnly(h, list!.sessions, changedPaths, gonePaths, harnessOf));
    });

  const shardsNeeded = partial ? new Set([...changedPaths, ...gonePaths].map(shardOf)) : new Set(allShards());
  const old: Record<string, Entry> = opts.rebuild ? {} : loadShards(files.state, shardsNeeded);
  const entries: Record<string, Entry> = {};
  const jobs: Job[] = [];

  // Keep entries of harnesses outside this run's selection untouched.
  if (opts.harnesses) {
    for (const [p, e] of Object.entries(old)) if (!opts.harnesses.includes(e.src?.harness)) entries[p] = e;
  }

  for (const f of found) {
    if (partial && !changedPaths.has(f.src.path)) continue;
    const e = old[f.src.path];
    if (e && e.src && e.src.harness === f.src.harness && sameStat(f.stat, e) && !e.error) {
      entries[f.src.path] = { ...e, src: f.src };
      counts.reused++;
      continue;
    }
    if (
      e && f.src.mode === 'lines' && e.src?.mode === 'lines' && e.src.harness === f.src.harness && !e.error &&
      e.ino === f.stat.ino && f.stat.size >= e.size && e.offset > 0 && e.state && tailMatches(f.src.path, e.offset, e.tail)
    ) {
      jobs.push({ src: f.src, size: f.stat.size, from: e.offset, state: e.state });
      counts.appended++;
      counts.bytes += f.stat.size - e.offset;
    } else {
      jobs.push({ src: f.src, size: f.stat.size, from: 0, state: null });
      counts.parsed++;
      counts.bytes += f.stat.size;
    }
  }
  if (partial) {
    counts.reused += found.length - changedPaths.size;
    counts.dropped = gonePaths.length;
  } else {
    for (const p of Object.keys(old)) if (!foundPaths.has(p) && !entries[p]) counts.dropped++;
  }

  const debug = (err: unknown) => {
    // A cache we cannot write only costs speed next time.
    if (process.env.RESUME_DEBUG) process.stderr.write(`resume: cannot write index: ${(err as Error).message}\n`);
  };

  // The order of the entries (the shards keep it): what is reused first, then the parsed sources
  // in the order they are read when streaming, else largest first (the order results came in
  // from one thread; taken up front so that results from workers, which finish out of order,
  // take it too).
  const stream = !!opts.onSessions && !partial && !opts.harnesses;
  const finishing = new Set(adapters.filter((a) => a.finish).map((a) => a.name));
  const plan = stream ? planOrder(jobs, new Map(found.map((f) => [f.src.path, f.bound])), finishing, found) : null;
  const order = plan ? plan.map((p) => p.job) : [...jobs].sort((a, b) => b.size - b.from - (a.size - a.from));

  // A full build writes the state shards entry by entry as the sources are parsed
  // (lib/index/shardwriter.ts), and keeps of a written entry only what the rest of the run reads
  // (unless the entries are asked for): no parser state for a harness without a finish pass, only
  // what its finish pass reads (`finishState`) for one with, and no session's allPrompts (a
  // build's caller reads them from the shards, as after a no-change run). A parser state thus
  // lives as long as its file is read and is never held for every source at once. A partial
  // update writes its shards at the end, with the unchanged entries merged in.
  let shardsOk = true;
  const slim = (e: Entry) => {
    if (opts.withEntries) return;
    const a = ADAPTERS.find((x) => x.name === e.src?.harness);
    e.state = !a?.finish ? NO_STATE : a.finishState ? a.finishState(e.state, e.src) : e.state;
    e.tail = ''; // (for the next run's append check: it reads it from the shard)
    // (with its key when no finish pass changes it: the copy the finished list takes)
    if (e.sessions?.length) e.sessions = e.sessions.map(({ allPrompts: _, ...x }) => (a?.finish ? x : keyed(x, `${x.harness}:${x.id}`)));
  };
  let shards: ShardWriter<Entry> | null = null;
  if (!partial) {
    const seqs: string[][] = Array.from({ length: SHARDS }, () => []);
    // (a parsed path among the kept entries keeps that place, as an assignment to it would)
    const seq = Object.keys(entries);
    for (const j of order) if (!(j.src.path in entries)) seq.push(j.src.path);
    for (const p of seq) seqs[shardOf(p)]!.push(p);
    shards = new ShardWriter(
      (n) => shardFile(files.state, n), `{"v":${INDEX_VERSION},"entries":{`, seqs,
      (p) => entries[p], (_p, e) => slim(e),
    );
    // the entries keep this order whatever order the results come in
    if (!plan) for (const j of order) entries[j.src.path] = undefined as unknown as Entry;
    shards.pumpAll();
  }

  const statByPath = new Map(found.map((f) => [f.src.path, f.stat]));
  const onResult = (job: Job, r: JobResult) => {
    const st = statByPath.get(r.path)!;
    // one literal, one shape for every entry (spreads here gave each entry a hidden class of its own)
    const e: Entry = { size: st.size, mtime: st.mtime, ino: st.ino, sig: st.sig, src: job.src, offset: r.offset, tail: r.tail, state: r.state, sessions: r.sessions };
    if (r.error) e.error = r.error;
    entries[r.path] = e;
    if (r.error) skipped.failed[job.src.harness] = r.error;
    shards?.pump(shardOf(r.path));
  };

  // A full build asked to stream: read newest first and hand over the finished list in order.
  const finished = new Map<Harness, Session[]>();
  if (plan) {
    const left = new Map<Harness, number>();
    for (const h of finishing) left.set(h, 0);
    for (const { job } of plan) if (finishing.has(job.src.harness)) left.set(job.src.harness, left.get(job.src.harness)! + 1);
    const out = new OrderedStream(opts.onSessions!);
    const finish = (h: Harness) => {
      const ss = finishHarness(ctx, ADAPTERS.find((a) => a.name === h)!, entries);
      finished.set(h, ss);
      out.finished(ss);
    };
    // what is reused is read already (in the order the finished list takes it)
    for (const e of Object.values(entries)) if (!finishing.has(e.src.harness)) out.add(e.sessions ?? []);
    for (const [h, n] of left) if (n === 0) finish(h);
    out.flush(plan.length ? plan[0]!.key : -Infinity);
    let i = 0;
    await runJobs(order, ctx, opts, (job, r) => {
      onResult(job, r);
      const h = job.src.harness;
      if (!finishing.has(h)) out.add(r.sessions);
      else {
        const n = left.get(h)! - 1;
        left.set(h, n);
        if (n === 0) finish(h);
      }
      i++;
      out.flush(i < plan.length ? plan[i]!.key : -Infinity);
    }, true);
  } else {
    await runJobs(order, ctx, opts, onResult, false);
  }

  const saveShards = () => {
    if (!shards) {
      try {
        writeShards(files.state, entries, shardsNeeded);
      } catch (err) {
        shardsOk = false;
        debug(err);
      }
      return;
    }
    shards.pumpAll();
    shards.close();
    if (shards.error) {
      shardsOk = false;
      debug(shards.error);
      return;
    }
    try {
      // the single state file of earlier versions
      fs.rmSync(path.join(files.dir, 'state.json'), { force: true });
    } catch (err) {
      debug(err);
    }
  };
  let sessions: Session[];
  if (partial) {
    // Sessions of unchanged sources stand as stored; the changed ones are replaced.
    const replaced = new Set([...changedPaths, ...gonePaths]);
    const kept = list!.sessions.filter((s) => !(replaced.has(s.file) && affected.has(s.harness)));
    const keys = new Set(kept.map((s) => s.key));
    for (const p of changedPaths) {
      for (const s of entries[p]?.sessions ?? []) {
        const key = `${s.harness}:${s.id}`;
        if (keys.has(key)) continue;
        keys.add(key);
        kept.push({ ...s, key });
      }
    }
    sessions = kept.sort(byRecency);
    // the shard files hold every entry of their shards: the unchanged ones too
    for (const [p, e] of Object.entries(old)) if (!entries[p] && foundPaths.has(p) && !changedPaths.has(p)) entries[p] = e;
    saveShards();
  } else {
    // every shard is written (and its entries slimmed) before the finish pass
    saveShards();
    sessions = finishAll(ctx, entries, finished);
    // what is left of the entries is not read again (nor returned) unless they were asked for
    if (!opts.withEntries) for (const e of Object.values(entries)) {
      e.state = NO_STATE;
      e.sessions = [];
    }
  }

  const changed = jobs.length > 0 || counts.dropped > 0 || !validList;
  let shorts: Map<string, string> | undefined;
  if (shardsOk && !opts.harnesses) {
    shorts = shortIds(sessions);
    try {
      writeListing(files, found, sessions, skipped, ctx.home, meta, shorts);
    } catch (err) {
      debug(err);
    }
  }
  return { sessions, skipped, counts, roots, changed, ...(opts.withEntries ? { entries } : {}), ...(shorts ? { shorts } : {}) };
}

/**
 * Write list.json and rows.json (streamed, one session at a time: a large listing is never one
 * string), then files.json, which names the build and so makes the other two count.
 */
function writeListing(files: IndexFiles, found: Found[], sessions: Session[], skipped: Skipped, home: string, meta: AdapterMeta[], shorts: Map<string, string>): void {
  const id = `${Date.now().toString(36)}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const head = `{"v":${INDEX_VERSION},"id":${JSON.stringify(id)},"built":${Date.now()},"skipped":${JSON.stringify(skipped)},"sessions":[`;
  function* chunks(f: (s: Session) => unknown): Generator<string> {
    yield head;
    for (let i = 0; i < sessions.length; i++) yield (i ? ',' : '') + JSON.stringify(f(sessions[i]!));
    yield ']}';
  }
  // every prompt stays in the state shards (lib/index/prompts.ts): a listing never loads them
  writeAtomic(files.list, chunks((s) => {
    if (s.allPrompts === undefined) return s;
    const { allPrompts: _, ...rest } = s;
    return rest;
  }));
  writeAtomic(files.rows, chunks((s) => listed(s, shorts.get(s.id) ?? s.id)));
  const bin = rowBinChunks(id, home, sessions.map((s) => ({ s, short: shorts.get(s.id) ?? s.id })));
  if (bin) writeAtomic(files.rowbin, bin);
  else fs.rmSync(files.rowbin, { force: true });
  writeAtomic(files.files, (function* () {
    yield `v${INDEX_VERSION} ${id}\n`;
    yield* statTable(found);
  })());
  writeCheck(files.check, id, found, meta);
}

/**
 * For a `linked` harness: every changed file of it is one the stored listing has (an append, not a
 * new file), none is gone, and no other session shares its link key (and none of its sessions is a
 * fork), so the finish pass could not change anything about it.
 */
function linkedAppendOnly(h: Harness, stored: Session[], changed: Set<string>, gone: string[], harnessOf: Map<string, Harness>): boolean {
  if (gone.some((p) => harnessOf.get(p) === h)) return false;
  const mine = stored.filter((s) => s.harness === h);
  const keys = new Map<string, number>();
  for (const s of mine) if (s.link) keys.set(s.link, (keys.get(s.link) ?? 0) + 1);
  const byFile = new Map<string, Session[]>();
  for (const s of mine) {
    const l = byFile.get(s.file);
    if (l) l.push(s);
    else byFile.set(s.file, [s]);
  }
  for (const p of changed) {
    if (harnessOf.get(p) !== h) continue;
    const ss = byFile.get(p);
    if (!ss) return false;
    for (const s of ss) if (s.forkedFrom || (s.link && (keys.get(s.link) ?? 0) > 1)) return false;
  }
  return true;
}

function mergeSkipped(now: Skipped, stored: Skipped | undefined): Skipped {
  if (!stored) return now;
  return { notRegular: now.notRegular, unreadable: now.unreadable, failed: { ...(stored.failed ?? {}), ...now.failed } };
}

/** One harness's sessions: its cross-source pass when it has one, keys, each key once. */
function finishHarness(ctx: Ctx, a: Adapter<any>, entries: Record<string, Entry>): Session[] {
  const mine = Object.values(entries).filter((e) => e.src?.harness === a.name);
  let ss: SessionCore[] = mine.flatMap((e) => e.sessions ?? []);
  if (a.finish) {
    const states = new Map(mine.map((e) => [e.src.path, { src: e.src, state: e.state }]));
    try {
      // a finish pass may bring text of its own (titles from side files): sanitised like the rest
      ss = a.finish(ss, ctx, states).map(sanitizeSession);
    } catch {
      /* keep the unfinished list rather than none */
    }
  }
  const out: Session[] = [];
  const seen = new Set<string>();
  for (const s of ss) {
    const key = `${s.harness}:${s.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push((s as Session).key === key && !a.finish ? (s as Session) : keyed(s, key));
  }
  return out;
}

/**
 * `{ ...s, key }`, but with a hidden class shared by every session: a spread gives each copy a
 * class of its own (about half a KiB per session at 22,000 sessions).
 */
function keyed(s: SessionCore, key: string): Session {
  const o = Object.assign({}, s) as Session;
  o.key = key;
  return o;
}

/** Per-harness cross-source pass, keys, newest first (`done`: harnesses finished already). */
export function finishAll(ctx: Ctx, entries: Record<string, Entry>, done: Map<Harness, Session[]> = new Map()): Session[] {
  const out: Session[] = [];
  for (const a of ADAPTERS) for (const s of done.get(a.name) ?? finishHarness(ctx, a, entries)) out.push(s);
  out.sort(byRecency);
  return out;
}

export { byRecency };

const PARALLEL_MIN_BYTES = 16 << 20;

/**
 * Parse the jobs, handed out in the given order, calling `onResult` as each finishes. `inOrder`:
 * on this thread, each result handed over before the next file is read (a stream needs its
 * order); otherwise on workers when it pays.
 */
async function runJobs(jobs: Job[], ctx: Ctx, opts: IndexOptions, onResult: (j: Job, r: JobResult) => void, inOrder: boolean): Promise<void> {
  if (jobs.length === 0) return;
  const total = jobs.reduce((n, j) => n + (j.size - j.from), 0);
  const minBytes = process.env.RESUME_PARALLEL_MIN_BYTES != null ? Number(process.env.RESUME_PARALLEL_MIN_BYTES) : PARALLEL_MIN_BYTES;
  // Below 4 cores the workers cost memory (a heap each, and every result cloned) without making
  // the build faster (memory-bandwidth bound on 2-core machines; BENCHMARKS.md): one thread there.
  const cores = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
  const threads = Math.min(Number(process.env.RESUME_THREADS) || (cores >= 4 ? cores : 1), jobs.length, 8);
  let done = 0;
  let doneFiles = 0;
  const tick = (j: Job, r: JobResult) => {
    done += j.size - j.from;
    doneFiles++;
    opts.progress?.(done, total, doneFiles, jobs.length);
    onResult(j, r);
  };
  if (inOrder || !opts.workerFile || threads < 2 || total < minBytes || !fs.existsSync(opts.workerFile)) {
    for (const j of jobs) {
      tick(j, await runJob(j, ctx));
      // let the caller write what it was handed before the next file is read
      if (inOrder) await new Promise((res) => setImmediate(res));
    }
    return;
  }
  const { Worker } = await import('node:worker_threads');
  let next = 0;
  await Promise.all(
    Array.from({ length: threads }, () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(opts.workerFile!, { workerData: { env: ctx.env } });
        let current: Job | null = null;
        const feed = () => {
          if (next >= jobs.length) {
            current = null;
            w.postMessage(null);
            return;
          }
          current = jobs[next++]!;
          w.postMessage({ id: next, job: current });
        };
        w.on('message', (m: { res: JobResult }) => {
          if (current) tick(current, m.res);
          feed();
        });
        w.on('error', reject);
        w.on('exit', () => resolve());
        feed();
      }),
    ),
  );
}
