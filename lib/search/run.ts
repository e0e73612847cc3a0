// Deep search as the commands run it, in the calling process: with this install's worker script and
// thread count (pool.ts), and the picker's result rows (in `resume rows` format, best first).
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { storedFiles, storedSizes, storedWithShorts } from '../index/index.js';
import { row } from '../output.js';
import { shortIds } from '../select/filter.js';
import type { Session } from '../types.js';
import { type Prestarted, prestartWorkers, threadCount, workerFile } from './pool.js';
import { Prefilter } from './prefilter.js';
import type { Term } from './query.js';
import { allNeedles, parseQuery } from './query.js';
import { type SearchFilters, type SearchOptions, search } from './search.js';
import { hasSignatures, signaturesFor } from './sigfill.js';

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
  how: Pick<SearchOptions, 'progress' | 'evidence' | 'prestarted'> = {},
): ReturnType<typeof search> {
  const ss = await signaturesFor(app, all, terms, { pieces: how.evidence === false });
  const out = await search(all, terms, filters, {
    workerFile: workerFile(app),
    threads: threadCount(),
    sizes: () => storedSizes(app.ctx),
    signatures: ss.sigs,
    pieces: ss.pieces,
    ...how,
  });
  // (without signatures to use, every file was read: those still to be made are what is missing)
  out.stats.unindexed = ss.missing;
  return out;
}

/**
 * The picker's deep search: the query as fzf's `{q}` holds it (one string, split into words and
 * "phrases"), as `resume rows` lines split at their tabs, best first. Too many terms: a usage error.
 */
export async function searchRows(app: App, query: string, filters: SearchFilters): Promise<{ rows: string[][]; unindexed: number }> {
  const terms = parseQuery([query], true);
  if (terms.length > 31) throw usage('at most 31 words or phrases');
  if (terms.length === 0) return { rows: [], unindexed: 0 };
  const workers = prestart(app, terms);
  // the listing as the picker's own check left it, as the picker's other reloads use it: not every
  // file statted again for each key (~90 ms a key at 22,000 sessions); a file changed since the
  // picker opened is searched as it was then
  const stored = storedWithShorts(app.ctx);
  const all = stored ? app.named(app.view(stored.sessions)) : await app.sessions();
  const now = Date.now();
  // rows only: ranked, with no evidence cut
  const { results, stats } = await runSearch(app, all, terms, filters, { prestarted: workers, evidence: false });
  // (the short ids the index keeps; worked out again only for a listing just built)
  const shorts = stored?.shorts ?? shortIds(all);
  const rows = results.map((r) => row(r.session, shorts.get(r.session.id) ?? r.session.id.slice(0, 8), app.ctx.home, now).split('\t'));
  return { rows, unindexed: stats.unindexed };
}
