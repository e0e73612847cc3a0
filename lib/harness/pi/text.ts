// Searchable text of one pi session line (formats.md §3).

import { blockText, ms, outputRecord, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { BranchTracker, ExtractCtx, Piece, SearchHooks } from '../../search/types.js';
import type { Session } from '../../types.js';
import { addTo } from '../../util/multimap.js';
import { dirOf } from '../../util/paths.js';
import { bytes, firstLink, IdChain, same } from '../branches.js';
import { obj, type Rec } from '../jsonl.js';

export function piText(v: unknown, cx: ExtractCtx): Piece[] {
  const o = obj(v);
  if (!o) return [];
  const st = cx.st;
  if (cx.first) {
    if (o.type === 'session') {
      st.header = true;
      st.startTs = ms(o.timestamp);
      // a fork (`--fork`, `/fork`, `/clone`) copies the source's entries with their time stamps
      st.fork = !!(o.parentSession || o.branchedFrom);
    }
    return [];
  }
  if (!st.header) return []; // pi ignores a file without a session header
  const m = obj(o.message);
  const ts = ms(o.timestamp) ?? (typeof m?.timestamp === 'number' ? m.timestamp : null);
  const copied = !!st.fork && typeof st.startTs === 'number' && ts != null && ts < st.startTs;
  const out: Piece[] = [];
  const add = (ps: Piece[]) => {
    for (const x of ps) out.push(copied ? { ...x, copied: true } : x);
  };
  switch (o.type) {
    case 'message':
      if (m) messageText(m, ts, add);
      break;
    case 'compaction':
    case 'branch_summary':
      add(piece('assistant', o.summary, ts, { summary: true }));
      break;
    case 'custom_message':
      add(piece('assistant', blockText(o.content, ['text']), ts));
      break;
    case 'session_info':
      add(piece('user', o.name, ts, { summary: true }));
      break;
  }
  return out;
}

type Add = (ps: Piece[]) => void;

function messageText(m: Rec, ts: number | null, add: Add): void {
  switch (m.role) {
    case 'user':
      add(piece('user', blockText(m.content, ['text']), ts));
      break;
    case 'assistant':
      assistantText(m.content, ts, add);
      break;
    case 'toolResult':
      add(piece('tool-output', outputText(m.content), ts));
      break;
    case 'bashExecution':
      // a `!command` the user ran in pi's shell mode
      add(piece('tool-call', typeof m.command === 'string' ? `bash ${m.command}` : '', ts));
      add(piece('tool-output', m.output, ts));
      break;
    case 'custom':
      add(piece('assistant', blockText(m.content, ['text']), ts));
      break;
  }
}

function assistantText(content: unknown, ts: number | null, add: Add): void {
  if (typeof content === 'string') add(piece('assistant', content, ts));
  else if (Array.isArray(content)) {
    for (const v of content) {
      const b = obj(v);
      if (!b) continue;
      if (b.type === 'text') add(piece('assistant', b.text, ts));
      else if (b.type === 'thinking') add(piece('assistant', b.thinking, ts));
      else if (b.type === 'toolCall') {
        const tp = toolPiece(b.name, b.arguments, ts);
        if (tp) add([tp]);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Search hooks

/**
 * Entries only on abandoned branches: a session is a tree (`id`/`parentId`) whose active leaf is
 * the last entry in file order; everything not on the walk back from it was left (`/tree`, an
 * edited prompt). Null for a linear (v1) file or when the walk does not reach the first entry.
 *
 * Most sessions never branch: each entry is the child of the one before it. While that holds the
 * links are checked on the bytes (no strings, no map: the branch readers were ~12% of a search for
 * a word in every file at 22,000 sessions, pi's half of it) and the ids kept as bytes. Such a chain leaves nothing: the empty
 * set (an id repeated in it, which no pi writes, made the walk meet itself: null, which weighs
 * nothing down either). At the first entry that is not the child of the one before, the map is made
 * of the chain so far, and every entry after is taken into it.
 */
function branches(): BranchTracker {
  return new PiBranches();
}

/**
 * branches()'s tracker: a class, not an object of closures made for each file (V8 compiles a
 * closure made once for that closure alone: `visit` was compiled again for the second file a thread
 * read; lib/search/scan.ts `LineScan`).
 */
class PiBranches implements BranchTracker {
  private readonly parent = new Map<string, string | null>();
  private leaf: string | null = null;
  private roots = 0;
  /** the entries so far form one chain from a root (null: the map is used instead) */
  private chain: IdChain | null = new IdChain();

  private take(id: string, p: string | null): void {
    this.parent.set(id, p);
    if (p == null) this.roots++;
    this.leaf = id;
  }

  /** the chain's entries, each the child of the one before, into the map as the map takes them */
  private unchain(c: IdChain): void {
    let prev: string | null = null;
    for (let i = 0; i < c.length; i++) {
      const id = c.id(i);
      this.take(id, prev);
      prev = id;
    }
    this.chain = null;
  }

  visit(whole: Buffer): void {
    // pi writes `type`, `id` and `parentId` first: the first of each is the entry's own
    const line = whole.length > HEAD ? whole.subarray(0, HEAD) : whole;
    const t = line.indexOf(K_TYPE);
    if (t >= 0 && same(line, t + K_TYPE.length, V_SESSION, 0, V_SESSION.length)) return;
    const i = line.indexOf(K_ID);
    if (i < 0) return;
    const a = i + K_ID.length;
    const b = line.indexOf(0x22, a);
    if (b < 0) return;
    const c = this.chain;
    if (!c) {
      const p = firstLink(line, K_PARENT);
      if (p !== undefined) this.take(line.toString('latin1', a, b), p);
      return;
    }
    const q = line.indexOf(K_PARENT);
    if (q < 0) return;
    const v = q + K_PARENT.length;
    if (line[v] === 0x6e ? c.length === 0 : line[v] === 0x22 && c.lastAt(line, v + 1)) {
      // the next link of the chain (the first: a root)
      c.push(line, a, b);
      return;
    }
    const p = firstLink(line, K_PARENT);
    if (p === undefined) return;
    this.unchain(c);
    this.take(line.toString('latin1', a, b), p);
  }

  result(): Set<string> | null {
    if (this.chain) return this.chain.length ? new Set() : null;
    // one tree, or the file was not written as one (a hand-made or converted file): unknown
    if (!this.leaf || this.roots !== 1) return null;
    const live = new Set<string>();
    for (let u: string | null = this.leaf; u != null; u = this.parent.get(u) ?? null) {
      if (live.has(u) || !this.parent.has(u)) return null;
      live.add(u);
    }
    return new Set([...this.parent.keys()].filter((u) => !live.has(u)));
  }
}

/**
 * bytes at the start of a line within which its `type`, `id` and `parentId` are looked for: pi
 * writes them first (within the first 50 bytes of every entry type in the fixtures); 4 KiB leaves a
 * wide margin, and a long line's head is copied aside for the tracker while the search reads it
 * (16 KiB each was 5% of a search for a word in every file)
 */
const HEAD = 4 << 10;
const K_TYPE = bytes('"type":"');
const K_ID = bytes('"id":"');
const K_PARENT = bytes('"parentId":');
/** the value of a session header's `type`, with the quote that ends it */
const V_SESSION = bytes('session"');

/**
 * Workers (sessions a subagent extension wrote to `<project>/subagents/`) belong to the session
 * that ran them: the one that names them as its fork source, else the main session of the same
 * project directory that was going when the worker started (the latest started before it).
 */
function parents(all: Session[]): Map<string, string> {
  const out = new Map<string, string>();
  // (made only when a worker names a fork source: most name none)
  let ids: Set<string> | null = null;
  // the main sessions by project directory, latest started first (looked up once per worker: a
  // scan of every main session per worker took 15 s at 22,000 sessions)
  let mainsIn: Map<string, Started[]> | null = null;
  const mainsOf = (dir: string): Started[] => {
    if (!mainsIn) {
      mainsIn = new Map();
      for (const m of all) {
        if (m.hiddenReason === 'subagent' || !started(m)) continue;
        addTo(mainsIn, dirOf(m.file), m);
      }
      for (const list of mainsIn.values()) if (list.length > 1) list.sort(laterFirst);
    }
    return mainsIn.get(dir) ?? [];
  };
  for (const w of all) {
    if (w.hiddenReason !== 'subagent' || w.parent) continue;
    if (w.forkedFrom) {
      ids ??= new Set(all.map((s) => s.id));
      if (ids.has(w.forkedFrom)) {
        out.set(w.key, w.forkedFrom);
        continue;
      }
    }
    const t = w.started ?? w.updated;
    if (t == null) continue;
    // `<project>/subagents/<worker file>`
    const dir = dirOf(w.file);
    if (!dir.endsWith('/subagents')) continue;
    const p = goingAt(mainsOf(dir.slice(0, -'/subagents'.length) || '/'), t);
    if (p) out.set(w.key, p.id);
  }
  return out;
}

/** A session with a start time (the main sessions a worker is matched with). */
type Started = Session & { started: number };

const started = (s: Session): s is Started => s.started != null;

const laterFirst = (a: Started, b: Started) => b.started - a.started;

/**
 * The latest started of `mains` (latest started first) that was going at `t`: started by then, and
 * active until at least a minute before it. The ones started after `t` are stepped over by halving.
 */
function goingAt(mains: Started[], t: number): Started | undefined {
  let lo = 0;
  let hi = mains.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const m = mains[mid];
    if (m && m.started > t) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < mains.length; i++) {
    const m = mains[i];
    if (m && t <= (m.updated ?? m.started) + 60e3) return m;
  }
  return undefined;
}

const K_TOOL_RESULT = [bytes('"message":{"role":"toolResult"')];
const K_TYPE_MESSAGE = bytes('"type":"message"');

/**
 * A tool result: a top-level `message` whose first key says `"role":"toolResult"`, after a
 * top-level `"type":"message"`. pi writes `type`, `id`, `parentId` and `timestamp` before `message`
 * (0.73.1, the recorded fixtures).
 */
const outputOnly = (line: Buffer): boolean => outputRecord(line, K_TYPE_MESSAGE, K_TOOL_RESULT);

export const search: SearchHooks = {
  rawHead: ['"role":"toolResult"'],
  outputOnly,
  recordId: (rec) => {
    const o = obj(rec);
    return o && typeof o.id === 'string' && o.type !== 'session' ? o.id : null;
  },
  branches,
  branchHead: HEAD,
  parents,
};
