// What a query that names no session probably meant: each of its words that none of the sessions'
// texts holds, put right by one edit (a letter added, dropped, changed, or two swapped: resolve.ts
// oneEdit) against a word those texts hold, or against the start of one (`wbsho` → `webshop`).
// Matching itself stays exact (DESIGN.md "Naming a session": every word must appear); the callers
// only say the new query (`did you mean …?`), and only when it names a session.
import { fold, type Term } from './rank.js';
import { oneEditTo } from './resolve.js';

/** Words shorter than this are not put right: a short word is one edit from too many others. */
const MIN_WORD = 4;

/** The words of folded texts, each counted: split at blanks and slashes, and again at - _ . (`webshop-admin`, `webshop`, `admin`). */
function vocabulary(texts: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  const add = (w: string) => {
    if (w.length >= MIN_WORD - 1) out.set(w, (out.get(w) ?? 0) + 1);
  };
  for (const t of texts) {
    for (const w of t.split(/[\s/\\]+/)) {
      if (!w) continue;
      add(w);
      if (/[-_.]/.test(w)) for (const part of w.split(/[-_.]+/)) if (part) add(part);
    }
  }
  return out;
}

/** How near `v` is to the typed `w`: 0 one edit from all of it, 1 from its start, -1 not near. */
function nearness(w: string, v: string): number {
  if (oneEditTo(w, v, v.length)) return 0;
  for (let n = Math.max(MIN_WORD - 1, w.length - 1); n <= w.length + 1 && n < v.length; n++) if (oneEditTo(w, v, n)) return 1;
  return -1;
}

/** The word of `vocab` nearest the typed `w` (whole before a start, then the most common, then the shortest); null: none is near. */
function nearest(w: string, vocab: Map<string, number>): string | null {
  let best: { v: string; near: number; n: number } | null = null;
  for (const [v, n] of vocab) {
    if (v === w) continue;
    const near = nearness(w, v);
    if (near < 0) continue;
    if (!best || near < best.near || (near === best.near && (n > best.n || (n === best.n && v.length < best.v.length))))
      best = { v, near, n };
  }
  return best?.v ?? null;
}

/** A word a correction may put right: a plain word (no phrase, `!` or directory word) long enough. */
const correctable = (t: Term): boolean => t.dir === undefined && !t.not && !/\s/.test(t.text) && t.text.length >= MIN_WORD;

/**
 * The query's words that may be typos: plain words none of `texts` (folded) holds. The caller
 * keeps those that name no session alone by its own rules (prompts included) for `corrected`.
 */
export function unheld(terms: readonly Term[], texts: readonly string[]): Term[] {
  return terms.filter((t) => correctable(t) && !texts.some((x) => x.includes(t.text)));
}

/**
 * The query's words with each of `wrong` (unheld, and naming no session) put right against the
 * words of `texts` (folded), when one could be, and the words put in; null when none could.
 * Every other word is kept as typed.
 */
export function corrected(
  terms: readonly Term[],
  texts: readonly string[],
  wrong: ReadonlySet<Term>,
): { words: string[]; put: string[] } | null {
  let vocab: Map<string, number> | null = null;
  const put: string[] = [];
  const words = terms.map((t) => {
    const typed = t.dir ?? (t.not ? `!${t.text}` : /\s/.test(t.text) ? `"${t.text}"` : t.text);
    if (!wrong.has(t)) return typed;
    vocab ??= vocabulary(texts);
    const v = nearest(t.text, vocab);
    if (v === null) return typed;
    put.push(v);
    return v;
  });
  return put.length ? { words, put } : null;
}

/** The folded texts of a session a word is looked for in besides its prompts: its label, directory, branch and harness. */
export function sessionTexts(s: { label?: string | null; cwd: string | null; branch?: string | null; harness: string }): string {
  return fold([s.label ?? '', s.cwd ?? '', s.branch ?? '', s.harness].join('\n'));
}
