// Deep search as the commands run it, in the calling process: with this install's worker script and
// thread count (pool.ts), and the picker's result rows (in `resume rows` format, best first).
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { indexFiles } from '../index/files.js';
import { storedFiles, storedSizes, storedWithShorts } from '../index/index.js';
import { openWrite, withRead } from '../index/store.js';
import { row } from '../output.js';
import { shortIds } from '../select/filter.js';
import type { Session } from '../types.js';
import type { FromMap } from './groupmap.js';
import { type Prestarted, prestartWorkers, threadCount, workerFile } from './pool.js';
import { Prefilter } from './prefilter.js';
import type { Term } from './query.js';
import { allNeedles, parseQuery } from './query.js';
import type { SearchStats } from './read.js';
import { loadExtractors } from './registry.js';
import { type Evidence, type Result, type SearchFilters, type SearchOptions, search } from './search.js';
import { fillWritten, hasSignatures, signaturesFor } from './sigfill.js';

/**
 * Start the search's worker threads now, before the listing is loaded, so that they are ready when
 * scanning starts (pass the result to runSearch; unused ones are stopped there, and never keep the
 * process alive). Meanwhile they read the transcripts the index knows and mark those that hold
 * none of the terms' needles (prefilter.ts).
 */
export function prestart(app: App, terms: Term[]): Prestarted | null {
  // With signatures, most searches read few files or none: threads are started by the scan, when
  // what it must read is worth them (a thread costs ~30 ms to start, more than many whole searches).
  if (hasSignatures(app)) return null;
  return prestartWorkers(workerFile(app), threadCount(), () => {
    const needles = allNeedles(terms);
    if (needles.length === 0) return null;
    const files = storedFiles(app.ctx).filter((f) => f.endsWith('.jsonl'));
    return files.length > 0 ? new Prefilter(files, needles) : null;
  });
}

/**
 * `search()` on worker threads of this install (`RESUME_THREADS` caps them). `how`: the workers
 * started ahead (prestart), a progress callback, and whether the results need their evidence (rows
 * do not).
 */
export async function runSearch(
  app: App,
  all: Session[],
  terms: Term[],
  filters: SearchFilters,
  how: Pick<SearchOptions, 'progress' | 'evidence' | 'prestarted' | 'top'> = {},
): Promise<Awaited<ReturnType<typeof search>> & { current: string | null }> {
  const ss = await signaturesFor(app, all, terms, { pieces: how.evidence === false || !!how.top });
  const out = await search(all, terms, filters, {
    home: app.ctx.home,
    workerFile: workerFile(app),
    threads: threadCount(),
    sizes: () => storedSizes(app.ctx),
    signatures: ss.sigs,
    pieces: ss.pieces,
    ...how,
  });
  // (without signatures to use, every file was read: those still to be made are what is missing)
  out.stats.unindexed = ss.missing;
  return { ...out, current: ss.sigs && ss.missing === 0 ? ss.written : null };
}

/**
 * The picker's deep search: the query as fzf's `{q}` holds it (one string, split into words and
 * "phrases"), as `resume rows` lines split at their tabs, best first. Too many terms: a usage error.
 * `after`: work for when the rows are out (the group map made for the next reload).
 */
export async function searchRows(
  app: App,
  query: string,
  filters: SearchFilters,
): Promise<{ rows: string[][]; unindexed: number; after?: () => Promise<void> }> {
  const terms = parseQuery([query], true);
  if (terms.length > 31) throw usage('at most 31 words or phrases');
  if (terms.length === 0) return { rows: [], unindexed: 0 };
  const now = Date.now();
  const rowsOf = (results: Result[], shorts: Map<string, string>) =>
    results.map((r) => row(r.session, shorts.get(r.session.id) ?? r.session.id.slice(0, 8), app.ctx.home, now).split('\t'));
  const { fromMap, namesStamp } = await import('./groupmap.js');
  const db = indexFiles(app.ctx).db;
  const view = viewOf(app);
  // a word few files hold: only the groups that may hold it are loaded (groupmap.ts; the harnesses'
  // search hooks first: it reads their shared stores)
  await loadExtractors();
  await fillWritten(app);
  const quick = withRead(db, (d) => fromMap(app, d, terms, view));
  if (quick && typeof quick === 'object') {
    const { results } = await searchMapped(app, quick, terms, filters, { evidence: false });
    return { rows: rowsOf(results, quick.shorts), unindexed: 0 };
  }
  const workers = prestart(app, terms);
  // the listing as the picker's own check left it, as the picker's other reloads use it: not every
  // file statted again for each key (~90 ms a key at 22,000 sessions); a file changed since the
  // picker opened is searched as it was then
  const names = namesStamp(app);
  const stored = storedWithShorts(app.ctx);
  const all = stored ? view(stored.sessions) : await app.sessions();
  // rows only: ranked, with no evidence cut
  const { results, stats, current } = await runSearch(app, all, terms, filters, { prestarted: workers, evidence: false });
  // (the short ids the index keeps; worked out again only for a listing just built)
  const shorts = stored?.shorts ?? shortIds(all);
  const at = stored && current !== null ? { build: stored.build, sigs: current, names } : null;
  // every signature current, the map not of them: made for the next reload, once the rows are out
  const after = at && quick === 'stale' ? () => keepMap(app, all, at) : undefined;
  return { rows: rowsOf(results, shorts), unindexed: stats.unindexed, after };
}

/**
 * `resume search` from the group map (groupmap.ts), when it holds for the listing as it is now: the
 * sources checked first, as any search checks them (a change builds the index, which the map is
 * then not of: null, and the caller loads the listing, which finds it built). Only without
 * harness, directory or time filters: the sessions a search counts as searched are then every
 * session of the index (the map does not know each group's directory and times). Null when the map
 * does not hold, or most groups may hold a word.
 */
export async function searchFromIndex(
  app: App,
  terms: Term[],
  how: Pick<SearchOptions, 'progress' | 'evidence' | 'top'>,
): Promise<{ results: Result[]; stats: SearchStats; shorts: Map<string, string> } | null> {
  if (app.demo) return null;
  const { fromMap, mapHolds, stampOf } = await import('./groupmap.js');
  const db = indexFiles(app.ctx).db;
  // (a map not of the database as it stands: no check here, the caller's listing makes it; a check
  // that builds makes a new build, which the map is then not of, and fromMap says so)
  if (withRead(db, (d) => mapHolds(d, stampOf(app, d))) !== true) return null;
  await app.upToDate({ quiet: true });
  await loadExtractors();
  await fillWritten(app);
  const got = withRead(db, (d) => {
    const quick = fromMap(app, d, terms, viewOf(app));
    return typeof quick === 'object' ? { quick, total: d.prepare('SELECT count(*) FROM sessions').pluck().get() as number } : null;
  });
  if (!got) return null;
  const { quick, total } = got;
  const out = await searchMapped(app, quick, terms, {}, how);
  // (the groups the map left out were passed over, as the whole listing's search passes them over)
  out.stats.sessions += total - quick.sessions.length;
  out.stats.unindexed = 0;
  return { ...out, shorts: quick.shorts };
}

/**
 * Where the words of `query` (as fzf's `{q}` holds it) are in session `s`: the passages `resume
 * search` would show as its evidence (the best and the next), from its transcripts, its subagents'
 * and those of the sessions the group map puts in its group. [] when the query has no words or the
 * session does not hold them all. Reads those transcripts, on this thread; never the listing.
 */
export async function foundIn(app: App, s: Session, query: string): Promise<Evidence[]> {
  const terms = parseQuery([query], true);
  if (terms.length === 0 || terms.length > 31) return [];
  const { membersOf } = await import('./groupmap.js');
  const members = withRead(indexFiles(app.ctx).db, (db) => membersOf(db, s.key)) ?? [];
  const { results } = await search([s, ...viewOf(app)(members)], terms, {}, { evidence: true, home: app.ctx.home });
  return results.find((r) => r.session.key === s.key)?.evidence ?? [];
}

/** Stored sessions as this app shows them: its view (the demo's directories), the snapshot names. */
const viewOf =
  (app: App) =>
  (list: Session[]): Session[] =>
    app.named(app.view(list));

/** search() over the groups the map loaded (groupmap.ts fromMap), as over the whole listing. */
function searchMapped(
  app: App,
  quick: FromMap,
  terms: Term[],
  filters: SearchFilters,
  how: Pick<SearchOptions, 'progress' | 'evidence' | 'top'>,
): ReturnType<typeof search> {
  return search(quick.sessions, terms, filters, {
    home: app.ctx.home,
    workerFile: workerFile(app),
    threads: threadCount(),
    sizes: () => quick.sigs.sizes(),
    signatures: quick.sigs,
    // (read for them anyway: with evidence, they still tell which groups lack a word: search.ts stillPossible)
    pieces: quick.pieces,
    shared: quick.shared,
    ...how,
  });
}

/**
 * The group map of `all` saved, stamped `at` (the build `all` was read from, the signatures found
 * all current); nothing when the database moved on since or cannot be written now (the next
 * search makes it).
 */
async function keepMap(app: App, all: Session[], at: { build: string; sigs: string; names: string }): Promise<void> {
  const { mapHolds, saveMap } = await import('./groupmap.js');
  try {
    const w = openWrite(indexFiles(app.ctx).db);
    try {
      // (a builder writing: not waited for)
      w.pragma('busy_timeout = 250');
      if (!mapHolds(w, at)) saveMap(w, all, at, app.ctx.home);
    } finally {
      w.close();
    }
  } catch {
    /* the cache cannot be written now */
  }
}

/**
 * Deep search made ready for the keys to come (the picker's Ctrl-S, `resume index`): the
 * signatures of files changed since made when they are few (as a search would), and the group map
 * saved when they are all current and it is not of them.
 */
export async function prepareSearch(app: App): Promise<void> {
  const { namesStamp, mapHolds, stampOf } = await import('./groupmap.js');
  const db = indexFiles(app.ctx).db;
  const names = namesStamp(app);
  if (withRead(db, (d) => mapHolds(d, stampOf(app, d))) !== false) return;
  const stored = storedWithShorts(app.ctx);
  if (!stored) return;
  const all = viewOf(app)(stored.sessions);
  const ss = await signaturesFor(app, all, []);
  if (ss.sigs && ss.missing === 0) await keepMap(app, all, { build: stored.build, sigs: ss.written, names });
}
