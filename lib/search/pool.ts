// Scanning groups: in this thread for a small corpus, else spread over worker threads (worker.ts)
// in batches of about equal bytes, this thread scanning too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Harness, Session } from '../types.js';
import { requireLazy } from '../util/lazy.js';
import type { Group } from './groups.js';
import { childFiles, groupMeta } from './groups.js';
import type { FilePieces } from './pieces.js';
import type { Prefilter, PrefilterMsg } from './prefilter.js';
import type { Term } from './query.js';
import { allNeedles, allTerms, termMask } from './query.js';
import {
  branchPass,
  closeCtx,
  type GroupScan,
  noStats,
  type OnPiece,
  type ReadCtx,
  readCtx,
  type SearchStats,
  scanChildFile,
  scanSession,
} from './read.js';
import { HOOKS } from './registry.js';
import { collect, type Hit, markAbandoned, outputMoot, STOP, settleEvidence } from './score.js';
import type { Signatures } from './sigs.js';
import { ROLE_AT, ROLES, type SharedPiece } from './types.js';

/** Worker threads to use at most: RESUME_THREADS, else one a core. */
export const threadCount = (): number =>
  Number(process.env.RESUME_THREADS) || (os.availableParallelism ? os.availableParallelism() : os.cpus().length);

/** The search's worker-thread script of this install (its scans, and the search index's files made whole). */
export const workerFile = (app: { distDir: string }): string => path.join(app.distDir, 'search-worker.cjs');

export interface ScanOut {
  /** `keys`: the piece hashes (a fork's copies are told by its source's; prompt history is not counted twice) */
  groups: { key: string; mask: number; hits: Hit[]; nHits: number; keys: number[] }[];
  stats: SearchStats;
}

/** How scanGroups takes its groups and reports. */
export interface ScanHow {
  /** the index of the next group to scan, -1 when none is left (threads share the list that way); without it, every group in order */
  pick?: () => number;
  /** the files marked before the scan (prefilter.ts), passed over */
  pre?: Prefilter | null;
  /** called after each group */
  after?: () => void;
  /**
   * Handed the groups that hold a term `every` at a time as they pile up (a worker thread posts
   * them), which it then lets go: what is returned is only those left.
   */
  post?: { every: number; send: (groups: ScanOut['groups']) => void };
}

/**
 * How many groups a worker thread posts at a time. Posted all at once after its scan, a thread's
 * results were all still held when it packed them: at 22,000 sessions, a word in every file, the
 * worker's heap held ~80 MB at the end, ~37 MB posting as it goes (the search's peak ~430 → ~405 MiB).
 */
export const POST_EVERY = 500;

/**
 * Scan groups (in this thread). `needKeys`: root keys whose piece hashes must be complete (sources
 * of forks among the groups: no piece is skipped in them). Used by `search` directly and by its
 * worker threads.
 */
export function scanGroups(groups: Group[], terms: Term[], needKeys: Set<string>, how: ScanHow = {}): ScanOut {
  const { pick, pre, after, post } = how;
  const stats = noStats();
  const cx = readCtx(terms, allNeedles(terms), stats, pre ? (f) => pre.clean(f) : undefined);
  // The piece hashes are read afterwards only in a fork's source (to tell the fork's copies) and in
  // a group a shared store (prompt history) may add to (not counted twice): only those are copied
  // back (at 22,000 sessions, the copies of every group's were most of what a thread posted).
  const keysRead = (g: Group) => needKeys.has(g.root.key) || g.members.some((m) => !!HOOKS[m.harness]?.shared);
  const outOf = (g: Group) => ({ key: g.root.key, mask: g.mask, hits: g.hits, nHits: g.nHits, keys: keysRead(g) ? [...g.keys] : [] });
  let kept: Group[] = [];
  let at = 0;
  const next = pick ?? (() => (at < groups.length ? at++ : -1));
  try {
    for (let i = next(); i >= 0; i = next()) {
      const g = groups[i];
      scanGroup(g, terms, needKeys.has(g.root.key), cx);
      finish(g, terms);
      if (g.mask !== 0) kept.push(g);
      if (post && kept.length >= post.every) {
        post.send(kept.map(outOf));
        // posted: what this thread held of them is let go (the groups stay in the shared list)
        for (const x of kept) {
          x.hits = [];
          x.keys = new Set();
        }
        kept = [];
      }
      after?.();
    }
  } finally {
    closeCtx(cx);
  }
  return { groups: kept.map(outOf), stats };
}

/**
 * Read one group's files: its members' own stores, then the children they name, each file once;
 * then, where it can matter, tell its abandoned branches apart. `keysWanted`: its piece hashes must
 * be complete (a fork's source).
 */
function scanGroup(g: Group, terms: Term[], keysWanted: boolean, cx: ReadCtx): void {
  const K = Math.min(terms.length, 31);
  const full = allTerms(K);
  const withIds = new Map<string, Harness>();
  const trees = new Map<string, Set<string> | null>();
  const meta = termMask(terms, groupMeta(g));
  const isFull = () => ((g.mask | meta) & full) === full;
  const br: GroupScan = {
    full: isFull,
    told: (file, h) => withIds.set(file, h),
    read: (file, dead) => trees.set(file, dead),
    outputMoot: (file) => !keysWanted && outputMoot(g, K, file),
  };
  // a subagent transcript can be a session of its own (a member) and be named by its parent too
  const done = new Set<string>();
  try {
    for (const m of g.members) {
      cx.stats.sessions++;
      const memberIsChild = m !== g.root;
      const on: OnPiece = (p, file, child, rid) => collect(g, terms, p, { file, child, member: m, memberIsChild, rid });
      // a database holds many sessions: each member is read from it
      const shared = /\.db$/.test(m.file);
      if (shared || !done.has(m.file)) scanSession(cx, m, memberIsChild, on, br);
      done.add(m.file);
    }
    for (const m of g.members) {
      const on: OnPiece = (p, file, child, rid) => collect(g, terms, p, { file, child, member: m, memberIsChild: true, rid });
      for (const f of childFiles(m)) {
        if (done.has(f)) continue;
        done.add(f);
        scanChildFile(cx, m.harness, f, on, br);
      }
    }
  } catch (err) {
    if (err !== STOP) throw err;
  }
  // Branches are told apart only where it can matter: a group that has every term, in files its
  // kept hits are from. The tree was read along with the search once the group had every term;
  // a file searched before that (the last term was found in a later file) is read again.
  if (!isFull()) return;
  for (const [file, h] of withIds) {
    if (!g.hits.some((x) => x.file === file && x.rids)) continue;
    const read = trees.get(file);
    const d = read !== undefined ? read : branchPass(cx, h, file);
    if (d?.size) markAbandoned(g, file, d, K);
  }
}

/**
 * A worker's ScanOut as it is posted: the numbers in one array (moved, not copied) and the strings
 * in another, each path once. A structured copy of the hit objects themselves (eight for each of
 * 11,000 groups in a search for a word in every file at 22,000 sessions) took the worker ~260 ms to
 * write and the calling thread ~400 ms to read, after the scan, while nothing else ran.
 */
export interface PackedScan {
  nums: Float64Array<ArrayBuffer>;
  strs: string[];
  stats: SearchStats;
}

/** hit flags, one bit each */
const F_CHILD = 1;
const F_COPIED = 2;
const F_SUMMARY = 4;
const F_WRITE = 8;
const F_FIRST = 16;
const F_ABANDONED = 32;

/** A hit's flags, one bit each. */
function flagsOf(h: Hit): number {
  return (
    (h.child ? F_CHILD : 0) |
    (h.copied ? F_COPIED : 0) |
    (h.summary ? F_SUMMARY : 0) |
    (h.write ? F_WRITE : 0) |
    (h.firstPrompt ? F_FIRST : 0) |
    (h.abandoned ? F_ABANDONED : 0)
  );
}

/** One hit into the numbers (its strings by their index in `strs`, each path once: `str`). */
function packHit(h: Hit, nums: number[], strs: string[], str: (x: string) => number): void {
  nums.push(
    ROLE_AT.get(h.role) ?? 0,
    h.mask,
    h.k,
    str(h.file),
    flagsOf(h),
    h.via === undefined ? -1 : str(h.via),
    h.key,
    h.score,
    h.text === '' ? -1 : strs.push(h.text) - 1,
  );
  // (record ids tell branches apart on the thread that read them: none are left to post)
  const sn = h.snippet;
  if (!sn) nums.push(-1);
  else {
    nums.push(strs.push(sn.text) - 1, sn.marks.length);
    for (const [a, b] of sn.marks) nums.push(a, b);
  }
}

export function packScan(out: ScanOut): PackedScan {
  const nums: number[] = [];
  const strs: string[] = [];
  const at = new Map<string, number>();
  /** a string's index, each distinct one stored once */
  const str = (x: string): number => {
    let i = at.get(x);
    if (i === undefined) {
      i = strs.push(x) - 1;
      at.set(x, i);
    }
    return i;
  };
  nums.push(out.groups.length);
  for (const g of out.groups) {
    nums.push(str(g.key), g.mask, g.nHits, g.keys.length);
    // (a loop: a fork's source can have 200,000 piece hashes, too many to spread as arguments)
    for (const k of g.keys) nums.push(k);
    nums.push(g.hits.length);
    for (const h of g.hits) packHit(h, nums, strs, str);
  }
  return { nums: Float64Array.from(nums), strs, stats: out.stats };
}

export function unpackScan(p: PackedScan): ScanOut {
  const { nums, strs } = p;
  let i = 0;
  const groups: ScanOut['groups'] = [];
  for (let ng = nums[i++]; ng > 0; ng--) {
    const key = strs[nums[i++]];
    // (integers as integers, as in the groups scanned here: see the hits below)
    const mask = nums[i++] | 0;
    const nHits = nums[i++] | 0;
    const keys = Array.from(nums.subarray(i + 1, i + 1 + nums[i]));
    i += 1 + keys.length;
    const hits: Hit[] = [];
    for (let nh = nums[i++]; nh > 0; nh--) {
      const role = ROLES[nums[i]];
      const flags = nums[i + 4];
      const via = nums[i + 5];
      const text = nums[i + 8];
      const sn = nums[i + 9];
      // The literal of score.ts `collect`, field for field, and the small integers as integers
      // (read from the array they would be doubles): one shape for every hit. A field that is an
      // integer in the hits scanned here and a double in these would change the shape of all of
      // them, and the ranking's first pass over the hits took 270 ms instead of 14.
      const h: Hit = {
        role,
        mask: nums[i + 1] | 0,
        k: nums[i + 2] | 0,
        file: strs[nums[i + 3]],
        child: (flags & F_CHILD) !== 0,
        copied: (flags & F_COPIED) !== 0,
        summary: (flags & F_SUMMARY) !== 0,
        write: (flags & F_WRITE) !== 0,
        firstPrompt: (flags & F_FIRST) !== 0,
        abandoned: (flags & F_ABANDONED) !== 0,
        rids: undefined,
        via: via < 0 ? undefined : strs[via],
        key: nums[i + 6],
        score: nums[i + 7],
        text: text < 0 ? '' : strs[text],
        snippet: undefined,
      };
      i += 10;
      if (sn >= 0) {
        const marks: [number, number][] = [];
        for (let m = nums[i++]; m > 0; m--, i += 2) marks.push([nums[i], nums[i + 1]]);
        h.snippet = { text: strs[sn], marks };
      }
      hits.push(h);
    }
    groups.push({ key, mask, hits, nHits, keys });
  }
  return { groups, stats: p.stats };
}

export interface SearchOptions {
  /** the search worker script; without it (or for a small corpus) everything runs in this thread */
  workerFile?: string;
  /** the home directory: a session's directory is searched from `~` (groups.ts metadataText) */
  home?: string;
  threads?: number;
  /** workers started ahead (prestartWorkers): used if the search runs in parallel, else stopped */
  prestarted?: Prestarted | null;
  /** the files' sizes as the index knows them (the work is ordered by size; a file not in it is stat'ed) */
  sizes?: () => Map<string, number>;
  /**
   * How far the scan is, told by the calling thread after each group it scans (a progress bar):
   * the bytes and the groups taken by every thread so far, of those to scan (the groups passed over
   * are not counted).
   */
  progress?: (done: number, total: number, groups: number, totalGroups: number) => void;
  /**
   * false: the results are ranked only, with no evidence (the picker's rows): the hits keep no text
   * and no snippet is cut (Group `bare`; at 22,000 sessions a word in every file cut 44,000).
   */
  evidence?: boolean;
  /**
   * Only the best `top` results are shown: with the index's pieces, the ranking is made from them
   * and only the best results are read for their evidence (search.ts searchTop).
   */
  top?: number;
  /** the files' signatures (sigs.ts): the groups and files no term can be in are passed over */
  signatures?: Signatures | null;
  /**
   * The index's pieces that hold a term (pieces.ts), for a ranking without evidence: a group whose
   * pieces hold every term is ranked from them, not read.
   */
  pieces?: Map<string, FilePieces> | null;
  /**
   * The shared stores' pieces that hold a term, read already for every session they may credit
   * (groupmap.ts: a search of some groups must not credit a piece to another of them)
   */
  shared?: SharedPiece[];
}

/**
 * `opts.progress` for a scan of `order` (in the order the threads take it), each group's bytes from
 * `size`; `taken()`: how many groups the threads have taken. Undefined without a progress callback.
 */
function reporter(order: Group[], size: (g: Group) => number, taken: () => number, opts: SearchOptions): (() => void) | undefined {
  const report = opts.progress;
  if (!report) return undefined;
  const upTo = new Float64Array(order.length + 1);
  for (let i = 0; i < order.length; i++) upTo[i + 1] = upTo[i] + size(order[i]);
  const n = order.length;
  return () => {
    const k = Math.min(taken(), n);
    report(upTo[k], upTo[n], k, n);
  };
}

type WorkerCtor = typeof import('node:worker_threads').Worker;

/**
 * A search worker thread, listened to from its start: an error or exit before it is given work is
 * kept for `run`, not lost (nor thrown as an unhandled 'error' event).
 */
export class ScanWorker {
  private w: InstanceType<WorkerCtor>;
  private error: unknown = null;
  private exited: Promise<void>;
  constructor(W: WorkerCtor, file: string) {
    this.w = new W(file);
    this.w.on('error', (err) => {
      this.error ??= err;
    });
    this.exited = new Promise((resolve) => this.w.once('exit', () => resolve()));
  }
  /** an idle worker does not keep the process alive (a prestarted one may never be used) */
  unref(): this {
    this.w.unref();
    return this;
  }
  /**
   * Hand it the search; the results it posts (parts as it goes, then the rest with the counts) are
   * merged, and it is told to end. Settled by the last, not by the thread's exit, which is not waited
   * for (it no longer keeps the process alive): a thread that ends without it is an error.
   */
  run(msg: unknown, merge: (m: ScanOut) => void): Promise<void> {
    this.w.ref();
    const done = new Promise<void>((resolve, reject) => {
      const take = (m: PackedScan | { part: PackedScan }) => {
        try {
          if ('part' in m) {
            merge(unpackScan(m.part));
            return;
          }
          merge(unpackScan(m));
          resolve();
        } catch (err) {
          reject(err);
        }
        this.w.off('message', take);
        this.w.postMessage(null);
        this.w.unref();
      };
      this.w.on('message', take);
      void this.exited.then(() => reject(this.error ?? new Error('a search thread ended without its results')));
    });
    this.w.postMessage(msg);
    return done;
  }
  /** Have it mark the files that hold no needle (prefilter.ts) until the scan begins. */
  prefilter(msg: PrefilterMsg): void {
    this.w.postMessage({ prefilter: msg });
  }
  stop(): void {
    void this.w.terminate();
  }
}

/** Workers started ahead, and the marks of the files they read before the scan (null: none are read). */
export interface Prestarted {
  workers: Promise<ScanWorker[]>;
  prefilter: Prefilter | null;
}

/**
 * Start the workers a parallel search would use before the search is known to need them: their
 * start-up (Node's, the bundle's, the harness extractors') then overlaps the caller's own (loading
 * the listing), and they are ready when scanning starts. With `pre` (the transcripts the index
 * knows and the search's needles) they use that time to mark the files that hold no
 * needle, which the scan then need not read (prefilter.ts). Null when the search would run in this
 * thread anyway.
 */
export function prestartWorkers(file: string, threads: number, pre: (() => Prefilter | null) | null = null): Prestarted | null {
  const n = Math.min(threads, 8) - 1;
  if (n < 1 || !fs.existsSync(file)) return null;
  // made now, not when the caller next yields (it loads the listing meanwhile, without yielding)
  const { Worker } = requireLazy('node:worker_threads') as typeof import('node:worker_threads');
  const ws = Array.from({ length: n }, () => new ScanWorker(Worker, file).unref());
  // (the list is made while the workers start)
  const prefilter = pre?.() ?? null;
  if (prefilter) for (const w of ws) w.prefilter(prefilter.msg());
  return { workers: Promise.resolve(ws), prefilter };
}

function addStats(to: SearchStats, from: SearchStats): void {
  for (const k of Object.keys(to) as (keyof SearchStats)[]) to[k] += from[k];
}

/**
 * A group whose files are read (and its branches told apart): its metadata (the title, branch,
 * directory and repository the index knows) weighed as a piece of its text, on the thread that
 * scanned it (not one group after another on the calling thread once every thread is done: 22,000
 * of them took it 110-300 ms after the scan), then its evidence settled.
 */
export function finish(g: Group, terms: Term[]): void {
  try {
    collect(g, terms, { role: 'metadata', text: groupMeta(g) }, { file: g.root.file, child: false, member: g.root, memberIsChild: false });
  } catch (err) {
    if (err !== STOP) throw err;
  }
  settleEvidence(g, terms);
  // the record ids told branches apart, which is done: not copied back
  for (const h of g.hits) h.rids = undefined;
}

/**
 * The files a scan of `g` reads, each once: its members' transcripts and their children (those the
 * index names and those a harness hook finds, as `childFiles` gives them to the scan). Null when a
 * member is read by a harness hook of its own (a database, a directory of parts): never passed over.
 */
export function filesOf(g: Group): string[] | null {
  const files = new Set<string>();
  for (const m of g.members) {
    if (HOOKS[m.harness]?.scan) return null;
    files.add(m.file);
    for (const f of childFiles(m)) files.add(f);
  }
  return [...files];
}

/**
 * A group the scan would find nothing in: every file it would read (`filesOf`) is marked as holding
 * no needle. It is counted as the scan would count it (sessions, files once each, their bytes) and
 * passed over, with what a scan of it gives (its metadata weighed: `finish`).
 */
function passOver(g: Group, files: string[] | null, terms: Term[], pre: Prefilter, stats: SearchStats): boolean {
  if (!files) return false;
  let bytes = 0;
  for (const f of files) {
    const n = pre.clean(f);
    if (n === undefined) return false;
    bytes += n;
  }
  stats.sessions += g.members.length;
  stats.files += files.length;
  stats.bytes += bytes;
  finish(g, terms);
  return true;
}

/** bytes below which starting worker threads costs more than it saves */
const PARALLEL_MIN_BYTES = 48 << 20;

function sizeOf(g: Group, known?: Map<string, number>): number {
  let n = 0;
  for (const m of g.members) {
    const k = known?.get(m.file);
    if (k !== undefined) {
      n += k;
      continue;
    }
    try {
      n += fs.statSync(m.file).size;
    } catch {
      /* gone */
    }
  }
  return n;
}

/** The groups scanned on this thread alone (a small corpus, or no worker script). */
function scanHere(groups: Group[], terms: Term[], needKeys: Set<string>, opts: SearchOptions, known?: Map<string, number>): ScanOut {
  const pre = opts.prestarted?.prefilter ?? null;
  const passed = noStats();
  const order = pre ? groups.filter((g) => !passOver(g, filesOf(g), terms, pre, passed)) : groups;
  let taken = 0;
  const after = reporter(
    order,
    (g) => sizeOf(g, known),
    () => ++taken,
    opts,
  );
  const out = scanGroups(order, terms, needKeys, { pre, after });
  addStats(out.stats, passed);
  return out;
}

/**
 * Each session with only what a scan reads: the file and its children, the names, the first prompt
 * (isFirstPrompt), what metadataText shows (the title only where it shows it) and a fork's source
 * (settleEvidence). A search hook (lib/harness/*\/text.ts `children`, `scan`) is given these on a
 * worker thread. One shape, a third of the fields: at 22,000 sessions the copy took a worker 300-400
 * ms to take in before it could scan.
 */
function slim(s: Session): Session {
  const title = s.title !== s.firstPrompt ? s.title : null;
  return {
    harness: s.harness,
    id: s.id,
    key: s.key,
    file: s.file,
    children: s.children,
    cwd: s.cwd,
    branch: s.branch,
    title,
    firstPrompt: s.firstPrompt,
    forkedFrom: s.forkedFrom,
  } as Session;
}

/** `n` workers: those started ahead first (the others stopped), then new ones sharing the marks. */
async function workersFor(n: number, ready: ScanWorker[], file: string, pre: Prefilter | null): Promise<ScanWorker[]> {
  const use = ready.slice(0, n);
  for (const w of ready.slice(n)) w.stop();
  if (use.length < n) {
    const { Worker } = await import('node:worker_threads');
    while (use.length < n) {
      const w = new ScanWorker(Worker, file);
      // (the marks are shared with it: it passes over the files marked)
      if (pre) w.prefilter(pre.msg());
      use.push(w);
    }
  }
  return use;
}

export async function scanParallel(groups: Group[], terms: Term[], needKeys: Set<string>, opts: SearchOptions): Promise<ScanOut> {
  // (bare for this thread's scan and for what search.ts weighs after it; the workers are told in the
  // scan's message)
  if (opts.evidence === false) for (const g of groups) g.bare = true;
  const known = opts.sizes?.();
  const minBytes = process.env.RESUME_PARALLEL_MIN_BYTES != null ? Number(process.env.RESUME_PARALLEL_MIN_BYTES) : PARALLEL_MIN_BYTES;
  // whether the groups hold enough to share: summed until they do
  let total = 0;
  for (const g of groups) {
    if (total >= minBytes) break;
    total += sizeOf(g, known);
  }
  const threads = Math.min(opts.threads ?? 1, 8, groups.length);
  const pre = opts.prestarted?.prefilter ?? null;
  const ready = opts.prestarted ? await opts.prestarted.workers : [];
  if (!opts.workerFile || threads < 2 || total < minBytes || !fs.existsSync(opts.workerFile)) {
    // the scan begins: the workers stop marking files (what they marked is used)
    pre?.stop();
    for (const w of ready) w.stop();
    return scanHere(groups, terms, needKeys, opts, known);
  }
  const out: ScanOut = { groups: [], stats: noStats() };
  // Largest first; every thread (this one too) takes the next group from a shared counter, so none
  // waits for another to hand it work and they finish together. A group every file of which is
  // marked is not handed on at all.
  let order: Group[];
  if (pre) {
    // what each group reads, found while the workers go on marking (a harness's children are
    // found in their directories: ~70 ms at 22,000 sessions)
    const files = groups.map(filesOf);
    pre.lookup();
    // While most files read hold no needle, this thread marks the rest too, beside the workers,
    // before any group is handed on (prefilter.ts); a group left with a needle is scanned as before.
    pre.finishHere();
    order = groups.filter((g, i) => !passOver(g, files[i], terms, pre, out.stats));
  } else order = [...groups];
  // (sized only now: a group passed over needs no size)
  const sizes = new Map(order.map((g) => [g, sizeOf(g, known)]));
  order.sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0));
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const pick = () => {
    const i = Atomics.add(counter, 0, 1);
    return i < order.length ? i : -1;
  };
  const merge = (m: ScanOut) => {
    out.groups.push(...m.groups);
    addStats(out.stats, m.stats);
  };
  const lean = new Map<Session, Session>();
  const slimmed = (s: Session): Session => {
    let l = lean.get(s);
    if (!l) {
      l = slim(s);
      lean.set(s, l);
    }
    return l;
  };
  // a group as its members, the root first (as groupSessions builds them)
  const msg = {
    terms: terms.map((t) => ({ text: t.text, phrase: t.phrase })),
    need: [...needKeys],
    counter: counter.buffer,
    groups: order.map((g) => g.members.map(slimmed)),
    bare: opts.evidence === false,
    home: opts.home ?? '',
    postEvery: POST_EVERY,
  };
  const workers = (await workersFor(threads - 1, ready, opts.workerFile, pre)).map((w) => w.run(msg, merge));
  // The scan begins: the workers stop marking files (what they marked is used), and each takes the
  // message posted to it (it waited in its queue meanwhile). This thread scans meanwhile.
  pre?.stop();
  const after = reporter(
    order,
    (g) => sizes.get(g) ?? 0,
    () => Atomics.load(counter, 0),
    opts,
  );
  merge(scanGroups(order, terms, needKeys, { pick, pre, after }));
  // (every group is taken now: the workers finish theirs)
  after?.();
  await Promise.all(workers);
  return out;
}
