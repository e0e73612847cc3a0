// Evidence snippets: a short window of redacted, one-line text around the densest cluster of
// matches, with the matches' positions so the caller can mark them.

import { EVIDENCE, RESET } from '../util/color.js';
import { redactedSpans, sanitize } from '../util/redact.js';
import type { Term } from './query.js';

export const SNIPPET = 160;
/** text around the hit that is redacted before the window is cut (so a secret is seen whole) */
const CONTEXT = 4096;

export interface Snippet {
  text: string;
  /** [start, end) of each match in `text` (UTF-16 offsets) */
  marks: [number, number][];
}

interface M {
  t: number;
  s: number;
  e: number;
}

function matches(terms: Term[], text: string, limit = 200): M[] {
  const out: M[] = [];
  terms.forEach((term, t) => {
    const re = term.re;
    re.lastIndex = 0;
    let n = 0;
    for (let m = re.exec(text); m && n++ < limit; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      out.push({ t, s: m.index, e: m.index + m[0].length });
    }
  });
  return out.sort((a, b) => a.s - b.s);
}

/** Start of the window of `width` that holds the most distinct terms (earliest on ties). */
function bestStart(ms: M[], width: number): number {
  let best = ms[0]?.s ?? 0;
  let bestN = 0;
  for (let i = 0; i < ms.length; i++) {
    const seen = new Set<number>();
    for (let j = i; j < ms.length && ms[j].e <= ms[i].s + width; j++) seen.add(ms[j].t);
    if (seen.size > bestN) {
      bestN = seen.size;
      best = ms[i].s;
    }
  }
  return best;
}

/**
 * The raw text around the densest cluster of matches, CONTEXT characters each side, as a string of
 * its own (a slice of a long tool output would keep the whole output alive).
 */
export function excerpt(text: string, terms: Term[], width = SNIPPET): string {
  if (text.length <= 2 * CONTEXT + width) return text;
  const ms = matches(terms, text, 400);
  const anchor = ms.length ? bestStart(ms, width) : 0;
  const part = text.slice(Math.max(0, anchor - CONTEXT), anchor + CONTEXT);
  return Buffer.from(part, 'utf8').toString('utf8');
}

export function makeSnippet(text: string, terms: Term[], width = SNIPPET): Snippet {
  // 1. a region around the densest cluster of the raw text, sanitised whole (one line, no controls, redacted)
  const raw = matches(terms, text, 400);
  const anchor = raw.length ? bestStart(raw, width) : 0;
  const a = Math.max(0, anchor - CONTEXT);
  const region = sanitize(text.slice(a, anchor + CONTEXT));
  // 2. the window over the redacted one-line region. A match inside a redaction's label (`token` in
  // `[REDACTED:github-token]`) is none; when no other is left, the words were in a secret (`ghp`):
  // the window is put at the label nearest where they were, and nothing is marked.
  const labels = redactedSpans(region);
  const real = matches(terms, region).filter((m) => !labels.some(([s, e]) => m.s < e && m.e > s));
  const ms = real.length || !labels.length ? real : [nearest(labels, anchor - a)];
  if (ms.length === 0) {
    const t = region.slice(0, width);
    return { text: t + (region.length > width ? '…' : ''), marks: [] };
  }
  const first = bestStart(ms, width);
  const lastInWindow = ms.filter((m) => m.s >= first && m.e <= first + width).reduce((x, m) => Math.max(x, m.e), first);
  const span = lastInWindow - first;
  let ws = Math.max(0, Math.min(first - Math.max(12, Math.floor((width - span) / 3)), region.length - width));
  // do not start in the middle of a word when a space is near
  if (ws > 0) {
    const sp = region.lastIndexOf(' ', ws);
    if (sp >= 0 && ws - sp < 16 && sp < first) ws = sp + 1;
  }
  let we = Math.min(region.length, ws + width);
  if (we < region.length) {
    const sp = region.indexOf(' ', we - 16);
    if (sp >= 0 && sp <= we && sp >= lastInWindow) we = sp;
  }
  const pre = ws > 0 ? '…' : '';
  const post = we < region.length ? '…' : '';
  const body = region.slice(ws, we);
  const marks: [number, number][] = real
    .filter((m) => m.s >= ws && m.e <= we)
    .map((m) => [m.s - ws + pre.length, m.e - ws + pre.length] as [number, number]);
  // overlapping marks (a word inside a phrase) merged
  marks.sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const m of marks) {
    const l = merged[merged.length - 1];
    if (l && m[0] <= l[1]) l[1] = Math.max(l[1], m[1]);
    else merged.push([m[0], m[1]]);
  }
  // (a string of its own, copied: a slice keeps the whole region alive, up to 8 KiB for each of the
  // ~40,000 snippets of a word in every file at 22,000 sessions, 17 MB of that search's heap)
  return { text: Buffer.from(pre + body + post, 'utf16le').toString('utf16le'), marks: merged };
}

/** The label nearest `at`, as a match to place a window by. */
function nearest(labels: [number, number][], at: number): M {
  let best = labels[0];
  for (const l of labels) if (Math.abs(l[0] - at) < Math.abs(best[0] - at)) best = l;
  return { t: 0, s: best[0], e: best[1] };
}

/** The snippet with its matches marked: bold yellow on a colour terminal, «…» otherwise. */
export function marked(s: Snippet, color: boolean): string {
  const [open, close] = color ? [EVIDENCE, RESET] : ['«', '»'];
  let out = '';
  let p = 0;
  for (const [a, b] of s.marks) {
    out += s.text.slice(p, a) + open + s.text.slice(a, b) + close;
    p = b;
  }
  return out + s.text.slice(p);
}
