// The sessions of the index whose stored record or one of whose prompts contains each of
// some words, found by the database (LIKE over each session's record and stored prompts) so that only
// those records are parsed: completing a word (`resume web<TAB>`), `resume WORDS` and the picker's
// typed query at 22,000 sessions would otherwise parse every session, and decode every prompt.
//
// What is found is a superset of what resolve's words match, never less: a record holds more than
// the fields words are matched against, and the words and the records are folded as words are
// matched (rank.ts fold: case, accents; `folded` in store.ts), LIKE folding ASCII case besides. A word
// that does not fold to plainWord is not looked for this way at all (null: the caller reads the whole
// listing). The caller matches what is found exactly.

import { firstHolding, fold, type PromptQualities, wantedWords } from '../select/rank.js';
import type { Ctx, Session } from '../types.js';
import { byBytes } from '../util/text.js';
import { indexFiles } from './files.js';
import { type Db, withRead } from './store.js';

export interface Holding {
  /** the sessions whose record holds every word (or may), newest first */
  sessions: Session[];
  /** the short id of every session found */
  shorts: Map<string, string>;
}

/** Can a word be looked for as its bytes? Printable ASCII that JSON writes as it is. */
export function plainWord(w: string): boolean {
  return /^[\x21-\x7e]+$/.test(w) && !/["\\]/.test(w);
}

/** A LIKE pattern for `w` anywhere (its own %, _ and the escape character escaped). */
export const likeOf = (w: string) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The sessions of the index whose record, or one of whose prompts (resolve matches words in every
 * prompt), holds every word (see the top), with their short ids, and the prompts of those that have
 * one holding a word (resolve's `prompts`). `names`: the snapshot names by Claude session id (a name
 * titles an untitled session, so a word in it counts as held). Null when this cannot tell: no words,
 * a word that is not plainWord, no index.
 */
export function sessionsHolding(
  ctx: Ctx,
  words: string[],
  names: Record<string, string> = {},
  found?: PromptQualities,
  shown = false,
): (Holding & { prompts: () => Map<string, string[]>; first?: (key: string, w: string) => string | undefined }) | null {
  const folded = lookable(words);
  if (!folded) return null;
  const file = indexFiles(ctx).db;
  return withRead(file, (db) => {
    // the longest word first: most often the rarest, so that the words after it are looked for
    // only in the few sessions left (`resume web-692 empty` at 22,000 sessions, where `empty` is in
    // nearly every session's prompts: ~310 → ~220 ms)
    const order = longestFirst(folded);
    const { keys, inPrompts } = narrowed(db, order.slice(0, -1), (w, within) => [
      ...keysHolding(db, 'sessions', w, within),
      ...namedBy(names, w, within),
    ]);
    if (keys?.size === 0) return { sessions: [], shorts: new Map(), prompts: () => new Map() };
    // the last word's records are looked in as the sessions are read
    const w = order[order.length - 1];
    const prompts = keysHolding(db, 'prompts', w, keys);
    for (const k of prompts) inPrompts.add(k);
    const also = [...prompts, ...namedBy(names, w, keys)];
    const few = keys !== null && keys.size <= FEW_KEYS;
    const sql = `SELECT key, doc, short FROM sessions WHERE (coalesce(folded, doc) LIKE ? ESCAPE '\\' OR key IN (SELECT value FROM json_each(?)))${few ? ' AND key IN (SELECT value FROM json_each(?))' : ''} ORDER BY at DESC, id`;
    const sessions: Session[] = [];
    const shorts = new Map<string, string>();
    const rows = db.prepare(sql).iterate(likeOf(w), JSON.stringify(also), ...(few ? [JSON.stringify([...(keys ?? [])])] : [])) as Iterable<{
      key: string;
      doc: string;
      short: string;
    }>;
    for (const r of rows) {
      if (keys !== null && !keys.has(r.key)) continue;
      const s = JSON.parse(r.doc) as Session;
      sessions.push(s);
      shorts.set(s.id, r.short);
    }
    // (the prompts of a session none of whose prompts holds a word add nothing to its match)
    const withPrompts = sessions.map((s) => s.key).filter((k) => inPrompts.has(k));
    // `found`: where the query's terms are in them, for ranking; the prompts themselves are then
    // read only if asked for (by a query of other terms: resolve.ts namedAbove). `shown`: the
    // prompt that holds a word is shown (TAB), so the rows are kept as they are read (`first`).
    const first = found && shown ? keptPrompts(db, found, withPrompts) : undefined;
    if (found && !shown) qualitiesOf(db, found, withPrompts);
    let read: Map<string, string[]> | null = null;
    const lazily = () => {
      read ??= withRead(file, (d) => promptsOf(d, withPrompts)) ?? new Map<string, string[]>();
      return read;
    };
    return { sessions, shorts, prompts: lazily, first };
  });
}

/**
 * The sessions of the index whose directory is `dir` or below it (a directory word: rank.ts
 * Term.dir), newest first, with their short ids (and, `withPrompts`, their prompts): those whose
 * record's `cwd` starts with it, found by LIKE (a superset: `/src/api` finds `/src/api-2` too; the
 * caller matches exactly), so that `resume .` at 22,000 sessions parses a project's records, not
 * every one (~600 → ~160 ms). Null: no index.
 */
export function sessionsUnder(ctx: Ctx, dir: string, withPrompts = false): (Holding & { prompts: Map<string, string[]> | null }) | null {
  return withRead(indexFiles(ctx).db, (db) => {
    // (the record as JSON.stringify wrote it: `"cwd":"` then the path, escaped as JSON escapes it)
    const like = likeOf(`"cwd":${JSON.stringify(dir).slice(0, -1)}`);
    const sessions: Session[] = [];
    const shorts = new Map<string, string>();
    const q = db.prepare("SELECT doc, short FROM sessions WHERE doc LIKE ? ESCAPE '\\' ORDER BY at DESC, id");
    for (const r of q.iterate(like) as Iterable<{ doc: string; short: string }>) {
      // (for words besides, so many that the words narrow better: not read further)
      if (withPrompts && sessions.length === FEW_UNDER) return { sessions, shorts, prompts: null };
      const s = JSON.parse(r.doc) as Session;
      sessions.push(s);
      shorts.set(s.id, r.short);
    }
    // `withPrompts`: every prompt of those sessions, for words besides the directory; null when they
    // are so many (`~ retry`) that the words narrow better (sessionsHolding)
    const prompts = withPrompts ? promptsOf(db, [...new Set(sessions.map((s) => s.key))]) : null;
    return { sessions, shorts, prompts };
  });
}

/** the most sessions under a directory whose prompts sessionsUnder gives */
const FEW_UNDER = 2000;

/** The words, the longest first (most often the rarest: see sessionsHolding). */
const longestFirst = (words: string[]): string[] => [...words].sort((a, b) => b.length - a.length);

/**
 * The keys of the sessions that hold each of `words`, looked for one after another, each next word
 * only among the sessions left: a word is held by a session with a prompt holding it, or one
 * `besides` gives (what else the caller matches: records, rows; of `within`, the keys left, when
 * not null). With them, the sessions that have a prompt holding one of the words. Keys null: no
 * word looked for.
 */
function narrowed(
  db: Db,
  words: string[],
  besides: (w: string, within: Set<string> | null) => Iterable<string>,
  first?: string[],
): { keys: Set<string> | null; inPrompts: Set<string> } {
  const inPrompts = new Set<string>();
  let keys: Set<string> | null = null;
  for (const [i, w] of words.entries()) {
    const within: Set<string> | null = keys;
    // (`first`: the first word's keysHolding, looked for already)
    const held: Set<string> = new Set(i === 0 && first ? first : keysHolding(db, 'prompts', w, within));
    for (const k of held) inPrompts.add(k);
    for (const k of besides(w, within)) held.add(k);
    keys = held;
    if (held.size === 0) break;
  }
  return { keys, inPrompts };
}

/** sessions left after a word up to which the next word is looked for in them by their keys (past it, in every row: a long list is slower) */
const FEW_KEYS = 1000;

/** sessions whose prompts hold a query's longest word past which its words are not narrowed by but read in one pass (promptQualities) */
let MANY_KEYS = 5000;

/** For tests: MANY_KEYS (a small home has too few sessions to pass it). */
export function setManyKeys(n = 5000): void {
  MANY_KEYS = n;
}

/**
 * The keys of the sessions (of `within`, when given) with a prompt (`prompts`) or a record
 * (`sessions`) that holds `w`, as it is folded there. The stored JSON is looked in as it is, not
 * decoded: a plainWord has no character JSON escapes, so whatever holds it decoded is found.
 */
function keysHolding(db: Db, table: 'prompts' | 'sessions', w: string, within: Set<string> | null): string[] {
  const col = table === 'prompts' ? 'texts' : 'doc';
  const few = within !== null && within.size <= FEW_KEYS;
  // (no DISTINCT: SQLite would read the rows in key order, through its index, ~2.5x as slow)
  const sql = `SELECT key FROM ${table} WHERE coalesce(folded, ${col}) LIKE ? ESCAPE '\\'${few ? ' AND key IN (SELECT value FROM json_each(?))' : ''}`;
  const keys = db
    .prepare(sql)
    .pluck()
    .all(likeOf(w), ...(few ? [JSON.stringify([...within])] : [])) as string[];
  const out = new Set(within === null || few ? keys : keys.filter((k) => within.has(k)));
  return [...out];
}

/** The keys of the Claude sessions whose snapshot name holds `w` (of `within`, when given): a name titles an untitled session. */
function namedBy(names: Record<string, string>, w: string, within: Set<string> | null): string[] {
  return Object.entries(names)
    .filter(([, name]) => fold(name).includes(w))
    .map(([sid]) => `claude:${sid}`)
    .filter((k) => within === null || within.has(k));
}

/**
 * The words folded as they are matched (rank.ts fold), to be looked for in what the database keeps
 * folded alike; null when they cannot be: none, or one that is not plainWord.
 */
function lookable(words: string[]): string[] | null {
  const folded = words.map(fold);
  return folded.length === 0 || !folded.every(plainWord) ? null : folded;
}

/** `harness:id` → every prompt of these sessions (their sources' in order), from the prompts table. */
export function promptsOf(db: Db, keys: string[]): Map<string, string[]> {
  if (keys.length === 0) return new Map();
  const sql = 'SELECT key, texts FROM prompts WHERE key IN (SELECT value FROM json_each(?)) ORDER BY key, path';
  return gatherPrompts(db.prepare(sql).iterate(JSON.stringify(keys)) as Iterable<{ key: string; texts: string }>);
}

/** Rows of the prompts table, in key order, as `harness:id` → every prompt. */
export function gatherPrompts(rows: Iterable<{ key: string; texts: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const ps = JSON.parse(r.texts) as string[];
    const had = out.get(r.key);
    if (had) had.push(...ps);
    else out.set(r.key, ps);
  }
  return out;
}

/**
 * A prompts row's text folded as rank.ts fold folds: `folded`, else the text as written, which then
 * holds no character but ASCII and punctuation fold leaves (store.ts foldedOf), whose case lower()
 * folds as fold would.
 */
const FOLDED_TEXT = 'coalesce(folded, lower(texts))';

/** Rows of (key, folded text) into `found`, those of wanted sessions. */
function gathered(found: PromptQualities, rows: Iterable<[string, string]>, wanted: (k: string) => boolean = () => true): void {
  for (const [key, json] of rows) if (wanted(key)) found.add(key, json);
}

/**
 * The prompts rows of the keys given as a JSON array: many keys are looked for in one pass over the
 * table (`+key`: not through its index, whose lookups took ~140 ms for 20,000 keys at 22,000
 * sessions; the pass ~90 ms).
 */
const keysIn = (keys: string[]): string => `${keys.length > FEW_KEYS ? '+' : ''}key IN (SELECT value FROM json_each(?))`;

/** The prompts of these sessions, folded, into `found`. */
function qualitiesOf(db: Db, found: PromptQualities, keys: string[]): void {
  if (keys.length === 0) return;
  const sql = `SELECT key, ${FOLDED_TEXT} FROM prompts WHERE ${keysIn(keys)}`;
  gathered(found, db.prepare(sql).raw().iterate(JSON.stringify(keys)) as Iterable<[string, string]>);
}

/**
 * The prompts of these sessions into `found`, each row kept as stored: the first prompt of a session
 * that holds a word (folded), as promptsOf's prompts would give it, without decoding the others. At
 * 22,000 sessions, TAB on a word in most of them decoded and folded every prompt of theirs.
 */
function keptPrompts(db: Db, found: PromptQualities, keys: string[]): (key: string, w: string) => string | undefined {
  const kept = new Map<string, { path: string; texts: string; folded: string | null }[]>();
  if (keys.length) {
    const sql = `SELECT key, path, texts, folded FROM prompts WHERE ${keysIn(keys)}`;
    for (const [key, path, texts, folded] of db.prepare(sql).raw().iterate(JSON.stringify(keys)) as Iterable<
      [string, string, string, string | null]
    >) {
      found.add(key, folded ?? texts.toLowerCase());
      const rows = kept.get(key);
      if (rows) rows.push({ path, texts, folded });
      else kept.set(key, [{ path, texts, folded }]);
    }
  }
  return (key, w) => {
    const rows = kept.get(key);
    // (in promptsOf's order: by path, as SQLite orders text)
    if (rows && rows.length > 1) rows.sort((a, b) => byBytes(a.path, b.path));
    for (const r of rows ?? []) {
      const p = firstHolding(r.texts, r.folded === null ? r.texts.toLowerCase() : null, w);
      if (p !== undefined) return p;
    }
    return undefined;
  };
}

/**
 * Where the query's terms are in the prompts of the sessions that may match them all (`found`, for
 * ranking: rank.ts PromptQualities): each word in one of their prompts or, by `rowsWith` (the keys of
 * the rows that hold a word), in what the caller matches besides (its row), and one at least in a
 * prompt. The longest word is looked for first, each next one only in the sessions left (as
 * sessionsHolding). The prompts are read folded, as the index keeps them, and never decoded. False
 * when a word is not plainWord, or there is no index: the caller reads allPrompts then. `only`:
 * the sessions whose prompts are wanted (those that hold the words are still found among all).
 */
export function promptQualities(ctx: Ctx, found: PromptQualities, rowsWith: (word: string) => string[], only?: Set<string>): boolean {
  const folded = lookable(wantedWords(found.terms));
  if (!folded) return false;
  const wanted = (k: string) => only === undefined || only.has(k);
  return (
    withRead(indexFiles(ctx).db, (db) => {
      // One word, or a longest word in most sessions' prompts (`webhook retry`): every row that
      // holds any word, found and read in one pass, is all there is to read (a row that holds none
      // adds nothing to a session's qualities). One word was ~60 ms that way at 22,000 sessions,
      // where finding the sessions and then reading their prompts by key was ~180; two common words
      // ~380 ms a key, where narrowing by each word and then reading the prompts left was ~490.
      // With a `!` word, every row of the sessions found: the `!` word may be in another source.
      const whole = found.terms.some((t) => t.not);
      const order = longestFirst(folded);
      const first = folded.length === 1 && !whole ? null : keysHolding(db, 'prompts', order[0], null);
      if (!whole && (first === null || first.length > MANY_KEYS)) {
        const sql = `SELECT key, ${FOLDED_TEXT} FROM prompts WHERE ${folded.map(() => "coalesce(folded, texts) LIKE ? ESCAPE '\\'").join(' OR ')}`;
        gathered(
          found,
          db
            .prepare(sql)
            .raw()
            .iterate(...folded.map(likeOf)) as Iterable<[string, string]>,
          wanted,
        );
      } else if (folded.length === 1) qualitiesOf(db, found, (first ?? []).filter(wanted));
      else {
        const { keys, inPrompts } = narrowed(
          db,
          order,
          (w, within) => rowsWith(w).filter((k) => within === null || within.has(k)),
          first ?? undefined,
        );
        qualitiesOf(
          db,
          found,
          [...(keys ?? [])].filter((k) => inPrompts.has(k) && wanted(k)),
        );
      }
      return true;
    }) ?? false
  );
}
