// Finding one session by key without a full listing when possible: the picker's callbacks (preview,
// pager, picked id) name sessions by `harness:id`, which the stored listing answers without
// statting anything (one record of it, one row of the index database: lib/index/index.ts storedSession); only a
// key missing from it (or no index yet) brings the index up to date.
import type { App } from '../app.js';
import { readNames, storeDir } from '../harness/claude/care/store.js';
import { sessionsHolding, sessionsUnder } from '../index/holding.js';
import { type ListedSession, storedListing, storedRows, storedSession } from '../index/index.js';
import { allPrompts } from '../index/prompts.js';
import { forkLine } from '../present/preview.js';
import type { Session } from '../types.js';
import { HARNESSES } from '../types.js';
import { isDir } from '../util/fsx.js';
import { shortIds, shortOf } from './filter.js';
import { dirOf, PromptQualities, parseQuery, wantedWords } from './rank.js';
import { looksLikePath, MIN_PREFIX, type PromptsOf, resolve } from './resolve.js';

/**
 * Sessions from the stored listing (the index database's sessions), without statting any source;
 * null when there is none.
 */
export function storedSessions(app: App): Session[] | null {
  const list = storedListing(app.ctx);
  return list ? app.view(list) : null;
}

/** Find a session by key (`harness:id`), else by anything `resume QUERY` accepts when it names one. */
export async function findSession(app: App, key: string): Promise<Session | null> {
  const one = storedSession(app.ctx, { key })?.session;
  if (one) return app.view([one])[0];
  return (await findWithList(app, key)).session;
}

/**
 * The session a key names, and for a fork the line naming its source by short id (unique among
 * all the listing's ids). One row each from the index database, when it has them (a source's
 * short id is its own record's); else the whole listing.
 */
export async function findForPreview(app: App, key: string): Promise<{ session: Session | null; fork: string | null }> {
  const one = storedSession(app.ctx, { key })?.session;
  if (one) {
    const [s] = app.view([one]);
    if (!one.forkedFrom) return { session: s, fork: null };
    const src = storedSession(app.ctx, { key: `${one.harness}:${one.forkedFrom}` });
    if (src) return { session: s, fork: forkLine(one, () => src.short) };
  }
  const found = await findWithList(app, key);
  const ids = found.list.map((x) => x.id);
  return { session: found.session, fork: found.session && forkLine(found.session, (id) => shortOf(id, ids)) };
}

/** The session a key names, and the list it was found in. */
async function findWithList(app: App, key: string): Promise<{ session: Session | null; list: Session[] }> {
  const stored = storedSessions(app);
  const hit = stored?.find((s) => s.key === key);
  if (stored && hit) return { session: hit, list: stored };
  const all = await app.index({ quiet: true }).then((r) => r.sessions);
  const exact = all.find((s) => s.key === key);
  if (exact) return { session: exact, list: all };
  const r = resolve([key], all);
  return { session: r.kind === 'one' ? r.session : null, list: all };
}

/**
 * Bring the index up to date (when nothing changed, the stat check only: no listing is parsed), then
 * find what a one-word query names when it is a full key or id, or the start of exactly one
 * session's id (at least 4 characters, no session having it whole), with its short id: one record
 * of the listing (what `resolve` would find: an exact id comes before prefixes and words; at 22,000
 * sessions, reading every session for a prefix was ~100 ms). `hit` is null when the query is not
 * one of those or the lookup cannot tell alone (words, a path, an id or a start two sessions
 * share); `all()` is then every session of the index just checked, read without checking again.
 */
export async function lookup(app: App, query: string[]): Promise<Lookup> {
  // (the progress bar of a long build, on a terminal, as the whole index run shows it)
  await app.upToDate();
  const all = () => checkedSessions(app);
  const named = () => namedBy(app, query);
  const q = query.length === 1 ? query[0].trim() : '';
  if (!q || /\s/.test(q) || looksLikePath(q)) return { hit: null, all, named };
  const m = /^([a-z]+):(.+)$/.exec(q);
  const scoped = m && (HARNESSES as readonly string[]).includes(m[1]) ? m : null;
  // a full key or id, else (none has it) the start of one id: resolve's steps (2) and (3), in order
  const idq = scoped ? scoped[2] : q;
  const got =
    storedSession(app.ctx, scoped ? { key: q } : { id: q }) ??
    (idq.length >= MIN_PREFIX ? storedSession(app.ctx, { prefix: idq.toLowerCase(), harness: scoped ? scoped[1] : null }) : undefined);
  if (!got) return { hit: null, all, named };
  const [session] = app.named(app.view([got.session]));
  return { hit: { session: session, short: got.short }, all, named };
}

export interface Lookup {
  hit: { session: Session; short: string } | null;
  /** every session of the index just checked */
  all: () => Promise<Session[]>;
  /** the sessions the query may name (namedBy) */
  named: () => Promise<Named>;
}

/** The sessions a query may name, for resolve: its pool, the short ids to show them by, and the prompts to match words in. */
export interface Named {
  sessions: Session[];
  shorts: Map<string, string>;
  /** resolve's `prompts`: those of the sessions found (with their terms' qualities, read when asked for), else the words' (allPrompts) */
  prompts: PromptsOf;
  /** every session of the index, not only those that may match */
  every: boolean;
}

/**
 * The sessions a query of words may name, with their stored short ids: those whose record or
 * prompts hold every word (holding.ts, with the words' prompts), which resolve then matches exactly.
 * At 22,000 sessions, reading every session for it was ~100 ms and ranking them all as much again.
 * Every session when the index cannot narrow them: a path, a word that is not plain ASCII, only `!`
 * words, no index.
 */
export async function namedBy(app: App, query: string[], o: { shown?: boolean } = {}): Promise<Named> {
  const terms = parseQuery(query);
  const words = wantedWords(terms);
  const one = query.length === 1 ? query[0].trim() : '';
  // a directory word (`resume .`, `resume ~/src/api retry`): the sessions there, when it is a
  // directory (a path to a transcript is resolve's first step, which needs that session, wherever it
  // ran), with their prompts for the words; at 22,000 sessions ~600 → ~160 ms for a project's
  const dir = terms.find((t) => t.dir !== undefined && !t.not)?.dir;
  const at = dir === undefined ? null : dirOf(dir, app.ctx.home);
  const under = at !== null && isDir(at) ? sessionsUnder(app.ctx, at, words.length > 0) : null;
  // (none there: every session, for the message that names the nearest directory above with some)
  if (under?.sessions.length && (words.length === 0 || under.prompts)) {
    const prompts = under.prompts ?? new Map<string, string[]>();
    return { sessions: app.named(app.view(under.sessions)), shorts: under.shorts, prompts: () => prompts, every: false };
  }
  if (!looksLikePath(one)) {
    // Where the terms are in their prompts is worked out as they are found, and the prompts are read
    // only if asked for; `shown`: the one that holds a word is (TAB shows the prompt a word named a
    // session from), so they are kept as read, not decoded.
    const found = new PromptQualities(terms);
    const held = sessionsHolding(app.ctx, words, readNames(storeDir(app.ctx)), found, o.shown);
    if (held)
      return {
        sessions: app.named(app.view(held.sessions)),
        shorts: held.shorts,
        prompts: Object.assign(held.prompts, { qualities: found, first: held.first }),
        every: false,
      };
  }
  const all = await checkedSessions(app);
  return { sessions: all, shorts: shortIds(all), prompts: (w) => allPrompts(app.ctx, w), every: true };
}

/**
 * Every session, named, of the index a caller just brought up to date (app.upToDate): the stored
 * listing read without checking the sources again (else the whole index run).
 */
export async function checkedSessions(app: App): Promise<Session[]> {
  const l = storedSessions(app);
  return l ? app.named(l) : app.sessions();
}

/** The same for the listing rows: what a row shows of every session, named. */
export async function checkedRows(app: App): Promise<ListedSession[]> {
  const l = storedRows(app.ctx);
  return l ? app.named(app.view(l)) : app.listing({ quiet: true });
}
