// The offset index. For every source under the roots: size, mtime and inode unchanged → reuse the
// entry without opening the file; grown (and the bytes before the old offset unchanged) → parse only
// the new complete lines; shrunk or rewritten → parse from byte 0; gone → drop.
//
// Files in the cache directory, each written atomically (temp file + rename, mode 0600):
//   check.bin        — the stat of every source as bytes (float64 size, mtime, inode; then the paths,
//                      each with its dependency signature): a no-change run builds the same bytes
//                      from its own stats and compares them, exactly, without parsing anything; a
//                      change is told from it too (which paths are new, gone or changed). Before
//                      them, per adapter, how many sources it added and its discovery memo
//                      (lib/index/discmemo.ts): the directories it listed, so an unchanged tree is
//                      not walked again. Its header names the build.
//   rows.json        — what a row shows, per session (ListedSession), for `rows`: a fraction of
//                      the listing's size.
//   list.json        — the final sessions, whole (preview, ls, search, resolve). Both start with a
//                      head line (version, build id, time, skipped sources, and `hold`: the keys an
//                      append may not patch, below) and a line break before `"sessions"`, so the
//                      head is read without the listing.
//   list.idx         — where each session's record sits in list.json (its key, byte offset and
//                      length, after a head line naming list.json's build), so a lookup by key
//                      (preview on every cursor move, the picked session) parses one record, not
//                      the whole listing (storedSession below).
//   list.patch       — an append's change to list.json and rows.json (lib/index/listpatch.ts).
//   check.patch      — an append's change to check.bin and rows.bin (lib/index/overlay.ts): the
//                      stats it recorded anew, the rows.bin records it drops and the rows it puts
//                      in their places. It names the build over check.bin's, its base.
//   rows.bin         — the rows `resume rows` prints, rendered (lib/index/rowbin.ts): a no-change
//                      `rows` copies them out, with only the age computed.
//   dirs.json        — directory listings by directory stat (lib/index/dirs.ts).
//   state/NNN.json   — per source: its stat, offset, parser state (to continue an append), per-source
//                      sessions; sharded by a hash of the path into a power of two of files, about
//                      one per 32 sources and at most MAX_SHARDS (shardCount: a full build picks it,
//                      each shard's head says it, and the first shard's is the state's), so an
//                      append reads and rewrites one small shard, not the state of every source (a
//                      line per source: it parses only the changed ones, lib/index/shardtext.ts).
//   index.lock       — held by the one run that parses (lib/index/lock.ts); others wait for it.
// check.bin is written last and names the build (check.patch, when one is over it, names it instead):
// rows.bin, and the listing (list.json and rows.json, or them with list.patch applied), are used only
// when they are of the build it names, so a run that died half-way is never read as finished. (files.json, the stat table earlier versions kept, is
// gone: check.bin holds the same.)
//
// An append (sources of per-source harnesses grown or rewritten; none new, none gone) updates the
// listing without reading or rewriting it when it can prove the set of sessions stays the same:
//   - every changed source's stored entry is the one the current build used (its stat is the stat
//     check.bin recorded for it: a run that died after writing shards leaves a newer one) and parsed
//     without error;
//   - after parsing, each changed source has the same session keys as before, each with the same
//     `link` and `forkedFrom` (so short ids cannot change, nor any fork link), and none is in the
//     listing's `hold` (a linked harness's sessions with a fork or a shared link key: the finish pass
//     may change them);
//   - ids are printable ASCII without spaces (the rendered key and short id are then the real ones);
//   - rows.bin is of the current build and home, and each changed key is in it once;
//   - the patch in force (list.patch of the current build on list.json's build, or none when
//     list.json is the current build) merged with this change stays within PATCH_MAX_SESSIONS and
//     PATCH_MAX_BYTES.
// It then writes the changed shards, list.patch (new build id, base = list.json's build, the
// changed keys dropped and their sessions put, merged with the patch in force), check.bin again
// only when its sources or memos changed (of its own build, so the patches over it stand) and
// check.patch last (the same build id, base = check.bin's and rows.bin's build: the stats recorded
// anew while check.bin lists the same sources, the records of rows.bin dropped and the changed
// rows with their places, merged with the patch in force: lib/index/overlay.ts). Anything else (a
// new or vanished source or session, a damaged or foreign patch, a bound passed) takes the partial
// or full path, which reads the listing (with the patch applied), writes list.json, rows.json,
// rows.bin and check.bin whole (compaction) and removes both patches. A run that dies between
// list.patch and check.patch leaves a list.patch the check does not name: when the build it names
// was itself a patch, its listing is then gone and the next run builds the listing whole from the
// state shards (nothing is parsed again that did not change); when it was list.json's own build,
// that still serves.
import fs from 'node:fs';
import path from 'node:path';
import type { Adapter, Ctx, Harness, LineState, Root, Session, SessionCore, Source } from '../types.js';
import { ADAPTERS } from '../harness/registry.js';
import { cacheDir } from '../util/paths.js';
import { runJob, type Job, type JobResult } from './parse.js';
import { tailMatches } from './lines.js';
import { sanitizeSession } from '../util/redact.js';
import { DirCache, parseDirFile, type SeenDir } from './dirs.js';
import { readFirstLine, readPrefix, readText as readTextFile, readWithStat, removeFile, setReaddirHook, setSymlinkHook, textOf, writeAtomic } from '../util/fsx.js';
import { dirsStand, makeMemo, parseMeta, type AdapterMeta, type Memo } from './discmemo.js';
import { shortIds } from '../select/filter.js';
import { tryLock, unlock, waitUnlocked } from './lock.js';
import { byRecency, Links, OrderedStream, planOrder } from './stream.js';
import { closeRowBin, openRowBin, rowBinChunks, type RowBin } from './rowbin.js';
import { applyStats, emptyOver, fitsCheck, freshShorts, overBytes, overlayRows, overWith, readOver, recordAt, type Over, type OverStat } from './overlay.js';
import { PairedShardWriter, ShardWriter } from './shardwriter.js';
import { HELD_HEAD, longLine, memberLine, packEntry, promptLine, promptLineOf, promptsFile, promptsHead, PROMPTS_TAIL, restOf, reviveEntry, sameList, shardHeadOf, shardToken, stateHead, withOwn } from './promptfile.js';
import { heldEntry, readShardText, shardEntry, writeShardFiles, type HeldList, type Line, type ShardText } from './shardtext.js';
import { addTo } from '../util/multimap.js';
import { applyPatch, PATCH_MAX_BYTES, PATCH_MAX_SESSIONS, readHead, readPatch, type ListHead, type ListPatch } from './listpatch.js';
import { FILE, NONE, quickStat, StatInDirs } from '../util/quickstat.js';
import { fullCollector, heapUsed } from '../util/gc.js';
import { fnv1a } from '../util/fnv.js';
import { nodeOs } from '../util/lazy.js';
import { KEPT_NAMES } from './rowsout.js';

/** Bytes parsed between looks at the heap in a long build (RESUME_GC_EVERY, for measuring). */
const GC_EVERY = Number(process.env.RESUME_GC_EVERY) || 16 << 20;
/** Growth of the heap since the last full collection that makes a long build take one (RESUME_GC_GROWTH, for measuring). */
const GC_GROWTH = Number(process.env.RESUME_GC_GROWTH) || 16 << 20;

/**
 * Bump when any parser changes what it extracts, or the cache's layout changes (12: 256 state shards,
 * list.patch, no files.json; 14: check.bin's names in the directory of the one before written
 * short; 16: as many state shards as the sources call for; 17: the listing's held keys include those
 * of adapters with `holds`; 18: those of threads named as parents that no session has yet, as a new
 * session may now be patched over the listing; 19: STATE_VERSION 15; 20: STATE_VERSION 16, the hidden rules of
 * pi, Gemini and opencode): older caches are discarded and rebuilt.
 */
export const INDEX_VERSION = 20;
/**
 * The state shards' and prompt files' own version. They hold what parsing the sources found; a
 * change to the listing files alone (INDEX_VERSION) keeps them, so the first run after it writes
 * the listing again from them without reading a transcript. A change of this one changes
 * INDEX_VERSION too: shards of another version are never read, so the first run after it must parse
 * every source again, which only a listing of another version makes it do (a listing of this
 * version over old shards would stand, and words from a middle prompt, read from the shards, would
 * stop naming sessions until the next full build).
 */
export const STATE_VERSION = 16;

/**
 * What a listing row needs of a session (rows.json holds only these). `short` is the id's shortest
 * unique prefix among all sessions (`shortIds` of the whole listing), computed when it is built.
 */
export type ListedSession = Pick<
  Session,
  'key' | 'id' | 'harness' | 'cwd' | 'title' | 'firstPrompt' | 'branch' | 'started' | 'updated' | 'hidden' | 'hiddenReason' | 'prompts'
> & { short: string };

export function listed(s: Session, short: string): ListedSession {
  return {
    key: s.key, id: s.id, short, harness: s.harness, cwd: s.cwd, title: s.title,
    // the row shows the title when there is one (kept when it is the prompt: a snapshot name may replace it)
    firstPrompt: s.title && s.title !== s.firstPrompt ? null : s.firstPrompt,
    branch: s.branch, started: s.started, updated: s.updated, hidden: s.hidden, hiddenReason: s.hiddenReason, prompts: s.prompts,
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
  /** the shard count of the state it was written in */
  of: number;
  entries: Record<string, Entry>;
}

interface ListFile<S = Session> {
  v: number;
  /** build id, the same in check.bin, rows.json and list.json (or list.patch, when one is applied) */
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
  /** `printed` printed the rows (nothing changed), and `sessions` is empty */
  printed?: boolean;
  /** with `rowBin` after an append patched it: the listing before (its build id) and the keys of the sessions the append changed or dropped */
  after?: { id: string; keys: ReadonlySet<string> };
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
  /**
   * With `rowBin`, on a no-change run, before rows.bin is opened: print the rows of listing `id`
   * some other way (rows.out), true when done.
   */
  printed?: (files: IndexFiles, id: string) => boolean;
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
    return JSON.parse(readTextFile(file)) as T;
  } catch {
    return null;
  }
}

function readText(file: string): string | null {
  try {
    return readTextFile(file);
  } catch {
    return null;
  }
}


/**
 * Is there a stored listing of this index version? Reads only its first bytes (the version is
 * written first): for callers that must know whether a run will be cold before starting it.
 */
export function haveListing(ctx: Ctx): boolean {
  return !!readPrefix(indexFiles(ctx).list, 32)?.startsWith(`{"v":${INDEX_VERSION},`);
}

/** State shards: at most this many (an append reads and rewrites one; at 22,000 sources 16 shards were 10 MB each). */
export const MAX_SHARDS = 256;
/**
 * The sources a full build puts in a shard, about: a shard per source would be one file to create
 * per source (this VM takes 0.3-1 ms to create one: 512 files were a third of a 686-source build),
 * and a large one is more to read and write again on an append.
 */
const PER_SHARD = 32;

/** How many state shards a full build of `sources` sources writes: a power of two, 1 to MAX_SHARDS. */
export function shardCount(sources: number): number {
  let c = 1;
  while (c < MAX_SHARDS && c * PER_SHARD < sources) c *= 2;
  return c;
}

/** The shard count of the state in `stateDir`, as its first shard says; null when it has none of this version. */
export function shardLayout(stateDir: string): number | null {
  const h = shardHeadOf(shardFile(stateDir, 0));
  return h && h.v === STATE_VERSION && isShardCount(h.of) ? h.of : null;
}

/**
 * Whether a state of `count` shards still suits `sources` sources: from half to four times the
 * count they call for. A store that grows from a few sessions to thousands is laid out again at
 * each doubling of its shard count, not left with an append rewriting one shard of every session.
 */
function shardsFit(count: number, sources: number): boolean {
  const want = shardCount(sources);
  return count * 2 >= want && count <= want * 4;
}

const isShardCount = (c: number): boolean => Number.isInteger(c) && c >= 1 && c <= MAX_SHARDS && (c & (c - 1)) === 0;

/** A session's key in the listing: `harness:id`. */
const keyOf = (s: SessionCore) => `${s.harness}:${s.id}`;

/** The state kept of a source once it is written, when nothing in the run reads it again (one object for all). */
const NO_STATE: LineState = Object.freeze({}) as LineState;

export interface IndexFiles {
  dir: string;
  list: string;
  rows: string;
  rowbin: string;
  patch: string;
  /** check.patch: an append's change to check.bin and rows.bin (lib/index/overlay.ts) */
  over: string;
  /** list.idx: each session's byte range in list.json */
  idx: string;
  /** links.bin: the link keys of the listing's sessions of linked harnesses, hashed (linkKeys) */
  links: string;
  /** reach.json: what each key `Adapter.holds` names reaches (reachOf) */
  reach: string;
  check: string;
  dirs: string;
  lock: string;
  state: string;
}

export function indexFiles(ctx: Ctx): IndexFiles {
  const dir = cacheDir(ctx);
  const j = (n: string) => path.join(dir, n);
  return {
    dir, list: j('list.json'), rows: j('rows.json'), rowbin: j('rows.bin'), patch: j('list.patch'), over: overFileOf(j('check.bin')), idx: j('list.idx'), links: j('links.bin'), reach: j('reach.json'), check: j('check.bin'),
    dirs: j('dirs.json'), lock: j('index.lock'), state: j('state'),
  };
}

/** check.patch, beside its check.bin. */
function overFileOf(check: string): string {
  return path.join(path.dirname(check), 'check.patch');
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
    const name = checkName(found[i]!);
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

function writeCheck(file: string, id: string, sources: SourceList, meta: AdapterMeta[], same?: StoredCheck, taken?: Buffer): void {
  // (`taken`: these sources' stat bytes as the discovery gave them, when it did)
  const nums = taken ?? statNums(listOf(sources));
  // the same memos over the same paths: the meta and kind codes stand as stored too
  const sameMeta = !!same && meta.length === same.meta.length && meta.every((m, i) => m.name === same.meta[i]!.name && m.n === same.meta[i]!.n && m.memo === same.meta[i]!.memo);
  const metaBuf = sameMeta ? same!.buf.subarray(same!.buf.indexOf(10) + 1, same!.codesAt) : Buffer.from(JSON.stringify(meta), 'utf8');
  // per source: its kind (index in its adapter's memo kinds) * 2 + 1 for `whole`; 0 outside a memo
  let codes: Buffer;
  if (sameMeta) codes = same!.buf.subarray(same!.codesAt, same!.numsAt);
  else {
    const found = listOf(sources);
    codes = Buffer.alloc(found.length);
    let i = 0;
    for (const m of meta) {
      for (let k = 0; k < m.n && i < found.length; k++, i++) {
        if (!m.memo) continue;
        const s = found[i]!.src;
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
  const sameNames = !!same && meta.length === same.meta.length && meta.every((m, i) => m.n === same.meta[i]!.n);
  writeAtomic(file, (function* () {
    yield Buffer.from(head, 'latin1');
    yield metaBuf;
    yield codes;
    yield nums;
    if (sameNames) yield same!.buf.subarray(same!.namesAt);
    else {
      let i = 0;
      for (const name of checkNameParts(listOf(sources), meta)) yield (i++ ? '\u0000' : '') + name;
    }
  })());
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
    const st = found[i]!.stat;
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
interface StoredCheck {
  /** the build it names: check.patch's when one is over this check.bin, else check.bin's own */
  id: string;
  /** check.bin's own build id (that of rows.bin) */
  fileId: string;
  /** check.patch, when it is over this check.bin (its stats are put over `buf`'s already) */
  over: Over | null;
  /** check.patch's stat when read (null: none), whether it is still the file on disk */
  overStat: OverStat;
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
  const { fileId, count } = h;
  const metaAt = nl + 1;
  const codesAt = metaAt + h.metaLen;
  const numsAt = codesAt + count;
  const namesAt = numsAt + count * 24;
  if (buf.length < namesAt) return null;
  const meta = parseMeta(buf.toString('utf8', metaAt, codesAt));
  if (!meta || meta.reduce((n, a) => n + a.n, 0) !== count) return null;
  // an append's patch over it: its stats put over the stored ones (buf is this process's own copy)
  const r = overFor(file, fileId, count);
  const over = r.over && applyStats(r.over, buf, numsAt, count) ? r.over : null;
  return { id: over ? over.id : fileId, fileId, over, overStat: r.stat, count, meta, buf, codesAt, numsAt, namesAt, stat };
}

/** check.bin's first line: its build id, source count and meta length; null when it is not one of this version. */
function checkLine(line: string): { fileId: string; count: number; metaLen: number } | null {
  const m = /^v(\d+) (\S+) (\d+) (\d+)$/.exec(line);
  return m && Number(m[1]) === INDEX_VERSION ? { fileId: m[2]!, count: Number(m[3]), metaLen: Number(m[4]) } : null;
}

/** check.patch beside `check` when it is over the check.bin of build `fileId` with `count` sources (else null), and the patch file's stat. */
function overFor(check: string, fileId: string, count: number): { over: Over | null; stat: OverStat } {
  const r = readOver(overFileOf(check), INDEX_VERSION);
  return { over: r.over && r.over.base === fileId && fitsCheck(r.over, count) ? r.over : null, stat: r.stat };
}

/** check.bin as read before, when it is still the file on disk (written atomically: a new one is a new inode); else read again. */
function recheck(file: string, c: StoredCheck | null): StoredCheck | null {
  if (c && sameFile(statOf(file), c.stat) && sameFile(statOf(overFileOf(file)), c.overStat)) return c;
  return readCheck(file);
}

/** The same file as when it was read (both none, or the same inode, size, mtime and ctime)? */
function sameFile(st: fs.Stats | null, was: OverStat): boolean {
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
  const e = ends[i]!;
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
  const sl = buf[js] === 0x2f ? lastSlash(buf, js, ends[j]!) : -1;
  if (sl < 0 || sl === ends[j]! - 1 || e - s < 2) return null;
  return `${buf.toString('utf8', js, sl)}/${buf.toString('utf8', s + 1, e)}`;
}

/**
 * The stored paths of one harness's sources (its segment of check.bin) whose file name contains
 * `part`: found in check.bin's bytes, only those names made whole. Throws when the names are damaged.
 */
function storedFind(c: StoredCheck, h: Harness, part: string): string[] {
  const ends = nameEnds(c);
  if (!ends) throw new Error('damaged names in check.bin');
  let first = 0;
  let n = -1;
  for (const m of c.meta) {
    if (m.name === h) {
      n = m.n;
      break;
    }
    first += m.n;
  }
  const out: string[] = [];
  if (n <= 0 || !part || part.includes('/')) return out;
  const needle = Buffer.from(part, 'utf8');
  const from = nameStart(c, ends, first);
  const to = ends[first + n - 1]!;
  let last = -1;
  for (let q = c.buf.indexOf(needle, from); q >= 0 && q + needle.length <= to; q = c.buf.indexOf(needle, q + 1)) {
    // the name it lies in
    const lo = nameAt(ends, q + needle.length, first, first + n - 1);
    if (lo === last) continue;
    last = lo;
    const name = storedPath(c, lo);
    if (name === null) throw new Error('damaged name in check.bin');
    const p = pathOfName(name);
    if (p.slice(p.lastIndexOf('/') + 1).includes(part)) out.push(p);
  }
  return out;
}

/** The name of check.bin (from `lo` to `hi`) that byte `q` lies in: the first that ends at or past it. */
function nameAt(ends: Uint32Array, q: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid]! < q) lo = mid + 1;
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
    let name = names[i]!;
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
function matchCheck(c: StoredCheck | null, d: Discovered): string | null {
  if (!c || c.count !== d.count) return null;
  // the stats first: an append differs there, and the paths need not be joined to tell
  if (Buffer.compare(d.nums(), c.buf.subarray(c.numsAt, c.namesAt)) !== 0) return null;
  if (d.live) {
    if (d.live.length === 0) return c.id;
    const paths = storedPaths(c);
    if (paths.length !== c.count) return null;
    for (const [at, found] of d.live) {
      for (let k = 0; k < found.length; k++) if (paths[at + k] !== checkName(found[k]!)) return null;
    }
    return c.id;
  }
  const names = checkNames(d.found, d.meta);
  const rest = c.buf.subarray(c.namesAt);
  if (rest.length !== Buffer.byteLength(names, 'utf8') || rest.toString('utf8') !== names) return null;
  return c.id;
}

/** A stored source: its stat as check.bin recorded it, and its harness. */
interface PrevStat extends Stat {
  harness: Harness;
  /** its index in check.bin */
  at: number;
}

/**
 * Are these sources (paths and dependency signatures) the ones check.bin lists, in its order? With
 * `live` (Discovered: the discovery was made against this check), only the live discoveries' paths
 * are compared; every other source is the stored one at its index.
 */
function samePaths(c: StoredCheck, sources: SourceList, live: Discovered['live'] = null): boolean {
  if (countOf(sources) !== c.count) return false;
  if (live) {
    // only the live discoveries' names, each made whole on its own (storedPath)
    if (!nameEnds(c)) return false;
    for (const [at, fs] of live) for (let k = 0; k < fs.length; k++) if (storedPath(c, at + k) !== checkName(fs[k]!)) return false;
    return true;
  }
  const paths = storedPaths(c);
  if (paths.length !== c.count) return false;
  const found = listOf(sources);
  for (let i = 0; i < found.length; i++) if (paths[i] !== checkName(found[i]!)) return false;
  return true;
}

/**
 * check.bin's stats by path (null when its names section is damaged). `served`: the found sources
 * are check.bin's, in its order (samePaths); then only those whose stat bytes differ are decoded,
 * and no path is gone.
 */
function storedStats(c: StoredCheck, sources: SourceList, served: boolean, taken?: Buffer): Map<string, PrevStat> | null {
  // served: a few names, made whole one by one (storedPath); else every one
  const paths = served && countOf(sources) === c.count ? null : storedPaths(c);
  if (paths ? paths.length !== c.count : !nameEnds(c)) return null;
  let damaged = false;
  const stat = c.buf.subarray(c.numsAt, c.namesAt);
  const out = new Map<string, PrevStat>();
  // each source's harness: the adapter whose segment of check.bin holds it
  const ends: number[] = [];
  let end = 0;
  for (const m of c.meta) ends.push((end += m.n));
  const put = (i: number) => {
    const name = paths ? paths[i]! : storedPath(c, i);
    if (name === null) {
      damaged = true;
      return;
    }
    const p = pathOfName(name);
    let a = 0;
    while (a < ends.length && i >= ends[a]!) a++;
    // (read from the bytes: they need not be 8-byte aligned in the file's buffer)
    out.set(p, { size: stat.readDoubleLE(i * 24), mtime: stat.readDoubleLE(i * 24 + 8), ino: stat.readDoubleLE(i * 24 + 16), sig: name.slice(p.length + 1), harness: c.meta[a]?.name as Harness, at: i });
  };
  if (served && countOf(sources) === c.count) {
    const now = taken ?? statNums(listOf(sources));
    // compared a block at a time (native), and only a block that differs source by source: an
    // append changes one source of 22,000
    const BLOCK = 24 * 128;
    for (let at = 0; at < stat.length; at += BLOCK) {
      const to = Math.min(at + BLOCK, stat.length);
      if (now.compare(stat, at, to, at, to) === 0) continue;
      for (let i = at / 24; i < to / 24; i++) if (now.compare(stat, i * 24, i * 24 + 24, i * 24, i * 24 + 24) !== 0) put(i);
    }
    return damaged ? null : out;
  }
  for (let i = 0; i < c.count; i++) put(i);
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
  for (let j = 0; j < n; j++) out[j] = pathOfName(s.paths[key[n - 1 - j]! % m]!);
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
  for (let i = 0; i < s.c.count; i++) out.set(pathOfName(s.paths[i]!), recordedSize(s.c, i));
  return out;
}

/**
 * The build check.bin names (check.patch's when one is over it) from check.bin's first line and
 * check.patch, with what rows.bin needs to list it; null when there is none of this version.
 */
function checkHead(file: string): Pick<StoredCheck, 'id' | 'fileId' | 'over'> | null {
  const first = readFirstLine(file, 200);
  const h = first && checkLine(first.toString('latin1'));
  if (!h) return null;
  const { over } = overFor(file, h.fileId, h.count);
  return { id: over ? over.id : h.fileId, fileId: h.fileId, over };
}

/** The build id check.bin names (check.patch's when one is over it); null when there is none of this version. */
export function checkId(file: string): string | null {
  return checkHead(file)?.id ?? null;
}

/**
 * The stored listing of build `id`, whole (`full`: list.json) or as rows (`rows`: rows.json): the
 * file itself when it is of that build, else the file with list.patch applied when the patch is of
 * that build and its base is the file's build; null otherwise. Every reader of the listing goes
 * through here.
 */
function readListing(files: IndexFiles, want: 'full', id: string): ListFile<Session> | null;
function readListing(files: IndexFiles, want: 'rows', id: string): ListFile<ListedSession> | null;
function readListing(files: IndexFiles, want: 'full' | 'rows', id: string): ListFile<Session> | ListFile<ListedSession> | null;
function readListing(files: IndexFiles, want: 'full' | 'rows', id: string): ListFile<Session> | ListFile<ListedSession> | null {
  const list = readJson<ListFile<Session> | ListFile<ListedSession>>(want === 'rows' ? files.rows : files.list);
  if (!list || list.v !== INDEX_VERSION || !Array.isArray(list.sessions)) return null;
  if (list.id === id) return list;
  const p = patchFor(files, list.id, id);
  if (!p) return null;
  const at = { v: list.v, id: p.id, built: p.built, skipped: p.skipped as Skipped };
  return want === 'rows'
    ? { ...at, sessions: applyPatch(list.sessions as ListedSession[], p, (s, short) => listed(s, short)) }
    : { ...at, sessions: applyPatch(list.sessions as Session[], p, (s) => s) };
}

/** list.patch when it brings the listing of build `base` up to build `id`; null otherwise. */
export function patchFor(files: IndexFiles, base: string, id: string): ListPatch | null {
  const p = readPatch(files.patch, INDEX_VERSION);
  return p && p.id === id && p.base === base ? p : null;
}

/**
 * list.idx's head line (`v<version> <build of list.json> <count>`): the record count when it is of
 * this version and describes list.json of build `listId`; null otherwise.
 */
export function idxCount(head: string, listId: string): number | null {
  const m = /^v(\d+) (\S+) (\d+)$/.exec(head);
  return m && Number(m[1]) === INDEX_VERSION && m[2] === listId ? Number(m[3]) : null;
}

/**
 * The listing rows (rows.json, list.patch applied) of the build check.bin names, without statting
 * any source: for a caller that has just brought the index up to date; null when there are none.
 */
export function storedRows(ctx: Ctx): ListedSession[] | null {
  const files = indexFiles(ctx);
  const id = checkId(files.check);
  return id ? (readListing(files, 'rows', id)?.sessions ?? null) : null;
}

/**
 * The listing of the build check.bin names, whole, without statting any source (the picker's
 * callbacks look a session up by key in it); null when there is none.
 */
export function storedListing(ctx: Ctx): Session[] | null {
  const files = indexFiles(ctx);
  const id = checkId(files.check);
  return id ? (readListing(files, 'full', id)?.sessions ?? null) : null;
}

/**
 * list.idx for list.json of build `id`: a head line `v<version> <id> <count>`, then per session in
 * list.json's order `key\tshort\toffset\tlength` (short: its short id in the listing). A key or
 * short id with a line break or tab cannot be stored so: the file is removed instead (lookups then
 * read the whole listing).
 */
function writeIdx(file: string, id: string, sessions: Session[], shorts: Map<string, string>, at: Float64Array): void {
  const bad = /[\t\n\r]/;
  if (sessions.some((s) => bad.test(s.key) || bad.test(shorts.get(s.id) ?? s.id))) {
    removeFile(file);
    return;
  }
  function* lines(): Generator<string> {
    yield `v${INDEX_VERSION} ${id} ${sessions.length}\n`;
    let buf = '';
    for (let i = 0; i < sessions.length; i++) {
      const s = sessions[i]!;
      buf += `${s.key}\t${shorts.get(s.id) ?? s.id}\t${at[i * 2]}\t${at[i * 2 + 1]}\n`;
      if (buf.length > 65536) {
        yield buf;
        buf = '';
      }
    }
    yield buf;
  }
  writeAtomic(file, lines());
}

/** A session of the stored listing, with its short id there. */
export interface StoredHit {
  session: Session;
  short: string;
}

/**
 * One session of the build check.bin names, without statting any source or parsing the listing:
 * by its key, or by its full id when exactly one session has it. From list.patch when the patch in
 * force puts it, else its record in list.json found through list.idx. Null when the listing has no
 * session of that key; undefined when this cannot tell (no index, list.idx missing or of another
 * build, an id several sessions share or none has, anything malformed): ask the whole listing then.
 */
export function storedSession(ctx: Ctx, q: { key: string } | { id: string }): StoredHit | null | undefined {
  const files = indexFiles(ctx);
  const want = 'key' in q ? q.key : q.id;
  if (!want || /[\t\n\r]/.test(want)) return undefined;
  const matches = (s: { key: string; id: string }) => ('key' in q ? s.key === q.key : s.id === q.id);
  // the head and the record are read from the one file opened (a rewrite renames a new one in)
  const open = openListing(files);
  if (!open) return undefined;
  const { fd, head, patch: p } = open;
  try {
    let dropped: Set<string> | null = null;
    if (p) {
      const hits = p.put.flatMap((s, i) => (matches(s) ? [{ session: s, short: p.short[i]! }] : []));
      // a key is put once; an id shared with a session outside the patch is not for here to tell
      if ('key' in q && hits.length === 1) return hits[0]!;
      if ('id' in q && hits.length > 0) return undefined;
      dropped = new Set(p.drop);
    }
    let idx: Buffer;
    try {
      idx = fs.readFileSync(files.idx);
    } catch {
      return undefined;
    }
    const nl = idx.indexOf(10);
    if (nl <= 0 || idxCount(idx.toString('latin1', 0, nl), head.id) == null) return undefined;
    // the line of the key; for an id, the lines whose key ends in `:id` (exactly one)
    const lines: number[] = [];
    if ('key' in q) {
      const at = idx.indexOf(`\n${q.key}\t`, nl, 'utf8');
      if (at >= 0) lines.push(at + 1);
    } else {
      const needle = Buffer.from(`:${q.id}\t`, 'utf8');
      for (let at = idx.indexOf(needle, nl); at >= 0; at = idx.indexOf(needle, at + 1)) {
        const start = idx.lastIndexOf(10, at) + 1;
        // the colon after the harness name, in the key field (an id may hold colons of its own)
        if (idx.indexOf(58, start) === at && !idx.subarray(start, at).includes(9)) lines.push(start);
      }
      if (lines.length !== 1) return undefined;
    }
    if (lines.length === 0) return null;
    const start = lines[0]!;
    const end = idx.indexOf(10, start);
    const f = idx.toString('utf8', start, end < 0 ? idx.length : end).split('\t');
    if (f.length !== 4 || !/^\d+$/.test(f[2]!) || !/^\d+$/.test(f[3]!)) return undefined;
    // a patched session's record here is the one before the append (the patch answered above)
    if (dropped?.has(f[0]!)) return undefined;
    const len = Number(f[3]);
    const rec = Buffer.allocUnsafe(len);
    if (fs.readSync(fd, rec, 0, len, Number(f[2])) !== len) return undefined;
    const s = JSON.parse(rec.toString('utf8')) as Session;
    return s && typeof s === 'object' && s.key === f[0] && matches(s) ? { session: s, short: f[1]! } : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * list.json opened for the build check.bin names: its descriptor, its head, and the patch in force
 * over it (null when list.json is of that build itself). Null when it cannot serve that build: no
 * check.bin of this version, no readable list.json of this version, no patch from its build to that
 * one. The caller closes `fd`.
 */
export function openListing(files: IndexFiles): { fd: number; head: ListHead; patch: ListPatch | null } | null {
  const id = checkId(files.check);
  if (!id) return null;
  let fd: number;
  try {
    fd = fs.openSync(files.list, 'r');
  } catch {
    return null;
  }
  try {
    const head = readHead(fd);
    const patch = head && head.v === INDEX_VERSION && head.id !== id ? patchFor(files, head.id, id) : null;
    if (head && head.v === INDEX_VERSION && (head.id === id || patch)) return { fd, head, patch };
  } catch {
    /* as unreadable */
  }
  fs.closeSync(fd);
  return null;
}

/**
 * FNV-1a of the path, its top bits as a shard number of a state of `count` shards (a power of two).
 * The top bits: the multiplications carry every character up into them, while FNV-1a's low k bits
 * depend only on the low k bits of each character (two paths that differ in the digits of a name
 * written twice in them, as pi's directory and file names are, would share a shard).
 */
export function shardOf(p: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < p.length; i++) {
    h ^= p.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return count === 1 ? 0 : (h >>> 0) >>> (Math.clz32(count) + 1);
}

/** A state shard's file: state/000.json, state/001.json … */
export function shardFile(stateDir: string, n: number): string {
  return path.join(stateDir, `${String(n).padStart(3, '0')}.json`);
}

/**
 * The entries of shards `which` of a state of `count` shards (null: there is none, and so no entry);
 * the shards that cannot be read (missing, damaged, of another version or count) go to `bad`.
 */
function loadShards(stateDir: string, which: Iterable<number>, count: number | null, bad?: number[]): Record<string, Entry> {
  const out: Record<string, Entry> = {};
  if (count === null) return out;
  for (const n of which) {
    const f = readJson<StateFile>(shardFile(stateDir, n));
    if (!f || f.v !== STATE_VERSION || f.of !== count || !f.entries || typeof f.entries !== 'object' || Array.isArray(f.entries)) {
      bad?.push(n);
      continue;
    }
    for (const [p, e] of Object.entries(f.entries)) if (e && typeof e === 'object' && shardOf(p, count) === n) out[p] = reviveEntry(e);
  }
  return out;
}

/** Every shard of the state in `stateDir`, as its first shard gives their count. */
function loadAllShards(stateDir: string): Record<string, Entry> {
  const count = shardLayout(stateDir);
  return loadShards(stateDir, allShards(count ?? 0), count);
}

function allShards(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}

function writeShards(stateDir: string, entries: Record<string, Entry>, which: Set<number>, count: number): void {
  const by = new Map<number, string[]>();
  for (const n of which) by.set(n, []);
  for (const p of Object.keys(entries)) by.get(shardOf(p, count))?.push(p);
  for (const [n, paths] of by) writeShard(stateDir, n, count, entries, paths);
}

/** One shard of `count` and its prompt file: these entries, in this order, a line each (lib/index/promptfile.ts). */
function writeShard(stateDir: string, n: number, count: number, entries: Record<string, Entry>, paths: string[]): void {
  writeShardFiles(
    shardFile(stateDir, n), promptsFile(stateDir, n), STATE_VERSION, count,
    paths.map((p) => memberLine(p, entries[p])), paths.map((p) => promptLine(p, entries[p])), debugWrite,
  );
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
interface MemoSeg {
  from: number;
  n: number;
  h: Harness;
  memo: Memo;
  nums: Float64Array;
}

/** What a discovery found, and what check.bin is to record of it. */
interface Discovered {
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
  /**
   * The sources each live discovery found (with the index in `found` of its first), when every
   * other source came whole from the stored check's memos, each adapter has as many sources as the
   * stored check gives it, and the adapters are in its order: then only these sources' paths need
   * comparing with the stored ones (the rest are the stored paths). Null: compare every path.
   */
  live: Array<[number, Found[]]> | null;
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
  const roots = new Map<Harness, Root[]>();
  const seen = new Set<string>();
  const meta: AdapterMeta[] = [];
  let metaChanged = !stored;
  const live: Array<[number, Found[]]> = [];
  // each adapter's sources in order: a memo segment, or what its live discovery found
  const parts: Array<MemoSeg | Found[]> = [];
  let count = 0;
  // memo segments whose paths are not in `seen` yet: added before a live discovery's sources are
  // checked against it (most runs have none)
  let pending: MemoSeg[] = [];
  const flush = () => {
    const paths = storedPaths(stored!);
    for (const g of pending) for (let k = 0; k < g.n; k++) seen.add(paths[g.from + k]!);
    pending = [];
  };
  // where each adapter's sources start in the stored check
  const starts = new Map<string, { at: number; m: AdapterMeta }>();
  if (stored) {
    let at = 0;
    for (const m of stored.meta) {
      starts.set(m.name, { at, m });
      at += m.n;
    }
  }
  let walk: StatInDirs | undefined;
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
    if (a.listsOnly && stored && st?.m.memo && st.m.memo.key === key) {
      // Served only when every remembered source is still a regular file and new to this run: a
      // source gone without its directory changing means the memo (or check.bin) is not to be trusted.
      // The working directory is back where it was before anything else runs (roots may be relative).
      walk ??= new StatInDirs();
      let g: MemoSeg | null;
      try {
        g = dirsStand(st.m.memo.dirs, walk) ? statMemo(stored, st.at, st.m.n, a.name, st.m.memo, seen, walk) : null;
      } finally {
        walk.done();
      }
      if (g) {
        parts.push(g);
        pending.push(g);
        count += g.n;
        memo = st.m.memo;
        meta.push({ name: a.name, n: g.n, memo });
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
    if (srcs.length && pending.length) flush();
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
      const size = st[1]!;
      const mtime = st[2]!;
      const ino = st[4]!;
      const sig = depSig(src.deps);
      mine.push({ src, stat: { size, mtime, ino, sig }, bound: sig ? boundOf(mtime, sig) : mtime });
    }
    const n = mine.length;
    // a memo holds exactly what the discovery found: nothing skipped or shared with another adapter
    if (memo && n !== srcs.length) memo = undefined;
    meta.push(memo ? { name: a.name, n, memo } : { name: a.name, n });
    if (n > 0) live.push([count, mine]);
    parts.push(mine);
    count += n;
  }
  // The stored check's segments are these adapters' only when it lists them in this order with the
  // same number of sources each (then a source's index here is its index there).
  const aligned = !!stored && stored.meta.length === adapters.length && stored.meta.every((m, i) => m.name === adapters[i]!.name && m.n === meta[i]!.n);
  let made: Found[] | null = null;
  let numsMade: Buffer | null = null;
  return {
    get found() {
      made ??= parts.flatMap((p) => (Array.isArray(p) ? p : memoFound(stored!, p)));
      return made;
    },
    count,
    pick(paths) {
      if (made) return foundOf(made, paths);
      const out = new Map<string, Found>();
      let keys: Set<number> | null = null;
      for (const p of parts) {
        if (Array.isArray(p)) {
          foundOf(p, paths, out);
          continue;
        }
        // a memo segment's names are plain paths (memoFoundAt takes no other). A number made of each
        // name's last part (its length and two of its last bytes, read in place) is looked up first,
        // and only a name that has one is made whole and looked up: making 22,000 paths whole for
        // this was most of an append
        const ends = nameEnds(stored!);
        if (!ends) continue;
        keys ??= new Set([...paths].map((x) => baseKeyOf(Buffer.from(x.slice(x.lastIndexOf('/') + 1)), 0)));
        const { buf } = stored!;
        for (let k = 0; k < p.n; k++) {
          const i = p.from + k;
          const s = nameStart(stored!, ends, i);
          const e = ends[i]!;
          const b = buf[s] === 2 ? s + 1 : lastSlash(buf, s, e) + 1;
          if (!keys.has(baseKey(buf, b, e))) continue;
          const name = storedPath(stored!, i);
          if (name === null || !paths.has(name)) continue;
          const f = memoFoundAt(stored!, p, k);
          if (f) out.set(f.src.path, f);
        }
      }
      return out;
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
      return (numsMade = Buffer.from(out.buffer));
    },
    roots,
    meta,
    metaChanged,
    live: aligned ? live : null,
  };
}

/**
 * Stat an adapter's remembered sources into a memo segment: null when one does not fit its memo (a
 * kind it does not know, a dependency signature), is gone, is not a regular file, or was found
 * already this run.
 */
function statMemo(c: StoredCheck, at: number, n: number, h: Harness, m: Memo, seen: Set<string>, walk: StatInDirs): MemoSeg | null {
  const ends = nameEnds(c);
  if (!ends || at + n > c.count) return null;
  const { buf, codesAt } = c;
  const signed = c.signed!;
  const nums = new Float64Array(n * 3);
  // the directory of the last path written whole: bytes [dir, dir + dirLen) (dir < 0: none); a
  // name written short (SAME_DIR) is in it, so it changes only at a path written whole
  let dir = -1;
  let dirLen = 0;
  for (let k = 0; k < n; k++) {
    let s = nameStart(c, ends, at + k);
    const e = ends[at + k]!;
    if (m.kinds[buf[codesAt + at + k]! >> 1] === undefined || signed.has(at + k)) return null;
    let name: number;
    if (buf[s] === 2) {
      // the first of a segment is never short (checkNameParts)
      if (dir < 0 || k === 0) return null;
      name = s + 1;
    } else {
      if (buf[s] === 3) s++;
      const sl = buf[s] === 0x2f ? lastSlash(buf, s, e) : -1;
      if (sl < 0 || sl === e - 1) {
        // not a path in a directory (nothing memo'd is): stat'ed as it is
        dir = -1;
        if (seen.size > 0 && seen.has(buf.toString('utf8', s, e))) return null;
        const st = walk.statWhole(buf, s, e);
        if (st[0] !== FILE) return null;
        putStat(nums, k, st);
        continue;
      }
      dir = s;
      dirLen = sl - s;
      name = sl + 1;
    }
    if (seen.size > 0 && seen.has(`${buf.toString('utf8', dir, dir + dirLen)}/${buf.toString('utf8', name, e)}`)) return null;
    // another name in this directory next: worth entering it
    const more = k + 1 < n && buf[e + 1] === 2;
    const st = more ? walk.statEntering(buf, dir, dirLen, name, e) : walk.statIn(buf, dir, dirLen, name, e);
    if (st[0] !== FILE) return null;
    putStat(nums, k, st);
  }
  return { from: at, n, h, memo: m, nums };
}

function putStat(nums: Float64Array, k: number, st: Float64Array): void {
  nums[k * 3] = st[1]!;
  nums[k * 3 + 1] = st[2]!;
  nums[k * 3 + 2] = st[4]!;
}

/** The offset of the last `/` in bytes [s, e) of `buf`; -1 when there is none. */
function lastSlash(buf: Buffer, s: number, e: number): number {
  for (let i = e - 1; i >= s; i--) if (buf[i] === 0x2f) return i;
  return -1;
}

/** Where stored name `i` starts in check.bin (`ends`: nameEnds). */
function nameStart(c: StoredCheck, ends: Uint32Array, i: number): number {
  return i === 0 ? c.namesAt : ends[i - 1]! + 1;
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
  return (c.ends = ends);
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
  const out = new Array<Found>(g.n);
  for (let k = 0; k < g.n; k++) out[k] = memoFoundAt(c, g, k, whole ? all[g.from + k] : undefined)!;
  return out;
}

/**
 * A name's last part, bytes [b, e) of `buf`: its length and four of its bytes as one number (a
 * filter before a string lookup): the four before its last six, which in a session file's name are
 * hex digits of its id before `.jsonl` (`.json`: of its hash), so an append's ~90 shard paths let
 * ~30 of 22,000 names through. Two bytes were too few (a third of them); a hash of the last 16
 * bytes of each name, run cold, was ~1 ms of an append at 686 sessions. A shorter name is hashed.
 */
function baseKey(buf: Buffer, b: number, e: number): number {
  const n = e - b;
  if (n < 10) return n * 0x100000000 + fnv1a(buf, b, e);
  return n * 0x100000000 + ((buf[e - 10]! | (buf[e - 9]! << 8) | (buf[e - 8]! << 16) | (buf[e - 7]! << 24)) >>> 0);
}
const baseKeyOf = (base: Buffer, b: number) => baseKey(base, b, base.length);

/** Source `k` of a memo segment as a Found object (null when it does not fit the memo). */
function memoFoundAt(c: StoredCheck, g: MemoSeg, k: number, path?: string): Found | null {
  const p = path ?? storedPath(c, g.from + k);
  if (p === null) return null;
  const code = c.buf[c.codesAt + g.from + k]!;
  const kind = g.memo.kinds[code >> 1];
  if (kind === undefined || p.includes('\u0001')) return null;
  const src: Source = { path: p, harness: g.h, kind: kind as Source['kind'], mode: code & 1 ? 'whole' : 'lines' };
  return { src, stat: { size: g.nums[k * 3]!, mtime: g.nums[k * 3 + 1]!, ino: g.nums[k * 3 + 2]!, sig: '' }, bound: g.nums[k * 3 + 1]! };
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

function sameStat(a: Stat, b: Stat | undefined): boolean {
  if (!b) return false;
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

type AnyResult = Omit<IndexResult, 'sessions'> & { sessions: Session[] | ListedSession[]; rowBin?: RowBin; printed?: boolean; after?: ListingResult['after'] };

/** Builds this process began (any parse, a patch included) and of those, ones that ended as an append's patch. */
let builds = 0;
let appends = 0;
/** What this process did to the index: found it up to date, only patched it for appends, or built (parsed) it otherwise. */
export const indexWork = (): 'none' | 'append' | 'build' => (builds > appends ? 'build' : appends > 0 ? 'append' : 'none');

async function update(ctx: Ctx, opts: IndexOptions, want: 'full' | 'rows'): Promise<AnyResult> {
  const files = indexFiles(ctx);
  const asked = Date.now();
  let rebuild = !!opts.rebuild;
  for (;;) {
    // the discovery that found a change is handed to the builder (taken just before the lock)
    const fast = rebuild ? null : tryFast(ctx, opts, want, files);
    if (fast && 'sessions' in fast) return fast;
    builds++;
    const seen = fast ?? undefined;
    // Something to parse: one builder at a time. Without a usable cache directory, build unlocked.
    let locked = false;
    try {
      fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
      locked = tryLock(files.lock);
    } catch {
      return build(ctx, { ...opts, rebuild }, files, want, seen);
    }
    if (locked) {
      try {
        return await build(ctx, { ...opts, rebuild }, files, want, seen);
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
      const l = readHead(files.rows);
      if (l && l.built >= asked) rebuild = false;
    }
  }
}

interface Discovery {
  /** the discovery (its Found objects made only when asked for, its stat bytes once; its live ranges are against `stored`) */
  sources: Discovered;
  skipped: Skipped;
  /** the check.bin read */
  stored: StoredCheck | null;
}

/**
 * The no-change run: discovery and stats match check.bin, the stored listing is the answer.
 * Otherwise the discovery, for the builder (null: none was made).
 */
function tryFast(ctx: Ctx, opts: IndexOptions, want: 'full' | 'rows', files: IndexFiles): AnyResult | Discovery | null {
  if (opts.harnesses) return null;
  const skipped: Skipped = { notRegular: 0, unreadable: 0, failed: {} };
  // (a search read it already for its prefilter, with its paths made whole: used while the same file)
  const stored = recheck(files.check, lastCheck?.file === files.check ? lastCheck.c : null);
  const d = discoverCached(ctx, ADAPTERS, skipped, files, false, stored);
  const { roots, meta, metaChanged } = d;
  const id = matchCheck(stored, d);
  // a change: the discovery goes to the builder (its Found objects made only if it needs them)
  if (!id) return { sources: d, skipped, stored };
  if (metaChanged) {
    // the same sources, and a discovery memo made or dropped: record it for the next run (as
    // check.bin of its own build: a check.patch over it stays so)
    try {
      writeCheck(files.check, stored!.fileId, d.found, meta);
    } catch {
      /* only costs speed */
    }
  }
  if (want === 'rows' && opts.rowBin) {
    const counts = { sources: d.count, parsed: 0, appended: 0, reused: d.count, dropped: 0, bytes: 0 };
    if (opts.printed?.(files, id)) return { sessions: [], printed: true, skipped, counts, roots, changed: false } as AnyResult;
    const bin = openListingRows(files.rowbin, stored!, ctx.home);
    if (bin) return { sessions: [], rowBin: bin, skipped, counts, roots, changed: false } as AnyResult;
  }
  const list = readListing(files, want, id);
  if (!list) return { sources: d, skipped, stored };
  const counts = { sources: d.count, parsed: 0, appended: 0, reused: d.count, dropped: 0, bytes: 0 };
  const res: AnyResult = { sessions: list.sessions as Session[], skipped: mergeSkipped(skipped, list.skipped), counts, roots, changed: false };
  if (opts.withEntries) res.entries = loadAllShards(files.state);
  // rows.bin missing, damaged or of another home: render it again from the listing just read
  if (want === 'rows' && opts.rowBin) {
    const ss = list.sessions as ListedSession[];
    const bin = rowBinChunks(id, ctx.home, ss.map((s) => ({ s, short: s.short })));
    try {
      if (bin) {
        writeAtomic(files.rowbin, Buffer.concat(bin));
        // rows.bin is now of the build check.patch names: check.bin is made of it too, and the patch goes
        if (stored!.over) {
          writeCheck(files.check, id, d.found, meta);
          removeFile(files.over);
        }
      }
    } catch {
      /* only costs speed */
    }
  }
  return res;
}

/** rows.bin of the build check.bin names, whole and of this home, not checked against any source; null when there is none. */
export function lastRowBin(ctx: Ctx): RowBin | null {
  const files = indexFiles(ctx);
  const c = checkHead(files.check);
  return c ? openListingRows(files.rowbin, c, ctx.home) : null;
}

/** The rows of the build a check names: rows.bin of its own build, with its check.patch put over it when it has one. */
function openListingRows(file: string, c: Pick<StoredCheck, 'fileId' | 'over'>, home: string): RowBin | null {
  const r = openRowBinFile(file, c.fileId, home);
  if (!r || !c.over || overlayRows(r, c.over)) return r;
  closeRowBin(r);
  return null;
}

/** openRowBin when the file is whole and of this build and home (read a window at a time); null otherwise. */
function openRowBinFile(file: string, id: string, home: string): RowBin | null {
  const r = openRowBin(file);
  if (r && r.id === id && r.home === home) return r;
  if (r) closeRowBin(r);
  return null;
}

async function build(ctx: Ctx, opts: IndexOptions, files: IndexFiles, want: 'full' | 'rows', seen?: Discovery): Promise<AnyResult> {
  const adapters = opts.harnesses ? ADAPTERS.filter((a) => opts.harnesses!.includes(a.name)) : ADAPTERS;
  // a discovery made just before this run took the lock serves (a rebuild reads every directory again)
  const d = seen && !opts.rebuild && !opts.harnesses ? seen : null;
  const skipped: Skipped = d ? d.skipped : { notRegular: 0, unreadable: 0, failed: {} };
  const disc = d ? d.sources : discoverCached(ctx, adapters, skipped, files, !!opts.rebuild);
  const { roots, meta } = disc;
  const counts = { sources: disc.count, parsed: 0, appended: 0, reused: 0, dropped: 0, bytes: 0 };

  // The stored build (unless rebuilding): check.bin's stats by path. Read again unless it is the
  // file the discovery read: another builder may have finished while this run waited for the lock.
  const stored = opts.rebuild ? null : recheck(files.check, d?.stored ?? null);
  // the sources are check.bin's, in its order (the usual case): only the changed ones are looked at
  const served = !!stored && samePaths(stored, disc, d && d.stored === stored ? disc.live : null);
  const prev = stored ? storedStats(stored, disc, served, disc.nums()) : null;

  // What changed: new or modified sources, and sources gone since the stored build.
  let changedPaths = new Set<string>();
  // (made when first needed: an append of check.bin's own sources never needs it, and at 22,000
  // sources it is ~10 ms of a ~550 ms run)
  let foundSet: Set<string> | null = null;
  const foundPaths = () => (foundSet ??= new Set(disc.found.map((f) => f.src.path)));
  let gonePaths: string[] = [];
  if (prev && served) changedPaths = new Set(prev.keys());
  else {
    for (const f of disc.found) if (!prev || !sameStat(f.stat, prev.get(f.src.path))) changedPaths.add(f.src.path);
    if (prev) gonePaths = [...prev.keys()].filter((p) => !foundPaths().has(p));
  }

  // Another builder may have finished while this run waited for the lock (its listing is sound;
  // a damaged one is written again below, from the unchanged sources' stored sessions).
  if (prev && !opts.harnesses && changedPaths.size === 0 && gonePaths.length === 0) {
    const l = readListing(files, want, stored!.id);
    if (l) {
      counts.reused = disc.count;
      const res: AnyResult = { sessions: l.sessions, skipped: mergeSkipped(skipped, l.skipped), counts, roots, changed: false };
      if (opts.withEntries) res.entries = loadAllShards(files.state);
      return res;
    }
  }

  // the stored state's shard count (an append keeps it)
  const layout = shardLayout(files.state);

  // An append: patch the listing instead of reading and rewriting it (see the top). When it cannot,
  // what it parsed already is handed on (`carried`), not parsed again.
  let carried: Record<string, Entry> = {};
  /** the finish states of the changed sources of a harness with `refinish`, from before their parse */
  let before = new Map<string, unknown>();
  if (prev && layout !== null && !opts.rebuild && !opts.harnesses && !opts.withEntries && changedPaths.size + gonePaths.length > 0) {
    const r = await appendPatch(ctx, opts, files, want, stored!, prev, served, disc, meta, changedPaths, gonePaths, skipped, counts, roots, layout);
    if (r && 'result' in r) {
      appends++;
      return r.result;
    }
    if (r) {
      carried = r.parsed;
      before = r.before;
    }
  }

  // The stored listing, whole (with list.patch applied when it is of the stored build).
  const list = prev ? readListing(files, 'full', stored!.id) : null;
  const validList = !!list;
  const found = disc.found;
  if (!validList) {
    changedPaths = foundPaths();
    gonePaths = [];
  }
  const harnessOf = new Map(found.map((f) => [f.src.path, f.src.harness]));
  for (const p of gonePaths) harnessOf.set(p, prev!.get(p)!.harness);

  // A partial update touches only the shards of the changed sources. It is possible when the
  // stored listing is sound, and every affected harness maps one source to its own sessions
  // (`perSource`: no cross-source `finish` pass that would need every other source's state).
  const affected = new Set<Harness>();
  for (const p of [...changedPaths, ...gonePaths]) {
    const h = harnessOf.get(p);
    if (h) affected.add(h);
  }
  // (and the state has shards of this version, as many as still suit the sources: a partial update
  // keeps their count; else every shard is read and written again, in the count the sources call
  // for, and only the changed sources parsed)
  let partial =
    !opts.rebuild && !opts.harnesses && !opts.withEntries && validList && layout !== null && shardsFit(layout, found.length) &&
    [...affected].every((h) => {
      const a = ADAPTERS.find((x) => x.name === h);
      if (a?.refinish) return true;
      if (!a?.perSource) return false;
      return !a.finish || (!!a.linked && linkedChangeStands(h, list!.sessions, changedPaths, gonePaths, harnessOf));
    });
  /** harnesses of the update whose link keys are checked once the changed sources are parsed */
  const linkedHere = partial ? [...affected].filter((h) => ADAPTERS.find((x) => x.name === h)?.linked) : [];
  /** harnesses of the update whose finish pass is run over what the change concerns (Adapter.refinish) */
  const scopedHere = partial ? [...affected].filter((h) => ADAPTERS.find((x) => x.name === h)?.refinish) : [];

  let shardsNeeded = partial ? new Set([...changedPaths, ...gonePaths].map((p) => shardOf(p, layout!))) : new Set(allShards(layout ?? 0));
  const bad: number[] = [];
  const old: Record<string, Entry> = opts.rebuild ? {} : loadShards(files.state, shardsNeeded, layout, bad);
  if (partial && bad.length) {
    // a shard of the changed sources cannot be read: written again with only them, it would lose
    // the other sources' entries (their prompts for words). Every shard is read (the rest of them
    // now) and written again; the sources whose entries are lost are parsed.
    partial = false;
    const rest = allShards(layout!).filter((n) => !shardsNeeded.has(n));
    Object.assign(old, loadShards(files.state, rest, layout));
    shardsNeeded = new Set(allShards(layout!));
  }
  Object.assign(old, carried);
  const entries: Record<string, Entry> = {};
  const jobs: Job[] = [];

  // Keep entries of harnesses outside this run's selection untouched.
  if (opts.harnesses) {
    for (const [p, e] of Object.entries(old)) if (!opts.harnesses.includes(e.src?.harness)) entries[p] = e;
  }

  /** unchanged sources whose description changed (a shard kept as it is would hold the old one) */
  const redescribed: string[] = [];
  /** Take a found source's stored entry when it stands (same stat, no error); false: it is to be parsed. */
  const kept = (f: Found): boolean => {
    const e = old[f.src.path];
    if (!e || !e.src || e.src.harness !== f.src.harness || !sameStat(f.stat, e) || e.error) return false;
    if (!sameSource(e.src, f.src)) redescribed.push(f.src.path);
    entries[f.src.path] = { ...e, src: f.src };
    return true;
  };
  for (const f of found) {
    if (partial && !changedPaths.has(f.src.path)) continue;
    if (kept(f)) {
      // parsed this run by the append path (counted there)
      if (!carried[f.src.path]) counts.reused++;
      continue;
    }
    jobs.push(jobFor(f, old[f.src.path], counts));
  }
  if (partial) {
    counts.reused += found.length - changedPaths.size;
    counts.dropped = gonePaths.length;
    // (a parse continues a stored state in place)
    if (scopedHere.length) for (const [p, st] of finishStatesOf([...changedPaths, ...gonePaths].filter((p) => !before.has(p) && !carried[p]), old)) before.set(p, st);
  } else {
    for (const p of Object.keys(old)) if (!foundPaths().has(p) && !entries[p]) counts.dropped++;
  }

  // A full pass over a stored state that keeps its layout (an append to a harness whose finish pass
  // reads every source's state, a session of one that appears or goes): the finish pass reads every
  // entry, but only the shards that hold a changed, parsed, gone or re-described source are written
  // again (at 22,000 sources every shard was: 512 files, most of such a run). Its sessions come at the
  // end, not streamed (what streaming is for, a build from nothing, is not this). Not for a build
  // asked for its entries or for some harnesses only.
  let writeOnly = false;
  if (!partial && layout !== null && !opts.rebuild && !opts.harnesses && !opts.withEntries) {
    let n = Object.keys(entries).length;
    for (const j of jobs) if (!(j.src.path in entries)) n++;
    writeOnly = shardCount(n) === layout;
  }
  /**
   * The shards such a pass writes: those unreadable, of the changed sources (what an append parsed
   * and handed on is kept as it came, not parsed again), of those parsed or re-described, and of
   * those gone (stored, not found).
   */
  const shardsToWrite = (): Set<number> => {
    const out = new Set(bad);
    for (const p of changedPaths) out.add(shardOf(p, count));
    for (const j of jobs) out.add(shardOf(j.src.path, count));
    for (const p of redescribed) out.add(shardOf(p, count));
    for (const p of Object.keys(old)) if (!(p in entries)) out.add(shardOf(p, count));
    return out;
  };
  const debug = (err: unknown) => {
    // A cache we cannot write only costs speed next time.
    if (process.env.RESUME_DEBUG) process.stderr.write(`resume: cannot write index: ${(err as Error).message}\n`);
  };

  // The order of the entries (the shards keep it): what is reused first, then the parsed sources
  // in the order they are read when streaming, else largest first (the order results came in
  // from one thread; taken up front so that results from workers, which finish out of order,
  // take it too).
  const stream = !!opts.onSessions && !partial && !opts.harnesses && !writeOnly;
  const finishing = new Set(adapters.filter((a) => a.finish).map((a) => a.name));
  // A linked harness's files are read in their own places, not as a group (stream.ts), when their
  // first lines, read before the rest for their link keys, are a small part of them: each costs a
  // file opened once more, and a small file is parsed twice. (At 686 sessions, 52 Claude Code files
  // of 118 MiB: the first row ~65 ms sooner for a few ms more; at 22,000, 5,280 of ~75 KiB on average,
  // the pass took 1.6-1.8 s on a loaded machine: grouped, as before.)
  const heads = new Map<Harness, [number, number]>();
  for (const j of jobs) {
    const a = ADAPTERS.find((x) => x.name === j.src.harness);
    if (!a?.finish || !a.linked) continue;
    const [head, all] = heads.get(a.name) ?? [0, 0];
    heads.set(a.name, [head + Math.min(j.size, LINK_HEAD), all + j.size]);
  }
  const linked = new Set([...heads].filter(([, [head, all]]) => head * 8 <= all).map(([h]) => h));
  const bounds = new Map(found.map((f) => [f.src.path, f.bound]));
  const plan = stream ? planOrder(jobs, bounds, new Set([...finishing].filter((h) => !linked.has(h))), found) : null;
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
    if (e.sessions?.length) e.sessions = e.sessions.map(({ allPrompts: _, ...x }) => (a?.finish ? x : keyed(x, keyOf(x))));
  };
  let shards: PairedShardWriter<Entry> | null = null;
  // the shard count: a partial update (or a full pass that writes only some shards) keeps the
  // state's, a full build picks one for its sources
  let count = layout ?? 1;
  if (!partial && !writeOnly) {
    // (a parsed path among the kept entries keeps that place, as an assignment to it would)
    const seq = Object.keys(entries);
    for (const j of order) if (!(j.src.path in entries)) seq.push(j.src.path);
    count = shardCount(seq.length);
    const seqs: string[][] = Array.from({ length: count }, () => []);
    for (const p of seq) seqs[shardOf(p, count)]!.push(p);
    // each entry's prompts go to its prompt file before its shard takes it (and lets them go)
    const tok = shardToken();
    shards = new PairedShardWriter(
      new ShardWriter((n) => promptsFile(files.state, n), promptsHead(STATE_VERSION, tok), seqs, (p) => entries[p], () => {}, promptLine, PROMPTS_TAIL),
      new ShardWriter((n) => shardFile(files.state, n), stateHead(STATE_VERSION, count, tok), seqs, (p) => entries[p], (_p, e) => slim(e)),
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
    shards?.pump(shardOf(r.path, count));
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
      out.finished(h, ss);
    };
    // what is reused is read already (in the order the finished list takes it)
    const links = new Links();
    for (const e of Object.values(entries)) {
      const h = e.src.harness;
      if (!finishing.has(h)) out.add(e.sessions ?? []);
      else if (linked.has(h)) {
        links.see(h, e.src.path, e.sessions ?? [], true);
        out.hold(h, bounds.get(e.src.path) ?? Infinity);
      }
    }
    // the first lines of every file of a linked harness: which sessions its finish pass can touch
    for (const { job } of plan) {
      if (!linked.has(job.src.harness)) continue;
      const whole = job.size <= LINK_HEAD;
      const r = await runJob({ src: job.src, size: whole ? job.size : LINK_HEAD, from: 0, state: null }, ctx);
      links.see(job.src.harness, job.src.path, r.error ? null : r.sessions, whole);
    }
    // The files whose sessions the pass may relate: once all of them are read, the pass over them
    // alone gives their sessions as the whole pass will (it relates no others), and what they held
    // back is handed over then rather than after the harness's last file. (Not with entries reused,
    // nor once a session is held for what the link keys do not show: a fork by its own mark.)
    const tangled = new Map<Harness, { all: string[]; left: Set<string> }>();
    for (const { job } of plan) {
      const h = job.src.harness;
      if (!linked.has(h) || !links.tangled(h, job.src.path)) continue;
      const t = tangled.get(h) ?? { all: [], left: new Set<string>() };
      t.all.push(job.src.path);
      t.left.add(job.src.path);
      tangled.set(h, t);
    }
    for (const e of Object.values(entries)) tangled.delete(e.src.harness);
    for (const [h, n] of left) if (n === 0) finish(h);
    out.flush(plan.length ? plan[0]!.key : -Infinity);
    let i = 0;
    await runJobs(order, ctx, opts, (job, r) => {
      onResult(job, r);
      const h = job.src.harness;
      if (!finishing.has(h)) out.add(r.sessions);
      else {
        if (linked.has(h)) {
          // handed over now as the finish pass would give them (it sanitises what it returns, and
          // a finished session has no allPrompts); the rest wait for it
          const free = r.sessions.filter((s) => links.stands(job.src.path, s));
          out.add(free.map(({ allPrompts: _, ...x }) => sanitizeSession(x)));
          const t = tangled.get(h);
          if (free.length < r.sessions.length) {
            out.hold(h, bounds.get(job.src.path) ?? Infinity);
            if (!t?.left.has(job.src.path)) tangled.delete(h);
          }
          if (t?.left.delete(job.src.path) && t.left.size === 0 && tangled.has(h) && left.get(h)! > 1) {
            out.finished(h, finishHarness(ctx, ADAPTERS.find((a) => a.name === h)!, Object.fromEntries(t.all.map((p) => [p, entries[p]!]))));
          }
        }
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
        writeShards(files.state, entries, writeOnly ? shardsToWrite() : shardsNeeded, count);
      } catch (err) {
        shardsOk = false;
        debug(err);
      }
      if (!writeOnly || !shardsOk) return;
    } else {
      shards.pumpAll();
      shards.close();
      if (shards.error) {
        shardsOk = false;
        debug(shards.error);
        return;
      }
    }
    // a state of more shards leaves those past this one's count (and earlier versions their own
    // names: the single state.json, the 16 shards state/NN.json)
    try {
      removeFile(path.join(files.dir, 'state.json'));
      for (const f of fs.readdirSync(files.state)) {
        const m = /^(\d+)(?:\.prompts)?\.json$/.exec(f);
        if (m && (m[1]!.length !== 3 || Number(m[1]) >= count)) removeFile(path.join(files.state, f));
      }
    } catch (err) {
      debug(err);
    }
  };
  // A partial update of a harness with `refinish`: its finish pass over the sources the change
  // concerns (read from their shards), or, when it cannot say, the full pass below.
  const redone = new Map<Harness, { files: Set<string>; sessions: Session[] }>();
  if (partial) {
    const load = (paths: string[]) => {
      const want = new Set<number>();
      for (const p of paths) if (!(p in old)) want.add(shardOf(p, layout!));
      if (want.size) Object.assign(old, loadShards(files.state, [...want].filter((n) => !shardsNeeded.has(n)), layout));
      return old;
    };
    for (const h of scopedHere) {
      const r = refinishOf(ctx, h, [...changedPaths, ...gonePaths].filter((p) => harnessOf.get(p) === h), before, entries, old, {
        listed: list!.sessions.filter((s) => s.harness === h),
        reached: () => undefined,
        find: (part) => found.filter((f) => f.src.harness === h && path.basename(f.src.path).includes(part)).map((f) => f.src.path),
        load,
      });
      if (!r) {
        redone.clear();
        break;
      }
      redone.set(h, r);
    }
  }
  // A partial update of a linked harness whose parsed files turn out to share a link key (a new
  // file that is a fork, or whose history another has), or one that refinish could not make: the
  // finish pass must run over every source, so the rest of the state is read and the update goes
  // on as a full pass that writes only the shards of what changed (a source whose entry cannot be
  // read now is parsed).
  if (partial && ((linkedHere.length && !linksStandAlone(linkedHere, list!.sessions, changedPaths, gonePaths, entries)) || redone.size < scopedHere.length)) {
    partial = false;
    writeOnly = true;
    const rest = allShards(layout!).filter((n) => !shardsNeeded.has(n));
    Object.assign(old, loadShards(files.state, rest, layout, bad));
    const extra: Job[] = [];
    for (const f of found) if (!(f.src.path in entries) && !kept(f)) extra.push(jobFor(f, old[f.src.path], counts));
    counts.reused -= extra.length;
    jobs.push(...extra);
    if (extra.length) await runJobs(extra, ctx, opts, onResult, false);
  }
  let sessions: Session[];
  if (partial) {
    // Sessions of unchanged sources stand as stored; the changed ones are replaced.
    const replaced = new Set([...changedPaths, ...gonePaths]);
    const kept = list!.sessions.filter((s) => !((replaced.has(s.file) && affected.has(s.harness)) || redone.get(s.harness)?.files.has(s.file)));
    const keys = new Set(kept.map((s) => s.key));
    for (const { sessions } of redone.values()) {
      for (const s of sessions) {
        if (keys.has(s.key)) continue;
        keys.add(s.key);
        kept.push(s);
      }
    }
    for (const p of changedPaths) {
      if (redone.has(harnessOf.get(p)!)) continue;
      for (const s of entries[p]?.sessions ?? []) {
        const key = keyOf(s);
        if (keys.has(key)) continue;
        keys.add(key);
        kept.push({ ...s, key });
      }
    }
    sessions = kept.sort(byRecency);
    // the shard files hold every entry of their shards: the unchanged ones too
    for (const [p, e] of Object.entries(old)) if (!entries[p] && foundPaths().has(p) && !changedPaths.has(p)) entries[p] = e;
    saveShards();
  } else {
    // every shard is written (and its entries slimmed) before the finish pass
    saveShards();
    if (writeOnly) for (const e of Object.values(entries)) slim(e);
    sessions = finishAll(ctx, entries, finished);
    // what is left of the entries is not read again (nor returned) unless they were asked for
    if (!opts.withEntries) for (const e of Object.values(entries)) {
      e.state = NO_STATE;
      e.sessions = [];
    }
  }

  const changed = jobs.length > 0 || counts.dropped > 0 || !validList || Object.keys(carried).length > 0;
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
 * The job that brings a changed source up to date from its stored entry: the new lines only when it
 * grew (same inode, the bytes before the old offset unchanged), else the whole file.
 */
function jobFor(f: Found, e: Entry | undefined, counts: IndexResult['counts']): Job {
  if (
    e && f.src.mode === 'lines' && e.src?.mode === 'lines' && e.src.harness === f.src.harness && !e.error &&
    e.ino === f.stat.ino && f.stat.size >= e.size && e.offset > 0 && e.state && tailMatches(f.src.path, e.offset, e.tail)
  ) {
    counts.appended++;
    counts.bytes += f.stat.size - e.offset;
    return { src: f.src, size: f.stat.size, from: e.offset, state: e.state, done: sanitisedTexts(e) };
  }
  counts.parsed++;
  counts.bytes += f.stat.size;
  return { src: f.src, size: f.stat.size, from: 0, state: null };
}

/** The one-line texts an entry's sessions hold as stored (sanitised): an append does not sanitise them again. */
function sanitisedTexts(e: Entry): string[] | undefined {
  if (!Array.isArray(e.sessions)) return undefined;
  const out: string[] = [];
  for (const s of e.sessions) {
    if (!s || typeof s !== 'object') continue;
    if (Array.isArray(s.allPrompts)) for (const p of s.allPrompts) if (typeof p === 'string') out.push(p);
    for (const v of [s.title, s.firstPrompt, s.lastPrompt]) if (typeof v === 'string') out.push(v);
  }
  return out.length ? out : undefined;
}

/** Ids whose rendered key and short id are the ids themselves (row() changes nothing in them). */
const PLAIN_ID = /^[!-~]+$/;

function newBuildId(): string {
  return `${Date.now().toString(36)}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The append path (see the top of this file): parse the changed sources and patch the listing.
 * `{ result }` when it did; `{ parsed }` when it parsed but may not patch (the caller takes those
 * entries instead of parsing again; errors are left out, to be parsed and reported there); null
 * when it declined before parsing anything. `count`: the stored state's shard count.
 */
async function appendPatch(
  ctx: Ctx, opts: IndexOptions, files: IndexFiles, want: 'full' | 'rows', stored: StoredCheck, prev: Map<string, PrevStat>, served: boolean,
  sources: Discovered, meta: AdapterMeta[], changed: Set<string>, gone: string[], skipped: Skipped, counts: IndexResult['counts'], roots: Map<Harness, Root[]>, count: number,
): Promise<{ result: AnyResult } | { parsed: Record<string, Entry>; before: Map<string, unknown> } | null> {
  // the changed and gone sources' shards (as lines: only their entries are parsed), and the sources
  // looked up by path: those the shards hold and the changed ones, not a map of every source
  const shards = new Set([...changed, ...gone].map((p) => shardOf(p, count)));
  const { old, texts, held, lists } = loadChanged(files.state, count, shards, new Set([...changed, ...gone]), changed);
  const byPath = sources.pick(new Set([...held, ...changed]));
  /** a source new since the stored build (its sessions are new to the listing) */
  const added = new Set([...changed].filter((p) => !prev.has(p)));
  const isNew = (p: string) => added.has(p);
  // (a new or gone source: the state keeps its shard count only while it suits the sources)
  if ((gone.length || added.size) && !shardsFit(count, sources.count)) return null;
  const patchable = (h: Harness) => {
    const a = ADAPTERS.find((x) => x.name === h);
    return !!a && (!!a.refinish || (!!a.perSource && (!a.finish || !!a.linked)));
  };
  for (const p of changed) {
    const f = byPath.get(p);
    if (!f || (!isNew(p) && prev.get(p)!.harness !== f.src.harness) || !patchable(f.src.harness)) return null;
  }
  for (const p of gone) if (!patchable(prev.get(p)!.harness) || byPath.has(p)) return null;
  const head = readHead(files.list);
  if (!head || head.v !== INDEX_VERSION || !head.hold) return null;
  let cur: ListPatch | null = null;
  if (head.id !== stored.id) {
    cur = patchFor(files, head.id, stored.id);
    if (!cur) return null;
  }
  // rows.bin of check.bin's own build, read through a window (the patch in force is put over it below)
  const bin = openRowBinFile(files.rowbin, stored.fileId, ctx.home);
  if (!bin) return null;
  const hold = new Set(head.hold);
  for (const p of [...changed, ...gone]) {
    // (a new source's entry, if its shard has one, is of a run that died before writing the listing)
    if (isNew(p)) {
      delete old[p];
      continue;
    }
    const e = old[p];
    // the entry the stored build used: its stat is the one check.bin recorded (a run that died
    // after writing the shards leaves a newer one, which the stored listing does not show)
    if (!e || e.error || e.src?.harness !== prev.get(p)!.harness || !sameStat(e, prev.get(p)) || !Array.isArray(e.sessions)) return null;
    // (of a harness with `refinish`, a held session stops the patch when the change reaches
    // further: refinish tells)
    const refines = !!ADAPTERS.find((x) => x.name === e.src.harness)?.refinish;
    for (const s of e.sessions) if ((hold.has(keyOf(s)) && !refines) || !PLAIN_ID.test(s.id)) return null;
  }

  // parse, counting apart: only what is handed on or patched counts
  const mine = { ...counts, parsed: 0, appended: 0, bytes: 0 };
  const jobs = [...changed].map((p) => jobFor(byPath.get(p)!, old[p], mine));
  // (a long list is taken as it was only by a parse that goes on from the stored state)
  for (const j of jobs) if (j.from === 0) lists.delete(j.src.path);
  // (a parse continues a stored state in place)
  const before = finishStatesOf([...changed, ...gone], old);
  const parsed: Record<string, Entry> = {};
  await runJobs(jobs, ctx, opts, (job, r) => {
    if (r.error) return;
    parsed[r.path] = { ...byPath.get(r.path)!.stat, src: job.src, offset: r.offset, tail: r.tail, state: r.state, sessions: r.sessions };
  }, false);
  // a long list taken as it was that the parsed entry does not go on from is decoded whole here;
  // so is every one, before the entries are handed on
  for (const p of lists.keys()) if (!heldStands(parsed[p], lists.get(p)!)) wholeList(parsed, p, lists);
  const wholeLists = () => {
    for (const p of [...lists.keys()]) wholeList(parsed, p, lists);
  };
  const handOn = (handing = true) => {
    for (const j of jobs) {
      if (!parsed[j.src.path]) continue;
      if (j.from > 0) counts.appended++;
      else counts.parsed++;
      counts.bytes += j.size - j.from;
    }
    if (handing) wholeLists();
    return { parsed, before };
  };

  // the same sessions, with the same links, as before (a new source's are new to the listing; a
  // gone source's leave it)
  const put: Session[] = [];
  const harnessOfPath = (p: string) => byPath.get(p)?.src.harness ?? prev.get(p)!.harness;
  const scoped = new Set<Harness>();
  for (const p of [...changed, ...gone]) if (ADAPTERS.find((x) => x.name === harnessOfPath(p))?.refinish) scoped.add(harnessOfPath(p));
  const goneKeys: string[] = [];
  for (const p of gone) for (const s of old[p]!.sessions) goneKeys.push(keyOf(s));
  let taken: Uint32Array | 'none' | undefined;
  let reach: ((key: string) => string[] | undefined) | 'none' | undefined;
  const newLinks = new Set<number>();
  for (const p of changed) {
    const n = parsed[p];
    if (!n) return handOn();
    if (isNew(p)) {
      if (new Set(n.sessions.map(keyOf)).size !== n.sessions.length) return handOn();
      // of a linked harness: no fork, and its link keys taken by no other session (links.bin)
      if (ADAPTERS.find((x) => x.name === harnessOfPath(p))?.linked) {
        for (const s of n.sessions) {
          if (s.forkedFrom) return handOn();
          if (!s.link) continue;
          taken ??= readLinkKeys(files.links, head.id) ?? 'none';
          const h = linkHash(s);
          if (taken === 'none' || recordAt(taken, h) >= 0 || newLinks.has(h) || cur?.put.some((x) => x.harness === s.harness && x.link === s.link)) return handOn();
          newLinks.add(h);
        }
      }
      if (scoped.has(harnessOfPath(p))) continue;
      for (const s of n.sessions) {
        const { allPrompts: _, ...whole } = s;
        put.push({ ...whole, key: keyOf(s) });
      }
      continue;
    }
    const before = new Map(old[p]!.sessions.map((s) => [keyOf(s), s]));
    if (before.size !== old[p]!.sessions.length || n.sessions.length !== before.size) return handOn();
    const seen = new Set<string>();
    for (const s of n.sessions) {
      const key = keyOf(s);
      const b = before.get(key);
      // (and the same parent: reach.json and the head's held keys record these relations)
      if (!b || seen.has(key) || (b.link ?? null) !== (s.link ?? null) || (b.forkedFrom ?? null) !== (s.forkedFrom ?? null) || (b.parent ?? null) !== (s.parent ?? null)) return handOn();
      seen.add(key);
      if (scoped.has(byPath.get(p)!.src.harness)) continue;
      const { allPrompts: _, ...whole } = s;
      put.push({ ...whole, key });
    }
  }
  // a harness with `refinish`: its finish pass over what the change concerns (its changed files and
  // any other whose row changes with them, which stand as stored and are put over the listing too)
  for (const h of scoped) {
    const r = refinishOf(ctx, h, [...changed, ...gone].filter((p) => harnessOfPath(p) === h), before, parsed, old, {
      listed: null,
      reached: (key) => {
        if (!hold.has(key)) return undefined;
        reach ??= readReach(files.reach, head.id) ?? 'none';
        return reach === 'none' ? null : (reach(key) ?? null);
      },
      // (check.bin's: an append's sources are the stored ones)
      find: (part) => storedFind(stored, h, part),
      load: (want) => loadChanged(files.state, count, new Set(want.map((p) => shardOf(p, count))), new Set(want)).old,
    });
    if (!r) return handOn();
    for (const s of r.sessions) if (!PLAIN_ID.test(s.id)) return handOn();
    put.push(...r.sessions);
  }

  // check.patch: the changed records put over the listing in force (their short ids stand: the ids
  // did not change), and the new stats (by check.bin index) while check.bin lists these very
  // sources with the same memos; else check.bin is written again (of its own build, with every stat
  // as found) and the patch carries no stats
  if (put.length > PATCH_MAX_SESSIONS) return handOn();
  const keys = new Set(put.map((s) => s.key));
  if (goneKeys.some((k) => keys.has(k))) return handOn();
  const over = stored.over ?? emptyOver(stored.fileId);
  const asStored = served && !sources.metaChanged;
  const stats = new Map<number, Buffer>();
  if (asStored) {
    const nums = sources.nums();
    for (const p of changed) {
      const i = prev.get(p)!.at;
      stats.set(i, nums.subarray(i * 24, i * 24 + 24));
    }
  }
  // a new session's short id: only when it makes no other longer (freshShorts)
  const fresh = freshShorts(bin, over, new Map(put.filter((s) => isNew(s.file)).map((s) => [s.key, s.id])));
  if (!fresh) return handOn();
  const id = newBuildId();
  const made = overWith(bin, asStored ? over : { ...over, statAt: new Uint32Array(0), stats: Buffer.alloc(0) }, id, ctx.home, put, stats, fresh, goneKeys);
  if (!made || made.over.statAt.length > PATCH_MAX_SESSIONS * 4) return handOn();
  const { over: next, shorts } = made;

  // list.patch: the one in force with these sessions put over it
  const patch: ListPatch = { v: INDEX_VERSION, id, base: head.id, built: Date.now(), skipped, drop: [...new Set([...(cur?.drop ?? []), ...keys, ...goneKeys])], put: [], short: [] };
  const out = new Set([...keys, ...goneKeys]);
  // (gone: this run's, and the patch's own that no session is put for again)
  const goneNow = [...new Set([...(cur?.gone ?? []).filter((k) => !keys.has(k)), ...goneKeys])];
  if (goneNow.length) patch.gone = goneNow;
  if (cur) {
    for (let i = 0; i < cur.put.length; i++) {
      if (out.has(cur.put[i]!.key)) continue;
      patch.put.push(cur.put[i]!);
      patch.short.push(cur.short[i]!);
    }
  }
  patch.put.push(...put);
  patch.short.push(...shorts);
  // RESUME_PATCH_MAX: a lower bound on the sessions, for tests of the compaction
  if (patch.put.length > (Number(process.env.RESUME_PATCH_MAX) || PATCH_MAX_SESSIONS)) return handOn();
  const text = JSON.stringify(patch);
  if (text.length > PATCH_MAX_BYTES) return handOn();

  // The changed shards (with their unchanged entries), the patch, check.bin when it changes, and check.patch last.
  try {
    writeChanged(files.state, count, shards, texts, old, parsed, byPath, lists);
  } catch (err) {
    debugWrite(err);
    return handOn();
  }
  try {
    writeAtomic(files.patch, text);
    if (!asStored) writeCheck(files.check, stored.fileId, sources, meta, served ? stored : undefined, sources.nums());
    writeAtomic(files.over, overBytes(next, INDEX_VERSION));
  } catch (err) {
    // the listing of the stored build stands (or, with the patch written, none does: the next run builds it)
    debugWrite(err);
  }
  handOn(false);
  counts.reused = sources.count - changed.size;
  counts.dropped = gone.length;
  if (want === 'rows' && opts.rowBin && overlayRows(bin, next)) return { result: { sessions: [], rowBin: bin, skipped, counts, roots, changed: true, after: { id: stored.id, keys: out } } };
  closeRowBin(bin);
  const l = readListing(files, want, id);
  if (l) return { result: { sessions: l.sessions, skipped, counts, roots, changed: true } };
  // what was written cannot be read back: the caller writes the listing whole (nothing to parse
  // again; what was parsed here stays counted)
  counts.reused = 0;
  wholeLists();
  return { parsed, before };
}

/**
 * A long list an append took as it was (shardtext.ts `heldEntry`), with the prompts of its head as
 * they were read; and the one session's own list, when it had one.
 */
interface Held extends HeldList {
  first: string[];
  own: (HeldList & { first: string[] }) | null;
}

/** Does a parsed list begin with the head that was read? */
const startsWith = (xs: unknown, head: string[]): xs is unknown[] => Array.isArray(xs) && xs.length >= head.length && head.every((x, i) => xs[i] === x);

/**
 * Can the parsed entry be written with its long lists' bytes as they were? Its state's list must
 * still begin with the head that was read (the parse went on from it), and its one session's
 * prompts (made from that list, sanitised) must begin with the head of the list they were stored
 * as (the state's, or their own) and be as many: then the whole lists are the taken bytes with the
 * new prompts after them, the state's raw and the session's sanitised.
 */
function heldStands(e: Entry | undefined, h: Held): boolean {
  const all = (e?.state as { all?: unknown } | null | undefined)?.all;
  const ss = e?.sessions;
  if (!e || !startsWith(all, h.first) || !Array.isArray(ss) || ss.length !== 1 || !ss[0]) return false;
  const mine = ss[0].allPrompts;
  return Array.isArray(mine) && mine.length === all.length && startsWith(mine, h.own ? h.own.first : h.first);
}

/**
 * A parsed entry whose long list was taken as it was, made whole: the list decoded and put before
 * what the parse added, in its state and in its sessions (whose prompts of the list were stored as
 * the list itself). An entry this cannot be done for is dropped from `parsed`, to be parsed again
 * from its start by whoever takes the entries.
 */
function wholeList(parsed: Record<string, Entry>, p: string, lists: Map<string, Held>): void {
  const h = lists.get(p)!;
  lists.delete(p);
  const e = parsed[p];
  if (!e) return;
  const decode = (l: HeldList & { first: string[] }): string[] | null => {
    try {
      const x = JSON.parse(l.bytes.toString('utf8')) as unknown;
      return Array.isArray(x) && x.length === l.count && startsWith(x, l.first) ? (x as string[]) : null;
    } catch {
      return null;
    }
  };
  const full = decode(h);
  const own = h.own ? decode(h.own) : full;
  const mine = h.own ? h.own.first : h.first;
  const st = e.state as { all?: unknown } | null | undefined;
  const ok = full && own && startsWith(st?.all, h.first) && (e.sessions ?? []).every((s) => !s || s.allPrompts === undefined || startsWith(s.allPrompts, mine));
  if (!ok) {
    delete parsed[p];
    return;
  }
  st!.all = full.concat((st!.all as string[]).slice(HELD_HEAD));
  for (const s of e.sessions ?? []) if (s && Array.isArray(s.allPrompts)) s.allPrompts = own.concat(s.allPrompts.slice(HELD_HEAD));
}

/**
 * The line of a parsed entry whose long list was taken as it was, as memberLine makes it (the same
 * bytes): the list's bytes with the new prompts after them, then the rest of the entry; and the
 * list as bytes in pieces, for its prompt file line.
 */
function heldLines(p: string, e: Entry, h: Held): { member: Buffer[]; list: Buffer[] } {
  const spliced = (bytes: Buffer, added: string[]) => (added.length ? [bytes.subarray(0, bytes.length - 1), Buffer.from(',' + JSON.stringify(added).slice(1), 'utf8')] : [bytes]);
  const all = (e.state as { all: string[] }).all;
  const mine = e.sessions[0]!.allPrompts!;
  const list = spliced(h.bytes, all.slice(HELD_HEAD));
  const bytes = (x: string) => Buffer.from(x, 'utf8');
  // the session's prompts written as its own list: they were, or a new one differs from the state's
  // (a secret, redacted; before it the two lists were the same, the state's bytes)
  if (!h.own && sameList(mine.slice(HELD_HEAD), all.slice(HELD_HEAD))) return { member: longLine(p, list, null, restOf(packEntry(e)), bytes), list };
  const own = spliced(h.own ? h.own.bytes : h.bytes, mine.slice(HELD_HEAD));
  return { member: longLine(p, list, own, restOf(withOwn(packEntry(e))), bytes), list: own };
}

/**
 * An append's shards: each read as lines (lib/index/shardtext.ts), its changed entries parsed
 * (`old`), or read whole when it is not in the line layout (`old` then has every entry of it), and
 * every path they hold.
 */
function loadChanged(
  stateDir: string, count: number, shards: Set<number>, changed: Set<string>, appended?: Set<string>,
): { old: Record<string, Entry>; texts: Map<number, ShardText>; held: Set<string>; lists: Map<string, Held> } {
  const old: Record<string, Entry> = {};
  const texts = new Map<number, ShardText>();
  const held = new Set<string>();
  const lists = new Map<string, Held>();
  for (const n of shards) {
    const t = readShardText(shardFile(stateDir, n), promptsFile(stateDir, n), STATE_VERSION, count);
    if (!t) {
      for (const [p, e] of Object.entries(loadShards(stateDir, [n], count))) {
        old[p] = e;
        held.add(p);
      }
      continue;
    }
    texts.set(n, t);
    for (let i = 0; i < t.paths.length; i++) {
      const p = t.paths[i]!;
      // (as loadShards: an entry in another path's shard is not one)
      if (shardOf(p, count) !== n) continue;
      held.add(p);
      if (!changed.has(p)) continue;
      // (an entry of an appended source that begins with a long list: the list is taken as it is)
      const taken = appended?.has(p) ? heldEntry(t, i) : null;
      if (taken) {
        const e = taken.entry as Entry;
        old[p] = e;
        const own = taken.own && { ...taken.own, first: e.sessions[0]!.allPrompts!.slice() };
        lists.set(p, { ...taken.held, first: ((e.state as { all: string[] }).all).slice(), own });
        continue;
      }
      const e = shardEntry(t, i);
      if (e && typeof e === 'object') old[p] = e as Entry;
    }
  }
  return { old, texts, held, lists };
}

/**
 * Write an append's shards again: the entries of sources still found, the parsed ones in place of
 * their old ones. A shard read as lines keeps its other entries' lines (and prompt file lines) as
 * they were; one read whole is written whole (and so in the line layout from then on).
 */
function writeChanged(
  stateDir: string, count: number, shards: Set<number>, texts: Map<number, ShardText>, old: Record<string, Entry>, parsed: Record<string, Entry>, found: Map<string, Found>,
  lists: Map<string, Held>,
): void {
  for (const n of shards) {
    const t = texts.get(n);
    // (a new source's entry goes after the others)
    const mine = Object.keys(parsed).filter((p) => shardOf(p, count) === n);
    if (!t) {
      const added = mine.filter((p) => !(p in old));
      const entries: Record<string, Entry> = {};
      for (const [p, e] of Object.entries(old)) if (shardOf(p, count) === n && found.has(p)) entries[p] = parsed[p] ?? e;
      for (const p of added) entries[p] = parsed[p]!;
      writeShard(stateDir, n, count, entries, Object.keys(entries));
      continue;
    }
    const members: Line[] = [];
    const prompts: Line[] = [];
    // the prompt file holds these very lines already (an append of replies and tool output, the
    // usual kind, adds no prompt): it stays, and the shard keeps its token
    let same = !!t.prompts;
    for (let i = 0; i < t.paths.length; i++) {
      const p = t.paths[i]!;
      if (shardOf(p, count) !== n || !found.has(p)) {
        same = false;
        continue;
      }
      const e = parsed[p];
      const h = e && lists.get(p);
      const taken = h ? heldLines(p, e, h) : null;
      members.push(taken ? taken.member : e ? memberLine(p, e) : t.members[i]!);
      // (no usable prompt file: the entry is parsed for its line). An append of replies and tool
      // output leaves every prompt as it was: the line on disk stands (not made and compared again:
      // a session of a thousand prompts has a line of a megabyte)
      const kept = t.prompts?.[i];
      const made = (): Line => {
        if (!taken) return promptLine(p, e);
        // (promptLine's bytes: the one session's key, and its prompts, which are the list)
        const s = e!.sessions[0]!;
        return promptLineOf(`${s.harness}:${s.id}`, taken.list, (x) => Buffer.from(x, 'utf8'));
      };
      const line = e ? (kept && samePrompts(old[p], e) ? kept : made()) : (kept ?? promptLine(p, (shardEntry(t, i) as Entry | null) ?? undefined));
      if (e && same && line !== kept && (typeof line !== 'string' || !kept!.equals(Buffer.from(line, 'utf8')))) same = false;
      prompts.push(line);
    }
    const listed = new Set(t.paths);
    for (const p of mine) {
      if (listed.has(p)) continue;
      members.push(memberLine(p, parsed[p]!));
      prompts.push(promptLine(p, parsed[p]!));
      same = false;
    }
    writeShardFiles(shardFile(stateDir, n), promptsFile(stateDir, n), STATE_VERSION, count, members, same ? { same: t.tok } : prompts, debugWrite);
  }
}

/** The same description of a source (what discovery found: kind, mode, side files, hint)? */
function sameSource(a: Source, b: Source): boolean {
  if (a.path !== b.path || a.harness !== b.harness || a.kind !== b.kind || a.mode !== b.mode) return false;
  if (a.deps === undefined && b.deps === undefined && a.hint === undefined && b.hint === undefined) return true;
  return JSON.stringify([a.deps ?? null, a.hint ?? null]) === JSON.stringify([b.deps ?? null, b.hint ?? null]);
}

/** Do two entries hold the same sessions with the same prompts (what promptLine writes), element for element? */
function samePrompts(a: Entry | undefined, b: Entry): boolean {
  const x = a?.sessions;
  const y = b.sessions;
  if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const s = x[i];
    const n = y[i];
    if (!s || !n || s.harness !== n.harness || s.id !== n.id) return false;
    const q = n.allPrompts;
    if (s.allPrompts !== q && !(Array.isArray(q) && sameList(s.allPrompts, q))) return false;
  }
  return true;
}

/** The found sources of these paths, by path (one pass, no map of every source), into `out`. */
function foundOf(found: Found[], paths: Set<string>, out = new Map<string, Found>()): Map<string, Found> {
  // (an index loop: `for…of` makes an iterator result per source while the code is cold)
  for (let i = 0; i < found.length; i++) {
    const f = found[i]!;
    if (paths.has(f.src.path)) out.set(f.src.path, f);
  }
  return out;
}

function debugWrite(err: unknown): void {
  // A cache we cannot write only costs speed next time.
  if (process.env.RESUME_DEBUG) process.stderr.write(`resume: cannot write index: ${(err as Error).message}\n`);
}

/** The harnesses whose adapters are `linked` (made once, when first asked for). */
let linkedSet: ReadonlySet<string> | null = null;
const linkedNames = (): ReadonlySet<string> => (linkedSet ??= new Set<string>(ADAPTERS.filter((a) => a.linked).map((a) => a.name)));

/** A session's link key as links.bin holds it: of its harness, hashed. */
const linkHash = (s: Pick<Session, 'harness' | 'link'>): number => fnv1a(Buffer.from(`${s.harness}\0${s.link}`, 'utf8'));

/**
 * links.bin: `l<version> <build id>\n`, then the link keys (`link`) of the build's sessions of
 * linked harnesses, hashed (u32 LE, ascending). A new file of a linked harness is patched over the
 * listing only when its sessions' keys are none of these (or of the patch's sessions): else it may
 * be a fork, which only the finish pass over the listing tells. A collision only sends it the full way.
 */
function linkKeys(id: string, sessions: Session[]): Buffer {
  const linked = linkedNames();
  const hs = Uint32Array.from(sessions.filter((s) => linked.has(s.harness) && s.link).map(linkHash)).sort();
  const head = Buffer.from(`l${INDEX_VERSION} ${id}\n`, 'latin1');
  const body = Buffer.alloc(hs.length * 4);
  for (let i = 0; i < hs.length; i++) body.writeUInt32LE(hs[i]!, i * 4);
  return Buffer.concat([head, body]);
}

/**
 * reach.json: `{"v": INDEX_VERSION, "id": <build id>, "reach": {<key>: [<file>…]}}`, what each key
 * an adapter's `holds` names reaches (the files of the sessions whose finish pass reads it), for an
 * update that does not read the listing. Written with the listing; the relations it records change
 * only with a listing written whole (refinish refuses a change that would change them).
 */
function reachOf(id: string, held: Map<string, string[]>): string {
  return JSON.stringify({ v: INDEX_VERSION, id, reach: Object.fromEntries(held) });
}

/** What the adapters' `holds` name in these sessions, each key with the files it reaches. */
function heldBy(sessions: Session[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const a of ADAPTERS) if (a.holds) for (const [k, files] of a.holds(sessions)) out.set(k, files);
  return out;
}

/** reach.json of build `id` as a lookup (undefined: the key reaches nothing); null when it is missing, damaged or of another build. */
function readReach(file: string, id: string): ((key: string) => string[] | undefined) | null {
  try {
    const o = JSON.parse(fs.readFileSync(file, 'utf8')) as { v: number; id: string; reach: Record<string, unknown> };
    if (!o || o.v !== INDEX_VERSION || o.id !== id || !o.reach || typeof o.reach !== 'object') return null;
    const reach = o.reach;
    return (key) => {
      if (!Object.hasOwn(reach, key)) return undefined;
      const v = reach[key];
      return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : [];
    };
  } catch {
    return null;
  }
}

/** links.bin of build `id`: its hashes, or null when it is missing, damaged or of another build. */
function readLinkKeys(file: string, id: string): Uint32Array | null {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return null;
  }
  const nl = buf.indexOf(10);
  if (nl < 0 || buf.toString('latin1', 0, nl) !== `l${INDEX_VERSION} ${id}` || (buf.length - nl - 1) % 4) return null;
  const out = new Uint32Array((buf.length - nl - 1) / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readUInt32LE(nl + 1 + i * 4);
  return out;
}

/**
 * Keys an append may not patch without reading the listing: of a linked harness, a fork, or sharing
 * its link key with another session; of a harness with `holds`, those it names.
 */
function holdKeys(sessions: Session[], held: Map<string, string[]>): string[] {
  const linked = linkedNames();
  const n = new Map<string, number>();
  for (const s of sessions) if (linked.has(s.harness) && s.link) n.set(`${s.harness}\0${s.link}`, (n.get(`${s.harness}\0${s.link}`) ?? 0) + 1);
  const out: string[] = [];
  for (const s of sessions) {
    if (!linked.has(s.harness)) continue;
    if (s.forkedFrom || (s.link && n.get(`${s.harness}\0${s.link}`)! > 1)) out.push(s.key);
  }
  out.push(...held.keys());
  return out;
}

/**
 * Write list.json and rows.json (streamed, one session at a time: a large listing is never one
 * string), rows.bin, then check.bin, which names the build and so makes the others count; then
 * list.patch (of an earlier build) and files.json (of an earlier version) are removed.
 */
function writeListing(files: IndexFiles, found: Found[], sessions: Session[], skipped: Skipped, home: string, meta: AdapterMeta[], shorts: Map<string, string>): void {
  const id = newBuildId();
  const held = heldBy(sessions);
  // the head is the first line (JSON.stringify writes no line break): readHead reads it alone
  const head = `{"v":${INDEX_VERSION},"id":${JSON.stringify(id)},"built":${Date.now()},"skipped":${JSON.stringify(skipped)},"hold":${JSON.stringify(holdKeys(sessions, held))},\n"sessions":[`;
  function* chunks(f: (s: Session) => unknown, at?: Float64Array): Generator<string> {
    yield head;
    let pos = at ? Buffer.byteLength(head, 'utf8') : 0;
    for (let i = 0; i < sessions.length; i++) {
      const rec = JSON.stringify(f(sessions[i]!));
      if (at) {
        // where the record starts (after the comma) and how long it is, in bytes
        at[i * 2] = pos + (i ? 1 : 0);
        at[i * 2 + 1] = Buffer.byteLength(rec, 'utf8');
        pos = at[i * 2]! + at[i * 2 + 1]!;
      }
      yield (i ? ',' : '') + rec;
    }
    yield ']}';
  }
  // every prompt stays in the state shards (lib/index/prompts.ts): a listing never loads them
  const at = new Float64Array(sessions.length * 2);
  writeAtomic(files.list, chunks((s) => {
    if (s.allPrompts === undefined) return s;
    const { allPrompts: _, ...rest } = s;
    return rest;
  }, at));
  try {
    writeIdx(files.idx, id, sessions, shorts, at);
  } catch {
    // only costs speed: a lookup without it reads the whole listing (one of another build is not used)
  }
  writeAtomic(files.rows, chunks((s) => listed(s, shorts.get(s.id) ?? s.id)));
  try {
    writeAtomic(files.links, linkKeys(id, sessions));
  } catch {
    // only costs speed: a new session of a linked harness then takes the full way
    removeFile(files.links);
  }
  try {
    writeAtomic(files.reach, reachOf(id, held));
  } catch {
    // only costs speed: a change to a held key then reads the listing
    removeFile(files.reach);
  }
  const bin = rowBinChunks(id, home, sessions.map((s) => ({ s, short: shorts.get(s.id) ?? s.id })));
  if (bin) writeAtomic(files.rowbin, bin);
  else removeFile(files.rowbin);
  writeCheck(files.check, id, found, meta);
  removeFile(files.patch);
  removeFile(files.over);
  // the rows printed from the listing before: of no more use (the next no-change listing prints them again)
  for (const n of KEPT_NAMES) removeFile(path.join(files.dir, n));
  removeFile(path.join(files.dir, 'files.json'));
}

/**
 * For a `linked` harness, before parsing: no changed or gone file of it held a session that shares
 * its link key with another session or is a fork, so the finish pass related none of them to
 * anything. A new file is judged once parsed (linksStandAlone).
 */
function linkedChangeStands(h: Harness, stored: Session[], changed: Set<string>, gone: string[], harnessOf: Map<string, Harness>): boolean {
  const mine = stored.filter((s) => s.harness === h);
  const keys = new Map<string, number>();
  for (const s of mine) if (s.link) keys.set(s.link, (keys.get(s.link) ?? 0) + 1);
  const byFile = new Map<string, Session[]>();
  for (const s of mine) addTo(byFile, s.file, s);
  for (const p of [...changed, ...gone]) {
    if (harnessOf.get(p) !== h) continue;
    for (const s of byFile.get(p) ?? []) if (s.forkedFrom || (s.link && (keys.get(s.link) ?? 0) > 1)) return false;
  }
  return true;
}

/**
 * After parsing, for the `linked` harnesses of a partial update: the changed files' sessions are no
 * forks and share their link keys with no session of another file (stored, or changed too), so
 * the finish pass, which relates only sessions sharing a key, would leave every session as it is.
 */
function linksStandAlone(hs: Harness[], stored: Session[], changed: Set<string>, gone: string[], entries: Record<string, Entry>): boolean {
  const replaced = new Set([...changed, ...gone]);
  for (const h of hs) {
    const taken = new Set<string>();
    for (const s of stored) if (s.harness === h && s.link && !replaced.has(s.file)) taken.add(s.link);
    for (const p of changed) {
      const e = entries[p];
      if (!e || e.src?.harness !== h) continue;
      const mine = new Set<string>();
      for (const s of e.sessions ?? []) {
        if (s.forkedFrom || (s.link && taken.has(s.link))) return false;
        if (s.link) mine.add(s.link);
      }
      for (const l of mine) taken.add(l);
    }
  }
  return true;
}

/**
 * The finish states (`finishState`) of these sources' stored entries, of harnesses with `refinish`,
 * copied two levels deep (FinishChange.before): a parse continues a stored state in place, and
 * `refinish` compares before with after. (structuredClone of Codex's titles state, 2,800 names at
 * 22,000 sessions, was ~12 ms of an append.)
 */
function finishStatesOf(paths: Iterable<string>, old: Record<string, Entry>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const copy = (v: unknown) => (Array.isArray(v) ? v.slice() : v && typeof v === 'object' ? { ...v } : v);
  for (const p of paths) {
    const e = old[p];
    if (!e || e.error || !e.state || typeof e.state !== 'object') continue;
    const a = ADAPTERS.find((x) => x.name === e.src?.harness);
    if (!a?.refinish) continue;
    const st = (a.finishState ? a.finishState(e.state, e.src) : e.state) as Record<string, unknown>;
    const c: Record<string, unknown> = {};
    for (const k of Object.keys(st)) c[k] = copy(st[k]);
    out.set(p, c);
  }
  return out;
}

/**
 * A harness's finish pass over what a change concerns (Adapter.refinish): the sessions of the files
 * it gave again, sanitised and keyed as finishHarness gives them, without their prompts. `paths`:
 * its changed and gone sources; `entries` has the changed ones as parsed, `old` the stored ones;
 * `io.load` reads stored entries into a record of them. Null: a full pass.
 */
function refinishOf(
  ctx: Ctx, h: Harness, paths: string[], before: Map<string, unknown>, entries: Record<string, Entry>, old: Record<string, Entry>,
  io: { listed: Session[] | null; reached: (key: string) => string[] | null | undefined; find: (part: string) => string[]; load: (paths: string[]) => Record<string, Entry> },
): { files: Set<string>; sessions: Session[] } | null {
  const a = ADAPTERS.find((x) => x.name === h)!;
  const changes = [];
  for (const p of paths) {
    const e = entries[p];
    const src = e?.src ?? old[p]?.src;
    if (!src) return null;
    const ok = !!e && !e.error && !!e.state && typeof e.state === 'object';
    changes.push({ src, before: before.get(p) ?? null, after: ok ? e.state : null, now: ok ? (e.sessions ?? []) : [] });
  }
  let r: { files: string[]; sessions: SessionCore[] } | null;
  try {
    r = a.refinish!(changes, {
      ctx,
      listed: io.listed,
      reached: io.reached,
      find: io.find,
      load: (want) => {
        const got = io.load(want);
        const out = new Map<string, { src: Source; state: any; sessions: SessionCore[] }>();
        for (const p of want) {
          const e = got[p];
          if (e && !e.error && e.src?.harness === h && e.state && typeof e.state === 'object' && Array.isArray(e.sessions)) out.set(p, { src: e.src, state: e.state, sessions: e.sessions });
        }
        return out;
      },
    });
  } catch {
    return null;
  }
  if (!r) return null;
  const files = new Set(r.files);
  const out: Session[] = [];
  const seen = new Set<string>();
  for (const x of r.sessions) {
    const { allPrompts: _, ...s } = x;
    const key = keyOf(s);
    if (seen.has(key) || !files.has(s.file)) continue;
    seen.add(key);
    out.push(keyed(sanitizeSession(s), key));
  }
  return { files, sessions: out };
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
      ss = a.finish(ss, ctx, states).map((s) => sanitizeSession(s));
    } catch {
      /* keep the unfinished list rather than none */
    }
  }
  const out: Session[] = [];
  const seen = new Set<string>();
  for (const s of ss) {
    const key = keyOf(s);
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
/** The first bytes of a linked harness's file read before a streamed build, for its link keys (stream.ts: Links). */
const LINK_HEAD = 64 << 10;

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
  const os = nodeOs();
  const cores = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
  const threads = Math.min(Number(process.env.RESUME_THREADS) || (cores >= 4 ? cores : 1), jobs.length, 8);
  let done = 0;
  let doneFiles = 0;
  // A long build keeps every session it has parsed, and the garbage of parsing (lines, parser
  // states, entries slimmed once written) lives long enough to reach V8's old generation, which
  // it collects only when it has grown a lot: at 22,000 sessions the heap grew to ~128 MB, half
  // of it garbage, before the first full collection. One whenever the heap has grown by GC_GROWTH
  // since the last (looked at after every GC_EVERY bytes parsed) keeps the peak ~30 MB lower at no
  // cost in time. The growth, not the bytes read, is the measure: 686 files of 1.2 GiB leave a small
  // heap, and a collection every 96 MB read there was ~10% of the build (BENCHMARKS.md).
  // (node:v8, which the collector needs, is loaded the first time one is due: a build of a few
  // hundred sessions never needs one, and loading it took ~4 ms before the first file was read)
  let gc: (() => void) | null | undefined = total >= GC_EVERY ? undefined : null;
  let since = 0;
  let base = gc === null ? NaN : heapUsed();
  const tick = (j: Job, r: JobResult) => {
    done += j.size - j.from;
    doneFiles++;
    opts.progress?.(done, total, doneFiles, jobs.length);
    onResult(j, r);
    since += j.size - j.from;
    if (gc !== null && since >= GC_EVERY) {
      since = 0;
      if (!(heapUsed() - base < GC_GROWTH) && (gc ??= fullCollector())) {
        gc();
        base = heapUsed();
        if (process.env.RESUME_DEBUG_GC) process.stderr.write(`gc at ${done} bytes: ${(base / 1048576).toFixed(1)} MiB after\n`);
      }
    }
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
