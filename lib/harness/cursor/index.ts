// Cursor CLI (`cursor-agent`, also installed as `agent`), formats.md §4. Two stores, joined on the
// chat id:
//   <config>/chats/<md5 of cwd>/<chatId>/store.db (+ meta.json)   name, model, creation time
//   ~/.cursor/projects/<slug>/agent-transcripts/<chatId>/<chatId>.jsonl   the conversation
//   …/agent-transcripts/<chatId>/subagents/<childId>.jsonl             workers (hidden)
// Neither stores the working directory. It is recovered by hashing candidate directories against
// the md5 folder name; the project slug is lossy (`-` may be `/` or a literal `-`) and is used on
// its own only when it names exactly one existing directory.

import fs from 'node:fs';
import path from 'node:path';
import type { Adapter, Counters, Ctx, LineState, Root, SessionCore, Source } from '../../types.js';
import { direntIsDir, direntMaybeFile, entries, isDir, uniqueReal } from '../../util/fsx.js';
import { createHash } from '../../util/lazy.js';
import { envDirs, expandHome, storeEnv } from '../../util/paths.js';
import { promptText } from '../../util/text.js';
import { maxMs, toMs } from '../../util/time.js';
import { onPath } from '../../util/which.js';
import { addPrompt, countUnknown, headHas, newCounters, obj, parseObject, type Rec, str } from '../jsonl.js';
import { columns, type Db, firstLine, openReadonly, walDeps, warnOnce } from '../sqlite.js';

interface Hint {
  chatId: string;
  /** md5 folder name under chats/ (db and meta sources) */
  md5?: string | null;
  /** project slug and its directory (transcripts) */
  slug?: string;
  projDir?: string;
  /** parent chat id (subagent transcripts) */
  parent?: string;
}

interface TranscriptState extends LineState {
  prompts: number;
  firstPrompt: string | null;
  lastPrompt: string | null;
  /** every prompt, clipped (SessionCore.allPrompts) */
  all?: string[];
  lastReply: string | null;
  /** working directories named by Shell tool calls: cwd candidates */
  cwds: string[];
  counters: Counters;
}

interface ChatState extends LineState {
  name: string | null;
  model: string | null;
  created: number | null;
  updated: number | null;
  subagent: boolean;
  counters: Counters;
}

type CursorState = TranscriptState | ChatState;

const DEFAULT_NAME = 'New Agent';
const MAX_CWDS = 16;
const B_ASSISTANT = Buffer.from('"role":"assistant"');
const BIG = 256 * 1024;
/** Blocks the CLI wraps around what the user typed. */
const WRAPPERS = ['timestamp', 'context', 'user_info', 'system_reminder', 'attached_files', 'additional_data'];

/** What the user typed in a Cursor user message: the `<user_query>` content, else the text minus known wrapper blocks. */
export function cursorPromptText(t: string): string {
  const q = [...t.matchAll(/<user_query>([\s\S]*?)(?:<\/user_query>|$)/g)].map((m) => m[1] ?? '');
  if (q.length) return q.join('\n').trim();
  let s = t;
  for (const w of WRAPPERS) s = s.replace(new RegExp(`<${w}>[\\s\\S]*?</${w}>`, 'g'), '');
  return s.trim();
}

export function md5(s: string): string {
  return createHash('md5').update(s, 'utf8').digest('hex');
}

/** Slug comparison key: runs of anything but letters and digits become one `-`. */
function norm(s: string): string {
  return s.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
}

/**
 * Existing directories a project slug can stand for, found by walking the filesystem from `/` and
 * matching directory names against the slug (at most `max`; `complete` is false when the search
 * stopped early, so uniqueness cannot be claimed).
 */
export function decodeSlug(slug: string, max = 8, budget = 400): { dirs: string[]; complete: boolean } {
  const want = norm(slug);
  const dirs: string[] = [];
  let left = budget;
  let complete = true;
  const walk = (dir: string, rest: string) => {
    if (dirs.length >= max) {
      complete = false;
      return;
    }
    if (left-- <= 0) {
      complete = false;
      return;
    }
    for (const d of entries(dir)) {
      const n = norm(d.name);
      if (!n || (rest !== n && !rest.startsWith(`${n}-`))) continue;
      if (!direntIsDir(dir, d)) continue;
      const p = path.join(dir, d.name);
      if (rest === n) {
        if (dirs.length < max) dirs.push(p);
        else complete = false;
      } else walk(p, rest.slice(n.length + 1));
    }
  };
  if (want) walk('/', want);
  return { dirs, complete };
}

/** Where Cursor keeps projects/ (the transcripts): CURSOR_DATA_DIR, else ~/.cursor. */
function dataDir(ctx: Ctx): { path: string; via: string } {
  const d = ctx.env.CURSOR_DATA_DIR;
  if (d?.trim()) return { path: path.resolve(expandHome(d.trim(), ctx.home)), via: 'CURSOR_DATA_DIR' };
  return { path: path.join(ctx.home, '.cursor'), via: 'default' };
}

function configDir(ctx: Ctx): { path: string; via: string } {
  const c = ctx.env.CURSOR_CONFIG_DIR;
  if (c?.trim()) return { path: path.resolve(expandHome(c.trim(), ctx.home)), via: 'CURSOR_CONFIG_DIR' };
  const x = ctx.env.XDG_CONFIG_HOME;
  if (x && path.isAbsolute(x)) return { path: path.join(x, 'cursor'), via: 'XDG_CONFIG_HOME' };
  return { path: path.join(ctx.home, '.cursor'), via: 'default' };
}

/** meta['0'] of store.db: hex-encoded UTF-8 JSON (some builds: plain JSON). Only named fields are kept. */
export function decodeChatMeta(
  v: unknown,
): { agentId: string | null; name: string | null; createdAt: number | null; model: string | null; mode: string | null } | null {
  let s = Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : null;
  if (s == null) return null;
  s = s.trim();
  if (/^(?:[0-9a-fA-F]{2})+$/.test(s)) s = Buffer.from(s, 'hex').toString('utf8');
  let v2: unknown;
  try {
    v2 = JSON.parse(s);
  } catch {
    return null;
  }
  const o = obj(v2);
  if (!o) return null;
  // Never copy the whole object: some builds keep `blobEncryptionKey` beside these.
  return {
    agentId: str(o.agentId),
    name: str(o.name),
    createdAt: toMs(o.createdAt),
    model: str(o.lastUsedModel),
    mode: str(o.mode),
  };
}

function skip(c: Counters, reason: string): void {
  c.skipped ??= {};
  c.skipped[reason] = (c.skipped[reason] ?? 0) + 1;
}

function statMs(p: string): { mtime: number; birth: number } | null {
  try {
    const s = fs.statSync(p);
    return { mtime: s.mtimeMs, birth: s.birthtimeMs };
  } catch {
    return null;
  }
}

/** A small regular file's JSON (FIFOs and other special files are never opened); undefined when absent. */
function smallJson(file: string, max = 1 << 20): { value: unknown } | 'bad' | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return undefined;
  }
  if (!st.isFile() || st.size > max) return 'bad';
  try {
    return { value: JSON.parse(fs.readFileSync(file, 'utf8')) };
  } catch {
    return 'bad';
  }
}

function readChat(src: Source): ChatState {
  const st: ChatState = { name: null, model: null, created: null, updated: null, subagent: false, counters: newCounters() };
  readMetaJson(st, path.join(path.dirname(src.path), 'meta.json'));
  if (src.kind === 'db') {
    readStoreDb(st, src.path, (src.hint as Hint).chatId);
    for (const p of [src.path, `${src.path}-wal`]) st.updated = maxMs(st.updated, statMs(p)?.mtime ?? null);
  } else if (st.updated == null) {
    st.updated = statMs(src.path)?.mtime ?? null;
  }
  return st;
}

/** A chat's meta.json: its times, name and whether it is a worker's. */
function readMetaJson(st: ChatState, metaJson: string): void {
  const mj = smallJson(metaJson);
  if (mj === 'bad') skip(st.counters, 'meta.json files that are not small JSON files');
  const m = mj && mj !== 'bad' ? obj(mj.value) : null;
  if (!m) return;
  st.created = toMs(m.createdAtMs) ?? toMs(m.createdAt);
  st.updated = toMs(m.updatedAtMs) ?? toMs(m.updatedAt);
  st.name = str(m.name) ?? st.name;
  if (m.isSubagent === true) st.subagent = true;
}

/** A chat's store.db: its meta['0'] (name, model, creation time); a database that cannot be read is reported once and throws. */
function readStoreDb(st: ChatState, file: string, chatId: string): void {
  try {
    const db = openReadonly(file);
    try {
      readMetaRow(st, db, chatId);
    } finally {
      db.close();
    }
  } catch (err) {
    const msg = `cannot read store.db: ${firstLine(err)}`;
    warnOnce('cursor', msg);
    throw new Error(msg);
  }
}

function readMetaRow(st: ChatState, db: Db, chatId: string): void {
  const cols = columns(db, 'meta');
  if (!cols.has('key') || !cols.has('value')) {
    skip(st.counters, 'store.db without a meta table');
    return;
  }
  const row = db.prepare(`SELECT value FROM meta WHERE key = '0'`).get() as { value: unknown } | undefined;
  const meta = row ? decodeChatMeta(row.value) : null;
  if (!meta) {
    skip(st.counters, "store.db whose meta['0'] is not hex JSON");
    return;
  }
  if (meta.agentId && meta.agentId !== chatId) skip(st.counters, 'store.db whose agentId differs from its folder');
  if (meta.name) st.name = meta.name;
  if (meta.model) st.model = meta.model;
  st.created = meta.createdAt ?? st.created;
}

/** The chats under a config directory's chats/: `<md5 of cwd>/<chatId>/store.db` (else its meta.json alone). */
function discoverChats(chats: string, out: Source[]): void {
  for (const h of entries(chats)) {
    if (!direntIsDir(chats, h)) continue;
    const hashDir = path.join(chats, h.name);
    const hash = /^[0-9a-f]{32}$/.test(h.name) ? h.name : null;
    for (const c of entries(hashDir)) {
      if (!direntIsDir(hashDir, c)) continue;
      const dir = path.join(hashDir, c.name);
      const names = new Set(entries(dir).map((e) => e.name));
      const hint: Hint = { chatId: c.name, md5: hash };
      const meta = path.join(dir, 'meta.json');
      if (names.has('store.db')) {
        const db = path.join(dir, 'store.db');
        out.push({ path: db, harness: 'cursor', kind: 'db', mode: 'whole', deps: [...walDeps(db), meta], hint });
      } else if (names.has('meta.json')) {
        out.push({ path: meta, harness: 'cursor', kind: 'meta', mode: 'whole', hint });
      }
    }
  }
}

/** A project's transcripts: `agent-transcripts/<chatId>.jsonl`, or `<chatId>/<chatId>.jsonl` and its `subagents/`. */
function discoverTranscripts(projDir: string, slug: string, out: Source[]): void {
  const tdir = path.join(projDir, 'agent-transcripts');
  for (const t of entries(tdir)) {
    if (direntMaybeFile(t) && t.name.endsWith('.jsonl')) {
      const chatId = t.name.slice(0, -6);
      out.push({
        path: path.join(tdir, t.name),
        harness: 'cursor',
        kind: 'transcript',
        mode: 'lines',
        hint: { chatId, slug, projDir } satisfies Hint,
      });
      continue;
    }
    if (direntIsDir(tdir, t)) discoverChatDir(path.join(tdir, t.name), { chatId: t.name, slug, projDir }, out);
  }
}

/** `<chatId>/<chatId>.jsonl` and the workers in `<chatId>/subagents/`. */
function discoverChatDir(chatDir: string, hint: Hint & { slug: string; projDir: string }, out: Source[]): void {
  const { chatId, slug, projDir } = hint;
  for (const f of entries(chatDir)) {
    if (f.name === `${chatId}.jsonl` && direntMaybeFile(f)) {
      out.push({
        path: path.join(chatDir, f.name),
        harness: 'cursor',
        kind: 'transcript',
        mode: 'lines',
        hint: { chatId, slug, projDir } satisfies Hint,
      });
    } else if (f.name === 'subagents' && direntIsDir(chatDir, f)) {
      const sub = path.join(chatDir, 'subagents');
      for (const s of entries(sub)) {
        if (!direntMaybeFile(s) || !s.name.endsWith('.jsonl')) continue;
        const child: Hint = { chatId: s.name.slice(0, -6), slug, projDir, parent: chatId };
        out.push({ path: path.join(sub, s.name), harness: 'cursor', kind: 'subagent', mode: 'lines', hint: child });
      }
    }
  }
}

/** A user message: what the user typed, from its text blocks. */
function userMessage(st: TranscriptState, blocks: unknown[]): void {
  const texts: string[] = [];
  for (const v of blocks) {
    const b = obj(v);
    if (b && b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
  }
  const p = promptText(cursorPromptText(texts.join('\n')));
  if (!p) return;
  addPrompt(st, p);
}

/** An assistant message: its text (the last reply), and the directories its tool calls name (cwd candidates). */
function assistantMessage(st: TranscriptState, blocks: unknown[]): void {
  const texts: string[] = [];
  for (const v of blocks) {
    const b = obj(v);
    if (!b) continue;
    if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() && b.text.trim() !== '[REDACTED]') texts.push(b.text);
    const input = b.type === 'tool_use' ? obj(b.input) : null;
    if (input) toolDirs(st, input);
  }
  if (texts.length) st.lastReply = promptText(texts.join('\n'));
}

function toolDirs(st: TranscriptState, input: Rec): void {
  for (const k of ['working_directory', 'cwd']) {
    const v = input[k];
    if (typeof v === 'string' && path.isAbsolute(v) && !st.cwds.includes(v) && st.cwds.length < MAX_CWDS) st.cwds.push(v);
  }
}

/** A chat's two halves, joined on its id: the transcript (the conversation) and the chat database (name, model, times). */
interface Chat {
  transcript?: SessionCore;
  tsrc?: Source;
  tstate?: TranscriptState;
  chat?: SessionCore;
  md5?: string | null;
}

/**
 * Candidate working directories, by md5: Shell tool calls' directories and their parents, the
 * directories a slug can stand for, and a project's `.workspace-trusted` path.
 */
class Cwds {
  private readonly byHash = new Map<string, string>();
  private readonly slugDirs = new Map<string, { dirs: string[]; complete: boolean }>();
  private readonly trusted = new Map<string, string | null>();

  /** A directory and its parents as candidates. */
  add(p: string): void {
    let d = path.resolve(p);
    for (;;) {
      const h = md5(d);
      if (!this.byHash.has(h)) this.byHash.set(h, d);
      const up = path.dirname(d);
      if (up === d) break;
      d = up;
    }
  }

  /** The directories a slug can stand for (decoded once). */
  decoded(slug: string): { dirs: string[]; complete: boolean } {
    let r = this.slugDirs.get(slug);
    if (!r) {
      r = decodeSlug(slug);
      this.slugDirs.set(slug, r);
    }
    return r;
  }

  /** A project's `.workspace-trusted` path (read once). */
  workspaceOf(projDir: string): string | null {
    const known = this.trusted.get(projDir);
    if (known !== undefined) return known;
    const r = smallJson(path.join(projDir, '.workspace-trusted'), 64 * 1024);
    const o = r && r !== 'bad' ? obj(r.value) : null;
    const w = o && typeof o.workspacePath === 'string' && path.isAbsolute(o.workspacePath) ? o.workspacePath : null;
    this.trusted.set(projDir, w);
    return w;
  }

  /** A transcript's candidates: its Shell directories, its slug's directories, its project's trusted workspace. */
  addTranscript(st: TranscriptState, hint: Hint): void {
    for (const d of st.cwds ?? []) this.add(d);
    if (hint.slug) for (const d of this.decoded(hint.slug).dirs) this.add(d);
    if (hint.projDir) {
      const w = this.workspaceOf(hint.projDir);
      if (w) this.add(w);
    }
  }

  /** A chat's working directory: the candidate its md5 folder names, else the one its slug can only stand for. */
  of(ch: Chat): string | null {
    if (ch.md5) {
      const hit = this.byHash.get(ch.md5);
      if (hit) return hit;
    }
    const hint = ch.tsrc?.hint as Hint | undefined;
    if (!hint?.slug) return null;
    const d = this.decoded(hint.slug);
    const only = d.dirs[0];
    if (d.complete && d.dirs.length === 1 && only !== undefined) return only;
    // A directory a Shell call named (or one of its parents) whose slug is exactly this slug.
    const want = norm(hint.slug);
    for (const c of ch.tstate?.cwds ?? []) {
      for (let p = path.resolve(c); ; p = path.dirname(p)) {
        if (norm(p) === want) return p;
        if (path.dirname(p) === p) break;
      }
    }
    if (hint.projDir) {
      const w = this.workspaceOf(hint.projDir);
      if (w && norm(w) === want) return w;
    }
    return null;
  }
}

/** The sessions joined by chat id (a chat's newest database), the transcripts' cwd candidates into `cwds`. */
function joinChats(sessions: SessionCore[], states: Map<string, { src: Source; state: CursorState }>, cwds: Cwds): Map<string, Chat> {
  const chats = new Map<string, Chat>();
  for (const s of sessions) {
    const e = states.get(s.file);
    if (!e) continue;
    const ch = chats.get(s.id) ?? {};
    chats.set(s.id, ch);
    if (isTranscript(e.src)) {
      ch.transcript = s;
      ch.tsrc = e.src;
      ch.tstate = e.state as TranscriptState;
      cwds.addTranscript(ch.tstate, e.src.hint as Hint);
    } else if (!ch.chat || (s.updated ?? 0) > (ch.chat.updated ?? 0)) {
      ch.chat = s;
      ch.md5 = (e.src.hint as Hint).md5 ?? null;
    }
  }
  return chats;
}

/** One row of a chat: its transcript's, named and timed by its database. */
function mergeChat(ch: Chat, cwd: string | null): SessionCore | null {
  const t = ch.transcript;
  const c = ch.chat;
  let s: SessionCore;
  if (t && c) {
    s = {
      ...t,
      cwd,
      title: c.title ?? t.firstPrompt,
      model: c.model,
      started: c.started ?? t.started,
      updated: maxMs(t.updated, c.updated),
      hidden: t.hidden || c.hidden,
      hiddenReason: t.hiddenReason ?? c.hiddenReason,
    };
  } else if (t) {
    s = { ...t, cwd };
  } else if (c) {
    // A chat database without a transcript: listed by its name; a default-named one with no
    // transcript was never used.
    s = { ...c, cwd };
    if (!s.hidden && !s.title) {
      s.hidden = true;
      s.hiddenReason = 'empty';
    }
  } else return null;
  if (!s.hidden && t && t.prompts === 0 && !s.title) {
    s.hidden = true;
    s.hiddenReason = 'empty';
  }
  return s;
}

const isTranscript = (s: Source) => s.kind === 'transcript' || s.kind === 'subagent';

export const cursor: Adapter<CursorState, 'cursor'> = {
  name: 'cursor',
  label: 'Cursor CLI',
  binaries: ['cursor-agent', 'agent'],
  envVars: ['RESUME_CURSOR_DIRS', 'CURSOR_CONFIG_DIR', 'CURSOR_DATA_DIR', 'XDG_CONFIG_HOME'],
  color: 250,
  // Cursor CLI is not on npm: no recorded version
  testedVersion: null,
  search: {
    text: async () => (await import('./text.js')).cursorText,
    hooks: async () => (await import('./text.js')).search,
  },

  roots(ctx) {
    const out: Root[] = envDirs(ctx, 'RESUME_CURSOR_DIRS').map((p) => ({ path: p, via: 'RESUME_CURSOR_DIRS', exists: false }));
    const c = configDir(ctx);
    out.push({ path: c.path, via: c.via, exists: false, role: 'config' });
    // Older builds kept chats under the XDG config dir or ~/.cursor; transcripts always stay under
    // ~/.cursor/projects whatever CURSOR_CONFIG_DIR says.
    const x = ctx.env.XDG_CONFIG_HOME;
    if (x && path.isAbsolute(x)) out.push({ path: path.join(x, 'cursor'), via: 'XDG_CONFIG_HOME', exists: false, role: 'config' });
    // CURSOR_DATA_DIR moves the data directory that holds projects/ (the transcripts).
    const d = dataDir(ctx);
    if (d.via !== 'default') out.push({ path: d.path, via: d.via, exists: false, role: 'projects' });
    out.push({ path: path.join(ctx.home, '.cursor'), via: 'default', exists: false, role: 'projects' });
    return uniqueReal(out).map((r) => ({ ...r, exists: isDir(r.path) }));
  },

  discover(_ctx, roots) {
    const out: Source[] = [];
    for (const r of roots) {
      discoverChats(path.join(r.path, 'chats'), out);
      const projects = path.join(r.path, 'projects');
      for (const p of entries(projects)) {
        if (direntIsDir(projects, p)) discoverTranscripts(path.join(projects, p.name), p.name, out);
      }
    }
    return out;
  },

  lines: {
    begin(): TranscriptState {
      return { prompts: 0, firstPrompt: null, lastPrompt: null, lastReply: null, cwds: [], counters: newCounters() };
    },

    line(state, l) {
      const { buf, start, end, complete } = l;
      const st = state as TranscriptState;
      const c = st.counters;
      if (!complete) {
        c.hugeLines++;
        return;
      }
      // A very long assistant line is file contents written by a tool: nothing for a listing.
      if (end - start > BIG && headHas(buf, start, end, B_ASSISTANT, 64)) {
        c.hugeLines++;
        return;
      }
      const o = parseObject(c, buf, start, end);
      if (!o) return;
      const role = typeof o.role === 'string' ? o.role : '';
      if (!role) {
        if (o.type !== 'turn_ended') countUnknown(c, typeof o.type === 'string' ? o.type : '(none)');
        return;
      }
      const content = obj(o.message)?.content;
      const blocks: unknown[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
      if (role === 'user') userMessage(st, blocks);
      else if (role === 'assistant') assistantMessage(st, blocks);
      else countUnknown(c, `role ${role}`);
    },
  },

  whole(src) {
    return readChat(src);
  },

  sessions(state, src): SessionCore[] {
    const hint = src.hint as Hint;
    if (!hint?.chatId) return [];
    const base: SessionCore = {
      harness: 'cursor',
      id: hint.chatId,
      cwd: null,
      title: null,
      firstPrompt: null,
      lastPrompt: null,
      lastReply: null,
      prompts: 0,
      branch: null,
      model: null,
      started: null,
      updated: null,
      file: src.path,
      hidden: false,
      hiddenReason: null,
      parent: hint.parent ?? null,
      forkedFrom: null,
    };
    if (isTranscript(src)) {
      const st = state as TranscriptState;
      // The transcript has no time stamps: its file times are the session's.
      const t = statMs(src.path);
      const started = t && t.birth > 0 && t.birth <= t.mtime ? t.birth : null;
      return [
        {
          ...base,
          title: st.firstPrompt,
          firstPrompt: st.firstPrompt,
          lastPrompt: st.lastPrompt,
          allPrompts: st.all,
          lastReply: st.lastReply,
          prompts: st.prompts,
          started,
          updated: t?.mtime ?? null,
          hidden: src.kind === 'subagent',
          hiddenReason: src.kind === 'subagent' ? 'subagent' : null,
        },
      ];
    }
    const st = state as ChatState;
    const name = st.name && st.name.trim() !== DEFAULT_NAME ? promptText(st.name) || null : null;
    return [
      {
        ...base,
        title: name,
        model: st.model && st.model !== 'default' ? st.model : null,
        started: st.created,
        updated: st.updated ?? st.created,
        hidden: st.subagent,
        hiddenReason: st.subagent ? 'subagent' : null,
      },
    ];
  },

  finish: {
    all(sessions, _ctx, states) {
      const cwds = new Cwds();
      const chats = joinChats(sessions, states, cwds);
      const out: SessionCore[] = [];
      const merged = new Map<string, SessionCore>();
      for (const [id, ch] of chats) {
        const s = mergeChat(ch, cwds.of(ch));
        if (!s) continue;
        merged.set(id, s);
        out.push(s);
      }
      // Workers: the parent's directory when their own is unknown; the parent lists their files.
      for (const s of out) {
        if (!s.parent) continue;
        const p = merged.get(s.parent);
        if (!p) continue;
        if (p.cwd) s.cwd = p.cwd;
        p.children ??= [];
        p.children.push(s.file);
      }
      return out;
    },
  },

  launch(s, { fork, ctx }) {
    if (fork) return 'Cursor CLI has no fork; resume the session without --fork';
    const argv = [cursorBinary(), '--resume', s.id];
    if (!ctx) return { argv };
    // Point the CLI at the stores the session was found in: the transcript's data directory
    // (<data>/projects/…) and the chat's config directory (<config>/chats/<md5>/<id>/…).
    const data = /^(.*)\/projects\/[^/]+\/agent-transcripts\//.exec(s.file)?.[1];
    const config = /^(.*)\/chats\/[^/]+\/[^/]+\/[^/]+$/.exec(s.file)?.[1];
    const env = {
      ...(data !== undefined ? storeEnv('CURSOR_DATA_DIR', data, dataDir(ctx).path) : {}),
      ...(config !== undefined ? storeEnv('CURSOR_CONFIG_DIR', config, configDir(ctx).path) : {}),
    };
    return Object.keys(env).length ? { argv, env } : { argv };
  },
};

let binMemo: { path: string; bin: string } | null = null;

/** `cursor-agent` unless only `agent` is on PATH (looked up when a launch is prepared). */
export function cursorBinary(envPath = process.env.PATH ?? ''): string {
  if (binMemo && binMemo.path === envPath) return binMemo.bin;
  const bin = !onPath('cursor-agent', envPath) && onPath('agent', envPath) ? 'agent' : 'cursor-agent';
  binMemo = { path: envPath, bin };
  return bin;
}
