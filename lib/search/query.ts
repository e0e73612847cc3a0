// Query terms and their byte-level prefilter needles.
//
// Words are case-insensitive substrings; a quoted phrase matches its words in order with any
// whitespace between them. The prefilter works on raw JSON bytes, lowercased by mapping every byte
// through String.prototype.toLowerCase of its Latin-1 reading (ASCII letters fold exactly; the same
// mapping is applied to the needles, so a needle can only miss a line its term really is not in).
// JSON escaping: a needle is the longest run of the term made of printable ASCII that no JSON
// encoder escapes (no `"`, `\`, `<`, `>`, `&`), when that run has at least 4 characters; otherwise
// the term is looked for as UTF-8 and as `\uXXXX` escapes, in lower case, upper case and as typed.
// Limitation: a word with two or more non-ASCII letters in mixed case (`ÜbÉr`) is only found as
// typed, all lower or all upper case.

import { usage } from '../errors.js';
import { escapeRe } from '../util/text.js';

export interface Term {
  /** as typed (phrases with whitespace folded) */
  text: string;
  phrase: boolean;
  /** global, case-insensitive, Unicode regex for decoded text */
  re: RegExp;
  /** Latin-1-lowercased byte strings; a line can contain the term only if it contains one of them */
  needles: string[];
}

/** Latin-1 reading of the UTF-8 bytes, lowercased: the same mapping the scanner applies to lines. */
export function byteKey(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1').toLowerCase();
}

const SAFE = /[\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]+/g; // printable ASCII minus space " & < > \

function jsonBody(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

function asciiEscaped(s: string): string {
  return jsonBody(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function needlesFor(word: string): string[] {
  const runs = word.match(SAFE) ?? [];
  const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  if (longest.length >= 4 || longest.length === word.length) return [byteKey(longest || word)];
  const out = new Set<string>();
  for (const v of [word, word.toLowerCase(), word.toUpperCase()]) {
    out.add(byteKey(jsonBody(v)));
    out.add(byteKey(asciiEscaped(v)));
  }
  return [...out].filter(Boolean);
}

/**
 * The longest word or phrase searched for: V8 overflows its stack matching a regular expression of
 * ~20,000 literal characters (an internal error that printed the whole expression), and nobody
 * types one; a pasted error message of a few lines fits.
 */
const TERM_MAX = 4096;

export function makeTerm(raw: string, phrase: boolean): Term | null {
  const words = raw.split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const isPhrase = phrase && words.length > 1;
  const text = words.join(' ');
  const re = new RegExp(words.map(escapeRe).join('\\s+'), 'giu');
  // A phrase is prefiltered on its longest word (a line holding the phrase holds that word).
  const anchor = words.reduce((a, b) => (b.length > a.length ? b : a), '');
  return { text, phrase: isPhrase, re, needles: needlesFor(anchor) };
}

/**
 * Terms from the command line. Double quotes inside an argument delimit phrases. An argument that
 * contains whitespace but no quotes is a phrase (the shell quoted it) unless `split` is set (fzf's
 * `{q}` arrives as one argument holding the whole query).
 */
export function parseQuery(args: string[], split = false): Term[] {
  const out: Term[] = [];
  const seen = new Set<string>();
  const add = (raw: string, phrase: boolean) => {
    if (raw.length > TERM_MAX) throw usage(`a word or phrase of at most ${TERM_MAX} characters`);
    const t = makeTerm(raw, phrase);
    if (!t) return;
    const k = `${t.phrase ? 'p' : 'w'}:${t.text.toLowerCase()}`;
    if (seen.has(k)) return;
    seen.add(k);
    out.push(t);
  };
  for (const a of args) {
    if (a.includes('"')) {
      for (const m of a.matchAll(/"([^"]*)"?|([^\s"]+)/g)) {
        if (m[1] != null) add(m[1], true);
        else if (m[2]) add(m[2], false);
      }
    } else if (/\s/.test(a.trim()) && !split) {
      add(a, true);
    } else {
      for (const w of a.split(/\s+/)) if (w) add(w, false);
    }
  }
  return out;
}

/** Every needle of every term, deduplicated (the scanner's prefilter set). */
export function allNeedles(terms: Term[]): string[] {
  return [...new Set(terms.flatMap((t) => t.needles))];
}

/** The mask of all of `n` terms (bit i: term i; at most 31 terms are told apart, as termMask tells them). */
export function allTerms(n: number): number {
  return n >= 31 ? 0x7fffffff : (1 << n) - 1;
}

/** Bitmask of the terms found in `text` (term i → bit i; at most 31 terms are distinguished). */
export function termMask(terms: Term[], text: string): number {
  let m = 0;
  for (let i = 0; i < terms.length && i < 31; i++) {
    const re = terms[i].re;
    re.lastIndex = 0;
    if (re.test(text)) m |= 1 << i;
  }
  return m;
}
