// Keeping the signatures (sigs.ts) of every file a search reads up to date, in the index database.
//
// Who makes them: `resume index` (every file, with progress on a terminal), and a search, for the
// files that changed since when they come to little (an append, a new session: FILL_NOW). A search
// that finds more to do (the first search on a machine, or after much has changed) does not wait
// for it: it reads those files as a search always could, says so, and starts `resume index` in the
// background, which makes them for the next search. One filler at a time (a lock file beside the
// database); the listing's builder is never held up for more than one batch (sigs.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../app.js';
import { indexFiles } from '../index/files.js';
import { checkedStats } from '../index/index.js';
import { readStamp } from '../index/mapstamp.js';
import { type Db, getMeta, openWrite, withRead } from '../index/store.js';
import { acquireWait } from '../os/lock.js';
import { runBackground } from '../os/run.js';
import type { Harness, Session } from '../types.js';
import { childFiles } from './groups.js';
import { type FilePieces, firstPrompts, piecesHolding } from './pieces.js';
import { threadCount, workerFile } from './pool.js';
import type { Term } from './query.js';
import { HOOKS, loadExtractors } from './registry.js';
import { type FillTally, fillSigs, fillSigsOn, SIGS_WRITTEN, Signatures } from './sigs.js';

/** changed bytes a search makes the signatures of before it reads (about a quarter of a second) */
const FILL_NOW = 64 << 20;
/** how long a search's own fill waits for the write lock (a listing being built): then it reads instead */
const FILL_WAIT_MS = 250;

/** Every file a search may read whole, with its harness: the sessions' transcripts and their children (not the databases a harness reads itself). */
export function searchedFiles(all: Session[]): Map<string, Harness> {
  const out = new Map<string, Harness>();
  for (const s of all) {
    if (!HOOKS[s.harness]?.scan) out.set(s.file, s.harness);
    for (const f of childFiles(s)) out.set(f, s.harness);
  }
  return out;
}

const lockOf = (app: App) => path.join(path.dirname(indexFiles(app.ctx).db), 'sigs.lock');

/**
 * The fill lock, taken; null when another process holds it (it is filling them) for longer than
 * `waitMs`. (A search as you type waits a moment: the reload before it, which fzf has just stopped,
 * may still hold the lock, and without the wait no reload would ever make them.)
 */
async function fillLock(app: App, waitMs = 0): Promise<{ release: () => void } | null> {
  const end = Date.now() + waitMs;
  const l = await acquireWait(lockOf(app), { stopped: () => Date.now() >= end, pollMs: 10 });
  return l?.ok ? l : null;
}

/** What a search has of the signatures: them (null: none to use) and the files without one. */
export interface SearchSigs {
  sigs: Signatures | null;
  /** the index's pieces that hold a term, by file (asked for a ranking without evidence) */
  pieces: Map<string, FilePieces> | null;
  /** files read whatever they hold (no current signature) */
  missing: number;
  /** the signatures' last write as read (sigs.ts SIGS_WRITTEN: the group map is stamped with it) */
  written: string;
}

/**
 * The signatures for a search of `all`: those of the files changed since made first when they are
 * few, else left to a background `resume index` (the search reads those files). Call after the
 * listing is loaded (the index database is there, of this version).
 */
export async function signaturesFor(app: App, all: Session[], terms: Term[], want: { pieces?: boolean } = {}): Promise<SearchSigs> {
  await loadExtractors();
  const needles = terms.map((t) => t.needles);
  const file = indexFiles(app.ctx).db;
  const known = checkedStats(app.ctx);
  // the signatures and (for a ranking without evidence) the pieces, from one connection
  // (read again after a fill: the first prompts are the listing's either way)
  const firsts = want.pieces ? firstPrompts(all) : null;
  const read = () =>
    withRead(file, (db) => ({
      sigs: Signatures.load(db, needles, known),
      pieces: firsts ? piecesHolding(db, terms, { firsts }) : null,
      written: getMeta(db, SIGS_WRITTEN) ?? '',
    }));
  let got = read();
  if (!got) return { sigs: null, pieces: null, missing: 0, written: '' };
  const byFile = searchedFiles(all);
  const files = [...byFile.keys()];
  const stale = got.sigs.stale(files);
  if (stale.files.length === 0) return { ...got, missing: 0 };
  if (stale.bytes <= FILL_NOW) {
    if (await fillNow(app, file, stale.files, byFile)) got = read() ?? got;
  } else {
    startFiller(app);
  }
  const left = got.sigs.stale(files);
  // most files without one (the first search here): the scan's own marking of the files that hold
  // no word (prefilter.ts) reads them faster than they could be told apart one by one
  if (left.files.length * 2 > files.length) return { sigs: null, pieces: null, missing: left.files.length, written: '' };
  return { ...got, missing: left.files.length };
}

/**
 * The signatures of the files a carried group map names as written since it was made
 * (index/mapstamp.ts `written`) made current before a search from the map, as a search makes those
 * of a few changed files: an append is read from where its signature ended. Nothing when there are
 * more changed bytes than that (the search reads those files), or the fill cannot be done now.
 */
export async function fillWritten(app: App): Promise<void> {
  const file = indexFiles(app.ctx).db;
  const stale = withRead(file, (db) => {
    const stamp = readStamp(db);
    const out = new Map<string, Harness>();
    // (only for a map of the listing as it is: one left behind is not searched from)
    if (!stamp?.written?.length || stamp.build !== getMeta(db, 'build')) return out;
    const harness = db.prepare('SELECT harness FROM sessions WHERE file = ? LIMIT 1').pluck();
    const byFile = new Map<string, Harness>();
    for (const f of stamp.written) {
      const h = harness.get(f) as Harness | undefined;
      if (h) byFile.set(f, h);
    }
    const files = [...byFile.keys()];
    // (each checked against the file as it is now; one gone is left to the build that drops it)
    const left = Signatures.loadSome(db, [], files, () => false).stale(files);
    if (left.bytes > FILL_NOW) return out;
    for (const f of left.files) if (fs.existsSync(f)) out.set(f, byFile.get(f) as Harness);
    return out;
  });
  if (stale?.size) await fillNow(app, file, [...stale.keys()], stale);
}

const anySigs = (db: Db): boolean => db.prepare('SELECT 1 FROM sigs LIMIT 1').get() !== undefined;

/** Are there signatures to use (then the workers need not mark files before the scan)? */
export function hasSignatures(app: App): boolean {
  return withRead(indexFiles(app.ctx).db, anySigs) === true;
}

/**
 * A search's own fill of a few changed files; false when it could not be done now (another process
 * fills, the listing's builder holds the database, or the cache cannot be written): those files are
 * read this time.
 */
async function fillNow(app: App, file: string, files: string[], byFile: Map<string, Harness>): Promise<boolean> {
  try {
    const l = await fillLock(app, FILL_WAIT_MS);
    if (!l) return false;
    try {
      const db = openWrite(file);
      try {
        db.pragma(`busy_timeout = ${FILL_WAIT_MS}`);
        fillSigs(db, files, { harnessOf: (f) => byFile.get(f) });
        return true;
      } finally {
        db.close();
      }
    } finally {
      l.release();
    }
  } catch {
    return false;
  }
}

/**
 * `resume index` in the background, detached, at a lower priority (it must not slow the picker the
 * user is typing in), to make the signatures; it exits at once when another is making them.
 */
function startFiller(app: App): void {
  // (the app's environment: its HOME and cache, which may not be this process's; a filler that
  // cannot start leaves those files to be read by the next search)
  runBackground(process.execPath, [app.self, 'index'], { env: app.ctx.env, nice: 10 });
}

/**
 * Signed files from which the picker also starts a background `resume index` when the group map
 * does not hold (groupmap.ts). A change to any session (an agent writing, on an active machine:
 * most times the picker opens) leaves the map of the build before, and the first search as you type
 * then takes the whole listing and makes the map: ~600 ms more at 22,000 sessions, ~40 ms at 686.
 */
const MAP_FROM = 2000;

/**
 * When the picker opens, what deep search (Ctrl-S) will need made ready in the background, so that
 * it finds it rather than reading every file or loading the whole listing: on a home without a
 * search index and more to read than a search would make itself, the index; on a large home whose
 * group map is not of the listing as it now is, the changed files' signatures and the map
 * (`resume index` makes both). `mapFrom`: the signed files from which the map is worth it.
 */
export async function prepareSearchIndex(app: App, mapFrom = MAP_FROM): Promise<void> {
  const { mapHolds, signedCount, stampOf } = await import('./groupmap.js');
  const need = withRead(indexFiles(app.ctx).db, (db) => {
    // (whether the map holds first: it counts the signatures only when the rest of its stamp holds,
    // and a home whose map holds is not counted again)
    if (anySigs(db)) return !mapHolds(db, stampOf(app, db)) && signedCount(db) >= mapFrom;
    const bytes = db.prepare('SELECT sum(size) FROM sources').pluck().get() as number | null;
    return (bytes ?? 0) > FILL_NOW;
  });
  if (need) startFiller(app);
}

/**
 * The signature and pieces of every file searches read (`byFile`, with its harness) brought up to date,
 * and those of files no search reads removed (`resume index`); null when another process is making them.
 */
export async function fillAll(
  app: App,
  byFile: Map<string, Harness>,
  progress?: (done: number, total: number) => void,
): Promise<FillTally | null> {
  await loadExtractors();
  const l = await fillLock(app);
  if (!l) return null;
  // files to be made whole are hashed on worker threads, started when the first one comes
  const { SigPool } = await import('./sigpool.js');
  const pool = new SigPool(workerFile(app), threadCount());
  try {
    const db = openWrite(indexFiles(app.ctx).db);
    try {
      return await fillSigsOn(db, [...byFile.keys()], { prune: true, progress, harnessOf: (f) => byFile.get(f) }, pool);
    } finally {
      db.close();
    }
  } finally {
    pool.stop();
    l.release();
  }
}
