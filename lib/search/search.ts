// Deep search: scan whole transcripts (and their subagents' and children's) for every term, and
// rank the sessions a user could resume.
//
// A session and everything below it (subagent transcripts next to it, child sessions whose
// `parent` points at it) form a group that is reported on the root, the resumable session. Every
// term must occur somewhere in the group. Files are streamed with a byte-level prefilter
// (scan.ts); only lines holding a term are decoded.
import fs from 'node:fs';
import path from 'node:path';
import type { Harness, Session } from '../types.js';
import type { Piece, Role, ExtractCtx } from './types.js';
import type { Term } from './query.js';
import { allNeedles, termMask } from './query.js';
import { EXTRACTORS, loadExtractors } from './registry.js';
import { rawText, scanFile } from './scan.js';
import { excerpt, makeSnippet, type Snippet } from './snippet.js';
import { applyFilters, type Filters } from '../select/filter.js';
import { entries, walk } from '../util/fsx.js';
import { promptText } from '../util/text.js';
import { openReadonly, columns, type Db } from '../harness/sqlite.js';

export interface SearchFilters extends Filters {
  /** epoch ms: sessions active at or after */
  since?: number;
  /** epoch ms: sessions started at or before */
  until?: number;
}

export interface Evidence {
  role: Role;
  /** the transcript the text is in (a subagent or child transcript when `child`) */
  file: string;
  child: boolean;
  copied: boolean;
  snippet: Snippet;
}

export type Confidence = 'high' | 'medium' | 'low';

export interface Result {
  session: Session;
  score: number;
  original: boolean;
  confidence: Confidence;
  evidence: Evidence[];
}

export interface SearchStats {
  sessions: number;
  files: number;
  bytes: number;
  hugeLines: number;
  /** files that could not be read (vanished, unreadable, database errors) */
  unreadable: number;
}

/** Thrown from a scan to stop reading a group whose evidence cannot get materially better. */
const STOP = new Error('enough evidence');
/** the best score of a prompt other than the first (all terms in it) */
const NEXT_HIT = 10;

const W: Record<Role, number> = { user: 10, task: 8, 'tool-call': 7, metadata: 6, assistant: 5, 'tool-output': 2 };
const KEEP = 8;

export interface Hit {
  role: Role;
  mask: number;
  k: number;
  file: string;
  child: boolean;
  copied: boolean;
  summary: boolean;
  write: boolean;
  firstPrompt: boolean;
  key: number;
  score: number;
  /** unredacted text around the matches (a few KiB); the snippet is cut from it for the results shown */
  text: string;
}

export interface Group {
  root: Session;
  members: Session[];
  mask: number;
  hits: Hit[];
  nHits: number;
  keys: Set<number>;
}

function bits(m: number): number {
  let n = 0;
  while (m) {
    n += m & 1;
    m >>>= 1;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Which files belong to a group

const flatCache = new Map<string, Map<string, string[]>>();

/**
 * Claude's older flat layout: `agent-*.jsonl` beside the sessions, each naming its parent in the
 * `sessionId` of its lines. Read once per directory (the first 64 KiB of each file).
 */
function flatAgents(dir: string): Map<string, string[]> {
  let m = flatCache.get(dir);
  if (m) return m;
  m = new Map();
  flatCache.set(dir, m);
  const head = Buffer.allocUnsafe(64 << 10);
  for (const d of entries(dir)) {
    if (!d.name.startsWith('agent-') || !d.name.endsWith('.jsonl')) continue;
    const f = path.join(dir, d.name);
    try {
      const fd = fs.openSync(f, 'r');
      let n = 0;
      try {
        n = fs.readSync(fd, head, 0, head.length, 0);
      } finally {
        fs.closeSync(fd);
      }
      const id = /"sessionId":"([^"]+)"/.exec(head.toString('utf8', 0, n))?.[1];
      if (id) m.set(id, [...(m.get(id) ?? []), f]);
    } catch {
      /* unreadable: not ours to report */
    }
  }
  return m;
}

/** Subagent transcripts a harness keeps beside a session file (not sessions of their own). */
export function childFiles(s: Session): string[] {
  const out: string[] = [...(s.children ?? [])];
  const dir = path.dirname(s.file);
  if (s.harness === 'claude' && s.file.endsWith('.jsonl')) {
    out.push(...(flatAgents(dir).get(s.id) ?? []));
    const sub = path.join(dir, path.basename(s.file, '.jsonl'), 'subagents');
    for (const f of walk(sub, (n) => n.startsWith('agent-') && n.endsWith('.jsonl'), 2)) {
      // internal helpers (compaction, prompt suggestions) restate the session: not evidence
      if (/^agent-(acompact|prompt_suggestion)-/.test(path.basename(f))) continue;
      out.push(f);
    }
  } else if (s.harness === 'cursor' && /\.(jsonl|txt)$/.test(s.file)) {
    for (const d of entries(path.join(dir, 'subagents'))) {
      if (d.name.endsWith('.jsonl') || d.name.endsWith('.txt')) out.push(path.join(dir, 'subagents', d.name));
    }
  } else if (s.harness === 'gemini') {
    const sub = path.join(dir, s.id);
    for (const d of entries(sub)) if (d.name.endsWith('.jsonl') || d.name.endsWith('.json')) out.push(path.join(sub, d.name));
  }
  return [...new Set(out)].filter((f) => f !== s.file);
}

/** Group sessions under their root (parent links within a harness, cycles cut). */
export function groupSessions(all: Session[]): Map<string, Group> {
  const byKey = new Map(all.map((s) => [s.key, s]));
  const rootOf = (s: Session): Session => {
    let cur = s;
    const seen = new Set<string>([s.key]);
    while (cur.parent) {
      const p = byKey.get(`${cur.harness}:${cur.parent}`);
      if (!p || seen.has(p.key)) break;
      seen.add(p.key);
      cur = p;
    }
    return cur;
  };
  const groups = new Map<string, Group>();
  for (const s of all) {
    const r = rootOf(s);
    let g = groups.get(r.key);
    if (!g) {
      g = { root: r, members: [], mask: 0, hits: [], nHits: 0, keys: new Set() };
      groups.set(r.key, g);
    }
    if (s === r) g.members.unshift(s);
    else g.members.push(s);
  }
  return groups;
}

function passes(s: Session, f: SearchFilters): boolean {
  if (applyFilters([s], f).length === 0) return false;
  const upd = s.updated ?? s.started;
  const start = s.started ?? s.updated;
  if (f.since != null && (upd == null || upd < f.since)) return false;
  if (f.until != null && (start == null || start > f.until)) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Reading one source

type OnPiece = (p: Piece, file: string, child: boolean) => void;

interface Ctx {
  terms: Term[];
  needles: string[];
  /** needles usable in SQL `instr(lower(x), ?)`: ASCII only; null when a term has none */
  sqlNeedles: string[] | null;
  stats: SearchStats;
  dbs: Map<string, Db | null>;
}

function scanJsonl(cx: Ctx, harness: Harness, file: string, child: boolean, on: OnPiece): void {
  const ex = EXTRACTORS[harness];
  const ecx: ExtractCtx = { first: false, st: {} };
  const plain = file.endsWith('.txt');
  const st = scanFile(file, cx.needles, {
    line(buf, s, e, first) {
      let o: unknown;
      try {
        o = JSON.parse(buf.toString('utf8', s, e));
      } catch {
        if (plain) on({ role: 'assistant', text: buf.toString('utf8', s, e) }, file, child);
        return;
      }
      ecx.first = first;
      for (const p of ex(o, ecx)) on(p, file, child);
    },
    raw(bytes, at) {
      // a line too long to decode: the text around the hit, as tool output (what such lines hold)
      const r = rawText(bytes, at);
      on({ role: 'tool-output', text: r.text }, file, child);
    },
  });
  cx.stats.files++;
  cx.stats.bytes += st.bytes;
  cx.stats.hugeLines += st.hugeLines;
}

const WHOLE_CAP = 64 << 20;

/** A whole JSON document (Gemini legacy session, opencode legacy files), prefiltered before parsing. */
function readDoc(cx: Ctx, file: string): unknown {
  const st = fs.statSync(file);
  if (st.size > WHOLE_CAP) return undefined;
  const b = fs.readFileSync(file);
  cx.stats.files++;
  cx.stats.bytes += b.length;
  const low = b.toString('latin1').toLowerCase();
  if (!cx.needles.some((n) => low.includes(n))) return undefined;
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
}

function db(cx: Ctx, file: string): Db | null {
  if (cx.dbs.has(file)) return cx.dbs.get(file)!;
  let d: Db | null = null;
  try {
    d = openReadonly(file);
  } catch {
    cx.stats.unreadable++;
  }
  cx.dbs.set(file, d);
  return d;
}

function sqlFilter(cx: Ctx, col: string): { sql: string; args: string[] } {
  if (!cx.sqlNeedles || cx.sqlNeedles.length === 0) return { sql: '', args: [] };
  return { sql: ' AND (' + cx.sqlNeedles.map(() => `instr(lower(${col}), ?) > 0`).join(' OR ') + ')', args: cx.sqlNeedles };
}

/** opencode v1.2+: the parts of one session in the database, with their message's role. */
function scanOpencodeDb(cx: Ctx, s: Session, child: boolean, on: OnPiece): void {
  const d = db(cx, s.file);
  if (!d) return;
  try {
    const pc = columns(d, 'part');
    if (!pc.has('session_id') || !pc.has('data')) return;
    const f = sqlFilter(cx, 'p.data');
    const rows = d
      .prepare(`SELECT p.data AS part, m.data AS msg FROM part p LEFT JOIN message m ON m.id = p.message_id WHERE p.session_id = ?${f.sql} ORDER BY p.id`)
      .all(s.id, ...f.args) as { part: string; msg: string | null }[];
    const ecx: ExtractCtx = { first: false, st: {} };
    for (const r of rows) {
      let part: any;
      let msg: any = null;
      try {
        part = JSON.parse(r.part);
        msg = r.msg ? JSON.parse(r.msg) : null;
      } catch {
        continue;
      }
      for (const p of EXTRACTORS.opencode({ part, role: msg?.role, summary: msg?.summary === true }, ecx)) on(p, s.file, child);
    }
    cx.stats.files++;
  } catch (err) {
    if (err === STOP) throw err;
    cx.stats.unreadable++;
  }
}

/** opencode before v1.2: storage/session/<project>/<id>.json, message/<id>/*.json, part/<msg>/*.json */
function scanOpencodeLegacy(cx: Ctx, s: Session, child: boolean, on: OnPiece): void {
  const storage = path.dirname(path.dirname(path.dirname(s.file)));
  const mdir = path.join(storage, 'message', s.id);
  const ecx: ExtractCtx = { first: false, st: {} };
  const msgs = entries(mdir).filter((d) => d.name.endsWith('.json')).map((d) => d.name).sort();
  for (const mf of msgs) {
    let msg: any;
    try {
      msg = JSON.parse(fs.readFileSync(path.join(mdir, mf), 'utf8'));
    } catch {
      continue;
    }
    const mid = typeof msg?.id === 'string' ? msg.id : mf.replace(/\.json$/, '');
    const pdir = path.join(storage, 'part', mid);
    for (const pf of entries(pdir).filter((d) => d.name.endsWith('.json')).map((d) => d.name).sort()) {
      const file = path.join(pdir, pf);
      let part: unknown;
      try {
        part = readDoc(cx, file);
      } catch {
        continue;
      }
      if (part === undefined) continue;
      for (const p of EXTRACTORS.opencode({ part, role: msg.role, summary: msg.summary === true }, ecx)) on(p, s.file, child);
    }
  }
}

/** Cursor `store.db` without a transcript: JSON message blobs (encrypted blobs do not parse and are skipped). */
function scanCursorDb(cx: Ctx, s: Session, child: boolean, on: OnPiece): void {
  const d = db(cx, s.file);
  if (!d) return;
  try {
    const f = sqlFilter(cx, 'CAST(data AS TEXT)');
    const rows = d.prepare(`SELECT data FROM blobs WHERE 1${f.sql}`).all(...f.args) as { data: Buffer | string }[];
    const ecx: ExtractCtx = { first: false, st: {} };
    for (const r of rows) {
      const t = typeof r.data === 'string' ? r.data : Buffer.from(r.data).toString('utf8');
      if (!t.startsWith('{')) continue;
      let o: unknown;
      try {
        o = JSON.parse(t);
      } catch {
        continue;
      }
      for (const p of EXTRACTORS.cursor(o, ecx)) on(p, s.file, child);
    }
    cx.stats.files++;
  } catch (err) {
    if (err === STOP) throw err;
    cx.stats.unreadable++;
  }
}

function scanSession(cx: Ctx, s: Session, child: boolean, on: OnPiece): void {
  const f = s.file;
  try {
    if (s.harness === 'opencode' && /\.db$/.test(f)) return scanOpencodeDb(cx, s, child, on);
    if (s.harness === 'opencode' && f.endsWith('.json')) return scanOpencodeLegacy(cx, s, child, on);
    if (s.harness === 'cursor' && /\.db$/.test(f)) return scanCursorDb(cx, s, child, on);
    if (f.endsWith('.json')) {
      const doc = readDoc(cx, f);
      if (doc !== undefined) for (const p of EXTRACTORS[s.harness](doc, { first: true, st: {} })) on(p, f, child);
      return;
    }
    scanJsonl(cx, s.harness, f, child, on);
  } catch (err) {
    if (err === STOP) throw err;
    cx.stats.unreadable++;
  }
}

function scanChildFile(cx: Ctx, harness: Harness, f: string, on: OnPiece): void {
  try {
    if (f.endsWith('.json')) {
      const doc = readDoc(cx, f);
      if (doc !== undefined) for (const p of EXTRACTORS[harness](doc, { first: true, st: {} })) on(p, f, true);
      return;
    }
    scanJsonl(cx, harness, f, true, on);
  } catch (err) {
    if (err === STOP) throw err;
    cx.stats.unreadable++;
  }
}

// ---------------------------------------------------------------------------------------------
// Scoring

function hitScore(h: Omit<Hit, 'score' | 'text'>, K: number): number {
  let s = W[h.role] * (h.k / K) ** 2;
  if (h.write && h.k === K) s += 2;
  if (h.firstPrompt && h.k === K) s += 2;
  if (h.summary) s *= 0.4;
  if (h.child) s *= 0.85;
  if (h.copied) s *= 0.2;
  return s;
}

/** A 53-bit hash of the role and the start of the text (whitespace folded): duplicates are skipped. */
function pieceKey(p: Piece): number {
  const t = p.role + '\u0000' + p.text.slice(0, 400).replace(/\s+/g, ' ').trim();
  let a = 0x811c9dc5;
  let b = 5381;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = (Math.imul(b, 33) + c) | 0;
  }
  return (a >>> 0) * 0x200000 + (b & 0x1fffff);
}

/** duplicate detection stops growing past this many pieces per group (memory stays bounded) */
const MAX_KEYS = 200_000;

function isFirstPrompt(s: Session, text: string): boolean {
  if (!s.firstPrompt) return false;
  const a = promptText(text);
  const b = s.firstPrompt;
  const n = Math.min(a.length, b.length, 200);
  return n > 0 && a.slice(0, n) === b.slice(0, n);
}

function collect(g: Group, terms: Term[], p: Piece, file: string, child: boolean, member: Session, memberIsChild: boolean): void {
  const mask = termMask(terms, p.text);
  if (!mask) return;
  const key = pieceKey(p);
  if (g.keys.has(key)) return;
  if (g.keys.size < MAX_KEYS) g.keys.add(key);
  g.mask |= mask;
  g.nHits++;
  const K = Math.min(terms.length, 31);
  const inChild = child || memberIsChild;
  // the first user line of a subagent or child is the task it was given
  const role: Role = inChild && p.role === 'user' ? 'task' : p.role;
  const h = {
    role,
    mask,
    k: bits(mask),
    file,
    child: inChild,
    copied: !!p.copied,
    summary: !!p.summary,
    write: !!p.write,
    firstPrompt: !inChild && role === 'user' && !p.copied && isFirstPrompt(member, p.text),
    key,
  };
  const score = hitScore(h, K);
  if (g.hits.length >= KEEP && score <= g.hits[g.hits.length - 1]!.score) return enough(g, K);
  const hit: Hit = { ...h, score, text: excerpt(p.text, terms) };
  g.hits.push(hit);
  g.hits.sort((a, b) => b.score - a.score);
  if (g.hits.length > KEEP) g.hits.length = KEEP;
  enough(g, K);
}

/**
 * Two prompts with every term, the session already the original work (the first request, a write
 * or a task has them all) and 20 hits: no later piece can raise the score (only the first prompt
 * scores above a prompt, and it comes first) or change original/follow-up. Stop reading.
 */
function enough(g: Group, K: number): void {
  const full = K >= 31 ? 0x7fffffff : (1 << K) - 1;
  if (g.mask === full && g.nHits >= 20 && g.hits.length >= 2 && g.hits[1]!.score >= NEXT_HIT && originLevel(g, K) >= 2) throw STOP;
}

function groupScore(g: Group): number {
  const [a, b] = g.hits;
  return (a?.score ?? 0) + 0.3 * (b?.score ?? 0) + 0.05 * Math.min(20, g.nHits);
}

/** 3: the tool call that wrote it or the task (delegated here, or received by a subagent) that asked for it; 2: the first request; 1: a later request; 0: only mentioned */
function originLevel(g: Group, K: number): number {
  let lvl = 0;
  for (const h of g.hits) {
    if (h.k !== K || h.copied || h.summary) continue;
    if ((h.role === 'tool-call' && h.write) || h.role === 'task') lvl = Math.max(lvl, 3);
    else if (h.firstPrompt) lvl = Math.max(lvl, 2);
    else if (h.role === 'user') lvl = Math.max(lvl, 1);
  }
  return lvl;
}

// ---------------------------------------------------------------------------------------------

export interface ScanOut {
  groups: { key: string; mask: number; hits: Hit[]; nHits: number; keys: number[] | null }[];
  stats: SearchStats;
}

/**
 * Scan groups (in this thread). `needKeys`: root keys whose piece hashes are wanted back (sources
 * of forks among the groups). Used by `search` directly and by its worker threads.
 */
export function scanGroups(groups: Group[], terms: Term[], needKeys: Set<string>): ScanOut {
  const stats: SearchStats = { sessions: 0, files: 0, bytes: 0, hugeLines: 0, unreadable: 0 };
  const needles = allNeedles(terms);
  const ascii = terms.map((t) => t.needles.filter((n) => /^[\x20-\x7e]+$/.test(n)));
  const sqlNeedles = ascii.every((a) => a.length > 0) ? [...new Set(ascii.flat())] : null;
  const cx: Ctx = { terms, needles, sqlNeedles, stats, dbs: new Map() };
  try {
    for (const g of groups) {
      // a subagent transcript can be a session of its own (a member) and be named by its parent too
      const done = new Set<string>();
      try {
        for (const m of g.members) {
          stats.sessions++;
          const memberIsChild = m !== g.root;
          const on: OnPiece = (p, file, child) => collect(g, terms, p, file, child, m, memberIsChild);
          const sqlite = /\.db$/.test(m.file);
          if (sqlite || !done.has(m.file)) scanSession(cx, m, memberIsChild, on);
          done.add(m.file);
        }
        for (const m of g.members) {
          const on: OnPiece = (p, file, child) => collect(g, terms, p, file, child, m, true);
          for (const f of childFiles(m)) {
            if (done.has(f)) continue;
            done.add(f);
            scanChildFile(cx, m.harness, f, on);
          }
        }
      } catch (err) {
        if (err !== STOP) throw err;
      }
    }
  } finally {
    for (const d of cx.dbs.values()) d?.close();
  }
  return {
    groups: groups
      .filter((g) => g.mask !== 0)
      .map((g) => ({ key: g.root.key, mask: g.mask, hits: g.hits, nHits: g.nHits, keys: needKeys.has(g.root.key) ? [...g.keys] : null })),
    stats,
  };
}

export interface SearchOptions {
  /** the search worker script; without it (or for a small corpus) everything runs in this thread */
  workerFile?: string;
  threads?: number;
}

/** bytes below which starting worker threads costs more than it saves */
const PARALLEL_MIN_BYTES = 48 << 20;

function sizeOf(g: Group): number {
  let n = 0;
  for (const m of g.members) {
    try {
      n += fs.statSync(m.file).size;
    } catch {
      /* gone */
    }
  }
  return n;
}

async function scanParallel(groups: Group[], terms: Term[], needKeys: Set<string>, opts: SearchOptions): Promise<ScanOut> {
  const sizes = new Map(groups.map((g) => [g, sizeOf(g)]));
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  const minBytes = process.env.RESUME_PARALLEL_MIN_BYTES != null ? Number(process.env.RESUME_PARALLEL_MIN_BYTES) : PARALLEL_MIN_BYTES;
  const threads = Math.min(opts.threads ?? 1, 8, groups.length);
  if (!opts.workerFile || threads < 2 || total < minBytes || !fs.existsSync(opts.workerFile)) return scanGroups(groups, terms, needKeys);
  const { Worker } = await import('node:worker_threads');
  // largest first, in batches of about 1/(4·threads) of the bytes, so the workers finish together
  const order = [...groups].sort((a, b) => sizes.get(b)! - sizes.get(a)!);
  const batches: Group[][] = [];
  const target = Math.max(1, total / (threads * 4));
  let cur: Group[] = [];
  let curBytes = 0;
  for (const g of order) {
    cur.push(g);
    curBytes += sizes.get(g)!;
    if (curBytes >= target) {
      batches.push(cur);
      cur = [];
      curBytes = 0;
    }
  }
  if (cur.length) batches.push(cur);
  const out: ScanOut = { groups: [], stats: { sessions: 0, files: 0, bytes: 0, hugeLines: 0, unreadable: 0 } };
  const wire = terms.map((t) => ({ text: t.text, phrase: t.phrase }));
  const need = [...needKeys];
  let next = 0;
  const merge = (m: ScanOut) => {
    out.groups.push(...m.groups);
    for (const k of Object.keys(out.stats) as (keyof SearchStats)[]) out.stats[k] += m.stats[k];
  };
  // This thread scans too (one worker fewer to start), yielding between batches so the workers'
  // results are taken in and they are fed again.
  const here = async () => {
    while (next < batches.length) {
      const b = batches[next++]!;
      merge(scanGroups(b, terms, needKeys));
      await new Promise((r) => setImmediate(r));
    }
  };
  const workers = Array.from({ length: threads - 1 }, () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(opts.workerFile!);
        const feed = () => {
          if (next >= batches.length) {
            w.postMessage(null);
            return;
          }
          const b = batches[next++]!;
          w.postMessage({ terms: wire, need, groups: b.map((g) => ({ root: g.root, members: g.members })) });
        };
        w.on('message', (m: ScanOut) => {
          merge(m);
          feed();
        });
        w.on('error', reject);
        w.on('exit', () => resolve());
        feed();
      }),
  );
  // started after the workers were handed their first batches
  await Promise.all([...workers, here()]);
  return out;
}

/** A group as a worker receives it, ready to scan. */
/** What the index knows of a session, as one searchable line: title, branch, directory, repository, harness, id. */
export function metadataText(s: Session): string {
  const repo = s.cwd ? s.cwd.split('/').filter(Boolean).pop() : null;
  // a title that is only the first prompt is in the transcript already (and copied, in a fork)
  const title = s.title && s.title !== s.firstPrompt ? s.title : null;
  return [title ? `title: ${title}` : '', s.branch ? `branch: ${s.branch}` : '', s.cwd ? `directory: ${s.cwd}` : '', repo ? `repository: ${repo}` : '', `${s.harness} ${s.id}`]
    .filter(Boolean)
    .join(' · ');
}

export function newGroup(root: Session, members: Session[]): Group {
  return { root, members, mask: 0, hits: [], nHits: 0, keys: new Set() };
}

export async function search(all: Session[], terms: Term[], filters: SearchFilters, opts: SearchOptions = {}): Promise<{ results: Result[]; stats: SearchStats }> {
  await loadExtractors();
  const K = Math.min(terms.length, 31);
  const full = K >= 31 ? 0x7fffffff : (1 << K) - 1;
  const groups = [...groupSessions(all).values()].filter((g) => passes(g.root, filters));
  const needKeys = new Set(groups.filter((g) => g.root.forkedFrom).map((g) => `${g.root.harness}:${g.root.forkedFrom}`));
  const scanned = await scanParallel(groups, terms, needKeys, opts);
  const stats = scanned.stats;
  const byRoot = new Map(groups.map((g) => [g.root.key, g]));
  for (const o of scanned.groups) {
    const g = byRoot.get(o.key);
    if (!g) continue;
    g.mask = o.mask;
    g.hits = o.hits;
    g.nHits = o.nHits;
    if (o.keys) g.keys = new Set(o.keys);
  }
  // Metadata is evidence too: the title (harness-stored names included), branch, directory and
  // repository name the index knows, matched like a piece of the transcript.
  for (const g of groups) {
    try {
      collect(g, terms, { role: 'metadata', text: metadataText(g.root) }, g.root.file, false, g.root, false);
    } catch (err) {
      if (err !== STOP) throw err;
    }
  }
  const found = groups.filter((g) => (g.mask & full) === full && g.hits.length > 0);

  // A fork's copies of its source's turns: text the source has too counts as copied in the fork.
  const byKey = new Map(found.map((g) => [g.root.key, g]));
  for (const g of found) {
    const from = g.root.forkedFrom ? byKey.get(`${g.root.harness}:${g.root.forkedFrom}`) : undefined;
    if (!from || from === g) continue;
    for (const h of g.hits) {
      if (!h.copied && from.keys.has(h.key)) {
        h.copied = true;
        h.firstPrompt = false;
        h.score = hitScore(h, K);
      }
    }
    g.hits.sort((a, b) => b.score - a.score);
  }

  const levels = new Map(found.map((g) => [g, originLevel(g, K)]));
  const startOf = (g: Group) => g.root.started ?? g.root.updated ?? 0;
  const results: Result[] = found.map((g) => {
    const lvl = levels.get(g)!;
    // a later request that names the same thing is a follow-up of an earlier one that did
    const original = lvl >= 2 || (lvl === 1 && !found.some((o) => o !== g && levels.get(o)! >= 1 && startOf(o) < startOf(g)));
    const best = g.hits[0]!;
    const confidence: Confidence =
      best.k === K && !best.copied && original && (best.role === 'user' || best.role === 'task' || best.role === 'tool-call')
        ? 'high'
        : best.k === K && !best.copied && best.role !== 'tool-output'
          ? 'medium'
          : 'low';
    const ev: Hit[] = [best];
    const second = g.hits.find((h) => h !== best && (h.role !== best.role || h.file !== best.file)) ?? g.hits[1];
    if (second) ev.push(second);
    return {
      session: g.root,
      score: Math.round((groupScore(g) + (original ? 6 : 0)) * 100) / 100,
      original,
      confidence,
      evidence: ev.map((h) => ({ role: h.role, file: h.file, child: h.child && h.file !== g.root.file, copied: h.copied, snippet: makeSnippet(h.text, terms) })),
    };
  });
  results.sort((a, b) => {
    const d = Math.round(b.score * 10) - Math.round(a.score * 10);
    if (d !== 0) return d;
    return (b.session.updated ?? b.session.started ?? 0) - (a.session.updated ?? a.session.started ?? 0);
  });
  return { results, stats };
}

