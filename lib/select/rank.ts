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

/**
 * The best place of each term in the prompts of the sessions read (quality's 0-4, by `harness:id`),
 * from the prompts as the index keeps them (store.ts `prompts`: each source's a JSON array of
 * strings, folded as fold folds), looked in as written and let go a row at a time: at 22,000
 * sessions, decoding and folding the ~48 MB of prompts that held a typed word, and keeping them
 * until ranked, was most of a key's time.
 */
export class PromptQualities {
  private readonly by = new Map<string, Uint8Array>();
  constructor(readonly terms: readonly Term[]) {}
  /** One row of a session's prompts: a JSON array of folded strings. */
  add(key: string, json: string): void {
    const best = this.by.get(key) ?? new Uint8Array(this.terms.length);
    this.by.set(key, best);
    let decoded: string[] | null = null;
    for (let j = 0; j < this.terms.length; j++) {
      const t = this.terms[j];
      if (t.dir !== undefined || best[j] === 4) continue;
      let q = 0;
      if (jsonLookable(t.text)) q = jsonQuality(json, t.text);
      else {
        decoded ??= decodedJson(json);
        for (const p of decoded) q = Math.max(q, quality(p, t.text));
      }
      if (q > best[j]) best[j] = q;
    }
  }
  get(key: string): Uint8Array | undefined {
    return this.by.get(key);
  }
  get size(): number {
    return this.by.size;
  }
}

/** The strings of a JSON array; [] when it is damaged. */
function decodedJson(json: string): string[] {
  try {
    const a = JSON.parse(json) as unknown;
    return Array.isArray(a) ? a.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Can `t` be looked for in a JSON array of strings as written? It must hold no character JSON
 * writes escaped (a quote, a backslash, a control character), and one that is not `[`, `,` or `]`,
 * the only characters between the strings: then every occurrence lies inside one string, as its
 * characters (an occurrence starting inside an escape, the `n` of `\n`, is none).
 */
export function jsonLookable(t: string): boolean {
  let between = true;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92) return false;
    if (c !== 91 && c !== 93 && c !== 44) between = false;
  }
  // (a lone surrogate is written escaped too)
  return !between && !/\p{Cs}/u.test(t);
}

/** Are the backslashes right before `p` odd in number (the last of them starts an escape)? */
function escapes(j: string, p: number): boolean {
  let n = 0;
  while (p - n > 0 && j.charCodeAt(p - n - 1) === 92) n++;
  return n % 2 === 1;
}

/** Does position `i` of JSON text `j` lie inside an escape (`\n`'s `n`, `\u00e9`'s digits)? */
function inEscape(j: string, i: number): boolean {
  if (escapes(j, i)) return true;
  for (let d = 1; d <= 4 && i - d > 0; d++) if (j.charCodeAt(i - d) === 117 && escapes(j, i - d)) return true;
  return false;
}

/** The character an escape stands for, by the letter after its backslash at `b` (JSON's own). */
function unescaped(j: string, b: number): number {
  const c = j.charCodeAt(b + 1);
  if (c === 117) return Number.parseInt(j.slice(b + 2, b + 6), 16);
  // (\" \\ \/ stand for themselves; \b \f \n \r \t for control characters: none a word's)
  return c === 34 || c === 92 || c === 47 ? c : 10;
}

/** The character before position `i` of a string in JSON text `j`, as decoded; -1 at the string's start. */
function charBefore(j: string, i: number): number {
  const c = j.charCodeAt(i - 1);
  if (c === 34) return escapes(j, i - 1) ? 34 : -1;
  if (i >= 6 && j.charCodeAt(i - 5) === 117 && escapes(j, i - 5)) return unescaped(j, i - 6);
  return escapes(j, i - 1) ? unescaped(j, i - 2) : c;
}

/** The character at position `e` of a string in JSON text `j`, as decoded; -1 at the string's end. */
function charAt(j: string, e: number): number {
  const c = j.charCodeAt(e);
  if (c === 34 || Number.isNaN(c)) return -1;
  return c === 92 ? unescaped(j, e) : c;
}

/**
 * quality's best over the strings of `j`, a JSON array of folded strings, for a jsonLookable `t`:
 * the same as decoding them and taking quality of each.
 */
export function jsonQuality(j: string, t: string): number {
  let best = 0;
  for (let i = j.indexOf(t); i >= 0; i = j.indexOf(t, i + 1)) {
    if (inEscape(j, i)) continue;
    const before = charBefore(j, i);
    const after = charAt(j, i + t.length);
    if (before === -1 && after === -1) return 4;
    const q = before === -1 || !isWordChar(before) ? (after === -1 || !isWordChar(after) ? 3 : 2) : 1;
    if (q > best) best = q;
    // (only a whole string is better: found as itself between its quotes)
    if (best === 3) return wholeString(j, t) ? 4 : 3;
  }
  return best;
}

/**
 * The first of the strings of `json` (a JSON array of strings) whose folded form holds `w` (folded),
 * decoded; undefined when none does. `lowered`: `json` lower-cased, which folds it as fold would
 * (the text has no character fold changes but ASCII letters, store.ts foldedOf), else null: then
 * every string is decoded and folded.
 */
export function firstHolding(json: string, lowered: string | null, w: string): string | undefined {
  if (lowered === null || !jsonLookable(w)) return decodedJson(json).find((p) => fold(p).includes(w));
  for (let i = lowered.indexOf(w); i >= 0; i = lowered.indexOf(w, i + 1)) {
    if (inEscape(lowered, i)) continue;
    // the string the match is in: between the quotes around it that no backslash escapes (lower
    // case moves no character, so the places are the same in `json`)
    let a = i - 1;
    while (a > 0 && !(lowered.charCodeAt(a) === 34 && !escapes(lowered, a))) a--;
    let b = i + w.length;
    while (b < lowered.length && !(lowered.charCodeAt(b) === 34 && !escapes(lowered, b))) b++;
    try {
      return JSON.parse(json.slice(a, b + 1)) as string;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Is `t` one of the strings of JSON text `j` (jsonQuality)? */
function wholeString(j: string, t: string): boolean {
  const quoted = `"${t}"`;
  for (let i = j.indexOf(quoted); i >= 0; i = j.indexOf(quoted, i + 1)) if (!escapes(j, i)) return true;
  return false;
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

/** A session's prompts as given (Matchable.prompts), or where each term is in them (PromptQualities, for these terms). */
type Prompts = readonly (string | null)[] | Uint8Array;

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
  prompts: (need: T[]) => ((x: T) => Prompts | null | undefined) | null,
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
function promptBests(raw: Prompts, terms: readonly Term[], best: Float64Array, i: number): void {
  const at = i * terms.length;
  let folded: string[] | null = null;
  for (let j = 0; j < terms.length; j++) {
    if (best[at + j] >= W.prompt * 4 || terms[j].dir !== undefined) continue;
    if (raw instanceof Uint8Array) best[at + j] = Math.max(best[at + j], W.prompt * raw[j]);
    else {
      folded ??= raw.filter((p): p is string => !!p).map(fold);
      for (const p of folded) best[at + j] = Math.max(best[at + j], W.prompt * quality(p, terms[j].text));
    }
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
