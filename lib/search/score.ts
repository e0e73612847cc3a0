// Scoring: each piece of text holding a term becomes a hit, weighed by who wrote it (a prompt above
// a reply above tool output), how many terms it holds, and where it lies (a subagent, a copy, a
// summary, an abandoned branch count less). A group keeps its best few hits.
import type { Session } from '../types.js';
import { promptText } from '../util/text.js';
import type { Group } from './groups.js';
import type { Term } from './query.js';
import { allTerms, termMask } from './query.js';
import { excerpt, makeSnippet, type Snippet } from './snippet.js';
import type { Piece, Role } from './types.js';

/** Thrown from a scan to stop reading a group whose evidence cannot get materially better. */
export const STOP = new Error('enough evidence');
/** the best score of a prompt other than the first (all terms in it) */
const NEXT_HIT = 10;

const W: Record<Role, number> = { user: 10, task: 8, 'tool-call': 7, metadata: 6, assistant: 5, 'tool-output': 2 };
/** hits kept per group */
const KEEP = 8;
/** text only on an abandoned branch weighs this much of the same text on the live path */
const ABANDONED = 0.3;

export interface Hit {
  role: Role;
  mask: number;
  k: number;
  file: string;
  child: boolean;
  copied: boolean;
  summary: boolean;
  write: boolean;
  firstPrompt: boolean;
  /** the text lies only on a branch the session left (a rewind, an edited prompt, `/tree`) */
  abandoned: boolean;
  /** the store several sessions share that the text came from (`prompt history`) */
  via?: string | undefined;
  /** the ids of the records in its transcript that hold this text (branch tracking), when the harness names them */
  rids?: string[] | undefined;
  key: number;
  score: number;
  /** unredacted text around the matches (a few KiB); the snippet is cut from it for the results shown ('' in a bare group) */
  text: string;
  /** the snippet, cut already (settleEvidence: the text is then freed) */
  snippet?: Snippet | undefined;
}

export function bits(m: number): number {
  let n = 0;
  while (m) {
    n += m & 1;
    m >>>= 1;
  }
  return n;
}

export function hitScore(h: Omit<Hit, 'score' | 'text'>, K: number): number {
  let s = W[h.role] * (h.k / K) ** 2;
  if (h.write && h.k === K) s += 2;
  if (h.firstPrompt && h.k === K) s += 2;
  if (h.summary) s *= 0.4;
  if (h.child) s *= 0.85;
  if (h.copied) s *= 0.2;
  if (h.abandoned) s *= ABANDONED;
  return s;
}

/** JavaScript's white space (what `\s` matches) */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    (c > 127 &&
      (c === 0xa0 ||
        c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000 ||
        c === 0xfeff))
  );
}

/**
 * A 53-bit hash of the role and the start of the text (its first 400 characters, runs of white
 * space as one space, none at either end): duplicates are skipped. Hashed as it is read (no
 * strings made: this runs for every piece that holds a term).
 */
export function pieceKey(p: Piece): number {
  let a = 0x811c9dc5;
  let b = 5381;
  const mix = (c: number) => {
    a = Math.imul(a ^ c, 0x01000193);
    b = (Math.imul(b, 33) + c) | 0;
  };
  const role = p.role;
  for (let i = 0; i < role.length; i++) mix(role.charCodeAt(i));
  mix(0);
  const t = p.text;
  const n = Math.min(t.length, 400);
  let started = false;
  let gap = false;
  for (let i = 0; i < n; i++) {
    const c = t.charCodeAt(i);
    if (isSpace(c)) {
      gap = started;
      continue;
    }
    if (gap) mix(32);
    gap = false;
    started = true;
    mix(c);
  }
  return (a >>> 0) * 0x200000 + (b & 0x1fffff);
}

/** duplicate detection stops growing past this many pieces per group (memory stays bounded) */
const MAX_KEYS = 200_000;

/** Whether a prompt's text is a session's first prompt, `b` (Session.firstPrompt): the same start. */
export function startsAsFirst(b: string | null | undefined, text: string): boolean {
  if (!b) return false;
  // promptText only trims and folds white space: a text whose first other character is not the
  // first prompt's is told apart without folding it (most are; folding every prompt of a common
  // word's 22,000 sessions was a tenth of a picker's reload)
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (i === text.length || text.charCodeAt(i) !== b.charCodeAt(0)) return false;
  const a = promptText(text);
  const n = Math.min(a.length, b.length, 200);
  return n > 0 && a.slice(0, n) === b.slice(0, n);
}

/** Where a piece of a group's text was found. */
export interface PieceAt {
  /** the transcript (or shared store) it is in */
  file: string;
  /** a subagent's or child's transcript, named by a member */
  child: boolean;
  /** the session it is of */
  member: Session;
  /** that session is not the group's root (a child session of its own) */
  memberIsChild: boolean;
  /** the id of its record, when the harness names one (branch tracking) */
  rid?: string | null;
  /** the store several sessions share it came from (`prompt history`) */
  via?: string;
}

/** Weigh one piece of a group's text; keep it when it is among the group's best. */
export function collect(g: Group, terms: Term[], p: Piece, at: PieceAt): void {
  const { file, child, member, memberIsChild, rid, via } = at;
  const mask = p.mask ?? termMask(terms, p.text);
  if (!mask) return;
  const key = p.key ?? pieceKey(p);
  if (g.keys.has(key)) {
    // the same text again (a prompt typed again after a rewind): it is live if any of its records is
    if (rid) {
      const same = g.hits.find((h) => h.key === key && h.file === file && h.rids);
      if (same?.rids && !same.rids.includes(rid)) same.rids.push(rid);
    }
    return;
  }
  if (g.keys.size < MAX_KEYS) g.keys.add(key);
  g.mask |= mask;
  g.nHits++;
  const K = Math.min(terms.length, 31);
  const inChild = child || memberIsChild;
  // the first user line of a subagent or child is the task it was given
  const role: Role = inChild && p.role === 'user' ? 'task' : p.role;
  // one literal, one shape for every hit (spreads made each a dictionary: a third of collect's time)
  const hit: Hit = {
    role,
    mask,
    k: bits(mask),
    file,
    child: inChild,
    copied: !!p.copied,
    summary: !!p.summary,
    write: !!p.write,
    firstPrompt: !inChild && role === 'user' && !p.copied && (p.first ?? startsAsFirst(member.firstPrompt, p.text)),
    abandoned: false,
    rids: rid ? [rid] : undefined,
    via: via || undefined,
    key,
    score: 0,
    text: '',
    snippet: undefined,
  };
  const score = hitScore(hit, K);
  if (g.hits.length >= KEEP && score <= g.hits[g.hits.length - 1].score) {
    enough(g, K);
    return;
  }
  hit.score = score;
  if (!g.bare) hit.text = excerpt(p.text, terms);
  g.hits.push(hit);
  g.hits.sort((a, b) => b.score - a.score);
  if (g.hits.length > KEEP) g.hits.length = KEEP;
  enough(g, K);
}

/**
 * Whether a piece of tool output can no longer change anything about the group, so it need not be
 * decoded: every term is found, the count of hits is past what the score counts, and the kept hits
 * all weigh at least what tool output can (it would be dropped). A piece from a record with an id
 * (`file` given) could also be a repeat of a kept hit of tool output from that file, whose record ids
 * it would extend: not while there is one. Not for a group whose piece hashes are wanted back (a
 * fork's source): the caller says so.
 */
export function outputMoot(g: Group, K: number, file?: string): boolean {
  const full = allTerms(K);
  if (g.mask !== full || g.nHits < COUNTED || g.hits.length < KEEP) return false;
  if (g.hits[KEEP - 1].score < W['tool-output']) return false;
  if (file !== undefined) for (const h of g.hits) if (h.role === 'tool-output' && h.rids && h.file === file) return false;
  return true;
}

/** The hits a result shows: the best, and the next from another role or file (else the next). */
export function evidenceOf(hits: Hit[]): Hit[] {
  const best = hits[0];
  if (!best) return [];
  const second = hits.find((h) => h !== best && (h.role !== best.role || h.file !== best.file)) ?? hits[1];
  return second ? [best, second] : [best];
}

/**
 * Once a group's files are read, cut the snippets of the kept hits that can still be shown and free
 * every kept text (a word in every file kept eight excerpts of up to 8 KiB for each of 22,000
 * sessions: most of the search's 650 MB). What comes after adds hits (metadata, prompt history)
 * and changes none: the evidence is then a new hit, the best or second now, or the next of those
 * from another role or file. Not for a fork, whose copied hits are weighed down later and can let
 * any other rise.
 */
export function settleEvidence(g: Group, terms: Term[]): void {
  if (g.root.forkedFrom || g.bare) return;
  const keep = new Set(evidenceOf(g.hits));
  if (g.hits[1]) keep.add(g.hits[1]);
  for (const h of g.hits) {
    if (keep.has(h) && !h.snippet) h.snippet = makeSnippet(h.text, terms);
    h.text = '';
  }
}

/** Mark the hits of `file` whose record is in `dead` as abandoned, and weigh them again. */
export function markAbandoned(g: Group, file: string, dead: Set<string>, K: number): void {
  let changed = false;
  for (const h of g.hits) {
    if (h.file !== file || !h.rids || h.abandoned || !h.rids.every((r) => dead.has(r))) continue;
    h.abandoned = true;
    h.firstPrompt = false;
    h.score = hitScore(h, K);
    changed = true;
  }
  if (changed) g.hits.sort((a, b) => b.score - a.score);
}

/**
 * Two prompts with every term, the session already the original work (the first request, a write
 * or a task has them all) and 20 hits: no later piece can raise the score (only the first prompt
 * scores above a prompt, and it comes first) or change original/follow-up. Stop reading.
 */
function enough(g: Group, K: number): void {
  const full = allTerms(K);
  if (g.mask === full && g.nHits >= COUNTED && g.hits.length >= 2 && g.hits[1].score >= NEXT_HIT && originLevel(g, K) >= 2) throw STOP;
}

/** hits counted in a group's score (and by `enough`): more add nothing */
const COUNTED = 20;
/** what a group's second hit weighs in its score, against its first */
const SECOND = 0.3;
/** what each hit counted adds to a group's score */
const PER_HIT = 0.05;

export function groupScore(g: Group): number {
  const [a, b] = g.hits;
  return (a?.score ?? 0) + SECOND * (b?.score ?? 0) + PER_HIT * Math.min(COUNTED, g.nHits);
}

/**
 * About the most a group's score (groupScore) can gain once its tool output is read too, which the
 * index's pieces leave out: hits up to the count scored, and a hit of tool output that weighs more
 * than its first or second hit when those weigh less than tool output can.
 */
export function toolOutputGain(g: Group): number {
  const [a, b] = g.hits;
  const tool = W['tool-output'];
  let more = PER_HIT * (COUNTED - Math.min(COUNTED, g.nHits));
  if ((a?.score ?? 0) < tool || (b?.score ?? 0) < tool) more += tool + SECOND * tool;
  return more;
}

/** 3: the tool call that wrote it or the task (delegated here, or received by a subagent) that asked for it; 2: the first request; 1: a later request; 0: only mentioned */
export function originLevel(g: Group, K: number): number {
  let lvl = 0;
  for (const h of g.hits) {
    if (h.k !== K || h.copied || h.summary || h.abandoned) continue;
    if ((h.role === 'tool-call' && h.write) || h.role === 'task') lvl = Math.max(lvl, 3);
    else if (h.firstPrompt) lvl = Math.max(lvl, 2);
    else if (h.role === 'user') lvl = Math.max(lvl, 1);
  }
  return lvl;
}
