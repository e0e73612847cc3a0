// Gemini CLI: <root>/tmp/<project>/chats/session-<ts>-<id8>.jsonl (legacy: session-….json), subagents
// in chats/<parentSessionId>/<sessionId>.jsonl; the project's directory comes from
// <root>/tmp/<project>/.project_root or the registry <root>/projects.json (formats.md §6).

import fs from 'node:fs';
import path from 'node:path';
import type { Adapter, Ctx, LineState, Root, SessionCore, Source } from '../../types.js';
import { direntIsDir, direntMaybeFile, entries, isDir, readText as readAll, uniqueReal } from '../../util/fsx.js';
import { createHash } from '../../util/lazy.js';
import { envDirs, expandHome, samePlace, storeEnv } from '../../util/paths.js';
import { promptText } from '../../util/text.js';
import { maxMs, minMs, toMs } from '../../util/time.js';
import { countersOf, newCounters, obj, parseObject, peekStr as peekStrAt, peekTimestamp, type Rec, rec, str } from '../jsonl.js';

/** One message of the conversation, as far as a listing needs it: its id, and its prompt text and time when it is a prompt. */
type Msg = [id: string, prompt: string | null, at?: number | null];

interface GeminiState extends LineState {
  lines: number;
  id: string | null;
  projectHash: string | null;
  kind: string | null;
  summary: string | null;
  started: number | null;
  lastUpdated: number | null;
  maxTs: number | null;
  minTs: number | null;
  model: string | null;
  lastReply: string | null;
  /** id of the message lastReply came from */
  replyId: string | null;
  msgs: Msg[];
}

interface Hint {
  /** the project temp dir `<root>/tmp/<project>` */
  project: string;
  /** the Gemini home holding it (`~/.gemini`) */
  root: string;
  /** parent session id for a subagent file */
  parent?: string;
}

const B_TYPE = Buffer.from('"type":"');
const B_ID = Buffer.from('{"id":"');
const BIG = 256 * 1024;

const peekStr = (buf: Buffer, start: number, end: number, needle: Buffer, window: number) =>
  peekStrAt(buf, start, end, needle, { window, max: 200, enc: 'utf8' });

/** The text of a Gemini PartListUnion (a string, a part, or a list of them): text parts only. */
export function partsText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(partsText).filter(Boolean).join('\n');
  if (v && typeof v === 'object') {
    const { text, thought } = v as { text?: unknown; thought?: unknown };
    if (typeof text === 'string' && !thought) return text;
  }
  return '';
}

/**
 * What Gemini itself ignores when it rebuilds a conversation (sessionUtils.ts isIgnoredUserContent),
 * and the grace-period nudge its subagent loop sends as a user message (seen in 0.61.0 recordings).
 */
export function isIgnoredUserContent(t: string): boolean {
  return (
    t.length === 0 ||
    t.startsWith('/') ||
    t.startsWith('?') ||
    t.startsWith('<session_context>') ||
    t.startsWith('<hook_context>') ||
    t.startsWith('You have stopped calling tools without finishing.')
  );
}

function newState(): GeminiState {
  return {
    lines: 0,
    id: null,
    projectHash: null,
    kind: null,
    summary: null,
    started: null,
    lastUpdated: null,
    maxTs: null,
    minTs: null,
    model: null,
    lastReply: null,
    replyId: null,
    msgs: [],
    counters: newCounters(),
  };
}

function seen(st: GeminiState, ts: unknown): void {
  const t = toMs(ts);
  if (t == null) return;
  st.maxTs = maxMs(st.maxTs, t);
  st.minTs = minMs(st.minTs, t);
}

function indexOfId(st: GeminiState, id: string): number {
  for (let i = st.msgs.length - 1; i >= 0; i--) if (st.msgs[i]?.[0] === id) return i;
  return -1;
}

function applyMeta(st: GeminiState, o: Rec): void {
  st.id = str(o.sessionId) ?? st.id;
  st.projectHash = str(o.projectHash) ?? st.projectHash;
  st.kind = str(o.kind) ?? st.kind;
  if (typeof o.summary === 'string') st.summary = o.summary.trim() || null;
  const s = toMs(o.startTime);
  if (s != null) st.started = s;
  const u = toMs(o.lastUpdated);
  if (u != null) st.lastUpdated = maxMs(st.lastUpdated, u);
}

/** Add a message, or replace the earlier one with the same id in its first position. */
function putMessage(st: GeminiState, m: Rec, id: string | null): void {
  seen(st, m.timestamp);
  const type = m.type;
  let prompt: string | null = null;
  if (type === 'user') {
    // the original request (displayContent) rather than the processed one sent to the model
    const raw = m.displayContent != null ? partsText(m.displayContent) : partsText(m.content);
    const t = raw.trim();
    if (!isIgnoredUserContent(t)) prompt = promptText(t);
  }
  const key = id ?? `#${st.msgs.length}`;
  const entry: Msg = prompt == null ? [key, null] : [key, prompt, toMs(m.timestamp)];
  let at = id ? indexOfId(st, id) : -1;
  if (at >= 0) st.msgs[at] = entry;
  else {
    st.msgs.push(entry);
    at = st.msgs.length - 1;
  }
  if (type === 'gemini') {
    st.model = str(m.model) ?? st.model;
    const text = partsText(m.content).trim();
    const cur = st.replyId ? indexOfId(st, st.replyId) : -1;
    if (text && at >= cur) {
      st.lastReply = promptText(text);
      st.replyId = key;
    } else if (!text && key === st.replyId) {
      st.lastReply = null;
      st.replyId = null;
    }
  }
}

function rewindTo(st: GeminiState, id: string): void {
  const at = indexOfId(st, id);
  if (at < 0) return;
  st.msgs.length = at;
  if (st.replyId && indexOfId(st, st.replyId) < 0) {
    st.lastReply = null;
    st.replyId = null;
  }
}

function replaceAll(st: GeminiState, messages: unknown[]): void {
  st.msgs = [];
  st.lastReply = null;
  st.replyId = null;
  for (const v of messages) {
    const m = obj(v);
    if (m) putMessage(st, m, str(m.id));
  }
}

/** One JSONL record: metadata, message, `$set` or `$rewindTo`. */
function apply(st: GeminiState, o: Rec): void {
  if ('$rewindTo' in o) {
    const to = str(o.$rewindTo);
    if (to) rewindTo(st, to);
    return;
  }
  if ('$set' in o) {
    const s = obj(o.$set);
    if (!s) return;
    applyMeta(st, s);
    if (Array.isArray(s.messages)) replaceAll(st, s.messages);
    return;
  }
  if (typeof o.type === 'string') {
    putMessage(st, o, str(o.id));
    return;
  }
  if (str(o.sessionId)) applyMeta(st, o);
}

function lineInto(st: GeminiState, buf: Buffer, start: number, end: number, complete: boolean): void {
  const c = countersOf(st);
  st.lines++;
  if (!complete) {
    c.hugeLines++;
    const id = peekStr(buf, start, end, B_ID, 16);
    if (id) putMessage(st, { type: peekStr(buf, start, end, B_TYPE, 1024) ?? 'unknown' }, id);
    seen(st, peekTimestamp(buf, start, end));
    return;
  }
  if (end - start > BIG) {
    // Replies with big tool results: only the id (for later replacement or rewind) and the time
    // matter; prompts (pasted text) are always decoded.
    const type = peekStr(buf, start, end, B_TYPE, 1024);
    const id = peekStr(buf, start, end, B_ID, 16);
    if (id && type && type !== 'user') {
      const at = indexOfId(st, id);
      const entry: Msg = [id, null];
      if (at >= 0) st.msgs[at] = entry;
      else st.msgs.push(entry);
      seen(st, peekTimestamp(buf, start, end));
      return;
    }
  }
  const o = parseObject(c, buf, start, end);
  if (o) apply(st, o);
}

/**
 * Longer than Gemini CLI takes from writing a session's header to recording the prompt it was given
 * (0.04-1.2 s seen for `gemini -p` in 0.61.0), shorter than starting the UI and typing one.
 */
const PRINT_GAP_MS = 3000;

/**
 * A one-shot run (`gemini -p`; Gemini writes no marker for it, `kind` is "main" either way): its one
 * prompt came with the session's start. A session a person went on typing into has more; one
 * started with a prompt (`gemini "A"`, `-i A`) and never typed into cannot be told from a `-p` run.
 */
function headless(st: GeminiState, prompts: number): boolean {
  if (prompts !== 1 || st.started == null) return false;
  const first = st.msgs.find((m) => m[1] != null);
  const at = first?.[2];
  return at != null && at - st.started < PRINT_GAP_MS;
}

function mtimeOf(p: string): number | null {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return null;
  }
}

/** A small regular file's text (a FIFO or device named like one is never opened). */
function readText(p: string, max = 1 << 20): string | null {
  try {
    const st = fs.statSync(p);
    if (!st.isFile() || st.size > max) return null;
    return readAll(p);
  } catch {
    return null;
  }
}

/** A project's sessions under `<root>/tmp/<project>/chats/`: `session-*.jsonl` (legacy `.json`), subagents in `<parentSessionId>/`. */
function discoverProject(project: string, root: string, out: Source[]): void {
  const chats = path.join(project, 'chats');
  for (const f of entries(chats)) {
    if (direntMaybeFile(f) && f.name.startsWith('session-')) {
      const hint: Hint = { project, root };
      if (f.name.endsWith('.jsonl')) out.push({ path: path.join(chats, f.name), harness: 'gemini', kind: 'session', mode: 'lines', hint });
      else if (f.name.endsWith('.json'))
        out.push({ path: path.join(chats, f.name), harness: 'gemini', kind: 'legacy', mode: 'whole', hint });
    } else if (direntIsDir(chats, f)) {
      const sub = path.join(chats, f.name);
      for (const g of entries(sub)) {
        if (!direntMaybeFile(g) || !g.name.endsWith('.jsonl')) continue;
        const hint: Hint = { project, root, parent: f.name };
        out.push({ path: path.join(sub, g.name), harness: 'gemini', kind: 'subagent', mode: 'lines', hint });
      }
    }
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The project's directory: .project_root in its temp dir, else the registry, else a legacy
 * sha256(path) directory or projectHash matched against every known project path.
 */
class ProjectDirs {
  private readonly rootOf = new Map<string, string | null>();
  private readonly registries = new Map<string, Map<string, string>>();
  private readonly hashes = new Map<string, string>();

  /** A Gemini home's projects.json: project directory by slug (read once). */
  registry(root: string): Map<string, string> {
    let m = this.registries.get(root);
    if (m) return m;
    m = new Map();
    const text = readText(path.join(root, 'projects.json'), 16 << 20);
    if (text) {
      try {
        const projects = obj(JSON.parse(text))?.projects ?? {};
        for (const [p, slug] of Object.entries(projects as Rec)) {
          if (typeof slug !== 'string' || !path.isAbsolute(p)) continue;
          m.set(slug, p);
          this.hashes.set(sha256(p), p);
        }
      } catch {
        /* a broken registry: no mapping */
      }
    }
    this.registries.set(root, m);
    return m;
  }

  /** A project temp dir's .project_root (read once). */
  projectRoot(project: string): string | null {
    const known = this.rootOf.get(project);
    if (known !== undefined) return known;
    const t = readText(path.join(project, '.project_root'), 64 << 10)?.trim() ?? '';
    const v = t && path.isAbsolute(t) && !t.includes('\n') ? t : null;
    if (v) this.hashes.set(sha256(v), v);
    this.rootOf.set(project, v);
    return v;
  }

  load(h: Partial<Hint>): void {
    if (h.root) this.registry(h.root);
    if (h.project) this.projectRoot(h.project);
  }

  cwdOf(h: Partial<Hint>, st: GeminiState): string | null {
    if (!h.project || !h.root) return null;
    const fromFile = this.projectRoot(h.project);
    if (fromFile) return fromFile;
    const name = path.basename(h.project);
    const fromRegistry = this.registry(h.root).get(name);
    if (fromRegistry) return fromRegistry;
    const byName = /^[0-9a-f]{64}$/.test(name) ? this.hashes.get(name) : undefined;
    if (byName !== undefined) return byName;
    const byHash = st.projectHash ? this.hashes.get(st.projectHash) : undefined;
    return byHash ?? null;
  }
}

/**
 * One session id in two files (a legacy .json resumed into a .jsonl): the one holding the
 * conversation (more messages), the .jsonl on a tie.
 */
function oneFilePerId(sessions: SessionCore[], info: Map<string, { st: GeminiState }>): Map<string, SessionCore> {
  const best = new Map<string, SessionCore>();
  const size = (s: SessionCore) => info.get(s.file)?.st.msgs?.length ?? 0;
  for (const s of sessions) {
    const cur = best.get(s.id);
    if (!cur) {
      best.set(s.id, s);
      continue;
    }
    const a = size(s);
    const b = size(cur);
    if (a > b || (a === b && s.file.endsWith('.jsonl') && !cur.file.endsWith('.jsonl'))) best.set(s.id, s);
  }
  return best;
}

export const gemini: Adapter<GeminiState, 'gemini'> = {
  name: 'gemini',
  label: 'Gemini CLI',
  binaries: ['gemini'],
  envVars: ['RESUME_GEMINI_DIRS', 'GEMINI_CLI_HOME'],
  color: 39,
  testedVersion: '0.61.0',
  search: {
    text: async () => (await import('./text.js')).geminiText,
    hooks: async () => (await import('./text.js')).search,
  },

  roots(ctx: Ctx): Root[] {
    const out: Root[] = envDirs(ctx, 'RESUME_GEMINI_DIRS').map((p) => ({ path: p, via: 'RESUME_GEMINI_DIRS', exists: false }));
    const h = ctx.env.GEMINI_CLI_HOME;
    if (h) out.push({ path: path.join(path.resolve(expandHome(h, ctx.home)), '.gemini'), via: 'GEMINI_CLI_HOME', exists: false });
    else out.push({ path: path.join(ctx.home, '.gemini'), via: 'default', exists: false });
    return uniqueReal(out).map((r) => ({ ...r, exists: isDir(r.path) }));
  },

  discover(_ctx, roots) {
    const out: Source[] = [];
    for (const r of roots) {
      if (!r.exists) continue;
      const tmp = path.join(r.path, 'tmp');
      for (const p of entries(tmp)) {
        if (direntIsDir(tmp, p)) discoverProject(path.join(tmp, p.name), r.path, out);
      }
    }
    return out;
  },

  lines: {
    begin: () => newState(),
    line: (st, l) => lineInto(st, l.buf, l.start, l.end, l.complete),
  },

  whole(src: Source): GeminiState {
    const st = newState();
    const text = readAll(src.path);
    let o: unknown;
    try {
      o = JSON.parse(text);
    } catch {
      countersOf(st).badLines++;
      return st;
    }
    const doc = rec(o);
    if (!doc) {
      countersOf(st).badLines++;
      return st;
    }
    applyMeta(st, doc);
    if (Array.isArray(doc.messages)) replaceAll(st, doc.messages);
    return st;
  },

  sessions(st, src): SessionCore[] {
    if (!st.id) return [];
    const hint = (src.hint ?? {}) as Partial<Hint>;
    let prompts = 0;
    let first: string | null = null;
    let last: string | null = null;
    const all: string[] = [];
    for (const [, p] of st.msgs) {
      if (p == null) continue;
      prompts++;
      all.push(p);
      if (first == null) first = p;
      last = p;
    }
    const sub = src.kind === 'subagent' || st.kind === 'subagent';
    let hiddenReason: string | null = null;
    if (sub) hiddenReason = 'subagent';
    else if (prompts === 0 && !st.summary) hiddenReason = 'empty';
    else if (headless(st, prompts)) hiddenReason = 'headless';
    return [
      {
        harness: 'gemini',
        id: st.id,
        cwd: null, // resolved in finish from .project_root / projects.json
        // (a subagent's `summary` is the result it handed back, often JSON: its task names it better)
        title: st.summary && !sub ? promptText(st.summary) : first,
        firstPrompt: first,
        lastPrompt: last,
        allPrompts: all,
        lastReply: st.lastReply,
        prompts,
        branch: null,
        model: st.model,
        started: st.started ?? st.minTs,
        updated: maxMs(st.lastUpdated, st.maxTs) ?? st.started ?? st.minTs ?? mtimeOf(src.path),
        file: src.path,
        hidden: hiddenReason != null,
        hiddenReason,
        parent: sub ? (hint.parent ?? null) : null,
        forkedFrom: null,
      },
    ];
  },

  finish: {
    all(sessions, _ctx, states) {
      const dirs = new ProjectDirs();
      const info = new Map<string, { st: GeminiState; src: Source }>();
      for (const { src, state } of states.values()) info.set(src.path, { st: state, src });
      // Load every registry and .project_root first, so hash matching sees all candidates.
      for (const { src } of info.values()) dirs.load((src.hint ?? {}) as Partial<Hint>);
      const best = oneFilePerId(sessions, info);
      const out: SessionCore[] = [];
      for (const s of sessions) {
        if (best.get(s.id) !== s) continue;
        const i = info.get(s.file);
        out.push(i ? { ...s, cwd: dirs.cwdOf((i.src.hint ?? {}) as Partial<Hint>, i.st) } : s);
      }
      return out;
    },
  },

  launch(s, { fork, ctx }) {
    if (fork) return 'Gemini CLI cannot fork a session; resume it instead';
    const argv = ['gemini', '--resume', s.id];
    // <home>/.gemini/tmp/<project>/chats/…: Gemini reads $GEMINI_CLI_HOME/.gemini, else ~/.gemini
    const root = ctx ? /^(.*)\/tmp\/[^/]+\/chats\//.exec(s.file)?.[1] : undefined;
    if (!ctx || root === undefined) return { argv };
    const h = ctx.env.GEMINI_CLI_HOME;
    const dflt = h ? path.resolve(expandHome(h, ctx.home)) : ctx.home;
    if (samePlace(root, path.join(dflt, '.gemini'))) return { argv };
    if (path.basename(root) !== '.gemini') return `Gemini CLI reads sessions only from <home>/.gemini; this one is in ${root}`;
    const env = storeEnv('GEMINI_CLI_HOME', path.dirname(root), dflt);
    return env ? { argv, env } : { argv };
  },
};
