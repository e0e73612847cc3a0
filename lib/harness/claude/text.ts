// Searchable text of one Claude Code transcript line (formats.md §1).
import fs from 'node:fs';
import path from 'node:path';
import { blockText, ms, outputMarkerEnd, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { BranchTracker, ExtractCtx, Piece, SearchHooks, SharedSource } from '../../search/types.js';
import type { Session } from '../../types.js';
import { entries, walk } from '../../util/fsx.js';
import { addTo } from '../../util/multimap.js';
import { dirOf } from '../../util/paths.js';
import { bytes, firstLink, firstString, IdChain, same } from '../branches.js';
import { obj, type Rec, str } from '../jsonl.js';

/** User-line text the harness wrote (command output, notifications): shown as output, not as a prompt. */
const OUTPUT_TAGS =
  /^\s*(<local-command-stdout>|<local-command-stderr>|<bash-stdout>|<bash-stderr>|<task-notification>|<local-command-caveat>|Caveat: The messages below)/;

export function claudeText(v: unknown, _cx: ExtractCtx): Piece[] {
  const o = obj(v);
  if (!o) return [];
  const ts = ms(o.timestamp);
  // Lines a fork copied from its source carry `forkedFrom`.
  const copied = !!obj(o.forkedFrom);
  const out: Piece[] = [];
  const add = (ps: Piece[]) => {
    for (const p of ps) out.push(copied ? { ...p, copied: true } : p);
  };
  switch (o.type) {
    case 'user':
      userText(o, ts, add);
      break;
    case 'assistant':
      assistantText(o, ts, add);
      break;
    case 'summary':
      add(piece('assistant', o.summary, ts, { summary: true }));
      break;
    case 'custom-title':
      add(piece('user', o.customTitle, ts, { summary: true }));
      break;
    case 'ai-title':
      add(piece('assistant', o.aiTitle, ts, { summary: true }));
      break;
    case 'attachment': {
      const a = obj(o.attachment);
      if (a && a.type === 'queued_command') add(piece('user', blockText(a.prompt, ['text']), ts));
      break;
    }
  }
  return out;
}

type Add = (ps: Piece[]) => void;

function userText(o: Rec, ts: number | null, add: Add): void {
  const c = obj(o.message)?.content;
  if (o.isCompactSummary) {
    add(piece('assistant', blockText(c, ['text']), ts, { summary: true }));
    return;
  }
  if (Array.isArray(c)) {
    for (const b of c) {
      const r = obj(b);
      if (r && r.type === 'tool_result') add(piece('tool-output', outputText(r.content), ts));
    }
  }
  const t = blockText(c, ['text'])
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
    .trim();
  if (!t) return;
  if (o.isMeta) add(piece('assistant', t, ts, { summary: true }));
  else if (OUTPUT_TAGS.test(t)) add(piece('tool-output', t, ts));
  else add(piece('user', t, ts));
}

function assistantText(o: Rec, ts: number | null, add: Add): void {
  const m = obj(o.message);
  const c = m?.content;
  if (m?.model === '<synthetic>') return;
  if (typeof c === 'string') add(piece('assistant', c, ts));
  else if (Array.isArray(c)) {
    for (const v of c) {
      const b = obj(v);
      if (!b) continue;
      if (b.type === 'text') add(piece('assistant', b.text, ts));
      else if (b.type === 'thinking') add(piece('assistant', b.thinking, ts));
      else if (b.type === 'tool_use') {
        const p = toolPiece(b.name, b.input, ts);
        if (p) add([p]);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Search hooks

interface ProjectDir {
  /** Claude's older flat layout: `agent-*.jsonl` beside the sessions, by the session they name */
  flat: Map<string, string[]>;
  /** the names in the directory (a session's `<id>/` of subagents is looked into only when it is there) */
  names: Set<string>;
}

const dirCache = new Map<string, ProjectDir>();
/** the first 64 KiB of a flat-layout agent (one buffer for every file: a search at 22,000 sessions reads 842 project directories, and a buffer each was 54 MB of garbage) */
let agentHead: Buffer | null = null;

/**
 * A project directory, read once: its flat-layout agents (each names its parent in the `sessionId`
 * of its lines; the first 64 KiB of each file are read) and its entries' names.
 */
function projectDir(dir: string): ProjectDir {
  let pd = dirCache.get(dir);
  if (pd) return pd;
  pd = { flat: new Map(), names: new Set() };
  dirCache.set(dir, pd);
  for (const d of entries(dir)) {
    pd.names.add(d.name);
    if (!d.name.startsWith('agent-') || !d.name.endsWith('.jsonl')) continue;
    const f = path.join(dir, d.name);
    try {
      agentHead ??= Buffer.allocUnsafe(64 << 10);
      const head = agentHead;
      const fd = fs.openSync(f, 'r');
      let n = 0;
      try {
        n = fs.readSync(fd, head, 0, head.length, 0);
      } finally {
        fs.closeSync(fd);
      }
      const id = /"sessionId":"([^"]+)"/.exec(head.toString('utf8', 0, n))?.[1];
      if (id) addTo(pd.flat, id, f);
    } catch {
      /* unreadable: not ours to report */
    }
  }
  return pd;
}

/** Subagent transcripts: `<id>/subagents/agent-*.jsonl` (2.1.x) or flat `agent-*.jsonl` beside the session. */
function children(s: Session): string[] {
  if (!s.file.endsWith('.jsonl')) return [];
  // (the file's directory and name by hand: this runs for every Claude session a search reads)
  if (!s.file.includes('/')) return [];
  const dir = dirOf(s.file);
  const pd = projectDir(dir);
  const out = [...(pd.flat.get(s.id) ?? [])];
  const own = s.file.slice(s.file.lastIndexOf('/') + 1, -'.jsonl'.length);
  // (most sessions have no directory of their own: no readdir that would fail)
  if (!pd.names.has(own)) return out;
  for (const f of walk(path.join(dir, own, 'subagents'), (n) => n.startsWith('agent-') && n.endsWith('.jsonl'), 2)) {
    // internal helpers (compaction, prompt suggestions) restate the session: not evidence
    if (/^agent-(acompact|prompt_suggestion)-/.test(path.basename(f))) continue;
    out.push(f);
  }
  return out;
}

const K_UUID = bytes('"uuid":"');
const K_PARENT = bytes('"parentUuid":');
const K_LOGICAL = bytes('"logicalParentUuid":');
const K_TYPE = bytes('"type":"');
/** the `type` values of a message, with the quote that ends them */
const V_USER = bytes('user"');
const V_ASSISTANT = bytes('assistant"');

/**
 * A line's place in the tree, read from its bytes where Claude Code writes the keys (`parentUuid`
 * first, `type` before `message`, `uuid` after it, among the last few fields), decoded only when
 * they are not there; null: not in the tree. Scanning every line whole costs more than the search.
 */
function link(line: Buffer, parse: () => unknown, cut = false): { id: string; parent: string | null; message: boolean } | null {
  const fallback = () => {
    const o = obj(parse());
    if (!o || typeof o.uuid !== 'string') return null;
    const parent = typeof o.parentUuid === 'string' ? o.parentUuid : typeof o.logicalParentUuid === 'string' ? o.logicalParentUuid : null;
    return { id: o.uuid, parent, message: o.type === 'user' || o.type === 'assistant' };
  };
  // bounded views: a search over the whole of every line would cost more than the search itself
  if (line.length < K_PARENT.length + 1 || line.compare(K_PARENT, 0, K_PARENT.length, 1, 1 + K_PARENT.length) !== 0) {
    // (a line cut to its head and tail: its uuid may lie between them)
    return cut || line.indexOf(K_UUID) >= 0 ? fallback() : null;
  }
  let parent = firstLink(line.subarray(0, HEAD), K_PARENT);
  // the last "uuid" near the end is the record's own (a nested one, in a tool's input, comes before it)
  const t0 = Math.max(0, line.length - TAIL);
  const tail = line.subarray(t0);
  const u = tail.lastIndexOf(K_UUID);
  if (u < 0 || parent === undefined) return fallback();
  const e = tail.indexOf(0x22, u + K_UUID.length);
  if (e < 0) return fallback();
  const id = tail.toString('latin1', u + K_UUID.length, e);
  const t = firstString(line.subarray(0, HEAD), K_TYPE);
  if (parent === null) {
    // a compaction: the thread goes on from the last record before it
    const l = firstLink(line.subarray(0, HEAD), K_LOGICAL);
    if (typeof l === 'string') parent = l;
  }
  return { id, parent, message: t === 'user' || t === 'assistant' };
}

/** bytes from the end of a line within which its own `uuid` is looked for */
const TAIL = 2048;
/** bytes from the start of a line within which `parentUuid` and `type` are looked for */
const HEAD = 1024;

/**
 * Records only on abandoned branches: the live thread is the walk back from the last message by
 * `parentUuid`, bridging a compaction (`compact_boundary`) by `logicalParentUuid`. Unknown (null)
 * when the walk does not reach the first record (a line too long to read, a cycle), or when more
 * than one message starts a thread (not a tree Claude Code wrote).
 *
 * While each record is the child of the one before (a session never rewound: most), the records
 * are kept as a chain, their ids as bytes, and a line whose `parentUuid` is the id before it is
 * read on the bytes alone (its own id from its tail, its type from its head): no strings, no map.
 * A chain leaves nothing abandoned (the empty set; an id repeated in it made the walk meet itself:
 * null, which weighs nothing down either). At the first record that is not the child of the one
 * before, the map is made of the chain so far, and every record after is taken into it.
 */
function branches(): BranchTracker {
  return new ClaudeBranches();
}

/**
 * branches()'s tracker: a class, not an object of closures made for each file (V8 compiles a
 * closure made once for that closure alone, and compiled `visit` again for the next file a thread
 * read; lib/search/scan.ts `LineScan`).
 */
class ClaudeBranches implements BranchTracker {
  private readonly parent = new Map<string, string | null>();
  private readonly messages: string[] = [];
  private leaf: string | null = null;
  private roots = 0;
  /** the records so far, one chain from a record without a parent (null: the map is used instead) */
  private chain: IdChain | null = new IdChain();
  /** whether each record of the chain is a message */
  private readonly isMessage: boolean[] = [];

  private take(id: string, p: string | null, message: boolean): void {
    this.parent.set(id, p);
    if (message) {
      this.messages.push(id);
      this.leaf = id;
      if (p == null) this.roots++;
    }
  }

  /** the chain's records, each the child of the one before, into the map as the map takes them */
  private unchain(c: IdChain): void {
    let prev: string | null = null;
    for (let i = 0; i < c.length; i++) {
      const id = c.id(i);
      this.take(id, prev, this.isMessage[i] === true);
      prev = id;
    }
    this.chain = null;
  }

  private push(c: IdChain, from: Buffer, a: number, b: number, message: boolean): void {
    c.push(from, a, b);
    this.isMessage.push(message);
  }

  /**
   * The usual record, read on its bytes alone: `{"parentUuid":"<the id before>"` (closed within the
   * head), its own id near its end; true when it was taken into the chain so.
   */
  private chained(c: IdChain, line: Buffer): boolean {
    const v = 1 + K_PARENT.length;
    if (line[v] !== 0x22 || !same(line, 1, K_PARENT, 0, K_PARENT.length) || !c.lastAt(line, v + 1, HEAD)) return false;
    const t0 = Math.max(0, line.length - TAIL);
    const tail = t0 > 0 ? line.subarray(t0) : line;
    const u = tail.lastIndexOf(K_UUID);
    const e = u < 0 ? -1 : tail.indexOf(0x22, u + K_UUID.length);
    if (e < 0) return false;
    const head = line.length > HEAD ? line.subarray(0, HEAD) : line;
    const t = head.indexOf(K_TYPE) + K_TYPE.length;
    const message = t >= K_TYPE.length && (same(head, t, V_USER, 0, V_USER.length) || same(head, t, V_ASSISTANT, 0, V_ASSISTANT.length));
    this.push(c, tail, u + K_UUID.length, e, message);
    return true;
  }

  visit(line: Buffer, parse: () => unknown, cut = false): void {
    const c = this.chain;
    if (c && this.chained(c, line)) return;
    const l = link(line, parse, cut);
    if (!l) return;
    if (c) {
      // the next of the chain (the first: a record without a parent)
      if (l.parent === c.last()) {
        const id = Buffer.from(l.id, 'latin1');
        // (an id that is not one byte a character, or holds a quote, which ends the value where its
        // bytes are compared, is not kept so)
        if (id.toString('latin1') === l.id && !id.includes(0x22)) {
          this.push(c, id, 0, id.length, l.message);
          return;
        }
      }
      this.unchain(c);
    }
    this.take(l.id, l.parent, l.message);
  }

  result(): Set<string> | null {
    if (this.chain) return this.isMessage.includes(true) ? new Set() : null;
    if (!this.leaf || this.roots > 1) return null;
    const live = new Set<string>();
    for (let u: string | null = this.leaf; u != null; u = this.parent.get(u) ?? null) {
      if (live.has(u) || !this.parent.has(u)) return null;
      live.add(u);
    }
    return new Set(this.messages.filter((u) => !live.has(u)));
  }
}

/** The project root a transcript lies under: `<root>/projects/<slug>/<id>.jsonl`. */
function rootOf(file: string): string | null {
  const proj = path.dirname(path.dirname(file));
  return path.basename(proj) === 'projects' ? path.dirname(proj) : null;
}

/**
 * `<root>/history.jsonl`: every prompt submitted, with its `sessionId` (older lines have only the
 * `project` and `timestamp`: the session of that directory active then).
 */
function shared(all: Session[]): SharedSource[] {
  const roots = new Map<string, Session[]>();
  // (added in place: a copy per session was quadratic, 45 ms at 5,000 Claude sessions)
  for (const s of all) {
    const r = rootOf(s.file);
    if (r) addTo(roots, r, s);
  }
  const out: SharedSource[] = [];
  for (const [root, ss] of roots) {
    const file = path.join(root, 'history.jsonl');
    if (!fs.existsSync(file)) continue;
    const ids = new Set(ss.map((s) => s.id));
    const byCwd = new Map<string, Session[]>();
    for (const s of ss) if (s.cwd) addTo(byCwd, s.cwd, s);
    out.push({
      file,
      label: 'prompt history',
      owner(rec) {
        const o = obj(rec);
        if (!o) return null;
        if (typeof o.sessionId === 'string') return ids.has(o.sessionId) ? `claude:${o.sessionId}` : null;
        const t = ms(o.timestamp);
        if (typeof o.project !== 'string' || t == null) return null;
        // the session of that directory that was going at that time (a minute's slack either side)
        const hit = (byCwd.get(o.project) ?? [])
          .filter((s) => (s.started ?? Infinity) - 60e3 <= t && t <= (s.updated ?? s.started ?? -Infinity) + 60e3)
          .sort((a, b) => (b.started ?? 0) - (a.started ?? 0))[0];
        return hit ? hit.key : null;
      },
      extract(rec) {
        const o = obj(rec) ?? {};
        const pasted = o.pastedContents && typeof o.pastedContents === 'object' ? Object.values(o.pastedContents as object) : [];
        const texts = pasted
          .map((p: unknown) => {
            const content = typeof p === 'string' ? p : obj(p)?.content;
            return typeof content === 'string' ? content : '';
          })
          .filter(Boolean);
        return [...piece('user', o.display, ms(o.timestamp)), ...texts.flatMap((t) => piece('user', t, ms(o.timestamp)))];
      },
    });
  }
  return out;
}

const K_USER = bytes('"type":"user"');
const K_BLOCKS = [bytes('"message":{"role":"user","content":[{')];
const K_RESULT = bytes('"type":"tool_result"');
const K_TEXT = bytes('"type":"text"');
const K_COMPACT = bytes('"isCompactSummary":true');

/**
 * A record of tool output only, from its bytes: a top-level `user` record whose message content is
 * an array that starts with a `tool_result` block (its `type` among the block's first keys) and
 * holds no `text` block at any depth (a text block at the top is the user's words; one nested in a
 * result cannot be told from it without decoding, so such a line is decoded as usual) and is no
 * compaction summary. Claude Code writes each tool result so (2.1.332: `tool_use_id` or `type`
 * first).
 */
function outputOnly(line: Buffer): boolean {
  // the record's first keys include its directory, which can be long: 4 KiB of them
  const at = outputMarkerEnd(line, K_USER, K_BLOCKS, 4 << 10);
  if (at < 0) return false;
  const head = line.subarray(at, Math.min(line.length, at + 256));
  const t = head.indexOf(K_RESULT);
  // the block's first key (right after its brace), or one after a comma
  if (t < 0 || (t > 0 && head[t - 1] !== 0x2c)) return false;
  for (let j = 0; j < t; j++) if (head[j] === 0x7b || head[j] === 0x5b) return false;
  return line.indexOf(K_TEXT) < 0 && line.indexOf(K_COMPACT) < 0;
}

export const search: SearchHooks = {
  children,
  rawHead: ['"type":"tool_result"'],
  outputOnly,
  recordId: (o) => str(obj(o)?.uuid),
  branches,
  // the tree reader looks at a line's first HEAD and last TAIL bytes (and decodes it when the keys are not there)
  branchHead: HEAD,
  branchTail: TAIL,
  shared,
};
