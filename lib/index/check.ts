// check.bin and discovery: the no-change path. A run discovers the sources (serving an adapter's
// discovery memo when its directories stand, lib/index/discmemo.ts), stats them, and compares the
// stats with check.bin's bytes exactly; when they match, rows.bin of the same build is the answer
// and the database is not opened. check.bin is written from the database after each build
// (lib/index/index.ts) and names that build.
import fs from 'node:fs';
import path from 'node:path';
import { ADAPTERS, type AnyAdapter, rootsOf } from '../harness/registry.js';
import type { Ctx, Harness, Root, Source } from '../types.js';
import { fnv1a } from '../util/fnv.js';
import { readFirstLine, readWithStat, setReaddirHook, setSymlinkHook, textOf, writeCacheFile } from '../util/fsx.js';
import { FILE, NONE, quickStat, StatInDirs } from '../util/quickstat.js';
import { DirCache, type DirRec, type DirStore, type SeenDir } from './dirs.js';
import { type AdapterMeta, dirsStand, type Memo, makeMemo, parseMeta } from './discmemo.js';
import { INDEX_VERSION, type IndexFiles, indexFiles, type Skipped } from './files.js';
import { type Db, dirStore, openRead, openWrite, putDirs } from './store.js';

export interface Stat {
  size: number;
  mtime: number;
  ino: number;
  /** size:mtime of dependent files (SQLite -wal), '' when none */
  sig: string;
}
export function statOf(p: string): fs.Stats | null {
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

/**
 * The stat check a no-change run compares, exactly and without parsing: every source's size, mtime
 * and inode as float64 bytes (statNums), then every source's name (its path, with its dependency
 * signature: checkName) NUL-separated, in discovery order. Stored in check.bin after a header line
 * naming the version and build id; a run builds the same bytes from its own stats and compares them
 * with one memcmp.
 *
 * A path in the directory of the path before it, in the same adapter's segment (`meta`), is written
 * as SAME_DIR and its last part: most session files share their directory with others, so the names
 * are a third of the size, and a no-change run knows where the directory changes without comparing
 * bytes (statMemo enters each directory once). A name that would start with SAME_DIR or LITERAL
 * otherwise is written after LITERAL. storedPaths gives the paths back whole.
 */
const SAME_DIR = '\u0002';
const LITERAL = '\u0003';

/**
 * Where no name may be written short: the first source of each adapter's segment (`meta`), and any
 * past them all. (With no meta at all, only the first.)
 */
function segmentStarts(meta: AdapterMeta[]): (i: number) => boolean {
  const starts = new Set<number>([0]);
  let end = 0;
  for (const m of meta) {
    starts.add(end);
    end += m.n;
  }
  return (i) => starts.has(i) || (meta.length > 0 && i >= end);
}

/** The directory of a name written whole that a name after it may be written short in, else null. */
function dirOfName(name: string): string | null {
  const sl = name.charCodeAt(0) === 0x2f && !name.includes('\u0001') ? name.lastIndexOf('/') : -1;
  return sl >= 0 && sl < name.length - 1 ? name.slice(0, sl) : null;
}

/** The names of these sources as check.bin writes them, in order. */
function* checkNameParts(found: Found[], meta: AdapterMeta[]): Generator<string> {
  const isStart = segmentStarts(meta);
  let prevDir: string | null = null;
  for (let i = 0; i < found.length; i++) {
    if (isStart(i)) prevDir = null;
    const name = checkName(found[i]);
    const dir = dirOfName(name);
    if (dir !== null && dir === prevDir) yield SAME_DIR + name.slice(dir.length + 1);
    else yield name.startsWith(SAME_DIR) || name.startsWith(LITERAL) ? LITERAL + name : name;
    prevDir = dir;
  }
}

/** check.bin's names section for these sources (exported for tests) */
export function checkNames(found: Found[], meta: AdapterMeta[]): string {
  return [...checkNameParts(found, meta)].join('\u0000');
}

/** Sources as an array, or as a discovery that makes the array only when asked (Discovered). */
type SourceList = Found[] | { readonly count: number; readonly found: Found[] };
const countOf = (x: SourceList) => (Array.isArray(x) ? x.length : x.count);
const listOf = (x: SourceList) => (Array.isArray(x) ? x : x.found);

export function writeCheck(
  file: string,
  id: string,
  w: { sources: SourceList; meta: AdapterMeta[]; same?: StoredCheck; taken?: Buffer },
): void {
  const { sources, meta, same, taken } = w;
  // (`taken`: these sources' stat bytes as the discovery gave them, when it did)
  const nums = taken ?? statNums(listOf(sources));
  // the same memos over the same paths: the meta and kind codes stand as stored too
  const metaOf =
    same &&
    meta.length === same.meta.length &&
    meta.every((m, i) => m.name === same.meta[i].name && m.n === same.meta[i].n && m.memo === same.meta[i].memo)
      ? same
      : null;
  const metaBuf = metaOf ? metaOf.buf.subarray(metaOf.buf.indexOf(10) + 1, metaOf.codesAt) : Buffer.from(JSON.stringify(meta), 'utf8');
  // per source: its kind (index in its adapter's memo kinds) * 2 + 1 for `whole`; 0 outside a memo
  let codes: Buffer;
  if (metaOf) codes = metaOf.buf.subarray(metaOf.codesAt, metaOf.numsAt);
  else {
    const found = listOf(sources);
    codes = Buffer.alloc(found.length);
    let i = 0;
    for (const m of meta) {
      for (let k = 0; k < m.n && i < found.length; k++, i++) {
        if (!m.memo) continue;
        const s = found[i].src;
        codes[i] = m.memo.kinds.indexOf(s.kind) * 2 + (s.mode === 'whole' ? 1 : 0);
      }
    }
  }
  const count = countOf(sources);
  const head = `v${INDEX_VERSION} ${id} ${count} ${metaBuf.length}\n`;
  // written as its parts (no copy of the whole): the names section of a check whose paths these are
  // (`same`) as it stands, else the names as UTF-8 text, path by path (not one string)
  // (the names as stored are these only while each adapter has as many sources: a path's name
  // depends on the one before it in its adapter's segment)
  const namesOf = same && meta.length === same.meta.length && meta.every((m, i) => m.n === same.meta[i].n) ? same : null;
  writeCacheFile(
    file,
    (function* () {
      yield Buffer.from(head, 'latin1');
      yield metaBuf;
      yield codes;
      yield nums;
      if (namesOf) yield namesOf.buf.subarray(namesOf.namesAt);
      else {
        let i = 0;
        for (const name of checkNameParts(listOf(sources), meta)) yield (i++ ? '\u0000' : '') + name;
      }
    })(),
  );
}

/** The stat bytes of check.bin for these sources. */
function statNums(found: Found[]): Buffer {
  const nums = new Float64Array(found.length * 3);
  putNums(found, nums, 0);
  return Buffer.from(nums.buffer);
}

/** Each source's size, mtime and inode into `nums`, from source number `at` on. */
function putNums(found: Found[], nums: Float64Array, at: number): void {
  for (let i = 0; i < found.length; i++) {
    const st = found[i].stat;
    nums[(at + i) * 3] = st.size;
    nums[(at + i) * 3 + 1] = st.mtime;
    nums[(at + i) * 3 + 2] = st.ino;
  }
}

/** A source's name in the check: its path, with its dependencies' signature after \u0001. */
function checkName(f: Found): string {
  return f.stat.sig ? `${f.src.path}\u0001${f.stat.sig}` : f.src.path;
}

/** The path of a stored name (checkName: the name without its dependency signature). */
function pathOfName(name: string): string {
  const sep = name.indexOf('\u0001');
  return sep < 0 ? name : name.slice(0, sep);
}

/** check.bin read and split: build id, per-adapter meta (with the memos), and the stat bytes. */
export interface StoredCheck {
  /** the build it names (that of rows.bin and of the database's listing it was written from) */
  id: string;
  count: number;
  meta: AdapterMeta[];
  buf: Buffer;
  codesAt: number;
  numsAt: number;
  namesAt: number;
  /** the stored source paths in order (decoded on first use) */
  paths?: string[];
  /** where each stored path ends in `buf` (nameEnds; null: a names section not to stat from) */
  ends?: Uint32Array | null;
  /** the indexes of the stored paths that carry a dependency signature (set with `ends`) */
  signed?: Set<number>;
  /** the file's stat when read: whether it is still the file on disk */
  stat: fs.Stats;
}

/** The check.bin this process read last (a search asks for its sizes right after the index run read it). */
let lastCheck: { file: string; c: StoredCheck } | null = null;

function readCheck(file: string): StoredCheck | null {
  const c = readCheckFile(file);
  lastCheck = c ? { file, c } : null;
  return c;
}

function readCheckFile(file: string): StoredCheck | null {
  const read = readWithStat(file);
  if (!read) return null;
  const { buf, stat } = read;
  const nl = buf.indexOf(10);
  if (nl <= 0 || nl > 200) return null;
  const h = checkLine(buf.toString('latin1', 0, nl));
  if (!h) return null;
  const { id, count } = h;
  const metaAt = nl + 1;
  const codesAt = metaAt + h.metaLen;
  const numsAt = codesAt + count;
  const namesAt = numsAt + count * 24;
  if (buf.length < namesAt) return null;
  const meta = parseMeta(buf.toString('utf8', metaAt, codesAt));
  if (!meta || meta.reduce((n, a) => n + a.n, 0) !== count) return null;
  return { id, count, meta, buf, codesAt, numsAt, namesAt, stat };
}

/** check.bin's first line: its build id, source count and meta length; null when it is not one of this version. */
function checkLine(line: string): { id: string; count: number; metaLen: number } | null {
  const m = /^v(\d+) (\S+) (\d+) (\d+)$/.exec(line);
  return m && Number(m[1]) === INDEX_VERSION ? { id: m[2], count: Number(m[3]), metaLen: Number(m[4]) } : null;
}

/** check.bin as read before, when it is still the file on disk (written atomically: a new one is a new inode); else read again. */
export function recheck(file: string, c: StoredCheck | null): StoredCheck | null {
  if (c && sameFile(statOf(file), c.stat)) return c;
  return readCheck(file);
}

/** The same file as when it was read (both none, or the same inode, size, mtime and ctime)? */
function sameFile(st: fs.Stats | null, was: fs.Stats | null): boolean {
  if (!st || !was) return !st && !was;
  return st.ino === was.ino && st.size === was.size && st.mtimeMs === was.mtimeMs && st.ctimeMs === was.ctimeMs;
}

/** The stored source paths (a path with dependencies carries their signature after \u0001). */
function storedPaths(c: StoredCheck): string[] {
  if (!c.paths) {
    // ASCII (the usual case) decodes faster as latin1, to the same string
    const raw = c.buf.subarray(c.namesAt);
    const names = textOf(raw);
    const paths = c.count === 0 ? [] : names.split('\u0000');
    // a damaged names section serves no memo
    c.paths = paths.length === c.count ? wholePaths(paths, c.meta) : [];
  }
  return c.paths;
}

/**
 * Stored name `i` made whole (as storedPaths gives it) without decoding the others: an append looks
 * up a few sources, and making all 22,000 names whole again (most written short) was more than the
 * rest of its work. Null when the names section is damaged.
 */
function storedPath(c: StoredCheck, i: number): string | null {
  // (all made whole already; not when that failed: a damaged name spoils only its own segment here)
  if (c.paths && c.paths.length === c.count) return c.paths[i] ?? null;
  const ends = nameEnds(c);
  if (!ends || i < 0 || i >= c.count) return null;
  const { buf } = c;
  const at = (k: number) => nameStart(c, ends, k);
  const s = at(i);
  const e = ends[i];
  if (buf[s] === 3) return buf.toString('utf8', s + 1, e);
  if (buf[s] !== 2) return buf.toString('utf8', s, e);
  // a short name: the directory of the last name before it written whole, in its adapter's segment
  let first = 0;
  for (const m of c.meta) {
    if (i < first + m.n) break;
    first += m.n;
  }
  let j = i - 1;
  while (j >= first && buf[at(j)] === 2) j--;
  if (j < first) return null;
  const js = at(j);
  const sl = buf[js] === 0x2f ? lastSlash(buf, js, ends[j]) : -1;
  if (sl < 0 || sl === ends[j] - 1 || e - s < 2) return null;
  return `${buf.toString('utf8', js, sl)}/${buf.toString('utf8', s + 1, e)}`;
}

/** The name of check.bin (from `lo` to `hi`) that byte `q` lies in: the first that ends at or past it. */
function nameAt(ends: Uint32Array, q: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] < q) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** check.bin's names made whole again (checkNameParts); empty when they cannot be (a damaged section). */
export function wholePaths(names: string[], meta: AdapterMeta[]): string[] {
  const isStart = segmentStarts(meta);
  let prevDir: string | null = null;
  for (let i = 0; i < names.length; i++) {
    if (isStart(i)) prevDir = null;
    let name = names[i];
    if (name.startsWith(SAME_DIR)) {
      if (prevDir === null || name.length < 2 || name.includes('/') || name.includes('\u0001')) return [];
      // (in the same directory: dirOfName of it is prevDir again)
      names[i] = `${prevDir}/${name.slice(1)}`;
      continue;
    }
    if (name.startsWith(LITERAL)) name = name.slice(1);
    names[i] = name;
    prevDir = dirOfName(name);
  }
  return names;
}

/**
 * The build id when the stored check matches this discovery exactly; null otherwise. With `live`
 * (see Discovered), every source outside the live discoveries is the stored one at the same index,
 * so only the stats compare there. Without it, every path is compared.
 */
export function matchCheck(c: StoredCheck | null, d: Discovered): string | null {
  if (!c || c.count !== d.count) return null;
  // the stats first: an append differs there, and the paths need not be joined to tell
  if (Buffer.compare(d.nums(), c.buf.subarray(c.numsAt, c.namesAt)) !== 0) return null;
  if (d.live) {
    if (d.live.length === 0) return c.id;
    const paths = storedPaths(c);
    if (paths.length !== c.count) return null;
    for (const [at, found] of d.live) {
      for (let k = 0; k < found.length; k++) if (paths[at + k] !== checkName(found[k])) return null;
    }
    return c.id;
  }
  const names = checkNames(d.found, d.meta);
  const rest = c.buf.subarray(c.namesAt);
  if (rest.length !== Buffer.byteLength(names, 'utf8') || rest.toString('utf8') !== names) return null;
  return c.id;
}

/** A stored source: its stat as check.bin recorded it, and its harness. */
export interface PrevStat extends Stat {
  harness: Harness;
  /** its index in check.bin */
  at: number;
}

/**
 * Are these sources (paths and dependency signatures) the ones check.bin lists, in its order? With
 * `live` (Discovered: the discovery was made against this check), only the live discoveries' paths
 * are compared; every other source is the stored one at its index.
 */
export function samePaths(c: StoredCheck, sources: SourceList, live: Discovered['live'] = null): boolean {
  if (countOf(sources) !== c.count) return false;
  if (live) {
    // only the live discoveries' names, each made whole on its own (storedPath)
    if (!nameEnds(c)) return false;
    for (const [at, fs] of live) for (let k = 0; k < fs.length; k++) if (storedPath(c, at + k) !== checkName(fs[k])) return false;
    return true;
  }
  const paths = storedPaths(c);
  if (paths.length !== c.count) return false;
  const found = listOf(sources);
  for (let i = 0; i < found.length; i++) if (paths[i] !== checkName(found[i])) return false;
  return true;
}

/**
 * check.bin's stats by path (null when its names section is damaged). `served`: the found sources
 * are check.bin's, in its order (samePaths); then only those whose stat bytes differ are decoded,
 * and no path is gone.
 */
export function storedStats(c: StoredCheck, sources: SourceList, served: boolean, taken?: Buffer): Map<string, PrevStat> | null {
  // served: a few names, made whole one by one (storedPath); else every one
  const paths = served && countOf(sources) === c.count ? null : storedPaths(c);
  if (paths ? paths.length !== c.count : !nameEnds(c)) return null;
  let damaged = false;
  const stat = c.buf.subarray(c.numsAt, c.namesAt);
  const out = new Map<string, PrevStat>();
  // each source's harness: the adapter whose segment of check.bin holds it
  const ends: number[] = [];
  let end = 0;
  for (const m of c.meta) {
    end += m.n;
    ends.push(end);
  }
  const put = (i: number) => {
    const name = paths ? paths[i] : storedPath(c, i);
    if (name === null) {
      damaged = true;
      return;
    }
    let a = 0;
    while (a < ends.length && i >= ends[a]) a++;
    const st = storedStat(stat, i, name);
    out.set(st.path, { size: st.size, mtime: st.mtime, ino: st.ino, sig: st.sig, harness: c.meta[a]?.name as Harness, at: i });
  };
  if (served && countOf(sources) === c.count) {
    differing(taken ?? statNums(listOf(sources)), stat, 0, put);
    return damaged ? null : out;
  }
  for (let i = 0; i < c.count; i++) put(i);
  return out;
}

/**
 * The sources changed and gone since check.bin when the discovery was made against it but found
 * other sources (a session file new or gone): an adapter whose memo served has the check's sources
 * in its order, and is compared by its stat bytes; only the adapters that ran are compared path by
 * path, with their own segment of the check. (A new session at 22,000 sessions: Claude Code's 5,280
 * paths compared instead of every source made a Found and looked up, ~45 ms.) Null when the check's
 * names are damaged or a memo is another check's: then every source is compared.
 */
export function segmentChanges(c: StoredCheck, disc: Discovered): { changed: string[]; gone: Array<[string, Harness]> } | null {
  const paths = storedPaths(c);
  if (paths.length !== c.count) return null;
  const stat = c.buf.subarray(c.numsAt, c.namesAt);
  const starts = new Map<string, { at: number; n: number }>();
  let at = 0;
  for (const m of c.meta) {
    starts.set(m.name, { at, n: m.n });
    at += m.n;
  }
  const changed: string[] = [];
  // stored sources no adapter that ran found again, and every path an adapter that ran found
  const missing = new Map<string, Harness>();
  const live = new Set<string>();
  for (let i = 0; i < disc.parts.length; i++) {
    const part = disc.parts[i];
    const name = disc.meta[i].name;
    const mine = starts.get(name);
    starts.delete(name);
    if (!Array.isArray(part)) {
      if (part.c !== c) return null;
      memoChanges(part, paths, stat, changed);
      continue;
    }
    const seg = segmentStats(paths, stat, mine ?? { at: 0, n: 0 });
    for (const f of part) {
      live.add(f.src.path);
      if (!sameStat(f.stat, seg.get(f.src.path))) changed.push(f.src.path);
      seg.delete(f.src.path);
    }
    for (const p of seg.keys()) missing.set(p, name as Harness);
  }
  // the segments of adapters that did not run at all: all gone
  for (const [name, { at: from, n }] of starts) for (let k = 0; k < n; k++) missing.set(pathOfName(paths[from + k]), name as Harness);
  // (a source another adapter found is not gone: it is compared there)
  return { changed, gone: [...missing].filter(([p]) => !live.has(p)) };
}

/** Into `changed`: the sources of a served memo whose stat differs from what check.bin (`stat`) stores. */
function memoChanges(part: MemoSeg, paths: string[], stat: Buffer, changed: string[]): void {
  const now = Buffer.from(part.nums.buffer, part.nums.byteOffset, part.n * 24);
  differing(now, stat, part.from, (i) => changed.push(pathOfName(paths[i])));
}

/**
 * `at(i)` for each source whose stat in `now` (24 bytes a source, from source `from` on) differs
 * from check.bin's (`stat`): compared a block at a time (native), and source by source only in a
 * block that differs (an append changes one source of 22,000).
 */
function differing(now: Buffer, stat: Buffer, from: number, at: (i: number) => void): void {
  const base = from * 24;
  const BLOCK = 24 * 128;
  for (let a = 0; a < now.length; a += BLOCK) {
    const e = Math.min(a + BLOCK, now.length);
    if (now.compare(stat, base + a, base + e, a, e) === 0) continue;
    for (let q = a; q < e; q += 24) if (now.compare(stat, base + q, base + q + 24, q, q + 24) !== 0) at(from + q / 24);
  }
}

/** Source `i`'s stat as check.bin (`stat`) stores it, with its path; `name`: its check name. */
function storedStat(stat: Buffer, i: number, name: string): Stat & { path: string } {
  const path = pathOfName(name);
  // (read from the bytes: they need not be 8-byte aligned in the file's buffer)
  return {
    path,
    size: stat.readDoubleLE(i * 24),
    mtime: stat.readDoubleLE(i * 24 + 8),
    ino: stat.readDoubleLE(i * 24 + 16),
    sig: name.slice(path.length + 1),
  };
}

/** The stats check.bin (`stat`, its `paths`) stores for the sources of one adapter's segment, by path. */
function segmentStats(paths: string[], stat: Buffer, { at, n }: { at: number; n: number }): Map<string, Stat> {
  const out = new Map<string, Stat>();
  for (let i = at; i < at + n; i++) {
    const st = storedStat(stat, i, paths[i]);
    out.set(st.path, st);
  }
  return out;
}

/**
 * check.bin and its source paths, made whole: the one this process read already while it is still
 * the file on disk (its paths decoded once: the index run, a search's prefilter and its sizes share
 * it), else read now (and kept so). Null when there is no readable check.bin or its names are damaged.
 */
function storedNames(ctx: Ctx): { c: StoredCheck; paths: string[] } | null {
  const file = indexFiles(ctx).check;
  const c = recheck(file, lastCheck?.file === file ? lastCheck.c : null);
  if (!c) return null;
  const paths = storedPaths(c);
  return paths.length === c.count ? { c, paths } : null;
}

/** Source `i`'s size as check.bin records it: the first of its stat's three doubles. */
const recordedSize = (c: StoredCheck, i: number): number => c.buf.readDoubleLE(c.numsAt + i * 24);

/**
 * The files the stored index tracks, as storedSizes names them, largest first by the sizes it
 * recorded (threads that take them in turn then end on small ones, together; of equal sizes the
 * later in check.bin first); [] when there is no index.
 */
export function storedFiles(ctx: Ctx): string[] {
  const s = storedNames(ctx);
  if (!s) return [];
  // Each file as one number, its size times m plus its place, sorted natively: a sort with a
  // comparator took 25-30 ms of a search's start at 22,000 files (it runs cold), this one ~2 ms.
  // (Sizes past 2^53 / m bytes, 256 GB at 22,000 files, count as that size.)
  const n = s.c.count;
  const m = 2 ** (32 - Math.clz32(n));
  const most = Math.floor(Number.MAX_SAFE_INTEGER / m) - 1;
  const key = new Float64Array(n);
  for (let i = 0; i < n; i++) key[i] = Math.min(most, Math.max(0, Math.floor(recordedSize(s.c, i)))) * m + i;
  key.sort();
  const out = new Array<string>(n);
  for (let j = 0; j < n; j++) out[j] = pathOfName(s.paths[key[n - 1 - j] % m]);
  return out;
}

/**
 * Each source's size as the last build recorded it (check.bin), by path: for ordering work by size
 * without a stat per file (a search at 22,000 sessions spent 165 ms on them). Empty when there is
 * no readable check.bin. The check.bin this process read already serves when it is still the file
 * on disk (~60 ms at 22,000 sessions: reading it again and decoding its paths).
 */
export function storedSizes(ctx: Ctx): Map<string, number> {
  const out = new Map<string, number>();
  const s = storedNames(ctx);
  if (!s) return out;
  for (let i = 0; i < s.c.count; i++) out.set(pathOfName(s.paths[i]), recordedSize(s.c, i));
  return out;
}

/**
 * Each source's size, mtime and inode as check.bin records them: those of the last check, which a
 * listing just loaded has made (a search compares its files' signatures with them, not stat again).
 */
export function checkedStats(ctx: Ctx): Map<string, { size: number; mtime: number; ino: number }> {
  const out = new Map<string, { size: number; mtime: number; ino: number }>();
  const s = storedNames(ctx);
  if (!s) return out;
  for (let i = 0; i < s.c.count; i++) {
    const at = s.c.numsAt + i * 24;
    out.set(pathOfName(s.paths[i]), {
      size: s.c.buf.readDoubleLE(at),
      mtime: s.c.buf.readDoubleLE(at + 8),
      ino: s.c.buf.readDoubleLE(at + 16),
    });
  }
  return out;
}

/** The build id check.bin names, from its first line; null when there is none of this version. */
export function checkId(file: string): string | null {
  const first = readFirstLine(file, 200);
  return (first && checkLine(first.toString('latin1'))?.id) ?? null;
}

export interface Found {
  src: Source;
  stat: Stat;
  /** the latest mtime of the file and its dependencies (SQLite -wal, side files): no session of it is newer */
  bound: number;
}

/**
 * An adapter's sources served by its memo: the stored check's sources `from`..`from + n`, with the
 * stats this run took (size, mtime, inode per source), not yet made into Found objects. A no-change
 * run compares these numbers and never makes them (22,000 sources are 66,000 objects).
 */
export interface MemoSeg {
  /** the stored check it is a segment of */
  c: StoredCheck;
  from: number;
  n: number;
  h: Harness;
  memo: Memo;
  nums: Float64Array;
}

/** What a discovery found, and what check.bin is to record of it. */
export interface Discovered {
  /** every source found, in order (made on first use from the memo segments and the live discoveries) */
  readonly found: Found[];
  /** how many sources were found */
  count: number;
  /**
   * The found sources of these paths, by path: Found objects made for them alone (an append needs
   * the changed sources, not 22,000 objects and their garbage).
   */
  pick(paths: Set<string>): Map<string, Found>;
  /** their stats as check.bin stores them (statNums of `found`, without making `found`) */
  nums(): Buffer;
  roots: Map<Harness, Root[]>;
  meta: AdapterMeta[];
  /** a memo was made or dropped this run: check.bin should be written again even if nothing else changed */
  metaChanged: boolean;
  /** each adapter's sources, in `meta`'s order: its memo's segment of the stored check, or what it found */
  parts: ReadonlyArray<MemoSeg | Found[]>;
  /**
   * The sources each live discovery found (with the index in `found` of its first), when every
   * other source came whole from the stored check's memos, each adapter has as many sources as the
   * stored check gives it, and the adapters are in its order: then only these sources' paths need
   * comparing with the stored ones (the rest are the stored paths). Null: compare every path.
   */
  live: Array<[number, Found[]]> | null;
  /** the directory listings read, to be written back (keepDirs) by whoever writes next; null: none to write */
  listings: Listings | null;
}

/** Directory listings a discovery read (dirs.ts), and, when it visited every directory, all it saw (the rest are forgotten). */
export interface Listings {
  read: Record<string, DirRec>;
  keep: string[] | null;
}

/**
 * Discover with the directory cache installed (unchanged directories are not read again). The
 * listings it read, when a directory was read or went away, are left in `listings` for the caller
 * to write back (keepDirs: the build that follows, in its transaction, else the caller itself).
 * `db`: a builder's, to read the remembered listings from. `stored` (check.bin): an adapter whose
 * memo still stands is not run at all (lib/index/discmemo.ts).
 */
export function discoverCached(
  ctx: Ctx,
  adapters: AnyAdapter[],
  skipped: Skipped,
  how: { files: IndexFiles; fresh: boolean; stored?: StoredCheck | null; db?: Db },
): Discovered {
  const { files, fresh, stored = null, db } = how;
  // the database is opened only when an adapter runs and lists an existing directory
  let reader: Db | null | undefined = db;
  const remembered = (): DirStore | null => {
    if (reader === undefined) reader = openRead(files.db);
    return reader ? dirStore(reader) : null;
  };
  const cache = new DirCache(fresh ? {} : { get: (d) => remembered()?.get(d), count: () => remembered()?.count() ?? 0 });
  setReaddirHook((d) => cache.entries(d));
  let r: Discovered;
  try {
    r = discoverAll(ctx, adapters, skipped, cache, fresh ? null : stored);
    // A run over some harnesses, or one that served a memo (its directories were not visited),
    // keeps the listings of directories it did not visit.
    const prune = adapters.length === ADAPTERS.length && !r.meta.some((m, i) => m.memo && stored?.meta[i]?.memo === m.memo);
    if (cache.dirty(prune)) r.listings = { read: cache.read, keep: prune ? Object.keys(cache.seen) : null };
  } finally {
    setReaddirHook(null);
    if (reader && reader !== db) reader.close();
  }
  return r;
}

/**
 * Listings a discovery read written back, in `db`'s transaction, else in a short one of their own
 * (skipped when a builder holds the database, or there is none yet: it only costs speed).
 */
export function keepDirs(files: IndexFiles, l: Listings, db?: Db): void {
  try {
    if (db) putDirs(db, l.read, l.keep);
    else {
      if (!fs.existsSync(files.db)) return;
      const w = openWrite(files.db);
      try {
        w.pragma('busy_timeout = 0');
        w.exec('BEGIN IMMEDIATE');
        putDirs(w, l.read, l.keep);
        w.exec('COMMIT');
      } finally {
        if (w.inTransaction) w.exec('ROLLBACK');
        w.close();
      }
    }
    // (the file that kept them before index version 35)
    fs.rmSync(path.join(files.dir, 'dirs.json'), { force: true });
  } catch {
    /* only costs speed */
  }
}

/** One discovery as it goes, adapter by adapter (discoverAll's steps share it). */
interface Run {
  ctx: Ctx;
  skipped: Skipped;
  cache: DirCache | null;
  /** the stored check, whose memos may serve an adapter */
  stored: StoredCheck | null;
  roots: Map<Harness, Root[]>;
  /** the paths found so far (a path found by an earlier adapter is not another's) */
  seen: Set<string>;
  meta: AdapterMeta[];
  metaChanged: boolean;
  live: Array<[number, Found[]]>;
  /** each adapter's sources in order: a memo segment, or what its live discovery found */
  parts: Array<MemoSeg | Found[]>;
  count: number;
  /**
   * memo segments whose paths are not in `seen` yet: added before a live discovery's sources are
   * checked against it (most runs have none)
   */
  pending: MemoSeg[];
  /** where each adapter's sources start in the stored check */
  starts: Map<string, { at: number; m: AdapterMeta }>;
  walk: StatInDirs | undefined;
}

function discoverAll(ctx: Ctx, adapters: AnyAdapter[], skipped: Skipped, cache: DirCache | null, stored: StoredCheck | null): Discovered {
  const run: Run = {
    ctx,
    skipped,
    cache,
    stored,
    roots: new Map(),
    seen: new Set(),
    meta: [],
    metaChanged: !stored,
    live: [],
    parts: [],
    count: 0,
    pending: [],
    starts: new Map(),
    walk: undefined,
  };
  if (stored) {
    let at = 0;
    for (const m of stored.meta) {
      run.starts.set(m.name, { at, m });
      at += m.n;
    }
  }
  for (const a of adapters) {
    const rs = rootsOf(a, ctx);
    run.roots.set(a.name, rs);
    const key = JSON.stringify(rs);
    if (!serveMemo(run, a, key)) discoverLive(run, a, rs, key);
  }
  // The stored check's segments are these adapters' only when it lists them in this order with the
  // same number of sources each (then a source's index here is its index there).
  const aligned =
    !!stored && stored.meta.length === adapters.length && stored.meta.every((m, i) => m.name === adapters[i].name && m.n === run.meta[i].n);
  return discovered(run, aligned);
}

/**
 * Adapter `a`'s sources from its memo in the stored check (its roots' JSON is `key`), when they
 * still stand: served only when every remembered source is still a regular file and new to this
 * run (a source gone without its directory changing means the memo, or check.bin, is not to be
 * trusted). False: the adapter is to be run.
 */
function serveMemo(run: Run, a: AnyAdapter, key: string): boolean {
  const { stored } = run;
  const st = run.starts.get(a.name);
  const memo = st?.m.memo;
  if (!a.listsOnly || !stored || !st || !memo || memo.key !== key) return false;
  // The working directory is back where it was before anything else runs (roots may be relative).
  run.walk ??= new StatInDirs();
  const walk = run.walk;
  let g: MemoSeg | null;
  try {
    g = dirsStand(memo.dirs, walk) ? statMemo(stored, st, memo, run.seen, walk) : null;
  } finally {
    walk.done();
  }
  if (!g) return false;
  run.parts.push(g);
  run.pending.push(g);
  run.count += g.n;
  run.meta.push({ name: a.name, n: g.n, memo });
  return true;
}

/** Run adapter `a`'s discovery over its roots `rs` (their JSON is `key`), and stat what it finds. */
function discoverLive(run: Run, a: AnyAdapter, rs: Root[], key: string): void {
  const { cache, skipped } = run;
  let srcs: Source[];
  const trace: SeenDir[] = [];
  let symlinked = false;
  if (cache) cache.trace = trace;
  setSymlinkHook(() => {
    symlinked = true;
  });
  try {
    srcs = a.discover(
      run.ctx,
      rs.filter((r) => r.exists),
    );
  } catch (err) {
    skipped.failed[a.name] = err instanceof Error ? err.message : String(err);
    srcs = [];
    symlinked = true; // nothing to remember of a failed discovery
  } finally {
    if (cache) cache.trace = null;
    setSymlinkHook(null);
  }
  let memo = a.listsOnly && cache ? makeMemo(key, trace, srcs, symlinked) : undefined;
  if (run.starts.get(a.name)?.m.memo || memo) run.metaChanged = true;
  if (srcs.length && run.pending.length) {
    for (const g of run.pending) {
      const paths = storedPaths(g.c);
      for (let k = 0; k < g.n; k++) run.seen.add(paths[g.from + k]);
    }
    run.pending = [];
  }
  const mine = statFound(run, srcs);
  const n = mine.length;
  // a memo holds exactly what the discovery found: nothing skipped or shared with another adapter
  if (memo && n !== srcs.length) memo = undefined;
  run.meta.push(memo ? { name: a.name, n, memo } : { name: a.name, n });
  if (n > 0) run.live.push([run.count, mine]);
  run.parts.push(mine);
  run.count += n;
}

/** The sources a discovery found that are regular files not found already, stat'ed. */
function statFound(run: Run, srcs: Source[]): Found[] {
  const { seen, skipped } = run;
  const mine: Found[] = [];
  for (const src of srcs) {
    if (seen.has(src.path)) continue;
    seen.add(src.path);
    const st = quickStat(src.path);
    if (st[0] === NONE) {
      skipped.unreadable++;
      continue;
    }
    if (st[0] !== FILE) {
      skipped.notRegular++;
      continue;
    }
    const size = st[1];
    const mtime = st[2];
    const ino = st[4];
    const sig = depSig(src.deps);
    mine.push({ src, stat: { size, mtime, ino, sig }, bound: sig ? boundOf(mtime, sig) : mtime });
  }
  return mine;
}

/** What the run found, as Discovered (`aligned`: its adapters' segments are the stored check's). */
function discovered(run: Run, aligned: boolean): Discovered {
  const { parts, count } = run;
  let made: Found[] | null = null;
  let numsMade: Buffer | null = null;
  return {
    get found() {
      made ??= parts.flatMap((p) => (Array.isArray(p) ? p : memoFound(p.c, p)));
      return made;
    },
    count,
    pick(paths) {
      return made ? foundOf(made, paths) : pickFound(parts, paths);
    },
    nums() {
      // once: the check compares it and a builder takes it (at 22,000 sources it is 528 KB of fresh memory)
      if (numsMade) return numsMade;
      const out = new Float64Array(count * 3);
      let i = 0;
      for (const p of parts) {
        if (Array.isArray(p)) putNums(p, out, i);
        else out.set(p.nums, i * 3);
        i += Array.isArray(p) ? p.length : p.n;
      }
      numsMade = Buffer.from(out.buffer);
      return numsMade;
    },
    roots: run.roots,
    meta: run.meta,
    parts,
    metaChanged: run.metaChanged,
    live: aligned ? run.live : null,
    listings: null,
  };
}

/** The found sources of these paths (Discovered.pick), without making the memo segments' Found objects. */
function pickFound(parts: Array<MemoSeg | Found[]>, paths: Set<string>): Map<string, Found> {
  const out = new Map<string, Found>();
  let keys: Set<number> | null = null;
  for (const p of parts) {
    if (Array.isArray(p)) {
      foundOf(p, paths, out);
      continue;
    }
    // a memo segment's names are plain paths (memoFoundAt takes no other). A number made of each
    // name's last part (its length and four of its last bytes, read in place: baseKey) is looked up first,
    // and only a name that has one is made whole and looked up: making 22,000 paths whole for
    // this was most of an append
    const { c } = p;
    const ends = nameEnds(c);
    if (!ends) continue;
    keys ??= new Set([...paths].map((x) => baseKeyOf(Buffer.from(x.slice(x.lastIndexOf('/') + 1)), 0)));
    const { buf } = c;
    for (let k = 0; k < p.n; k++) {
      const i = p.from + k;
      const s = nameStart(c, ends, i);
      const e = ends[i];
      const b = buf[s] === 2 ? s + 1 : lastSlash(buf, s, e) + 1;
      if (!keys.has(baseKey(buf, b, e))) continue;
      const name = storedPath(c, i);
      if (name === null || !paths.has(name)) continue;
      const f = memoFoundAt(c, p, k);
      if (f) out.set(f.src.path, f);
    }
  }
  return out;
}

/**
 * Stat an adapter's remembered sources into a memo segment: null when one does not fit its memo (a
 * kind it does not know, a dependency signature), is gone, is not a regular file, or was found
 * already this run.
 */
function statMemo(c: StoredCheck, seg: { at: number; m: AdapterMeta }, m: Memo, seen: Set<string>, walk: StatInDirs): MemoSeg | null {
  const { at } = seg;
  const { n, name: h } = seg.m;
  const ends = nameEnds(c);
  // (nameEnds sets `signed` with the ends: never missing here)
  const signed = c.signed;
  if (!ends || !signed || at + n > c.count) return null;
  const mw: MemoWalk = { c, ends, signed, memo: m, seen, walk, nums: new Float64Array(n * 3), dir: -1, dirLen: 0 };
  for (let k = 0; k < n; k++) if (!statMemoName(mw, at, k, k + 1 < n)) return null;
  return { c, from: at, n, h, memo: m, nums: mw.nums };
}

/** statMemo's walk over one segment's names (one object for the walk). */
interface MemoWalk {
  c: StoredCheck;
  ends: Uint32Array;
  signed: Set<number>;
  memo: Memo;
  seen: Set<string>;
  walk: StatInDirs;
  /** the stats taken, three numbers a source */
  nums: Float64Array;
  /**
   * the directory of the last path written whole: bytes [dir, dir + dirLen) of the check (dir < 0:
   * none); a name written short (SAME_DIR) is in it, so it changes only at a path written whole
   */
  dir: number;
  dirLen: number;
}

/**
 * Stat stored name `at + k`, source `k` of the segment, into mw.nums; false when it does not fit
 * (see statMemo). `more`: another name of the segment follows.
 */
function statMemoName(mw: MemoWalk, at: number, k: number, more: boolean): boolean {
  const { c, ends, walk, seen } = mw;
  const { buf, codesAt } = c;
  const i = at + k;
  let s = nameStart(c, ends, i);
  const e = ends[i];
  if (mw.memo.kinds[buf[codesAt + i] >> 1] === undefined || mw.signed.has(i)) return false;
  let name: number;
  if (buf[s] === 2) {
    // the first of a segment is never short (checkNameParts)
    if (mw.dir < 0 || k === 0) return false;
    name = s + 1;
  } else {
    if (buf[s] === 3) s++;
    const sl = buf[s] === 0x2f ? lastSlash(buf, s, e) : -1;
    if (sl < 0 || sl === e - 1) {
      // not a path in a directory (nothing memo'd is): stat'ed as it is
      mw.dir = -1;
      if (seen.size > 0 && seen.has(buf.toString('utf8', s, e))) return false;
      return putStat(mw.nums, k, walk.statWhole(buf, s, e));
    }
    mw.dir = s;
    mw.dirLen = sl - s;
    name = sl + 1;
  }
  const { dir, dirLen } = mw;
  if (seen.size > 0 && seen.has(`${buf.toString('utf8', dir, dir + dirLen)}/${buf.toString('utf8', name, e)}`)) return false;
  // another name in this directory next: worth entering it
  const st = more && buf[e + 1] === 2 ? walk.statEntering(buf, dir, dirLen, name, e) : walk.statIn(buf, dir, dirLen, name, e);
  return putStat(mw.nums, k, st);
}

/** Source k's stat (a quickStat) into `nums`, when it is a regular file; false when not. */
function putStat(nums: Float64Array, k: number, st: Float64Array): boolean {
  if (st[0] !== FILE) return false;
  nums[k * 3] = st[1];
  nums[k * 3 + 1] = st[2];
  nums[k * 3 + 2] = st[4];
  return true;
}

/** The offset of the last `/` in bytes [s, e) of `buf`; -1 when there is none. */
function lastSlash(buf: Buffer, s: number, e: number): number {
  for (let i = e - 1; i >= s; i--) if (buf[i] === 0x2f) return i;
  return -1;
}

/** Where stored name `i` starts in check.bin (`ends`: nameEnds). */
function nameStart(c: StoredCheck, ends: Uint32Array, i: number): number {
  return i === 0 ? c.namesAt : ends[i - 1] + 1;
}

/**
 * Where each stored path ends in check.bin (the offset of the NUL after it, or of the end), found
 * once, with the paths that carry a dependency signature (after \u0001: not a path to stat as it
 * is; no memo holds one); null when the names section does not hold exactly `count` paths.
 */
function nameEnds(c: StoredCheck): Uint32Array | null {
  if (c.ends !== undefined) return c.ends;
  const { buf, count } = c;
  let ends: Uint32Array | null = new Uint32Array(count);
  let p = c.namesAt;
  // a plain view's indexOf (Buffer#indexOf checks its arguments through a wrapper that makes an array each call)
  const u8 = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  for (let k = 0; k < count; k++) {
    let e = u8.indexOf(0, p);
    if (e < 0) e = buf.length;
    if ((k === count - 1) !== (e === buf.length)) {
      ends = null;
      break;
    }
    ends[k] = e;
    p = e + 1;
  }
  c.signed = new Set();
  if (ends) {
    // the few signed paths: each \u0001 found, and the path it lies in
    for (let q = buf.indexOf(1, c.namesAt); q >= 0; q = buf.indexOf(1, q + 1)) c.signed.add(nameAt(ends, q, 0, count - 1));
  }
  c.ends = ends;
  return ends;
}

/**
 * A memo segment's sources as Found objects (the stored paths and kinds, the stats taken this run;
 * statMemo served the segment only when every source fits its memo).
 */
function memoFound(c: StoredCheck, g: MemoSeg): Found[] {
  // every name of the segment: made whole in one pass (one by one, each short name looks back for
  // its directory), unless the section is damaged elsewhere
  const all = storedPaths(c);
  const whole = all.length === c.count;
  const out: Found[] = [];
  for (let k = 0; k < g.n; k++) {
    // (statMemo served the segment only when every source fits: each gives one)
    const f = memoFoundAt(c, g, k, whole ? all[g.from + k] : undefined);
    if (f) out.push(f);
  }
  return out;
}

/**
 * A name's last part, bytes [b, e) of `buf`: its length and four of its bytes as one number (a
 * filter before a string lookup): the four before its last six, which in a session file's name are
 * hex digits of its id before `.jsonl` (`.json`: of its hash), so ~90 paths asked for let ~30
 * other names of 22,000 through. Two bytes were too few (a third of them); a hash of the last 16
 * bytes of each name, run cold, was ~1 ms of an append at 686 sessions. A shorter name is hashed.
 */
function baseKey(buf: Buffer, b: number, e: number): number {
  const n = e - b;
  if (n < 10) return n * 0x100000000 + fnv1a(buf, b, e);
  return n * 0x100000000 + ((buf[e - 10] | (buf[e - 9] << 8) | (buf[e - 8] << 16) | (buf[e - 7] << 24)) >>> 0);
}
const baseKeyOf = (base: Buffer, b: number) => baseKey(base, b, base.length);

/** Source `k` of a memo segment as a Found object (null when it does not fit the memo). */
function memoFoundAt(c: StoredCheck, g: MemoSeg, k: number, path?: string): Found | null {
  const p = path ?? storedPath(c, g.from + k);
  if (p === null) return null;
  const code = c.buf[c.codesAt + g.from + k];
  const kind = g.memo.kinds[code >> 1];
  if (kind === undefined || p.includes('\u0001')) return null;
  const src: Source = { path: p, harness: g.h, kind: kind as Source['kind'], mode: code & 1 ? 'whole' : 'lines' };
  return { src, stat: { size: g.nums[k * 3], mtime: g.nums[k * 3 + 1], ino: g.nums[k * 3 + 2], sig: '' }, bound: g.nums[k * 3 + 1] };
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

export function sameStat(a: Stat, b: Stat | undefined): boolean {
  if (!b) return false;
  return a.size === b.size && a.mtime === b.mtime && a.ino === b.ino && a.sig === b.sig;
}

/** The found sources of these paths, by path (one pass, no map of every source), into `out`. */
export function foundOf(found: Found[], paths: Set<string>, out = new Map<string, Found>()): Map<string, Found> {
  // (an index loop: `for…of` makes an iterator result per source while the code is cold)
  for (let i = 0; i < found.length; i++) {
    const f = found[i];
    if (paths.has(f.src.path)) out.set(f.src.path, f);
  }
  return out;
}

/** The check.bin this process read last, while it is still the file on disk. */
export function lastStoredCheck(file: string): StoredCheck | null {
  return lastCheck?.file === file ? lastCheck.c : null;
}
