// Naming a session (DESIGN.md "Naming a session"). For one argument, in order: (1) a path to an
// indexed transcript; (2) a full id (or a `harness:id` key); (3) an id prefix of at least 4
// characters (`harness:prefix` too) matching exactly one session, two or more being ambiguous;
// (4) otherwise words, every one of which must appear (case-insensitive) in the session's title,
// prompts, the last parts of its directory, branch, harness or the start of its id (lib/select/rank.ts,
// which also orders several matches: best first, then newest). Hidden sessions are always found by path, id and prefix;
// words find them only with `all`.
import fs from 'node:fs';
import path from 'node:path';
import type { Session } from '../types.js';
import { HARNESSES } from '../types.js';
import { under } from './filter.js';
import { dirOf, fold, type Matchable, type PromptQualities, parseQuery, rank, rankAsking, type Term, wantedWords } from './rank.js';

export type Resolution =
  | { kind: 'one'; session: Session; how: 'path' | 'id' | 'prefix' | 'words' }
  | { kind: 'ambiguous-prefix'; candidates: Session[] }
  | { kind: 'many'; candidates: Session[] }
  | { kind: 'none' };

export const MIN_PREFIX = 4;

export interface ResolveOptions {
  /** directory relative paths are taken from */
  cwd?: string;
  /** words also match hidden sessions */
  all?: boolean;
  /** HOME, for a leading `~` in a path */
  home?: string;
  /**
   * Every prompt per session key (lib/index/prompts.ts), loaded only when words are matched: words
   * may come from any prompt. Without it, the sessions' own allPrompts (when present) and their
   * first and last prompts are searched. Given the words matched: it may leave out prompts that
   * hold none of them.
   */
  prompts?: PromptsOf;
}

/**
 * ResolveOptions' prompts. `qualities`: where the terms of the query they were read for are in them
 * (rank.ts PromptQualities, from the index's folded prompts), which a query of those terms ranks by
 * without reading them. `first`: a session's first prompt that holds a word (folded), where it was
 * kept without decoding the rest.
 */
export type PromptsOf = ((words: string[]) => Map<string, string[]>) & {
  qualities?: PromptQualities;
  first?: (key: string, w: string) => string | undefined;
};

export function looksLikePath(q: string): boolean {
  return q === '.' || q === '..' || q.includes('/') || q.startsWith('~') || /\.(jsonl|json|db|zst)$/.test(q);
}

function realpath(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

function byPath(q: string, sessions: Session[], o: ResolveOptions): Session[] {
  const home = o.home ?? process.env.HOME ?? '';
  const expanded = q === '~' ? home : q.startsWith('~/') ? path.join(home, q.slice(2)) : q;
  const abs = path.resolve(o.cwd ?? process.cwd(), expanded);
  const hit = sessions.filter((s) => s.file === abs);
  if (hit.length) return hit;
  // Through symlinks: compare real paths, stat'ing only files with the same name.
  const real = realpath(abs);
  if (!real) return [];
  const name = path.basename(real);
  return sessions.filter(
    (s) => (path.basename(s.file) === name || path.basename(s.file) === path.basename(abs)) && realpath(s.file) === real,
  );
}

const result = (list: Session[], how: 'path' | 'id' | 'prefix'): Resolution | null =>
  list.length === 1
    ? { kind: 'one', session: list[0], how }
    : list.length > 1
      ? { kind: how === 'prefix' ? 'ambiguous-prefix' : 'many', candidates: list }
      : null;

const sameTerms = (a: readonly Term[], b: readonly Term[]): boolean =>
  a.length === b.length && a.every((t, i) => t.text === b[i].text && t.not === b[i].not && t.dir === b[i].dir);

/** What a session offers to a query (rank.ts): its label, every prompt known, its directory, branch, harness and id. */
export function sessionMatchable(s: Session, prompts?: string[]): Matchable {
  return {
    id: s.id,
    harness: s.harness,
    cwd: s.cwd,
    branch: s.branch,
    label: s.title || s.firstPrompt,
    prompts: s.allPrompts ?? (prompts ? [s.firstPrompt, s.lastPrompt, ...prompts] : [s.firstPrompt, s.lastPrompt]),
  };
}

export function resolve(query: string[], sessions: Session[], opts: ResolveOptions = {}): Resolution {
  const q = query.join(' ').trim();
  if (!q) return { kind: 'none' };
  if (query.length === 1) {
    const r = byWord(query[0].trim(), sessions, opts);
    if (r) return r;
  }
  return byWords(query, sessions, opts);
}

/** Steps (1) to (3), for a query of one word: a transcript's path, a full id, an id prefix. */
function byWord(one: string, sessions: Session[], opts: ResolveOptions): Resolution | null {
  // (1) a path to an indexed transcript
  if (looksLikePath(one)) {
    const r = result(byPath(one, sessions, opts), 'path');
    if (r) return r;
  }
  // `harness:rest` narrows the id and prefix steps to one harness
  const m = /^([a-z]+):(.+)$/.exec(one);
  const scoped = m && (HARNESSES as readonly string[]).includes(m[1]) ? { h: m[1], rest: m[2] } : null;
  const pool = scoped ? sessions.filter((s) => s.harness === scoped.h) : sessions;
  const idq = scoped ? scoped.rest : one;
  // (2) a full id
  const exact = result(
    pool.filter((s) => s.id === idq),
    'id',
  );
  if (exact) return exact;
  // (3) an id prefix of at least 4 characters
  if (idq.length < MIN_PREFIX || /\s/.test(idq)) return null;
  const low = idq.toLowerCase();
  return result(
    pool.filter((s) => s.id.toLowerCase().startsWith(low)),
    'prefix',
  );
}

/** Step (4): words, matched and ordered as everywhere else (rank.ts). */
function byWords(query: string[], sessions: Session[], opts: ResolveOptions): Resolution {
  const terms = parseQuery(query);
  if (!terms.length) return { kind: 'none' };
  const home = opts.home ?? process.env.HOME ?? '';
  const pool = sessions.filter((s) => !s.hidden || opts.all);
  const found = opts.prompts?.qualities;
  let hits: Session[];
  if (found && sameTerms(found.terms, terms))
    hits = rankAsking(pool, terms, home, sessionMatchable, (need) => {
      // (the prompts the session itself carries, its first and last or all of them, as the index keeps prompts)
      for (const s of need) found.add(s.key, fold(JSON.stringify(sessionMatchable(s).prompts?.filter((p) => !!p) ?? [])));
      return (s) => found.get(s.key);
    });
  else {
    const more = opts.prompts?.(wantedWords(terms));
    hits = rank(pool, terms, home, (s) => sessionMatchable(s, more?.get(s.key)));
  }
  if (hits.length === 1) return { kind: 'one', session: hits[0], how: 'words' };
  if (hits.length > 1) return { kind: 'many', candidates: hits };
  return { kind: 'none' };
}

/**
 * For a query that names nothing with a directory word (`resume .` in a project's `src/`): the
 * nearest directory above that word's (not HOME or `/`, which hold everything) where sessions
 * started, and what the query names with that directory in its place; null when there is none or
 * it names nothing there either.
 */
export function namedAbove(query: string[], sessions: Session[], opts: ResolveOptions): { dir: string; r: Resolution } | null {
  const home = opts.home ?? process.env.HOME ?? '';
  const raw = query.find((w) => parseQuery(w)[0]?.dir === w);
  if (raw === undefined) return null;
  const dir = dirOf(raw, home);
  let best: string | null = null;
  for (const s of sessions) {
    if (!s.cwd || s.cwd === dir || s.cwd === home || s.cwd === '/' || (s.hidden && !opts.all)) continue;
    if (under(dir, s.cwd) && (best === null || s.cwd.length > best.length)) best = s.cwd;
  }
  if (best === null) return null;
  const up = best;
  const r = resolve(
    query.map((w) => (w === raw ? up : w)),
    sessions,
    opts,
  );
  return r.kind === 'none' ? null : { dir: up, r };
}

/** Damerau-Levenshtein distance (optimal string alignment) of at most one: one insertion, deletion, substitution or transposition. */
export function oneEdit(a: string, b: string): boolean {
  return oneEditTo(a, b, b.length);
}

/**
 * Whether `a` is at most one edit from the first `n` characters of `b` (oneEdit), without cutting
 * `b`: suggest.ts goes through a vocabulary of many thousand words for a typed one, and their starts.
 */
export function oneEditTo(a: string, b: string, n: number): boolean {
  if (Math.abs(a.length - n) > 1) return false;
  let i = 0;
  while (i < a.length && i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // the rest of `a` from x and of b's start from y the same
  const same = (x: number, y: number): boolean => {
    if (a.length - x !== n - y) return false;
    for (; x < a.length; x++, y++) if (a.charCodeAt(x) !== b.charCodeAt(y)) return false;
    return true;
  };
  if (a.length === n)
    return (
      i === n || // the same
      same(i + 1, i + 1) || // substitution
      (i + 1 < n && a.charCodeAt(i) === b.charCodeAt(i + 1) && a.charCodeAt(i + 1) === b.charCodeAt(i) && same(i + 2, i + 2)) // transposition
    );
  return a.length > n ? same(i + 1, i) : same(i, i + 1);
}

/** The subcommand a mistyped word most likely meant (one edit away), or null. */
export function didYouMean(word: string, commands: { name: string; aliases?: string[] }[]): string | null {
  const w = word.toLowerCase();
  for (const c of commands) {
    for (const n of [c.name, ...(c.aliases ?? [])]) if (oneEdit(w, n)) return c.name;
  }
  return null;
}
