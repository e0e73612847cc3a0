// One query, one order (DESIGN.md "Naming a session"): the picker, `resume WORDS`, TAB completion
// and the key-binding widget all match and order sessions here.
//
// A query is words. Every word must occur (case-insensitive, accents folded) in what a person would
// type to name a session: its title, its prompts, the last parts of its directory, its branch, its
// harness, or the start of its id. A long shared path prefix (`/home/me/src/`) is not matched: a
// word found only there would match every session. A word that is a path (`.`, `~/src/shop`,
// `../api`) names a directory instead: the sessions there or below it, as `--dir` gives them.
// `"two words"` is a phrase; `!word` leaves out the sessions that hold it; a leading `'` (fzf's
// exact-match mark) is taken off, as every word here is matched exactly. Fuzzy matching is not
// done: `blog astro` once matched a session whose path held b…l…o…g somewhere, and Enter resumed it.
//
// The best match comes first; among equal scores the order given (newest first) stands. A word
// scores by where it is found (field weights below) and how (the whole field, a whole word, a word's
// start, inside a word); a session's score is the sum over its words.

import path from 'node:path';
import { isDir } from '../util/fsx.js';
import { under } from './filter.js';

/** What a session offers to a query. Strings may be null or empty. */
export interface Matchable {
  id: string;
  harness: string;
  cwd: string | null;
  branch: string | null;
  /** the title, else the first prompt (what the row shows) */
  label: string | null;
  /** every prompt known (first and last at least) */
  prompts?: readonly (string | null)[] | null;
}

export interface Term {
  text: string;
  not: boolean;
  /**
   * a word that is a path (`.`, `..`, or starting `/`, `./`, `../`, `~`; `/name` only when that
   * directory exists: isDirWord), as typed: it names a directory, and matches the sessions whose
   * directory is that one or below it, as `--dir` does (`text` is then never looked for as words are)
   */
  dir?: string;
}

/** The shape of a word that names a directory (Term.dir): what a person types for "here" or a project's path. */
const DIR_PATH = /^(?:\.\.?|\.\.?\/.*|\/.*|~(?:\/.*)?)$/s;

/**
 * Whether a word names a directory (DIR_PATH). A word of one part after `/` (`/compact`, `/review`)
 * is one only when that directory exists: those are a harness's slash commands, which people name
 * sessions by, far more often than a directory at the root.
 */
function isDirWord(w: string): boolean {
  if (!looksLikeDir(w)) return false;
  return !w.startsWith('/') || w.indexOf('/', 1) > 0 || isDir(w);
}

/** Whether a word has the shape of a path to a directory (DIR_PATH), whatever is there. */
export const looksLikeDir = (w: string): boolean => DIR_PATH.test(w);

/** Lower case, accents folded (é → e), so `cafe` finds `Café`. */
export function fold(s: string): string {
  const low = s.toLowerCase();
  // Any UTF-16 unit past ASCII (surrogates included), written without control characters.
  return /[\u0080-\uffff]/.test(low) ? low.normalize('NFD').replace(/\p{M}/gu, '') : low;
}

/**
 * `text` from the start of the word that holds `w` (folded) on, `…` for what is left out; whole when
 * `w` is near its start: the prompt a word named a session from, as TAB shows it before a title. (A
 * shell clips a description to the terminal: at 80 columns fish kept 20 characters of it after the
 * directory and branch.)
 */
export function fromWord(text: string, w: string): string {
  const f = fold(text);
  const at = f.length === text.length ? f.indexOf(w) : -1;
  if (at < 12) return text;
  return `…${text.slice(text.lastIndexOf(' ', at) + 1)}`;
}

/** The query's terms: words and "quoted phrases", `!` for a term that must not occur. */
export function parseQuery(q: string | readonly string[]): Term[] {
  // (an argument that is a path with a space in it, `resume "~/src/my app"`, is one directory word)
  const spaced = typeof q === 'string' ? [] : q.filter((a) => /\s/.test(a) && isDirWord(a));
  const text = typeof q === 'string' ? q : q.filter((a) => !spaced.includes(a)).join(' ');
  const out: Term[] = spaced.map((a) => ({ text: fold(a), not: false, dir: a }));
  const re = /(!?)"([^"]*)"?|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let not = m[1] === '!';
    let t = m[2] ?? m[3] ?? '';
    if (m[3] != null) {
      if (t.startsWith('!') && t.length > 1) {
        not = true;
        t = t.slice(1);
      }
      if (t.startsWith("'") && t.length > 1) t = t.slice(1);
    }
    // (quoted, a path may hold spaces: `"~/src/my app"`)
    const dir = isDirWord(t) ? t : undefined;
    t = fold(t.trim().replace(/\s+/g, ' '));
    if (t && t !== '!') out.push(dir === undefined ? { text: t, not } : { text: t, not, dir });
  }
  return out;
}

/** Arguments as one typed query (the picker's), a path with a space in it quoted so it stays one directory word. */
export function queryText(args: readonly string[]): string {
  return args.map((a) => (/\s/.test(a) && isDirWord(a) && !a.includes('"') ? `"${a}"` : a)).join(' ');
}

/** Field weights: what a person most likely typed a word from. */
const W = { id: 5, label: 4, base: 3, branch: 2, harness: 2, prompt: 1.5, parent: 1 } as const;

const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c > 127;

/**
 * How well `t` occurs in `f` (both folded): 4 the whole field, 3 a whole word, 2 a word's start,
 * 1 inside a word, 0 not at all.
 */
export function quality(f: string, t: string): number {
  if (f.length < t.length) return 0;
  if (f === t) return 4;
  let best = 0;
  for (let i = f.indexOf(t); i >= 0; i = f.indexOf(t, i + 1)) {
    const start = i === 0 || !isWordChar(f.charCodeAt(i - 1));
    const end = i + t.length >= f.length || !isWordChar(f.charCodeAt(i + t.length));
    const q = start ? (end ? 3 : 2) : 1;
    if (q > best) best = q;
    if (best === 3) break;
  }
  return best;
}

/** The folded fields of one session besides its prompts, made once per ranking. */
interface Fields {
  /** the directory as it is (a directory term matches it, not folded) */
  cwd: string | null;
  id: string;
  harness: string;
  base: string;
  parent: string;
  branch: string;
  label: string;
}

/** The last two parts of a directory (the project and what holds it), folded; HOME is not a part. */
export function dirParts(cwd: string | null, home: string): { base: string; parent: string } {
  if (!cwd) return { base: '', parent: '' };
  const rel = home && home !== '/' && (cwd === home || cwd.startsWith(`${home}/`)) ? cwd.slice(home.length) : cwd;
  const parts = rel.split('/').filter(Boolean);
  return { base: fold(parts[parts.length - 1] ?? ''), parent: fold(parts[parts.length - 2] ?? '') };
}

function fieldsOf(s: Matchable, home: string): Fields {
  const { base, parent } = dirParts(s.cwd, home);
  return {
    cwd: s.cwd,
    id: s.id.toLowerCase(),
    harness: s.harness,
    base,
    parent,
    branch: fold(s.branch ?? ''),
    label: fold(s.label ?? ''),
  };
}

/** The best weighted quality of one term in a session's fields besides its prompts (0: nowhere). */
function termScore(f: Fields, t: string): number {
  let best = 0;
  // an id is named by its start only: a word inside a hex id is noise
  if (f.id.startsWith(t)) best = W.id * (f.id === t ? 4 : 3);
  const take = (field: string, w: number) => {
    if (w * 4 <= best || !field) return;
    const q = quality(field, t);
    if (q && q * w > best) best = q * w;
  };
  take(f.label, W.label);
  take(f.base, W.base);
  take(f.branch, W.branch);
  take(f.harness, W.harness);
  take(f.parent, W.parent);
  // `src/webshop`: the directory's last two parts as they are written
  if (t.includes('/') && f.parent) take(`${f.parent}/${f.base}`, W.base);
  return best;
}

/** Where a directory term points: `~` is `home`, a relative path is from the current directory. */
export function dirOf(raw: string, home: string): string {
  const t = raw === '~' || raw.startsWith('~/') ? home + raw.slice(1) : raw;
  return path.resolve(t);
}

/**
 * Deep search's directory from words that are paths (Term.dir), which it takes as a filter: the
 * other words (`rest`, each as given), and where every path and `also` (`--dir`, the picker's) hold,
 * the deepest of them; NOWHERE when two are apart; undefined when none was given.
 */
export function pathWords(
  query: string | readonly string[],
  home: string,
  also?: string,
): { dir: string | undefined; rest: string[]; paths: string[] } {
  // (a typed query, the picker's, is its words apart)
  const words = typeof query === 'string' ? query.split(/\s+/).filter(Boolean) : query;
  const paths: string[] = [];
  const rest: string[] = [];
  for (const w of words) (isDirWord(w) ? paths : rest).push(w);
  const dirs = [...(also ? [also] : []), ...paths.map((w) => dirOf(w, home))].sort((a, b) => b.length - a.length);
  const [deepest] = dirs;
  return { dir: deepest !== undefined && dirs.every((d) => under(deepest, d)) ? deepest : dirs.length ? NOWHERE : undefined, rest, paths };
}

/** A directory no session is in (two directory words apart from each other). */
const NOWHERE = '/\0nowhere';

/** A directory term's score: the session's directory is it (the whole field), or below it (a whole word). */
function dirScore(f: Fields, dir: string): number {
  if (!under(f.cwd, dir)) return 0;
  return W.base * (f.cwd === dir ? 4 : 3);
}

/**
 * The items that match every term, best first; equal scores keep the order given (newest first).
 * No terms (an empty query, or only `!` terms): every item not excluded, in the order given.
 */
export function rank<T>(items: readonly T[], terms: readonly Term[], home: string, view: (x: T) => Matchable): T[] {
  return rankAsking(items, terms, home, view, () => (x) => view(x).prompts);
}

/**
 * rank, with the prompts asked for (`prompts`, given the items that need them) only where they can
 * change a score: a word found in an item's other fields at the weight a prompt can give at most
 * (W.prompt × 4: a word's start in the title, the directory's name) is not looked for in its
 * prompts, so an item whose every word is found so needs none. (In the picker at 22,000 sessions
 * the prompts of the sessions a typed word is in were most of a key's time: ~48 MB of them for
 * `web`.) The same order as when every item's prompts are given.
 */
export function rankAsking<T>(
  items: readonly T[],
  terms: readonly Term[],
  home: string,
  view: (x: T) => Matchable,
  prompts: (need: T[]) => ((x: T) => readonly (string | null)[] | null | undefined) | null,
): T[] {
  // each item's best for each term (from `i * terms.length`); -1 first: the item is ruled out
  const best = new Float64Array(items.length * terms.length);
  const need: number[] = [];
  const dirs = terms.map((t) => (t.dir === undefined ? null : dirOf(t.dir, home)));
  for (let i = 0; i < items.length; i++) {
    const f = fieldsOf(view(items[i]), home);
    if (fieldBests(f, terms, dirs, best, i)) need.push(i);
  }
  const promptsOf = need.length ? prompts(need.map((i) => items[i])) : null;
  if (promptsOf)
    for (const i of need) {
      const raw = promptsOf(items[i]);
      if (raw?.length) promptBests(raw, terms, best, i);
    }
  const scored: { x: T; s: number; i: number }[] = [];
  for (let i = 0; i < items.length; i++) {
    const s = sumOf(terms, best, i);
    if (s !== null) scored.push({ x: items[i], s, i });
  }
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.map((e) => e.x);
}

/**
 * Item i's best for each term in fields other than its prompts, into `best` (a `!` term found rules
 * it out); true when a prompt could still move it: a term below what a prompt can give.
 */
function fieldBests(f: Fields, terms: readonly Term[], dirs: readonly (string | null)[], best: Float64Array, i: number): boolean {
  const at = i * terms.length;
  let open = false;
  for (let j = 0; j < terms.length; j++) {
    const dir = dirs[j];
    const b = dir === null ? termScore(f, terms[j].text) : dirScore(f, dir);
    best[at + j] = b;
    // a `!` term found, or a directory the item is not in (no prompt can put it there): ruled out,
    // and its prompts never asked for (`~/src/api retry` at 22,000 sessions: ~350 → ~180 ms a key)
    if ((terms[j].not && b > 0) || (dir !== null && !terms[j].not && b === 0)) {
      best[at] = -1;
      return false;
    }
    if (b < W.prompt * 4 && dir === null) open = true;
  }
  return open;
}

/** fieldBests' terms below what a prompt can give, raised by item i's prompts (a `!` term found rules it out). */
function promptBests(raw: readonly (string | null)[], terms: readonly Term[], best: Float64Array, i: number): void {
  const at = i * terms.length;
  const folded = raw.filter((p): p is string => !!p).map(fold);
  for (let j = 0; j < terms.length; j++) {
    if (best[at + j] >= W.prompt * 4 || terms[j].dir !== undefined) continue;
    for (const p of folded) best[at + j] = Math.max(best[at + j], W.prompt * quality(p, terms[j].text));
    if (terms[j].not && best[at + j] > 0) {
      best[at] = -1;
      return;
    }
  }
}

/** Item i's score (the sum of its terms' bests), or null when a term is missing or it is ruled out. */
function sumOf(terms: readonly Term[], best: Float64Array, i: number): number | null {
  const at = i * terms.length;
  if (terms.length && best[at] < 0) return null;
  let s = 0;
  for (let j = 0; j < terms.length; j++) {
    if (terms[j].not) continue;
    if (best[at + j] === 0) return null;
    s += best[at + j];
  }
  return s;
}

/** The plain words of the terms (for a prefilter that looks for bytes): none for `!` terms. */
export function wantedWords(terms: readonly Term[]): string[] {
  return terms.filter((t) => !t.not && t.dir === undefined).flatMap((t) => t.text.split(' '));
}
