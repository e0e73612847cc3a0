// The index. Every source under the roots is discovered and stat'ed; when the stats are exactly
// those check.bin recorded, rows.bin (or the database's listing) of that build is the answer and no
// transcript is opened (lib/index/check.ts). Otherwise one builder at a time (the database's write
// lock) brings the database up to date in one transaction:
//   - a source with the same size, mtime and inode is kept without opening it;
//   - a grown one (same inode, the bytes before the stored offset unchanged) is parsed from its
//     stored offset, continuing its stored parser state; a shrunk or rewritten one from byte 0;
//   - a gone one is dropped.
// Then the sessions of each harness a change touched are made again: a harness whose sessions come
// from their own file alone replaces only those files' sessions; one with a finish pass over every
// file (titles from side files, forks) runs it again over its stored entries, unless it can say
// which files the change reaches (`finish.some`) or, for a harness whose pass relates sessions by
// link key alone (`finish.byLink`), the changed files share no link key with any other. Short ids
// change only when the set of sessions does. After the commit, rows.bin and check.bin are written
// from the database, check.bin last: it names the build.
// A run killed at any point leaves the last commit; check.bin or rows.bin of another build than the
// database's are written again by the next run that finds them so.
import fs from 'node:fs';
import path from 'node:path';
import { ExitError } from '../errors.js';
import { ADAPTERS } from '../harness/registry.js';
import { shortIds, shortOf } from '../select/filter.js';
import type { Adapter, Ctx, Finish, Harness, LineState, Root, Session, SessionCore, Source } from '../types.js';
import { makeDir, removeFile, writeCacheFile } from '../util/fsx.js';
import { HeapGuard } from '../util/gc.js';
import { nodeOs } from '../util/lazy.js';
import { sanitizeSession } from '../util/redact.js';
import {
  checkId,
  type Discovered,
  discoverCached,
  type Found,
  keepDirs,
  lastStoredCheck,
  matchCheck,
  recheck,
  type StoredCheck,
  samePaths,
  sameStat,
  segmentChanges,
  storedStats,
  writeCheck,
} from './check.js';
import { type IndexFiles, indexFiles, OLD_NAMES, type Skipped } from './files.js';
import { tailMatches } from './lines.js';
import { carryMap } from './mapstamp.js';
import { type Job, type JobResult, runJob } from './parse.js';
import { closeRowBin, mergeRecords, openRowBin, type RowBin, readRowBin, rowBinHead, rowRecord } from './rowbin.js';
import { KEPT_NAMES } from './rowsout.js';
import type { Db, Entry } from './store.js';
import * as store from './store.js';
import { byRecency, Links, OrderedStream, planOrder } from './stream.js';

export { checkedStats, checkId, storedFiles, storedSizes } from './check.js';
export { INDEX_VERSION, type IndexFiles, indexFiles, type Skipped } from './files.js';
export { byRecency };

/**
 * What a listing row needs of a session. `short` is the id's shortest unique prefix among all
 * sessions (`shortIds` of the whole listing), kept with the session in the database.
 */
export type ListedSession = Pick<
  Session,
  'key' | 'id' | 'harness' | 'cwd' | 'title' | 'firstPrompt' | 'branch' | 'started' | 'updated' | 'hidden' | 'hiddenReason' | 'prompts'
> & { short: string };

export function listed(s: Session, short: string): ListedSession {
  return {
    key: s.key,
    id: s.id,
    short,
    harness: s.harness,
    cwd: s.cwd,
    title: s.title,
    // the row shows the title when there is one (kept when it is the prompt: a snapshot name may replace it)
    firstPrompt: s.title && s.title !== s.firstPrompt ? null : s.firstPrompt,
    branch: s.branch,
    started: s.started,
    updated: s.updated,
    hidden: s.hidden,
    hiddenReason: s.hiddenReason,
    prompts: s.prompts,
  };
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
  /** short ids of every session, when this run knows them */
  shorts?: Map<string, string>;
}

/** `listSessions`: what `rows` needs. */
export interface ListingResult extends Omit<IndexResult, 'sessions' | 'entries'> {
  sessions: ListedSession[];
  /** with `rowBin` asked: the rendered rows (rows.bin), and `sessions` empty */
  rowBin?: RowBin;
  /** `printed` printed the rows (nothing changed), and `sessions` is empty */
  printed?: boolean;
}

export interface IndexOptions {
  rebuild?: boolean;
  /** restrict to these harnesses (discovery and parsing of others is skipped; their entries are kept) */
  harnesses?: Harness[];
  /** worker file for parallel parsing; without it everything is parsed on the main thread */
  workerFile?: string;
  /** called with (done, total) bytes while parsing, for a progress bar */
  progress?: (done: number, total: number, files: number, totalFiles: number) => void;
  /** load the per-source entries into the result (doctor) */
  withEntries?: boolean;
  /**
   * A build from an empty database streams the finished list through this, in batches whose
   * concatenation is exactly the result's sessions, in order, while files are still being read
   * (lib/index/stream.ts). An update of a stored index never calls it.
   */
  onSessions?: (sessions: Session[]) => void;
  /** listSessions: hand back rows.bin (rendered rows) instead of the sessions when it can */
  rowBin?: boolean;
  /** With `rowBin`, on a no-change run, before rows.bin is opened: print the rows of build `id` some other way (rows.out), true when done. */
  printed?: (files: IndexFiles, id: string) => boolean;
}

/** A session's key in the listing: `harness:id`. */
const keyOf = (s: SessionCore) => `${s.harness}:${s.id}`;

/** The state kept of a source once it is written, when nothing in the run reads it again (one object for all). */
const NO_STATE: LineState = Object.freeze({}) as LineState;

/** An adapter whatever its state's type (the index handles every state as LineState). */
type AnyAdapter = Adapter<LineState>;
const adapterOf = (h: string): AnyAdapter | undefined => ADAPTERS.find((a) => a.name === h);

/** Is there a stored listing of this index version? For callers that must know whether a run will be cold before starting it. */
export function haveListing(ctx: Ctx): boolean {
  return checkId(indexFiles(ctx).check) !== null;
}

/** Bring the index up to date and return every session (hidden ones included), newest first. */
export async function updateIndex(ctx: Ctx, opts: IndexOptions = {}): Promise<IndexResult> {
  return (await update(ctx, opts, 'full')) as IndexResult;
}

/** Bring the index up to date and return what a listing row needs of every session (hidden ones included), newest first. */
export async function listSessions(ctx: Ctx, opts: Omit<IndexOptions, 'withEntries'> = {}): Promise<ListingResult> {
  const r = await update(ctx, opts, 'rows');
  const first = r.sessions[0];
  if (first && !('short' in first)) r.sessions = toListed(r.sessions as Session[], (r as IndexResult).shorts);
  delete (r as IndexResult).entries;
  delete (r as IndexResult).shorts;
  return r as ListingResult;
}

/** Whole sessions as listing rows (short ids computed over all of them unless known). */
export function toListed(sessions: Session[], known?: Map<string, string>): ListedSession[] {
  const shorts = known ?? shortIds(sessions);
  return sessions.map((s) => listed(s, shorts.get(s.id) ?? s.id));
}

type AnyResult = Omit<IndexResult, 'sessions'> & { sessions: Session[] | ListedSession[]; rowBin?: RowBin; printed?: boolean };

/** Builds this process began, and of those, ones that only appended to sources of per-file harnesses. */
let builds = 0;
let appends = 0;
/** What this process did to the index: found it up to date, only appended, or built (parsed) it otherwise. */
export const indexWork = (): 'none' | 'append' | 'build' => (builds > appends ? 'build' : appends > 0 ? 'append' : 'none');

async function update(ctx: Ctx, opts: IndexOptions, want: 'full' | 'rows'): Promise<AnyResult> {
  const files = indexFiles(ctx);
  const asked = Date.now();
  const fast = opts.rebuild ? null : tryFast(ctx, opts, want, files);
  if (fast && 'sessions' in fast) return fast;
  builds++;
  const db = openDb(files);
  try {
    // one builder at a time: this waits while another holds the write lock
    db.exec('BEGIN IMMEDIATE');
    let rebuild = !!opts.rebuild;
    // a rebuild asked for while another ran is satisfied by a build that began after the request
    if (rebuild && Number(store.getMeta(db, 'began')) >= asked) rebuild = false;
    return await build({ ctx, opts: { ...opts, rebuild }, files, want, db }, fast ?? undefined);
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
  }
}

/** The database to write; without a usable cache directory, one in memory (nothing is kept). */
function openDb(files: IndexFiles): Db {
  try {
    makeDir(files.dir);
    return store.openWrite(files.db);
  } catch (err) {
    // (no engine at all is the user's to fix, not a cache directory to do without)
    if (err instanceof ExitError) throw err;
    debugWrite(err);
    return store.openWrite(':memory:');
  }
}

interface Discovery {
  sources: Discovered;
  skipped: Skipped;
  /** the check.bin read */
  stored: StoredCheck | null;
}

/**
 * The no-change run: discovery and stats match check.bin, and rows.bin or the database's listing
 * of that build is the answer. Otherwise the discovery, for the builder.
 */
function tryFast(ctx: Ctx, opts: IndexOptions, want: 'full' | 'rows', files: IndexFiles): AnyResult | Discovery | null {
  if (opts.harnesses) return null;
  const skipped: Skipped = { notRegular: 0, unreadable: 0, failed: {} };
  const stored = recheck(files.check, lastStoredCheck(files.check));
  const d = discoverCached(ctx, ADAPTERS, skipped, { files, fresh: false, stored });
  const { roots, meta, metaChanged } = d;
  const id = matchCheck(stored, d);
  // (the listings discovery read: written by the build that follows, else here)
  if (!id) return { sources: d, skipped, stored };
  if (d.listings) keepDirs(files, d.listings);
  if (metaChanged) {
    // the same sources, and a discovery memo made or dropped: recorded for the next run
    try {
      writeCheck(files.check, id, { sources: d.found, meta });
    } catch {
      /* only costs speed */
    }
  }
  const counts = { sources: d.count, parsed: 0, appended: 0, reused: d.count, dropped: 0, bytes: 0 };
  if (want === 'rows' && opts.rowBin) {
    if (opts.printed?.(files, id)) return { sessions: [], printed: true, skipped, counts, roots, changed: false };
    const bin = openRowBinFile(files.rowbin, id, ctx.home);
    if (bin) return { sessions: [], rowBin: bin, skipped, counts, roots, changed: false };
  }
  const db = store.openRead(files.db);
  if (!db) return { sources: d, skipped, stored };
  try {
    // check.bin of another build than the database's: the builder finds what changed and writes it again
    if (store.getMeta(db, 'build') !== id) return { sources: d, skipped, stored };
    const res = answer(ctx, db, want, opts, { skipped, counts, roots, changed: false });
    if (want === 'rows' && opts.rowBin && !res.rowBin) {
      // rows.bin missing, damaged or of another home: written again from the database
      writeRowBin(files, db, id, ctx.home);
      const bin = openRowBinFile(files.rowbin, id, ctx.home);
      if (bin) return { ...res, sessions: [], rowBin: bin };
    }
    return res;
  } finally {
    db.close();
  }
}

/** What this run skipped, with the failures of every stored source (a failure stands until its file changes). */
function withFailures(db: Db, skipped: Skipped): Skipped {
  return { ...skipped, failed: { ...store.failures(db), ...skipped.failed } };
}

/** The result of a run from the database as it stands: rows.bin when asked and there, else the sessions. */
function answer(ctx: Ctx, db: Db, want: 'full' | 'rows', opts: IndexOptions, r: Omit<AnyResult, 'sessions'>): AnyResult {
  const out: AnyResult = { ...r, skipped: withFailures(db, r.skipped), sessions: [] };
  if (want === 'rows') {
    const id = store.getMeta(db, 'build');
    const bin = opts.rowBin && id ? openRowBinFile(indexFiles(ctx).rowbin, id, ctx.home) : null;
    if (bin) out.rowBin = bin;
    else out.sessions = store.allRows(db).map(({ session, short }) => listed(session, short));
  } else {
    const rows = store.allRows(db);
    out.sessions = rows.map((x) => x.session);
    out.shorts = new Map(rows.map((x) => [x.session.id, x.short]));
  }
  if (opts.withEntries) out.entries = Object.fromEntries(store.harnessEntries(db, null));
  return out;
}

/** rows.bin of the build check.bin names, whole and of this home, not checked against any source; null when there is none. */
export function lastRowBin(ctx: Ctx): RowBin | null {
  const files = indexFiles(ctx);
  const id = checkId(files.check);
  return id ? openRowBinFile(files.rowbin, id, ctx.home) : null;
}

/** openRowBin when the file is whole and of this build and home (read a window at a time); null otherwise. */
function openRowBinFile(file: string, id: string, home: string): RowBin | null {
  const r = openRowBin(file);
  if (r && r.id === id && r.home === home) return r;
  if (r) closeRowBin(r);
  return null;
}

/**
 * rows.bin of build `id`: from the last one and the records `redone` names when it can be, else from
 * the database's records; removed when a record is missing (an id rows.bin cannot hold).
 */
function writeRowBin(files: IndexFiles, db: Db, id: string, home: string, redone?: Redone | null): void {
  try {
    const recs = store.getMeta(db, 'home') !== home ? null : ((redone && recordsAfter(files, db, home, redone)) ?? allRecords(db));
    if (recs) writeCacheFile(files.rowbin, [rowBinHead(id, home, recs.count), ...recs.parts]);
    else removeFile(files.rowbin);
  } catch (err) {
    debugWrite(err);
  }
}

/** The sessions a build put, dropped or gave another short id (`keys`), and the build before it (`from`). */
interface Redone {
  from: string;
  keys: Set<string>;
}

/**
 * The records of rows.bin from the previous build's file and the changed sessions alone: at 22,000
 * sessions, reading every record back from the database (a Buffer made for each) was ~50 ms of an
 * append's ~120 ms; reading the last file and merging is ~5 ms. Null when that file is not the
 * previous build's (gone, damaged, another's) or a changed session has no record: the caller reads
 * them all from the database.
 */
function recordsAfter(files: IndexFiles, db: Db, home: string, redone: Redone): Records | null {
  let old: RowBin | null;
  try {
    old = readRowBin(fs.readFileSync(files.rowbin));
  } catch {
    return null;
  }
  if (!old || old.id !== redone.from || old.home !== home) return null;
  const now = store.sortedRecords(db, redone.keys);
  if (!now) return null;
  // (the last file holds build `from`'s sessions and `keys` names every one changed since, so the
  // count comes out right without counting the table: that was ~3.5 ms of an append at 22,000)
  return mergeRecords(old, redone.keys, now, (key) => store.keyInfo(db, key)?.id ?? null);
}

/** rows.bin's records: the parts of the file after its head line, and how many records they hold. */
interface Records {
  parts: Buffer[];
  count: number;
}

function allRecords(db: Db): Records | null {
  const parts = store.allRecords(db);
  return parts && { parts, count: parts.length };
}

/** What a build changes in the sessions table: sessions to put, keys to drop. */
interface Change {
  put: Session[];
  drop: Set<string>;
}

/** One build's inputs and what it has found so far, handed from step to step. */
interface Build {
  ctx: Ctx;
  opts: IndexOptions;
  files: IndexFiles;
  want: 'full' | 'rows';
  db: Db;
  disc: Discovered;
  skipped: Skipped;
  counts: IndexResult['counts'];
  /** the database's build before this one; null for a build from nothing */
  had: string | null;
  /** the rows were rendered for another HOME: every row is rendered again */
  rerender: boolean;
}

/** What changed since the database's build. */
interface Changes {
  changed: Set<string>;
  gone: string[];
  /** the harness of each gone source */
  goneHarness: Map<string, string>;
  /** check.bin, when it lists exactly these sources */
  sameCheck: StoredCheck | null;
}

/** What a build is asked for. */
type BuildAsk = Pick<Build, 'ctx' | 'opts' | 'files' | 'want' | 'db'>;

async function build(ask: BuildAsk, seen?: Discovery): Promise<AnyResult> {
  const { ctx, opts, files, want, db } = ask;
  const mine = opts.harnesses;
  const adapters = mine ? ADAPTERS.filter((a) => mine.includes(a.name)) : ADAPTERS;
  // a discovery made just before this run took the lock serves (a rebuild reads every directory again)
  const d = seen && !opts.rebuild && !mine ? seen : null;
  const skipped: Skipped = d ? d.skipped : { notRegular: 0, unreadable: 0, failed: {} };
  const disc = d ? d.sources : discoverCached(ctx, adapters, skipped, { files, fresh: !!opts.rebuild, db });
  if (disc.listings) keepDirs(files, disc.listings, db);
  store.setMeta(db, 'began', String(Date.now()));
  if (opts.rebuild) store.clearHarnesses(db, mine ?? null);
  // the home rows.bin's records were rendered against; another (a moved HOME) renders them all again
  const home = store.getMeta(db, 'home');
  store.setMeta(db, 'home', ctx.home);
  const b: Build = {
    ctx,
    opts,
    files,
    want,
    db,
    disc,
    skipped,
    counts: { sources: disc.count, parsed: 0, appended: 0, reused: 0, dropped: 0, bytes: 0 },
    // (a rebuild of every harness is a build from nothing)
    had: opts.rebuild && !mine ? null : store.getMeta(db, 'build'),
    rerender: home !== null && home !== ctx.home,
  };
  const c = changesOf(b, d);
  // Nothing to do (another builder did it while this one waited, or check.bin or rows.bin is of
  // another build than the database's): they are written again from the database.
  if (b.had && c.changed.size === 0 && c.gone.length === 0 && !b.rerender) {
    b.counts.reused = disc.count;
    db.exec('COMMIT');
    if (!mine) writeOut(files, db, { id: b.had, disc, home: ctx.home, same: c.sameCheck, first: false });
    return answer(ctx, db, want, opts, { skipped, counts: b.counts, roots: disc.roots, changed: false });
  }
  const p = await parse(b, c);
  return commit(b, c, p);
}

/**
 * The sources changed and gone. When check.bin is of the database's build and lists these sources
 * in its order, only the sources whose stat bytes differ are looked at (an append of one of 22,000);
 * otherwise every source is compared with the database's.
 */
function changesOf(b: Build, d: Discovery | null): Changes {
  const { disc, had, opts } = b;
  const out: Changes = { changed: new Set(), gone: [], goneHarness: new Map(), sameCheck: null };
  const check = had && !opts.harnesses && !opts.rebuild ? recheck(b.files.check, d?.stored ?? null) : null;
  if (check && check.id === had && samePaths(check, disc, d && d.stored === check ? disc.live : null)) {
    out.sameCheck = check;
    const prev = storedStats(check, disc, true, disc.nums());
    if (prev) for (const p of prev.keys()) out.changed.add(p);
  }
  if (out.changed.size > 0) return out;
  // other sources than check.bin's (one new or gone): adapter by adapter, against its segment
  const seg = check && check.id === had && !out.sameCheck ? segmentChanges(check, disc) : null;
  if (seg) {
    for (const p of seg.changed) out.changed.add(p);
    for (const [p, h] of seg.gone) {
      out.gone.push(p);
      out.goneHarness.set(p, h);
    }
    return out;
  }
  // every stored stat: check.bin's when it is of the database's build (its names decoded, ~3x
  // faster than reading the sources table at 22,000), else the database's
  const fromCheck = check && check.id === had ? storedStats(check, disc, false) : null;
  compareAll(b, fromCheck ?? (had ? store.sourceStats(b.db) : new Map()), out);
  return out;
}

/** Every found source compared with the stored stats `prev`: the changed, and the stored ones gone, into `out`. */
function compareAll(b: Build, prev: Map<string, store.SourceStat>, out: Changes): void {
  const { disc, opts } = b;
  const found = new Set<string>();
  for (const f of disc.found) {
    found.add(f.src.path);
    if (!sameStat(f.stat, prev.get(f.src.path))) out.changed.add(f.src.path);
  }
  for (const [p, s] of prev) {
    if (found.has(p) || (opts.harnesses && !opts.harnesses.includes(s.harness as Harness))) continue;
    out.gone.push(p);
    out.goneHarness.set(p, s.harness);
  }
}

/** What parsing the changes gave: the sessions to put and drop, and the whole list when it was built from nothing. */
interface Parsed {
  change: Change;
  /** a build from nothing: every session, newest first */
  result: Session[] | null;
  jobs: Job[];
}

/** Parse the changed sources (writing each to the database as it is read), drop the gone ones, and make the sessions they change. */
async function parse(b: Build, c: Changes): Promise<Parsed> {
  const { ctx, opts, db, had, counts } = b;
  const { changed, gone } = c;
  const found = changed.size ? b.disc.pick(changed) : new Map<string, Found>();
  const old = had ? store.loadEntries(db, [...changed, ...gone]) : new Map<string, Entry>();
  const jobs: Job[] = [];
  for (const p of changed) {
    const f = found.get(p);
    if (f) jobs.push(jobFor(f, old.get(p), counts, db));
  }
  counts.reused = b.disc.count - jobs.length;
  counts.dropped = gone.length;
  for (const p of gone) store.dropSource(db, p);
  // the finish states of the changed sources of harnesses with `finish.some`, before their parse
  // continues them in place
  const before = finishStatesOf([...changed, ...gone], old);
  /** the parsed entries, slimmed once written (what the finish pass reads, sessions without prompts) */
  const entries: Record<string, Entry> = {};
  const onResult = (job: Job, r: JobResult) => {
    const st = found.get(r.path)?.stat ?? { size: job.size, mtime: 0, ino: 0, sig: '' };
    // one literal, one shape for every entry
    const e: Entry = {
      size: st.size,
      mtime: st.mtime,
      ino: st.ino,
      sig: st.sig,
      src: job.src,
      offset: r.offset,
      tail: r.tail,
      state: r.state,
      sessions: r.sessions,
    };
    if (r.error) {
      e.error = r.error;
      b.skipped.failed[job.src.harness] = r.error;
    }
    store.putSource(db, e);
    if (!opts.withEntries) slim(e);
    entries[r.path] = e;
  };
  const change: Change = { put: [], drop: new Set() };
  if (!had && opts.onSessions && !opts.harnesses) {
    // a build from nothing: streamed, newest first
    const result = await streamBuild(b, jobs, { onResult, entries }, opts.onSessions);
    return { change: { put: result, drop: change.drop }, result, jobs };
  }
  await runJobs(
    [...jobs].sort((x, y) => y.size - y.from - (x.size - x.from)),
    ctx,
    opts,
    onResult,
    false,
  );
  if (!had) {
    const result = finishAll(ctx, entries);
    return { change: { put: result, drop: change.drop }, result, jobs };
  }
  const affected = new Set<string>();
  for (const p of changed) affected.add(found.get(p)?.src.harness ?? '');
  for (const p of gone) affected.add(c.goneHarness.get(p) ?? '');
  affected.delete('');
  for (const h of affected) {
    sessionsOf(
      ctx,
      db,
      h as Harness,
      { changed, gone: gone.filter((p) => c.goneHarness.get(p) === h), found, entries, old, before },
      change,
    );
  }
  return { change, result: null, jobs };
}

/** What a harness's finish pass reads of a source's state (`finish.reads`; the whole state when it names no part). */
function finishRead(f: Finish, state: LineState, src: Source): LineState {
  return f.reads ? f.reads(state, src) : state;
}

/** What the rest of a build reads of a written entry: the finish pass's part of its state, its sessions without prompts. */
function slim(e: Entry): void {
  const a = adapterOf(e.src.harness);
  e.state = !a?.finish ? NO_STATE : finishRead(a.finish, e.state, e.src);
  e.tail = '';
  if (e.sessions?.length) e.sessions = e.sessions.map(({ allPrompts: _, ...x }) => (a?.finish ? x : keyed(x, keyOf(x))));
}

/** Put the sessions, commit, write rows.bin and check.bin, and give the result. */
function commit(b: Build, c: Changes, p: Parsed): AnyResult {
  const { ctx, opts, files, db, had, skipped } = b;
  // the keys whose rows.bin record this build changes (put, dropped, or given another short id)
  const redone = new Set<string>();
  // (the search's group map, when this change leaves it as it was: compared before the rows are put)
  const carry = had ? carryMap(db, had, p.change, c.changed) : null;
  const shorts = had ? applyChange(db, p.change, ctx.home, b.rerender, redone) : putFirst(db, p.change.put, ctx.home);
  // only grown files, the same sessions: what `indexWork` calls an append
  if (had && p.jobs.length && !c.gone.length && !shorts && p.jobs.every((j) => j.from > 0)) appends++;
  const id = newBuildId();
  store.setMeta(db, 'build', id);
  carry?.(id);
  db.exec('COMMIT');
  // a large first build leaves a large WAL behind: its pages are moved into the database now
  if (!had) checkpoint(db);
  // (every short id worked out again, or every row rendered again: rows.bin is written whole)
  const after = had && !shorts ? { from: had, keys: redone } : null;
  if (!opts.harnesses) writeOut(files, db, { id, disc: b.disc, home: ctx.home, same: c.sameCheck, first: !had, redone: after });
  // a build over some harnesses only: check.bin does not list the others, so it goes (the next
  // run writes it again from the database)
  else removeFile(files.check);
  const res = { skipped, counts: b.counts, roots: b.disc.roots, changed: p.jobs.length > 0 || c.gone.length > 0 };
  // (a streamed build hands back what it streamed; otherwise rows.bin, when asked for, is the answer)
  if (p.result && !opts.withEntries && (opts.onSessions || !(b.want === 'rows' && opts.rowBin)))
    return { ...res, skipped: withFailures(db, skipped), sessions: p.result, ...(shorts ? { shorts } : {}) };
  return answer(ctx, db, b.want, opts, res);
}

/**
 * rows.bin, then check.bin (it names the build), from the database; the rows printed of earlier
 * builds go. `same`: the check.bin read, when it lists these sources (its names are written again
 * as they are); `first`: a build from nothing, which also removes the files of earlier versions.
 */
function writeOut(
  files: IndexFiles,
  db: Db,
  w: { id: string; disc: Discovered; home: string; same: StoredCheck | null; first: boolean; redone?: Redone | null },
): void {
  const { id, disc, home, same, first } = w;
  writeRowBin(files, db, id, home, w.redone);
  try {
    writeCheck(files.check, id, { sources: disc, meta: disc.meta, same: same ?? undefined, taken: disc.nums() });
  } catch (err) {
    debugWrite(err);
    removeFile(files.check);
  }
  for (const n of KEPT_NAMES) removeFile(path.join(files.dir, n));
  if (!first) return;
  for (const n of OLD_NAMES) removeFile(path.join(files.dir, n));
  try {
    fs.rmSync(path.join(files.dir, 'state'), { recursive: true, force: true });
  } catch {
    /* an old state directory left: harmless */
  }
}

function checkpoint(db: Db): void {
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    /* a reader holds it: the next checkpoint moves them */
  }
}

/**
 * The sessions of harness `h` after a change to some of its files (`changed` parsed into
 * `entries`, `gone` dropped), into `change`.
 */
interface Touched {
  changed: Set<string>;
  /** the harness's gone sources */
  gone: string[];
  found: Map<string, Found>;
  entries: Record<string, Entry>;
  /** the stored entries of the changed and gone sources */
  old: Map<string, Entry>;
  before: Map<string, unknown>;
}

function sessionsOf(ctx: Ctx, db: Db, h: Harness, t: Touched, change: Change): void {
  const a = adapterOf(h);
  if (!a) return;
  const mineChanged = [...t.changed].filter((p) => t.found.get(p)?.src.harness === h);
  const files = new Set([...mineChanged, ...t.gone]);
  const parsed = mineChanged.map((p) => t.entries[p]).filter((e): e is Entry => !!e);
  // sessions of their own files: those files' sessions replaced
  if (a.perSource && (!a.finish || (a.finish.byLink && linksStand(db, h, files, parsed)))) {
    replaceFiles(db, h, { files, parsed, finishes: !!a.finish }, change);
    return;
  }
  // a finish pass over what the change concerns, when the adapter can say what that is
  const r = a.finish?.some ? refinishOf(ctx, db, a, [...files], t) : null;
  if (r) {
    // the sessions of the changed and gone files, and of those the pass gave again, are replaced
    for (const k of store.keysOfFiles(db, h, new Set([...files, ...r.files]))) change.drop.add(k);
    for (const s of r.sessions) {
      change.drop.delete(s.key);
      change.put.push(s);
    }
    return;
  }
  // the finish pass over every file of the harness
  const ss = finishHarness(ctx, a, Object.fromEntries(store.harnessEntries(db, h)));
  const keep = new Set(ss.map((s) => s.key));
  for (const k of store.keysOfHarness(db, h)) if (!keep.has(k)) change.drop.add(k);
  change.put.push(...ss);
}

/** A harness whose sessions come from their own file: the sessions of `files` replaced by those parsed. */
function replaceFiles(db: Db, h: Harness, r: { files: Set<string>; parsed: Entry[]; finishes: boolean }, change: Change): void {
  for (const k of store.keysOfFiles(db, h, r.files)) change.drop.add(k);
  for (const e of r.parsed) {
    for (const s of e.sessions ?? []) {
      const key = keyOf(s);
      // a key another file gives already keeps that file's session
      const info = store.keyInfo(db, key);
      if (info && !r.files.has(info.file)) continue;
      change.drop.delete(key);
      change.put.push((s as Session).key === key && !r.finishes ? (s as Session) : keyed(s, key));
    }
  }
}

/**
 * For a harness with `finish.byLink`: no changed or gone file held a fork or a session sharing its
 * link key with another, and no parsed session is a fork or shares its key with another file's, so
 * the finish pass (which relates only sessions sharing a key) would leave every session as it is.
 */
function linksStand(db: Db, h: Harness, files: Set<string>, parsed: Entry[]): boolean {
  for (const s of store.sessionsWhere(db, { files })) {
    if (s.harness !== h) continue;
    if (s.forkedFrom || (s.link && store.linkFiles(db, h, s.link).length > 1)) return false;
  }
  const taken = new Set<string>();
  for (const e of parsed) {
    const mine = new Set<string>();
    for (const s of e.sessions ?? []) {
      if (s.forkedFrom) return false;
      if (!s.link) continue;
      if (taken.has(s.link) || store.linkFiles(db, h, s.link).some((f) => !files.has(f))) return false;
      mine.add(s.link);
    }
    for (const l of mine) taken.add(l);
  }
  return true;
}

/**
 * Put the change into the sessions table with each session's short id and rows.bin record. When
 * the set of keys changes (or `all`: a first build, a moved HOME), every short id is computed again
 * and the records of the sessions whose short id changed are rendered again. The short ids, when
 * computed.
 */
function applyChange(db: Db, change: Change, home: string, all: boolean, redone: Set<string>): Map<string, string> | undefined {
  for (const x of change.put) redone.add(x.key);
  for (const k of change.drop) redone.add(k);
  // each put session's stored short id (undefined: a key new to the index)
  const had = new Map(change.put.map((x) => [x.key, store.keyInfo(db, x.key)?.short]));
  const fresh = change.put.filter((x) => had.get(x.key) === undefined);
  const dropped = [...change.drop].map((k) => store.idOfKey(db, k)).filter((id): id is string => id !== null);
  for (const k of change.drop) store.dropSession(db, k);
  const touched = new Set([...fresh.map((x) => x.id), ...dropped]);
  if (!all && touched.size === 0) {
    for (const x of change.put) {
      const short = had.get(x.key) ?? x.id;
      store.putSession(db, x, short, rowRecord(x, short, home));
    }
    return undefined;
  }
  for (const x of change.put) store.putSession(db, x, '', null);
  // A few sessions in or out: only their ids and their neighbours in id order can change short ids
  // (shortIds: the longest prefix shared with the id before or after). The database orders ids by
  // their bytes, as shortIds' sort does for ASCII ids; any other id takes the pass over every id.
  if (!all && [...touched].every((id) => /^[\x20-\x7e]*$/.test(id))) {
    nearShorts(db, { put: change.put, touched, had, home, redone });
    return undefined;
  }
  return everyShort(db, new Map(change.put.map((x) => [x.key, x])), home, all);
}

/**
 * A build from nothing: every session put once, with its short id among them all and its rendered
 * row (rather than bare, and then each again with its short id: one write a session, not two).
 */
function putFirst(db: Db, put: Session[], home: string): Map<string, string> {
  const shorts = shortIds(put);
  for (const x of put) {
    const short = shorts.get(x.id) ?? x.id;
    store.putSession(db, x, short, rowRecord(x, short, home));
  }
  return shorts;
}

/** Short ids again for the touched ids and their neighbours; every other session put keeps its own. */
function nearShorts(
  db: Db,
  c: { put: Session[]; touched: Set<string>; had: Map<string, string | undefined>; home: string; redone: Set<string> },
): void {
  const put = new Map(c.put.map((x) => [x.key, x]));
  const near = new Set<string>();
  for (const id of c.touched) {
    if (store.keysWithId(db, id).length) near.add(id);
    for (const n of store.neighbours(db, id)) near.add(n);
  }
  for (const id of near) {
    const short = shortOf(id, store.neighbours(db, id));
    for (const r of store.keysWithId(db, id)) {
      const doc = put.get(r.key) ?? (r.short === short ? null : store.docOf(db, r.key));
      if (!doc) continue;
      store.setShort(db, r.key, short, rowRecord(doc, short, c.home));
      c.redone.add(r.key);
    }
  }
  // (sessions put again whose id no change touched keep their short ids)
  for (const x of c.put) {
    if (near.has(x.id)) continue;
    const short = c.had.get(x.key) ?? x.id;
    store.setShort(db, x.key, short, rowRecord(x, short, c.home));
  }
}

/** Every short id computed again (a first build, a moved HOME, an id the database may order otherwise). */
function everyShort(db: Db, put: Map<string, Session>, home: string, all: boolean): Map<string, string> {
  const ids = store.allIds(db);
  const shorts = shortIds(ids);
  for (const r of ids) {
    const short = shorts.get(r.id) ?? r.id;
    const x = put.get(r.key);
    if (!x && !all && r.short === short) continue;
    const doc = x ?? store.docOf(db, r.key);
    if (doc) store.setShort(db, r.key, short, rowRecord(doc, short, home));
  }
  return shorts;
}

/**
 * The harnesses with `finish.byLink` whose files are read in their own places, not as a group
 * (stream.ts): those whose first lines, read before the rest for their link keys, are a small part
 * of them. Each costs a file opened once more, and a small file is parsed twice. (At 686 sessions,
 * 52 Claude Code files of 118 MiB: the first row ~65 ms sooner for a few ms more; at 22,000, 5,280
 * of ~75 KiB on average, the pass took 1.6-1.8 s on a loaded machine: grouped, as before.)
 */
function linkedApart(jobs: Job[]): Set<Harness> {
  const heads = new Map<Harness, [number, number]>();
  for (const j of jobs) {
    const a = adapterOf(j.src.harness);
    if (!a?.finish?.byLink) continue;
    const [head, all] = heads.get(a.name) ?? [0, 0];
    heads.set(a.name, [head + Math.min(j.size, LINK_HEAD), all + j.size]);
  }
  return new Set([...heads].filter(([, [head, all]]) => head * 8 <= all).map(([h]) => h));
}

/**
 * Per harness with `finish.byLink`, the files whose sessions its finish pass may relate: once all
 * of them are read, the pass over them alone gives their sessions as the whole pass will (it
 * relates no others), and what they held back is handed over then rather than after the harness's
 * last file.
 */
function tangledOf(plan: { job: Job }[], linked: Set<Harness>, links: Links): Map<Harness, { all: string[]; left: Set<string> }> {
  const tangled = new Map<Harness, { all: string[]; left: Set<string> }>();
  for (const { job } of plan) {
    const h = job.src.harness;
    if (!linked.has(h) || !links.tangled(h, job.src.path)) continue;
    const t = tangled.get(h) ?? { all: [], left: new Set<string>() };
    t.all.push(job.src.path);
    t.left.add(job.src.path);
    tangled.set(h, t);
  }
  return tangled;
}

/** A build from an empty database, streamed: read newest first and hand over the finished list in order. */
async function streamBuild(
  b: Build,
  jobs: Job[],
  parsed: { onResult: (j: Job, r: JobResult) => void; entries: Record<string, Entry> },
  onSessions: (sessions: Session[]) => void,
): Promise<Session[]> {
  const { ctx, opts } = b;
  const found = b.disc.found;
  const { onResult, entries } = parsed;
  const finishing = new Set(ADAPTERS.filter((a) => a.finish).map((a) => a.name));
  const linked = linkedApart(jobs);
  const bounds = new Map(found.map((f) => [f.src.path, f.bound]));
  const plan = planOrder(jobs, bounds, new Set([...finishing].filter((h) => !linked.has(h))), found);
  const finished = new Map<Harness, Session[]>();
  const left = new Map<Harness, number>();
  for (const h of finishing) left.set(h, 0);
  for (const { job } of plan) if (finishing.has(job.src.harness)) left.set(job.src.harness, (left.get(job.src.harness) ?? 0) + 1);
  const out = new OrderedStream(onSessions);
  const finish = (h: Harness) => {
    const a = adapterOf(h);
    const ss = a ? finishHarness(ctx, a, entries) : [];
    finished.set(h, ss);
    out.finished(h, ss);
  };
  const links = new Links();
  // the first lines of every file of a linked harness: which sessions its finish pass can touch
  for (const { job } of plan) {
    if (!linked.has(job.src.harness)) continue;
    const whole = job.size <= LINK_HEAD;
    const r = await runJob({ src: job.src, size: whole ? job.size : LINK_HEAD, from: 0, state: null }, ctx);
    links.see(job.src.harness, job.src.path, r.error ? null : r.sessions, whole);
  }
  const tangled = tangledOf(plan, linked, links);
  for (const [h, n] of left) if (n === 0) finish(h);
  out.flush(plan[0]?.key ?? -Infinity);
  let i = 0;
  /** a linked harness's file read: its sessions the finish pass leaves as they are handed over now */
  const linkedRead = (job: Job, r: JobResult) => {
    const h = job.src.harness;
    // handed over now as the finish pass would give them (it sanitises what it returns, and a
    // finished session has no allPrompts); the rest wait for it
    const free = r.sessions.filter((s) => links.stands(job.src.path, s));
    out.add(free.map(({ allPrompts: _, ...x }) => sanitizeSession(x)));
    const t = tangled.get(h);
    if (free.length < r.sessions.length) {
      out.hold(h, bounds.get(job.src.path) ?? Infinity);
      if (!t?.left.has(job.src.path)) tangled.delete(h);
    }
    const a = adapterOf(h);
    if (a && t?.left.delete(job.src.path) && t.left.size === 0 && tangled.has(h) && (left.get(h) ?? 0) > 1) {
      const mine: Record<string, Entry> = {};
      for (const p of t.all) if (entries[p]) mine[p] = entries[p];
      out.finished(h, finishHarness(ctx, a, mine));
    }
  };
  const read = (job: Job, r: JobResult) => {
    onResult(job, r);
    const h = job.src.harness;
    if (!finishing.has(h)) out.add((entries[job.src.path]?.sessions as Session[]) ?? []);
    else {
      if (linked.has(h)) linkedRead(job, r);
      const n = (left.get(h) ?? 0) - 1;
      left.set(h, n);
      if (n === 0) finish(h);
    }
    i++;
    out.flush(plan[i]?.key ?? -Infinity);
  };
  await runJobs(
    plan.map((p) => p.job),
    ctx,
    opts,
    read,
    true,
  );
  return finishAll(ctx, entries, finished);
}

/**
 * The job that brings a changed source up to date from its stored entry: the new lines only when it
 * grew (same inode, the bytes before the old offset unchanged), else the whole file.
 */
function jobFor(f: Found, e: Entry | undefined, counts: IndexResult['counts'], db: Db): Job {
  if (
    e &&
    f.src.mode === 'lines' &&
    e.src?.mode === 'lines' &&
    e.src.harness === f.src.harness &&
    !e.error &&
    e.ino === f.stat.ino &&
    f.stat.size >= e.size &&
    e.offset > 0 &&
    e.state &&
    tailMatches(f.src.path, e.offset, e.tail)
  ) {
    const prompts = store.storedPrompts(db, f.src.path);
    const state = prompts && withPrompts(e.state, prompts);
    if (state) {
      counts.appended++;
      counts.bytes += f.stat.size - e.offset;
      return { src: f.src, size: f.stat.size, from: e.offset, state, done: sanitisedTexts(e, prompts.flat()) };
    }
  }
  counts.parsed++;
  counts.bytes += f.stat.size;
  return { src: f.src, size: f.stat.size, from: 0, state: null };
}

/**
 * A stored state to continue, with its prompts (`all`, kept apart: store.putSource) put back as the
 * index stored them, sanitised; null when they cannot be (the prompts stored are not the state's
 * count of them, or are of several sessions): the file is parsed again from its start.
 */
function withPrompts(state: LineState, prompts: string[][]): LineState | null {
  // (a state that counts no prompts, `prompts`, keeps none in `all`: Gemini CLI's keeps its messages)
  if (typeof state.prompts !== 'number') return state;
  if (prompts.length === 0) return state.prompts === 0 ? state : null;
  return prompts.length === 1 && prompts[0].length === state.prompts ? { ...state, all: prompts[0] } : null;
}

/**
 * The one-line texts an entry's sessions hold as stored (sanitised), and their prompts as stored
 * (`prompts`): an append does not sanitise them again (a prompt appended to a session of 1,000
 * redacted all 1,000 again, ~20 ms).
 */
function sanitisedTexts(e: Entry, prompts: string[]): string[] | undefined {
  const out: string[] = prompts;
  if (Array.isArray(e.sessions)) {
    for (const s of e.sessions) {
      if (!s || typeof s !== 'object') continue;
      for (const v of [s.title, s.firstPrompt, s.lastPrompt]) if (typeof v === 'string') out.push(v);
    }
  }
  return out.length ? out : undefined;
}

function newBuildId(): string {
  return `${Date.now().toString(36)}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function debugWrite(err: unknown): void {
  // A cache we cannot write only costs speed next time.
  if (process.env.RESUME_DEBUG) process.stderr.write(`resume: cannot write index: ${(err as Error).message}\n`);
}

/**
 * What the finish pass reads (`finish.reads`) of these sources' stored entries, of harnesses with
 * `finish.some`, copied two levels deep (FinishChange.before): a parse continues a stored state in
 * place, and `finish.some` compares before with after.
 */
function finishStatesOf(paths: Iterable<string>, old: Map<string, Entry>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const copy = (v: unknown) => (Array.isArray(v) ? v.slice() : v && typeof v === 'object' ? { ...v } : v);
  for (const p of paths) {
    const e = old.get(p);
    if (!e || e.error || !e.state || typeof e.state !== 'object') continue;
    const a = adapterOf(e.src?.harness);
    if (!a?.finish?.some) continue;
    const st = finishRead(a.finish, e.state, e.src) as Record<string, unknown>;
    const c: Record<string, unknown> = {};
    for (const k of Object.keys(st)) c[k] = copy(st[k]);
    out.set(p, c);
  }
  return out;
}

/**
 * A harness's finish pass over what a change concerns (Finish.some): the sessions of the files
 * it gave again, sanitised and keyed as finishHarness gives them, without their prompts. `paths`:
 * its changed and gone sources; `entries` has the changed ones as parsed. Null: a full pass.
 */
function refinishOf(ctx: Ctx, db: Db, a: AnyAdapter, paths: string[], t: Touched): { files: Set<string>; sessions: Session[] } | null {
  const some = a.finish?.some?.bind(a.finish);
  if (!some) return null;
  const { before, entries } = t;
  const h = a.name;
  const changes = [];
  for (const p of paths) {
    const e = entries[p];
    const src = e?.src ?? t.old.get(p)?.src;
    if (!src) return null;
    const ok = !!e && !e.error && !!e.state && typeof e.state === 'object';
    changes.push({
      src,
      before: (before.get(p) as LineState | undefined) ?? null,
      after: ok ? e.state : null,
      now: ok ? (e.sessions ?? []) : [],
    });
  }
  let r: { files: string[]; sessions: SessionCore[] } | null;
  try {
    r = some(changes, {
      ctx,
      mentioning: (ids) => store.sessionsMentioning(db, h, ids),
      find: (part) => store.findSources(db, h, part),
      load: (want) => {
        const out = new Map<string, { src: Source; state: LineState; sessions: SessionCore[] }>();
        for (const [p, e] of store.loadEntries(db, want)) {
          if (!e.error && e.src?.harness === h && e.state && typeof e.state === 'object' && Array.isArray(e.sessions))
            out.set(p, { src: e.src, state: e.state, sessions: e.sessions });
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

/** One harness's sessions: its cross-source pass when it has one, keys, each key once. */
function finishHarness(ctx: Ctx, a: AnyAdapter, entries: Record<string, Entry>): Session[] {
  // in path order, whatever order the entries came in (read order, the database's): a key two files
  // give (a thread copied into two stores) is then always the same file's
  const mine = Object.values(entries)
    .filter((e) => e.src?.harness === a.name)
    .sort((x, y) => (x.src.path < y.src.path ? -1 : x.src.path > y.src.path ? 1 : 0));
  let ss: SessionCore[] = mine.flatMap((e) => e.sessions ?? []);
  if (a.finish) {
    const states = new Map(mine.map((e) => [e.src.path, { src: e.src, state: e.state }]));
    try {
      // a finish pass may bring text of its own (titles from side files): sanitised like the rest
      ss = a.finish.all(ss, ctx, states).map((s) => sanitizeSession(s));
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
    const { allPrompts: _, ...rest } = s;
    out.push((s as Session).key === key && !a.finish && s.allPrompts === undefined ? (s as Session) : keyed(rest, key));
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

/**
 * The listing rows of the stored index, without statting any source: for a caller that has just
 * brought the index up to date; null when there are none.
 */
export function storedRows(ctx: Ctx): ListedSession[] | null {
  return store.withRead(indexFiles(ctx).db, (db) => builtRows(db)?.map(({ session, short }) => listed(session, short)) ?? null);
}

/** The stored listing, whole, without statting any source; null when there is none. */
export function storedListing(ctx: Ctx): Session[] | null {
  return store.withRead(indexFiles(ctx).db, (db) => builtRows(db)?.map((r) => r.session) ?? null);
}

/** The stored listing and the short ids kept with it (no shortIds over it again); null when there is none. */
export function storedWithShorts(ctx: Ctx): { sessions: Session[]; shorts: Map<string, string>; build: string } | null {
  return store.withRead(indexFiles(ctx).db, (db) => {
    const rows = builtRows(db);
    if (!rows) return null;
    return {
      sessions: rows.map((r) => r.session),
      shorts: new Map(rows.map((r) => [r.session.id, r.short])),
      build: store.getMeta(db, 'build') ?? '',
    };
  });
}

/**
 * Every stored row, once a build has been committed; null before: while the first build runs, the
 * database it is writing has no listing to give (readers see none of it until it commits), and an
 * empty one would tell the picker's deep search that no session holds any word.
 */
function builtRows(db: Db): ReturnType<typeof store.allRows> | null {
  return store.getMeta(db, 'build') ? store.allRows(db) : null;
}

/** A session of the stored listing, with its short id there. */
export interface StoredHit {
  session: Session;
  short: string;
}

/**
 * One session of the stored listing, without statting any source: by its key, by its full id when
 * exactly one session has it, or by the start of its id (`prefix`, lower case; of `harness`'s
 * sessions when given) when exactly one session's id starts so. Null when the listing has no
 * session of that key; undefined when this cannot tell (no index, or no build committed yet; an id or
 * a start several sessions share or none has): ask the whole listing then.
 */
export function storedSession(
  ctx: Ctx,
  q: { key: string } | { id: string } | { prefix: string; harness: string | null },
): StoredHit | null | undefined {
  const db = store.openRead(indexFiles(ctx).db);
  if (!db) return undefined;
  try {
    // (no build committed yet: the first is still running, and its sessions are not to be seen)
    if (!store.getMeta(db, 'build')) return undefined;
    if ('key' in q) return store.sessionByKey(db, q.key);
    const hits =
      'id' in q
        ? store.sessionsById(db, q.id)
        : store.sessionsByIdPrefix(db, q.prefix).filter((h) => !q.harness || h.session.harness === q.harness);
    return hits.length === 1 ? hits[0] : undefined;
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

const PARALLEL_MIN_BYTES = 16 << 20;
/** The first bytes of a linked harness's file read before a streamed build, for its link keys (stream.ts: Links). */
const LINK_HEAD = 64 << 10;

/**
 * Parse the jobs, handed out in the given order, calling `onResult` as each finishes. `inOrder`:
 * on this thread, each result handed over before the next file is read (a stream needs its
 * order); otherwise on workers when it pays.
 */
async function runJobs(
  jobs: Job[],
  ctx: Ctx,
  opts: IndexOptions,
  onResult: (j: Job, r: JobResult) => void,
  inOrder: boolean,
): Promise<void> {
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
  // (a long build keeps every session it has parsed, and the garbage of parsing besides)
  const heap = new HeapGuard(total);
  const tick = (j: Job, r: JobResult) => {
    done += j.size - j.from;
    doneFiles++;
    opts.progress?.(done, total, doneFiles, jobs.length);
    onResult(j, r);
    heap.tick(j.size - j.from);
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
  const workerFile = opts.workerFile;
  let next = 0;
  await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(workerFile, { workerData: { env: ctx.env } });
          let current: Job | null = null;
          const feed = () => {
            if (next >= jobs.length) {
              current = null;
              w.postMessage(null);
              return;
            }
            current = jobs[next++] ?? null;
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
