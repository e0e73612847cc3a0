// Deep search: scan whole transcripts (and their subagents' and children's) for every term, and
// rank the sessions a user could resume.
//
// The parts: groups.ts (which sessions and files form the group reported on a resumable root),
// read.ts (reading a store: JSONL streamed with a byte-level prefilter in scan.ts, JSON documents,
// the harness's own scanners for databases), score.ts (weighing each hit), pool.ts (worker
// threads) and, here, the ranking of the groups. What differs between harnesses is in their
// search hooks (lib/harness/<name>/text.ts `search`), never here.
import type { Session } from '../types.js';
import { Needle } from './fold.js';
import { childFiles, type Group, groupMeta, groupSessions, newGroup, passes, type SearchFilters } from './groups.js';
import { blankPiece, type FilePieces } from './pieces.js';
import { filesOf, finish, type SearchOptions, scanParallel } from './pool.js';
import { cleanBytes, Prefilter } from './prefilter.js';
import type { Term } from './query.js';
import { allNeedles, allTerms, termMask } from './query.js';
import { closeCtx, noStats, readCtx, type SearchStats, scanShared } from './read.js';
import { HOOKS, loadExtractors } from './registry.js';
import { sharedFolder } from './scan.js';
import { collect, evidenceOf, groupScore, hitScore, originLevel, STOP, toolOutputGain } from './score.js';
import type { Signatures } from './sigs.js';
import { makeSnippet, type Snippet } from './snippet.js';
import type { Piece, Role, SharedPiece } from './types.js';

export type { SearchFilters } from './groups.js';
export { childFiles, groupSessions, metadataText, newGroup } from './groups.js';
export type { SearchOptions } from './pool.js';
export { scanGroups } from './pool.js';
export type { SearchStats } from './read.js';

export interface Evidence {
  role: Role;
  /** the transcript the text is in (a subagent or child transcript when `child`; a shared store when `via`) */
  file: string;
  child: boolean;
  copied: boolean;
  /** the text lies only on a branch the session left (a rewind, an edited prompt) */
  abandoned: boolean;
  /** a store several sessions share the text came from (`prompt history`), else null */
  via: string | null;
  snippet: Snippet;
}

export type Confidence = 'high' | 'medium' | 'low';

export interface Result {
  session: Session;
  score: number;
  original: boolean;
  confidence: Confidence;
  /** why the session is hidden from the listing (archived, exec, sdk, subagent, headless…), else null */
  hidden: string | null;
  /** the best hit and the next (empty when the search was asked for none: SearchOptions `evidence`) */
  evidence: Evidence[];
}

/** The pieces of the shared stores (prompt history) that hold a term, each with its session. */
export function sharedPieces(all: Session[], terms: Term[], stats: SearchStats = noStats()): SharedPiece[] {
  const out: SharedPiece[] = [];
  const cx = readCtx(terms, allNeedles(terms), stats);
  try {
    scanShared(cx, all, (key, p, file, via) => out.push({ key, p, file, via }));
  } finally {
    closeCtx(cx);
  }
  return out;
}

/**
 * Evidence that is not in a group's own files, from shared stores (prompt history). (Its metadata is
 * weighed by the scan: pool.ts `finish`.)
 */
function sideEvidence(groups: Group[], pieces: SharedPiece[], terms: Term[]): void {
  const byMember = new Map<string, { g: Group; m: Session }>();
  for (const g of groups) for (const m of g.members) byMember.set(m.key, { g, m });
  for (const x of pieces) {
    const gm = byMember.get(x.key);
    if (!gm) continue;
    try {
      collect(gm.g, terms, x.p, { file: x.file, child: false, member: gm.m, memberIsChild: gm.m !== gm.g.root, via: x.via });
    } catch (err) {
      if (err !== STOP) throw err;
    }
  }
}

/** The terms the shared stores' pieces (prompt history) credit to each session, by its key. */
function sharedMasks(shared: SharedPiece[], terms: Term[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const x of shared) out.set(x.key, (out.get(x.key) ?? 0) | termMask(terms, x.p.text));
  return out;
}

/**
 * The groups that may hold every term, by what is known without reading their files: their
 * metadata, the shared stores' pieces, and their files' signatures (a file without a current one,
 * or a member its harness reads itself, may hold anything). The others are counted as searched.
 */
function candidates(groups: Group[], terms: Term[], sigs: Signatures, fromShared: Map<string, number>, stats: SearchStats): Group[] {
  const full = allTerms(terms.length);
  const mayHoldAll = (g: Group): boolean => {
    let m = termMask(terms, groupMeta(g));
    for (const s of g.members) {
      if (HOOKS[s.harness]?.scan) return true;
      m |= (fromShared.get(s.key) ?? 0) | sigs.mask(s.file);
      for (const f of childFiles(s)) m |= sigs.mask(f);
      if ((m & full) === full) return true;
    }
    return (m & full) === full;
  };
  return groups.filter((g) => {
    if (mayHoldAll(g)) return true;
    stats.sessions += g.members.length;
    return false;
  });
}

/**
 * The groups the index's pieces (pieces.ts) settle: every file of theirs has current pieces, and
 * those pieces (with the metadata) hold every term. They are weighed from those pieces alone (their
 * tool output, and which branch a piece lies on, are not read); the others are left for the scan,
 * untouched, with the terms their pieces and metadata lack (`missing`) when they have pieces.
 * Without `settle` (a search that shows evidence, which it reads) every group is left so.
 */
function settleFromPieces(
  groups: Group[],
  terms: Term[],
  sigs: Signatures,
  pieces: Map<string, FilePieces>,
  settle: boolean,
): { settled: Set<Group>; left: Group[]; missing: Map<Group, number> } {
  const full = allTerms(terms.length);
  const settled = new Set<Group>();
  const left: Group[] = [];
  const missing = new Map<Group, number>();
  const p = blankPiece();
  for (const g of groups) {
    const files = filesOf(g);
    const probe = files?.every((f) => sigs.hasPieces(f)) ? fromPieces(g, terms, pieces, p) : null;
    if (!settle || !probe || (probe.mask & full) !== full) {
      left.push(g);
      if (probe) missing.set(g, full & ~probe.mask);
      continue;
    }
    Object.assign(g, { mask: probe.mask, hits: probe.hits, nHits: probe.nHits, keys: probe.keys, bare: true });
    settled.add(g);
  }
  return { settled, left, missing };
}

/**
 * The groups left by the pieces that still may hold every term: a term their pieces and metadata
 * lack can only be in what the pieces leave out (tool output, text past a piece's first 4 KiB), so
 * a group none of whose files holds its bytes anywhere (folded, as the scan folds them) cannot hold
 * it, and is passed over as a scan would pass over it, counted, without decoding a line. The
 * signatures let such a group through when its files hold the term's three-byte pieces apart (a
 * project's name, `api-516`, in the files of `api-51x`): at 22,000 sessions, for a word in every
 * file with a project's name, 365 of the 366 groups its pieces left were such, each read line by
 * line. A word the shared stores (prompt history) credit to the group (`fromShared`) is not looked
 * for. Only groups whose files are all plain transcripts (`.jsonl`) are looked at so.
 */
function stillPossible(
  left: Group[],
  missing: Map<Group, number>,
  terms: Term[],
  fromShared: Map<string, number>,
  stats: SearchStats,
): Group[] {
  const needles = terms.map((t) => t.needles.map((n) => new Needle(n)));
  // the bytes of the files when none holds term i, else -1 (the folder, made once a thread, only
  // when a file is looked at)
  const without = (files: string[], i: number): number => {
    const nd = needles[i];
    // (a term with no bytes to look for is not ruled out so)
    if (nd.length === 0) return -1;
    const carry = Math.max(...nd.map((n) => n.length)) - 1;
    let bytes = 0;
    for (const f of files) {
      const n = cleanBytes(f, nd, carry, sharedFolder());
      if (n < 0) return -1;
      bytes += n;
    }
    return bytes;
  };
  return left.filter((g) => {
    let lack = missing.get(g) ?? 0;
    for (const m of g.members) lack &= ~(fromShared.get(m.key) ?? 0);
    const files = lack ? filesOf(g) : null;
    // (only transcripts whose bytes are their text, as the read-ahead marks them: run.ts prestart;
    // not a compressed rollout)
    if (!files?.every((f) => f.endsWith('.jsonl'))) return true;
    for (let i = 0; i < terms.length && i < 31; i++) {
      const bytes = lack & (1 << i) ? without(files, i) : -1;
      if (bytes < 0) continue;
      stats.sessions += g.members.length;
      stats.files += files.length;
      stats.bytes += bytes;
      return false;
    }
    return true;
  });
}

/** A group weighed from its files' pieces (and its metadata), as a new bare group; `p`: the piece to write each into. */
function fromPieces(g: Group, terms: Term[], pieces: Map<string, FilePieces>, p: Piece): Group {
  const probe = newGroup(g.root, g.members, true, g.home);
  const done = new Set<string>();
  try {
    for (const m of g.members) {
      for (const [f, child] of [[m.file, false], ...childFiles(m).map((c) => [c, true] as const)] as const) {
        if (done.has(f)) continue;
        done.add(f);
        const at = { file: f, child, member: m, memberIsChild: m !== g.root };
        const fp = pieces.get(f);
        if (fp) for (let i = 0; i < fp.length; i++) collect(probe, terms, fp.at(i, p), at);
      }
    }
  } catch (err) {
    if (err !== STOP) throw err;
  }
  finish(probe, terms);
  return probe;
}

/**
 * The options of a scan of `groups` that passes over the files no term can be in (by their
 * signatures), on this thread and on the workers.
 */
async function withSignatures(groups: Group[], sigs: Signatures, opts: SearchOptions): Promise<SearchOptions> {
  const files = new Set<string>();
  for (const g of groups) for (const f of filesOf(g) ?? []) files.add(f);
  const pre = Prefilter.marked([...files], (f) => sigs.clean(f));
  // (workers started before the signatures were known to be there stop marking by reading)
  opts.prestarted?.prefilter?.stop();
  const workers = opts.prestarted ? await opts.prestarted.workers : [];
  for (const w of workers) w.prefilter(pre.msg());
  return { ...opts, prestarted: { workers: Promise.resolve(workers), prefilter: pre } };
}

/** Every listed group, its hits weighed: scanned, settled from the index's pieces, or passed over by the signatures. */
async function weigh(
  all: Session[],
  terms: Term[],
  filters: SearchFilters,
  opts: SearchOptions,
): Promise<{ groups: Group[]; stats: SearchStats; shared: SharedPiece[] }> {
  const listed = [...groupSessions(all, opts.home ?? '').values()].filter((g) => passes(g.root, filters));
  const sigs = opts.signatures ?? null;
  const early = noStats();
  // with signatures, the shared stores are read first: what they hold counts toward the candidates
  const shared = opts.shared ?? (sigs ? sharedPieces(all, terms, early) : null);
  // (the terms the shared stores credit each session with: for the candidates and the bytes check)
  const credited = sigs && shared ? sharedMasks(shared, terms) : new Map<string, number>();
  const groups = sigs && shared ? candidates(listed, terms, sigs, credited, early) : listed;
  // a ranking without evidence (the picker's): what the index's pieces settle is not read; with
  // evidence, the pieces still tell which groups lack a word
  const byPieces = sigs && opts.pieces ? settleFromPieces(groups, terms, sigs, opts.pieces, opts.evidence === false) : null;
  const toScan = byPieces ? stillPossible(byPieces.left, byPieces.missing, terms, credited, early) : groups;
  const needKeys = new Set(groups.filter((g) => g.root.forkedFrom).map((g) => `${g.root.harness}:${g.root.forkedFrom}`));
  const scanned = await scanParallel(toScan, terms, needKeys, sigs ? await withSignatures(toScan, sigs, opts) : opts);
  if (byPieces) early.sessions += [...byPieces.settled].reduce((n, g) => n + g.members.length, 0);
  const stats = scanned.stats ?? noStats();
  for (const k of Object.keys(early) as (keyof SearchStats)[]) stats[k] += early[k];
  if (sigs) stats.unindexed = sigs.unsigned;
  const byRoot = new Map(groups.map((g) => [g.root.key, g]));
  for (const o of scanned.groups) {
    const g = byRoot.get(o.key);
    if (!g) continue;
    g.mask = o.mask;
    g.hits = o.hits;
    g.nHits = o.nHits;
    // scanned on a worker: the hashes that are read come back (a group scanned here has them already)
    if (g.keys.size < o.keys.length) g.keys = new Set(o.keys);
  }
  const side = shared ?? sharedPieces(all, terms, stats);
  sideEvidence(groups, side, terms);
  return { groups, stats, shared: side };
}

/** A fork's copies of its source's turns: text the source has too counts as copied in the fork. */
function markForkCopies(found: Group[], K: number): void {
  const byKey = new Map(found.map((g) => [g.root.key, g]));
  for (const g of found) {
    const from = g.root.forkedFrom ? byKey.get(`${g.root.harness}:${g.root.forkedFrom}`) : undefined;
    if (!from || from === g) continue;
    for (const h of g.hits) {
      if (!h.copied && from.keys.has(h.key)) {
        h.copied = true;
        h.firstPrompt = false;
        h.score = hitScore(h, K);
      }
    }
    g.hits.sort((a, b) => b.score - a.score);
  }
}

/** what the original of a request gains in its score */
const ORIGINAL = 6;

/** A found group as a result: original or follow-up (`firstAsked`: when the earliest request for it began), confidence, score, evidence. */
function resultOf(g: Group, level: number, firstAsked: number, terms: Term[]): Result {
  const K = Math.min(terms.length, 31);
  const started = g.root.started ?? g.root.updated ?? 0;
  const original = level >= 2 || (level === 1 && started <= firstAsked);
  const ev = evidenceOf(g.hits);
  const best = ev[0];
  const solid = best.k === K && !best.copied && !best.abandoned;
  const strong = best.role === 'user' || best.role === 'task' || best.role === 'tool-call';
  const confidence: Confidence = solid && original && strong ? 'high' : solid && best.role !== 'tool-output' ? 'medium' : 'low';
  return {
    session: g.root,
    score: Math.round((groupScore(g) + (original ? ORIGINAL : 0)) * 100) / 100,
    original,
    confidence,
    hidden: g.root.hidden ? (g.root.hiddenReason ?? 'hidden') : null,
    evidence: g.bare
      ? []
      : ev.map((h) => ({
          role: h.role,
          file: h.file,
          child: h.child && h.file !== g.root.file && !h.via,
          copied: h.copied,
          abandoned: h.abandoned,
          via: h.via ?? null,
          snippet: h.snippet ?? makeSnippet(h.text, terms),
        })),
  };
}

export async function search(
  all: Session[],
  terms: Term[],
  filters: SearchFilters,
  opts: SearchOptions = {},
): Promise<{ results: Result[]; stats: SearchStats }> {
  await loadExtractors();
  if (opts.top != null && opts.top > 0 && opts.pieces && opts.signatures && opts.evidence !== false)
    return searchTop(all, terms, filters, opts, opts.top);
  const { groups, stats } = await weigh(all, terms, filters, opts);
  return { results: ranked(found(groups, terms), terms), stats };
}

/** groups read for their evidence past those shown, at first (search with `top`) */
const READ_MORE = 20;

/** The order results are ranked in: by score to a tenth, then the latest active first. */
const scoreKey = (score: number): number => Math.round(score * 10);
const recencyOf = (s: Session): number => s.updated ?? s.started ?? 0;

/**
 * About the most a found group's score can be once its files are read, from what its pieces gave
 * (search with `top`): its tool output, which the pieces leave out, can add to it (toolOutputGain);
 * a request it holds can be found the first of all (ORIGINAL). Not allowed for: a word inside a
 * longer word of a piece the word table did not give (`test` in `pytest`), and text a piece does
 * not keep (past 4 KiB of one prompt).
 */
function bestOnceRead(r: Result, g: Group, level: number): number {
  return r.score + toolOutputGain(g) + (!r.original && level >= 1 ? ORIGINAL : 0);
}

/**
 * search() when only the best `top` results are shown: the groups are ranked from the index's
 * pieces first, as the picker's rows are (nothing read that they settle), then read for their
 * evidence best first, by about the most each could score once read (bestOnceRead), a batch of 20
 * more than shown, then more until no group left unread could rank among the best `top`. Those come
 * first, as a whole search ranks them; the rest follow as the pieces ranked them, without evidence.
 * A word in most of 22,000 sessions took 6.5 s read whole, 2 s this way (686 sessions: 0.75, 0.28).
 */
async function searchTop(
  all: Session[],
  terms: Term[],
  filters: SearchFilters,
  opts: SearchOptions,
  top: number,
): Promise<{ results: Result[]; stats: SearchStats }> {
  const first = await weigh(all, terms, filters, { ...opts, evidence: false, progress: undefined });
  const r = new Rough(found(first.groups, terms), terms);
  const stats = first.stats;
  const exact: Group[] = [];
  let best: Result[] = [];
  for (let batch = top + READ_MORE; ; batch *= 2) {
    const members = r.take(batch);
    const again = await weigh(members, terms, filters, { ...opts, pieces: null, shared: first.shared, prestarted: undefined });
    for (const k of ['files', 'bytes', 'hugeLines', 'unreadable'] as const) stats[k] += again.stats[k];
    exact.push(...found(again.groups, terms));
    best = ranked(exact, terms, r.askedUnread());
    if (!r.couldRank(best[top - 1])) break;
  }
  return { results: [...best, ...r.unread()], stats };
}

/** The groups as their pieces ranked them (searchTop), and which of them are read since. */
class Rough {
  private readonly results: Result[];
  private readonly groupOf: Map<string, Group>;
  private readonly levelOf: Map<string, number>;
  /** the groups by about the most each could score once read, then the latest active first */
  private readonly order: Array<{ key: string; most: number; at: number }>;
  private readonly read = new Set<string>();
  private next = 0;

  constructor(
    private readonly groups: Group[],
    terms: Term[],
  ) {
    const K = Math.min(terms.length, 31);
    this.results = ranked(groups, terms);
    this.groupOf = new Map(groups.map((g) => [g.root.key, g]));
    this.levelOf = new Map(groups.map((g) => [g.root.key, originLevel(g, K)]));
    this.order = this.results
      .map((x) => {
        const key = x.session.key;
        const g = this.groupOf.get(key);
        return { key, most: scoreKey(g ? bestOnceRead(x, g, this.levelOf.get(key) ?? 0) : x.score), at: recencyOf(x.session) };
      })
      .sort((x, y) => y.most - x.most || y.at - x.at);
  }

  /** The members of the next `n` groups not read yet, with the sources they were forked from (their copies are told as in a whole search). */
  take(n: number): Session[] {
    const keys: string[] = [];
    for (; this.next < this.order.length && keys.length < n; this.next++) {
      const k = this.order[this.next].key;
      if (!this.read.has(k)) keys.push(k);
    }
    for (const k of [...keys]) {
      const from = this.groupOf.get(k)?.root.forkedFrom;
      const src = from ? `${k.slice(0, k.indexOf(':'))}:${from}` : null;
      if (src && this.groupOf.has(src) && !this.read.has(src) && !keys.includes(src)) keys.push(src);
    }
    for (const k of keys) this.read.add(k);
    return keys.flatMap((k) => this.groupOf.get(k)?.members ?? []);
  }

  /** When the earliest request began in a group not read (it still makes a later one a follow-up, as in a whole search). */
  askedUnread(): number {
    let before = Infinity;
    for (const g of this.groups)
      if (!this.read.has(g.root.key) && (this.levelOf.get(g.root.key) ?? 0) >= 1) before = Math.min(before, startOf(g));
    return before;
  }

  /** Whether a group not read could rank above `last` once read (none is left, or `last` is missing: whether any is left). */
  couldRank(last: Result | undefined): boolean {
    while (this.next < this.order.length && this.read.has(this.order[this.next].key)) this.next++;
    const o = this.order[this.next];
    if (!o) return false;
    if (!last) return true;
    const k = scoreKey(last.score);
    return o.most > k || (o.most === k && o.at > recencyOf(last.session));
  }

  /** The results of the groups not read, as their pieces ranked them. */
  unread(): Result[] {
    return this.results.filter((x) => !this.read.has(x.session.key));
  }
}

/** The groups that hold every term. */
const found = (groups: Group[], terms: Term[]): Group[] => {
  const full = allTerms(Math.min(terms.length, 31));
  return groups.filter((g) => (g.mask & full) === full && g.hits.length > 0);
};

const startOf = (g: Group) => g.root.started ?? g.root.updated ?? 0;

/**
 * Found groups as results, best first. `before`: when the earliest request for it began in a group
 * found but not among these (a later request is a follow-up of an earlier one).
 */
function ranked(found: Group[], terms: Term[], before = Infinity): Result[] {
  const K = Math.min(terms.length, 31);
  markForkCopies(found, K);
  const levels = new Map(found.map((g) => [g, originLevel(g, K)]));
  // a later request that names the same thing is a follow-up of an earlier one that did: the
  // original is the earliest of the sessions with such a request (or any with a first request)
  let firstAsked = before;
  for (const g of found) if ((levels.get(g) ?? 0) >= 1) firstAsked = Math.min(firstAsked, startOf(g));
  const results = found.map((g) => resultOf(g, levels.get(g) ?? 0, firstAsked, terms));
  results.sort((a, b) => scoreKey(b.score) - scoreKey(a.score) || recencyOf(b.session) - recencyOf(a.session));
  return results;
}
