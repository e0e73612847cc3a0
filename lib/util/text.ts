// Text hygiene for anything that came out of a transcript. ONE implementation of "no control
// characters on screen": stripControls (below); oneLine and safeText are its two display forms, and
// lib/util/redact.ts's sanitize/sanitizeText add secret redaction on top.
import { stripVTControlCharacters } from 'node:util';
import { eastAsianWidth } from 'get-east-asian-width';

/**
 * The characters never written raw to a terminal: C0 controls, DEL, C1 controls, the left/right
 * marks, the Unicode line/paragraph separators and the bidi embeddings, overrides and isolates (they
 * can reorder what a terminal line shows). One list, used by every check and rewrite of this kind
 * (display text here, shell quoting and config values in lib/launch).
 */
export const CONTROL_CHARS = '\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
/** Does the string hold any of CONTROL_CHARS? (not global: safe to `.test` repeatedly) */
export const HAS_CONTROL = new RegExp(`[${CONTROL_CHARS}]`);
const CONTROL_G = new RegExp(`[${CONTROL_CHARS}]`, 'g');
// the same without tab and newline (kept, then normalised, by the multi-line form)
const CONTROL_BUT_NL_G = new RegExp(`[${CONTROL_CHARS.replace('\\u0000-\\u001f', '\\u0000-\\u0008\\u000b-\\u001f')}]`, 'g');
// The common escape sequences, removed first by their exact grammar: CSI (`ESC [ params final`),
// OSC up to BEL or ST, and DCS/SOS/PM/APC strings up to ST or BEL. util.stripVTControlCharacters
// then takes what is left (charset selection, `ESC 7`, …); run alone, it also takes the text after
// a CSI when a BEL follows (`ESC[2Jword BEL` loses `word`) and leaves DCS payloads behind.
const SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips control characters (escape sequences) from transcript text
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|(?:\u001b[PX^_]|[\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u001b\\|\u0007|\u009c)/g;

/**
 * Escape sequences removed whole (SEQUENCES, then util.stripVTControlCharacters for the rest), then
 * every remaining control character of CONTROL_CHARS replaced by a space. With `keepNewlines`, line
 * breaks survive (CRLF and CR become LF) and a tab becomes two spaces.
 */
export function stripControls(s: string, keepNewlines = false): string {
  if (!HAS_CONTROL.test(s)) return s;
  let t = s;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips control characters from transcript text
  if (/[\u001b\u0080-\u009f]/.test(t)) t = stripVTControlCharacters(t.replace(SEQUENCES, ''));
  if (!keepNewlines) return t.replace(CONTROL_G, ' ');
  return t.replace(/\r\n?/g, '\n').replace(/\t/g, '  ').replace(CONTROL_BUT_NL_G, ' ');
}

/** One line of display text: escapes removed, controls and newlines become spaces, runs folded. */
export function oneLine(s: string): string {
  // Most values are clean already (the index folds prompts): one test instead of three rewrites.
  if (!HAS_CONTROL.test(s) && !s.includes('  ')) return s.trim();
  return stripControls(s).replace(/ {2,}/g, ' ').trim();
}

/** Multi-line display text: escapes and controls removed, but newlines kept. */
export function safeText(s: string): string {
  return stripControls(s, true);
}

/** Clip to n characters (code points), adding an ellipsis when cut. */
export function clip(s: string, n: number): string {
  if (s.length <= n) return s;
  // Count code points as Array.from does (a high surrogate and the low one after it are one; a lone
  // one is one too), without building an array of the whole string: the index after n - 1 of them,
  // then whether more than n are there at all.
  const len = s.length;
  const step = (i: number): number => {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= len) return i + 1;
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? i + 2 : i + 1;
  };
  let i = 0;
  let k = 0;
  while (k < n - 1 && i < len) {
    i = step(i);
    k++;
  }
  const cut = i;
  while (k <= n && i < len) {
    i = step(i);
    k++;
  }
  return k <= n ? s : `${s.slice(0, cut)}…`;
}

/**
 * A cheap cut of text whose display form is made later with promptText (a reply may be replaced by
 * the next one thousands of times in a session: fold only the one that is kept).
 */
export function rawClip(s: string): string {
  return s.length > 800 ? s.slice(0, 800) : s;
}

/** White space that `\s+` → ' ' would change: any but a space, or a space with more after it. */
const UNFOLDED = /[^\S ]| \s/;

/** Clipped, whitespace-folded prompt text for the index (400 characters). */
export function promptText(s: string): string {
  // Only the start can be kept: fold and clip a bounded slice, not a reply of megabytes.
  const head = s.length > 2000 ? s.slice(0, 2000) : s;
  // Most prompts have no white space to fold (none but single spaces): one test, not a rewrite
  // (the rewrite was most of this function's time in a 22,000-session build).
  const t = clip((UNFOLDED.test(head) ? head.replace(/\s+/g, ' ') : head).trim(), 400);
  return head.length < s.length && !t.endsWith('…') ? `${t}…` : t;
}

/**
 * One column a UTF-16 unit: printable ASCII (most ids, paths and titles), Latin-1 and Latin
 * Extended letters (precomposed), and general punctuation such as `…` and `—` (not the zero-width
 * and direction marks).
 */
const NARROW = /^[\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u205e]*$/;
/** A grapheme that draws nothing: marks, formats (ZWJ, variation selectors) and controls alone. */
const INVISIBLE = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]+$/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

// Made when first needed: creating a segmenter loads ICU's break rules (tens of ms), and most text
// is NARROW.
let graphemes: Intl.Segmenter | undefined;
const segments = (s: string): Iterable<{ segment: string; index: number }> => {
  graphemes ??= new Intl.Segmenter();
  return graphemes.segment(s);
};

/** Columns of one grapheme: an emoji (a ZWJ family too) 2, East Asian wide and fullwidth 2 (get-east-asian-width), a lone mark 0. */
function graphemeWidth(g: string): number {
  if (INVISIBLE.test(g)) return 0;
  // a grapheme is never empty: the 0 is for the type only
  const w = eastAsianWidth(g.codePointAt(0) ?? 0);
  if (PICTOGRAPHIC.test(g) && (g.length > 1 || w === 2)) return 2;
  return w;
}

/**
 * Display width of a string in a terminal, grapheme by grapheme (Intl.Segmenter): East Asian wide
 * characters and emoji 2, combining marks and joiners 0, so a family emoji is 2 and `e` with a
 * combining accent 1. Text of one column a unit (NARROW) is counted directly.
 */
export function width(s: string): number {
  if (NARROW.test(s)) return s.length;
  let w = 0;
  for (const { segment } of segments(s)) w += graphemeWidth(segment);
  return w;
}

/** Where the longest start of `s` of at most `w` display columns ends (a UTF-16 index), never inside a grapheme. */
function fitEnd(s: string, w: number): number {
  if (NARROW.test(s)) return Math.max(0, Math.min(w, s.length));
  let end = 0;
  let cur = 0;
  for (const { segment, index } of segments(s)) {
    cur += graphemeWidth(segment);
    if (cur > w) break;
    end = index + segment.length;
  }
  return end;
}

/** Cut to at most `w` display columns (ellipsis when cut), never inside a grapheme. */
export function cut(s: string, w: number): string {
  if (width(s) <= w) return s;
  return `${s.slice(0, fitEnd(s, w - 1))}…`;
}

/**
 * `s` broken into a first row of at most `w` display columns, at the last space that fits (inside a
 * word only when there is none, never inside a grapheme), and the rest ('' when `s` fits).
 */
export function breakAt(s: string, w: number): [string, string] {
  // (fitEnd measures only as far as fits: a whole string's width first measured all of it)
  const end = fitEnd(s, w);
  if (end >= s.length) return [s, ''];
  // (a space right after that start: the row is all of it)
  const space = s.lastIndexOf(' ', end);
  const at = space > 0 ? space : end;
  return at > 0 ? [s.slice(0, at).trimEnd(), s.slice(at).trimStart()] : [s, ''];
}

/**
 * `s` broken into rows of at most `w` display columns at spaces (breakAt), the first of at most
 * `first`: fzf wraps a preview's long line at its last column, inside a word.
 */
export function wrapWords(s: string, w: number, first = w): string[] {
  // (no width to wrap to, as on a terminal of a few columns: the text as it is)
  if (w < 1 || first < 1) return [s];
  const out: string[] = [];
  let rest = s;
  for (let lim = first; rest; lim = w) {
    // (each line from a window of what is left, not all of it: measuring all of it for every line
    // took 0.4 s for a pasted log of 195 KB on one line, and minutes for one of Unicode text)
    const win = rest.length > WRAP_WINDOW * lim ? rest.slice(0, WRAP_WINDOW * lim) : rest;
    const [line, more] = breakAt(win, lim);
    out.push(line);
    rest = win === rest ? more : rest.slice(win.length - more.length).trimStart();
  }
  return out;
}

/**
 * wrapWords' window, in characters per column of a line: a line of `w` columns is never longer than
 * this (wider characters take more columns; only text of mostly zero-width marks would fit more,
 * and is then broken sooner).
 */
const WRAP_WINDOW = 4;

/** A directory cut from the left to `w` columns, whole parts first: `…/acme/webshop`. */
export function cutDir(d: string, w: number): string {
  if (width(d) <= w) return d;
  const parts = d.split('/');
  // as many last parts as fit after `…/`
  let out = '';
  for (let i = parts.length - 1; i >= 0; i--) {
    const next = out ? `${parts[i]}/${out}` : parts[i];
    if (width(next) + 2 > w) break;
    out = next;
  }
  if (out) return `…/${out}`;
  // the last part alone is too long: its end
  const last = parts[parts.length - 1] ?? d;
  let tail = '';
  for (const ch of [...last].reverse()) {
    if (width(ch + tail) + 1 > w) break;
    tail = ch + tail;
  }
  return `…${tail}`;
}

/** Pad or cut to exactly `w` display columns. */
export function fitWidth(s: string, w: number): string {
  const c = cut(s, w);
  return c + ' '.repeat(Math.max(0, w - width(c)));
}

/** SQLite's order of text (BINARY: by UTF-8 bytes); JavaScript's (UTF-16 units) differs past U+FFFF. */
export function byBytes(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** `s` as a regular expression matches it, every character literal (for `new RegExp`, `u` flag or not). */
export const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
