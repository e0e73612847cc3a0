// The offset index. For every source under the roots: size, mtime and inode unchanged → reuse the
// entry without opening the file; grown (and the bytes before the old offset unchanged) → parse only
// the new complete lines; shrunk or rewritten → parse from byte 0; gone → drop.
//
// Files in the cache directory, each written atomically (temp file + rename, mode 0600):
//   list.json        — what a listing needs: the stat of every source and the final sessions.
//                      A no-change run reads only this file and stats the sources.
//   state/NN.json    — per source: offset, parser state (to continue an append), per-source
//                      sessions; sharded by a hash of the path into SHARDS files, so an append
//                      reads and rewrites one small shard, not the state of every source.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Adapter, Ctx, Harness, LineState, Root, Session, SessionCore, Source } from '../types.js';
import { ADAPTERS } from '../harness/registry.js';
import { cacheDir } from '../util/paths.js';
import { runJob, type Job, type JobResult } from './parse.js';
import { tailMatches } from './lines.js';

/** Bump when any parser changes what it extracts: older caches are discarded and rebuilt. */
export const INDEX_VERSION = 10;

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

interface ListFile {
  v: number;
  files: Record<string, [number, number, number, string]>;
  sessions: Session[];
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
  /** parser state per source path (only when a rebuild or change loaded it, or when asked) */
  entries?: Record<string, Entry>;
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
   * Called as each changed source of a `perSource` harness is parsed, with its sessions, newest
   * files first: the picker shows rows while a cold index is still being built. The final, sorted
   * list is the result as always.
   */
  onSessions?: (sessions: Session[]) => void;
}

function statOf(p: string): fs.Stats | null {
  try {
    return fs.statSync(p);
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

export function writeAtomic(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    fs.writeFileSync(tmp, data, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch (err) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw err;
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

export function indexFiles(ctx: Ctx): { list: string; state: string; dir: string } {
  const dir = cacheDir(ctx);
  return { dir, list: path.join(dir, 'list.json'), state: path.join(dir, 'state') };
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
  const by = new Map<number, Record<string, Entry>>();
  for (const n of which) by.set(n, {});
  for (const [p, e] of Object.entries(entries)) {
    const m = by.get(shardOf(p));
    if (m) m[p] = e;
  }
  for (const [n, es] of by) writeAtomic(shardFile(stateDir, n), JSON.stringify({ v: INDEX_VERSION, entries: es } satisfies StateFile));
}

interface Found {
  src: Source;
  stat: Stat;
}

function discoverAll(ctx: Ctx, adapters: Adapter<any>[], skipped: Skipped): { found: Found[]; roots: Map<Harness, Root[]> } {
  const found: Found[] = [];
  const roots = new Map<Harness, Root[]>();
  const seen = new Set<string>();
  for (const a of adapters) {
    let rs: Root[] = [];
    try {
      rs = a.roots(ctx);
    } catch {
      rs = [];
    }
    roots.set(a.name, rs);
    let srcs: Source[] = [];
    try {
      srcs = a.discover(ctx, rs.filter((r) => r.exists));
    } catch (err) {
      skipped.failed[a.name] = err instanceof Error ? err.message : String(err);
    }
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
      found.push({ src, stat: { size: st.size, mtime: st.mtimeMs, ino: st.ino, sig: depSig(src.deps) } });
    }
  }
  return { found, roots };
}

function sameStat(a: Stat, b: [number, number, number, string] | Stat | undefined): boolean {
  if (!b) return false;
  if (Array.isArray(b)) return a.size === b[0] && a.mtime === b[1] && a.ino === b[2] && a.sig === b[3];
  return a.size === b.size && a.mtime === b.mtime && a.ino === b.ino && a.sig === b.sig;
}

/** Bring the index up to date and return every session (hidden ones included), newest first. */
export async function updateIndex(ctx: Ctx, opts: IndexOptions = {}): Promise<IndexResult> {
  const files = indexFiles(ctx);
  const adapters = opts.harnesses ? ADAPTERS.filter((a) => opts.harnesses!.includes(a.name)) : ADAPTERS;
  const skipped: Skipped = { notRegular: 0, unreadable: 0, failed: {} };
  const { found, roots } = discoverAll(ctx, adapters, skipped);
  const counts = { sources: found.length, parsed: 0, appended: 0, reused: 0, dropped: 0, bytes: 0 };

  // Fast path: nothing changed since the last run → the stored listing, no transcript opened.
  const list = opts.rebuild ? null : readJson<ListFile>(files.list);
  const validList = !!(list && list.v === INDEX_VERSION && list.files && typeof list.files === 'object' && Array.isArray(list.sessions));
  if (validList && !opts.harnesses) {
    const keys = Object.keys(list!.files);
    if (keys.length === found.length && found.every((f) => sameStat(f.stat, list!.files[f.src.path]))) {
      counts.reused = found.length;
      const res: IndexResult = { sessions: list!.sessions, skipped: mergeSkipped(skipped, list!.skipped), counts, roots, changed: false };
      if (opts.withEntries) res.entries = loadShards(files.state, allShards());
      return res;
    }
  }

  // What changed: new or modified sources, and sources gone since the stored listing.
  const changedPaths = new Set<string>();
  for (const f of found) if (!validList || !sameStat(f.stat, list!.files[f.src.path])) changedPaths.add(f.src.path);
  const foundPaths = new Set(found.map((f) => f.src.path));
  const gonePaths = validList ? Object.keys(list!.files).filter((p) => !foundPaths.has(p)) : [];
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

  const statByPath = new Map(found.map((f) => [f.src.path, f.stat]));
  const jobByPath = new Map(jobs.map((j) => [j.src.path, j]));
  const results = await runJobs(jobs, ctx, opts, new Map(found.map((f) => [f.src.path, f.stat.mtime])));
  for (const r of results) {
    const job = jobByPath.get(r.path)!;
    const st = statByPath.get(r.path)!;
    entries[r.path] = {
      ...st, src: job.src, offset: r.offset, tail: r.tail, state: r.state, sessions: r.sessions,
      ...(r.error ? { error: r.error } : {}),
    };
    if (r.error) skipped.failed[job.src.harness] = r.error;
  }

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
  } else {
    sessions = finishAll(ctx, entries);
  }

  const listOut: ListFile = {
    v: INDEX_VERSION,
    files: Object.fromEntries(found.map((f) => [f.src.path, [f.stat.size, f.stat.mtime, f.stat.ino, f.stat.sig]])),
    sessions,
    skipped,
    built: Date.now(),
  };
  const changed = jobs.length > 0 || counts.dropped > 0 || !validList;
  try {
    writeShards(files.state, entries, shardsNeeded);
    // the single state file of earlier versions
    if (!partial) fs.rmSync(path.join(files.dir, 'state.json'), { force: true });
    if (!opts.harnesses) writeAtomic(files.list, JSON.stringify(listOut));
  } catch (err) {
    // A cache we cannot write only costs speed next time.
    if (process.env.RESUME_DEBUG) process.stderr.write(`resume: cannot write index: ${(err as Error).message}\n`);
  }
  return { sessions, skipped, counts, roots, changed, ...(partial ? {} : { entries }) };
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

/** Per-harness cross-source pass, keys, newest first. */
export function finishAll(ctx: Ctx, entries: Record<string, Entry>): Session[] {
  const out: Session[] = [];
  for (const a of ADAPTERS) {
    const mine = Object.values(entries).filter((e) => e.src?.harness === a.name);
    let ss: SessionCore[] = mine.flatMap((e) => e.sessions ?? []);
    if (a.finish) {
      const states = new Map(mine.map((e) => [e.src.path, { src: e.src, state: e.state }]));
      try {
        ss = a.finish(ss, ctx, states);
      } catch {
        /* keep the unfinished list rather than none */
      }
    }
    const seen = new Set<string>();
    for (const s of ss) {
      const key = `${s.harness}:${s.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...s, key });
    }
  }
  out.sort(byRecency);
  return out;
}

export function byRecency(a: SessionCore, b: SessionCore): number {
  const x = a.updated ?? a.started ?? 0;
  const y = b.updated ?? b.started ?? 0;
  if (x !== y) return y - x;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const PARALLEL_MIN_BYTES = 16 << 20;

async function runJobs(jobs: Job[], ctx: Ctx, opts: IndexOptions, mtimes: Map<string, number> = new Map()): Promise<JobResult[]> {
  if (jobs.length === 0) return [];
  const total = jobs.reduce((n, j) => n + (j.size - j.from), 0);
  const minBytes = process.env.RESUME_PARALLEL_MIN_BYTES != null ? Number(process.env.RESUME_PARALLEL_MIN_BYTES) : PARALLEL_MIN_BYTES;
  const threads = Math.min(
    Number(process.env.RESUME_THREADS) || (os.availableParallelism ? os.availableParallelism() : os.cpus().length),
    jobs.length,
    8,
  );
  // Largest first keeps the workers evenly busy; newest first when sessions are shown as they come.
  const order = opts.onSessions
    ? [...jobs].sort((a, b) => (mtimes.get(b.src.path) ?? 0) - (mtimes.get(a.src.path) ?? 0))
    : [...jobs].sort((a, b) => b.size - b.from - (a.size - a.from));
  let done = 0;
  let doneFiles = 0;
  // Harnesses whose sessions each come from one source stream as they are parsed; a finish pass
  // (Claude: forks) corrects them in the finished list.
  const streams = new Set(ADAPTERS.filter((a) => a.perSource).map((a) => a.name));
  const tick = (j: Job, r: JobResult) => {
    done += j.size - j.from;
    doneFiles++;
    opts.progress?.(done, total, doneFiles, jobs.length);
    if (opts.onSessions && streams.has(j.src.harness) && r.sessions.length) {
      opts.onSessions(r.sessions.map((s) => ({ ...s, key: `${s.harness}:${s.id}` })));
    }
  };
  if (!opts.workerFile || threads < 2 || total < minBytes || !fs.existsSync(opts.workerFile)) {
    const out: JobResult[] = [];
    for (const j of order) {
      const r = await runJob(j, ctx);
      out.push(r);
      tick(j, r);
      // let the caller write what it was handed before the next file is read
      if (opts.onSessions) await new Promise((res) => setImmediate(res));
    }
    return out;
  }
  const { Worker } = await import('node:worker_threads');
  const out: JobResult[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: threads }, () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(opts.workerFile!, { workerData: { env: ctx.env } });
        let current: Job | null = null;
        const feed = () => {
          if (next >= order.length) {
            current = null;
            w.postMessage(null);
            return;
          }
          current = order[next++]!;
          w.postMessage({ id: next, job: current });
        };
        w.on('message', (m: { res: JobResult }) => {
          out.push(m.res);
          if (current) tick(current, m.res);
          feed();
        });
        w.on('error', reject);
        w.on('exit', () => resolve());
        feed();
      }),
    ),
  );
  return out;
}
