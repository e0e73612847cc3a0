// OpenAI Codex CLI: <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl (plus cold `.jsonl.zst`),
// archived_sessions/ (flat), and thread names in session_index.jsonl (formats.md §2).
// The state SQLite DB (state_*.sqlite) is only a cache rebuilt from the rollouts: never read.

import fs from 'node:fs';
import path from 'node:path';
import { MAX_LINE } from '../../index/lines.js';
import type { Adapter, Ctx, FinishChange, FinishIO, Line, LineState, Root, SessionCore, Source } from '../../types.js';
import { direntMaybeFile, entries, isDir, uniqueReal, walk } from '../../util/fsx.js';
import { createHash } from '../../util/lazy.js';
import { envDirs, expandHome, storeEnv } from '../../util/paths.js';
import { promptText } from '../../util/text.js';
import { maxMs, minMs, toMs } from '../../util/time.js';
import { zstReader } from '../../util/zstd.js';
import {
  addPrompt,
  countersOf,
  countUnknown,
  newCounters,
  obj,
  parseObject,
  peekStr as peekStrAt,
  peekTimestamp,
  type Rec,
  str,
} from '../jsonl.js';

interface CodexState extends LineState {
  lines: number;
  /** own session_meta seen */
  meta: boolean;
  id: string | null;
  cwd: string | null;
  branch: string | null;
  model: string | null;
  source: string | null;
  subagent: boolean;
  parent: string | null;
  forkedFrom: string | null;
  /** a fork or a spawned thread: its rollout may begin with copies of the parent's history */
  child: boolean;
  metaTs: number | null;
  /** subagent_history_start_ordinal: lines before it are inherited copies */
  boundary: number | null;
  started: number | null;
  updated: number | null;
  firstPrompt: string | null;
  lastPrompt: string | null;
  /** every prompt, clipped (SessionCore.allPrompts) */
  all?: string[];
  lastReply: string | null;
  prompts: number;
  /** user_message events recognised as copies of the parent's history and not counted */
  copied: number;
  threadName: string | null;
  /**
   * The last counted prompt's text (hashed) and shape (`e` event user_message, `r` response_item, `i`
   * item_completed), until a second shape of the same turn has been matched with it: one turn is
   * written in two shapes (old builds: user_message + response_item; 0.148+: response_item +
   * item_completed), and counts once.
   */
  lastText?: string | null;
  lastKind?: string | null;
  /** short hashes of the counted prompts, in order (compared with a child's leading prompts) */
  ph: string[];
  /** a child's first prompts (clipped), to name its first own prompt once copies are dropped */
  pt: string[];
}

interface TitlesState extends LineState {
  names: Record<string, [string, number]>;
  seq: number;
}

/** A rollout's state or a titles file's (session_index.jsonl). */
type AnyState = CodexState | TitlesState;

const KNOWN = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'world_state',
  'inter_agent_communication',
  'inter_agent_communication_metadata',
  'token_usage_record',
]);
/** outer record types never needed for a listing: only their time stamp is read */
const SKIP_OUTER = new Set([
  'response_item',
  'compacted',
  'world_state',
  'inter_agent_communication',
  'inter_agent_communication_metadata',
  'token_usage_record',
]);
/** event_msg payload types that are decoded */
const WANT_EVENT = new Set(['user_message', 'thread_name_updated', 'agent_message', 'item_completed']);

/**
 * Text Codex puts into a `user` message that nobody typed: environment context, AGENTS.md and user
 * instructions, permissions, aborted-turn and shell-command notes, skills, (old builds) the wrapped
 * request (formats.md §2).
 */
export const CODEX_INJECTED =
  /^\s*(<environment_context>|<user_instructions>|# AGENTS\.md instructions|<permissions instructions>|<turn_aborted>|<user_shell_command>|<skills_instructions>|## My request for Codex:|<INSTRUCTIONS>)/;

/** A message that is one whole snake_case tag block (`<collaboration_mode>…</collaboration_mode>`) is injected too. */
const WRAPPED = /^\s*<([a-z]+_[a-z_]+)>[\s\S]*<\/\1>\s*$/;

export function codexInjected(t: string): boolean {
  return CODEX_INJECTED.test(t) || WRAPPED.test(t);
}

/** The typed text of a user message's content blocks (`input_text`/`text`), and whether it carries an image. */
function userContent(content: unknown): { text: string; img: boolean } {
  if (typeof content === 'string') return { text: content, img: false };
  if (!Array.isArray(content)) return { text: '', img: false };
  const parts: string[] = [];
  let img = false;
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    const { type: t, text } = b as { type?: unknown; text?: unknown };
    if ((t === 'input_text' || t === 'text' || t === 'Text' || t === 'output_text') && typeof text === 'string') parts.push(text);
    else if (t === 'input_image' || t === 'image' || t === 'local_image' || t === 'localImage') img = true;
  }
  return { text: parts.join('\n'), img };
}

const B_TYPE = Buffer.from('"type":"');
const B_PAYLOAD_TYPE = Buffer.from('"payload":{"type":"');
const B_ORDINAL = Buffer.from('"ordinal":');
const B_ROLE_USER = Buffer.from('"role":"user"');
const B_ROLE_ASSISTANT = Buffer.from('"role":"assistant"');
const BIG = 256 * 1024;
const MAX_PH = 5000;
const MAX_PT = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const peekStr = (buf: Buffer, start: number, end: number, needle: Buffer, window: number) =>
  peekStrAt(buf, start, end, needle, { window, max: 80, enc: 'latin1' });

function peekOrdinal(buf: Buffer, start: number, end: number): number | null {
  const j = buf.subarray(start, Math.min(end, start + 256)).indexOf(B_ORDINAL);
  if (j < 0) return null;
  const i = start + j;
  let n = 0;
  let k = i + B_ORDINAL.length;
  const d0 = k;
  for (let b = buf[k]; k < end && b !== undefined && b >= 48 && b <= 57 && k - d0 < 15; b = buf[++k]) n = n * 10 + (b - 48);
  return k > d0 ? n : null;
}

/** The thread id a rollout's name ends with (`…-<uuid>.jsonl`, `.jsonl.zst`), lower-cased; null when none. */
export function codexIdFromPath(p: string): string | null {
  const end = p.endsWith('.jsonl') ? p.length - 6 : p.endsWith('.jsonl.zst') ? p.length - 10 : -1;
  if (end < 36) return null;
  const id = p.slice(end - 36, end).toLowerCase();
  return UUID.test(id) ? id : null;
}

function isTitles(st: CodexState | TitlesState): st is TitlesState {
  return typeof (st as TitlesState).names === 'object' && (st as TitlesState).names !== null;
}

function hash(s: string): string {
  return createHash('sha1').update(s).digest('base64').slice(0, 12);
}

function touch(st: CodexState, ts: unknown): void {
  const t = toMs(ts);
  if (t == null) return;
  // the own session_meta fixes the start (copied parent lines can be older)
  if (st.metaTs == null) st.started = minMs(st.started, t);
  st.updated = maxMs(st.updated, t);
}

function sourceOf(v: unknown): { source: string | null; subagent: boolean; spawnParent: string | null } {
  if (typeof v === 'string') return { source: v, subagent: false, spawnParent: null };
  if (v && typeof v === 'object' && 'subagent' in v) {
    const sa = v.subagent;
    if (typeof sa === 'string') return { source: `subagent:${sa}`, subagent: true, spawnParent: null };
    if (sa && typeof sa === 'object') {
      const ts = (sa as Rec).thread_spawn;
      if (ts && typeof ts === 'object')
        return { source: 'subagent:thread_spawn', subagent: true, spawnParent: str((ts as Rec).parent_thread_id) };
      const k = Object.keys(sa)[0];
      return { source: `subagent:${k ?? 'other'}`, subagent: true, spawnParent: null };
    }
    return { source: 'subagent', subagent: true, spawnParent: null };
  }
  return { source: null, subagent: false, spawnParent: null };
}

/** An absolute directory (POSIX, or a Windows drive or UNC path from a synced folder). */
function isAbs(v: unknown): v is string {
  return typeof v === 'string' && (v.startsWith('/') || /^[A-Za-z]:[\\/]/.test(v) || v.startsWith('\\\\'));
}

function onMeta(st: CodexState, o: Rec, p: Rec): void {
  st.meta = true;
  st.id = str(p.id) ?? st.id;
  if (isAbs(p.cwd)) st.cwd = p.cwd;
  const g = p.git;
  const branch = g && typeof g === 'object' ? str((g as Rec).branch) : null;
  if (branch) st.branch = branch === 'HEAD' ? null : branch;
  const src = sourceOf(p.source);
  st.source = src.source;
  if (!st.source && p.originator === 'codex_exec') st.source = 'exec';
  st.subagent = src.subagent;
  st.parent = str(p.parent_thread_id) ?? src.spawnParent;
  st.forkedFrom = str(p.forked_from_id);
  st.child = !!(st.subagent || st.parent || st.forkedFrom);
  if (typeof p.subagent_history_start_ordinal === 'number') st.boundary = p.subagent_history_start_ordinal;
  const t = toMs(p.timestamp) ?? toMs(o.timestamp);
  st.metaTs = t;
  if (t != null) {
    st.started = t;
    st.updated = maxMs(st.updated, t);
  }
}

/**
 * One user turn in any of its shapes. `kind`: `e` event_msg user_message, `r` response_item user
 * message, `i` item_completed UserMessage. A turn written in two shapes counts once: a prompt of
 * another shape with the same text right after the last counted one is its second copy.
 */
function onPrompt(st: CodexState, o: Rec, text: string, img: boolean, kind: string): void {
  text = text.trim();
  if (!text && !img) return;
  const h = hash(text);
  if (st.lastKind != null && st.lastKind !== kind && st.lastText === h) {
    st.lastKind = null; // matched: a third copy would be a new turn
    st.lastText = null;
    return;
  }
  const t = toMs(o.timestamp);
  // A fork or spawned thread starts with copies of the parent's history; copies that kept their
  // original time stamps are older than the child's own session_meta.
  if (st.child && st.metaTs != null && t != null && t < st.metaTs) {
    st.lastKind = kind;
    st.lastText = h;
    // the second shape of a copied turn is matched above; count each copied turn once
    st.copied++;
    return;
  }
  st.lastKind = kind;
  st.lastText = h;
  const pt = text ? promptText(text) : '[image]';
  addPrompt(st, pt);
  if (st.ph.length < MAX_PH) st.ph.push(h);
  if (st.child && st.pt.length < MAX_PT) st.pt.push(pt);
}

function onUserMessage(st: CodexState, o: Rec, p: Rec): void {
  const text = typeof p.message === 'string' ? p.message : '';
  const img = (Array.isArray(p.images) && p.images.length > 0) || (Array.isArray(p.local_images) && p.local_images.length > 0);
  onPrompt(st, o, text, img, 'e');
}

/**
 * A response_item worth decoding: a user message (the typed prompt in 0.148+, or injected context),
 * or an assistant message small enough to be a reply (the last reply). Tool calls, output and
 * reasoning never are.
 */
function wantedItem(buf: Buffer, start: number, end: number): boolean {
  if (peekStr(buf, start, end, B_PAYLOAD_TYPE, 1024) !== 'message') return false;
  const head = buf.subarray(start, Math.min(end, start + 1024));
  if (head.indexOf(B_ROLE_USER) >= 0) return true;
  return end - start <= BIG && head.indexOf(B_ROLE_ASSISTANT) >= 0;
}

/**
 * Byte-level prefilter: tool calls and output, reasoning, token counts, compaction histories are most
 * of the bytes and never matter for a listing. True when the line is passed over (its time taken,
 * an unknown type counted) without decoding it.
 */
function passedOver(st: CodexState, buf: Buffer, start: number, end: number, idx: number): boolean {
  const outer = idx === 0 ? null : peekStr(buf, start, end, B_TYPE, 512);
  if (outer == null) {
    if (!(idx > 0 && end - start > BIG)) return false;
  } else if (!KNOWN.has(outer)) countUnknown(countersOf(st), outer);
  else if (SKIP_OUTER.has(outer)) {
    if (outer === 'response_item' && wantedItem(buf, start, end)) return false;
  } else if (outer === 'event_msg') {
    const pt = peekStr(buf, start, end, B_PAYLOAD_TYPE, 1024);
    if (!((pt != null && !WANT_EVENT.has(pt)) || (pt == null && end - start > BIG))) return false;
  } else return false;
  touch(st, peekTimestamp(buf, start, end));
  return true;
}

function lineInto(st: CodexState, buf: Buffer, start: number, end: number, complete: boolean): void {
  const c = countersOf(st);
  if (end <= start) return; // blank lines do not count as the first record
  const idx = st.lines++;
  if (!complete) {
    c.hugeLines++;
    touch(st, peekTimestamp(buf, start, end));
    return;
  }
  if (st.boundary != null && idx > 0) {
    const ord = peekOrdinal(buf, start, end) ?? idx;
    if (ord < st.boundary) return; // inherited from the parent
  }
  if (passedOver(st, buf, start, end, idx)) return;
  const o = parseObject(c, buf, start, end);
  if (!o) return;
  const type = typeof o.type === 'string' ? o.type : '';
  const p = obj(o.payload);
  if (idx === 0 && !st.meta && firstMeta(st, type, o, p)) return;
  if (type && !KNOWN.has(type)) countUnknown(c, type);
  touch(st, o.timestamp);
  if (p) onRecord(st, type, o, p);
}

/** The first record, when it is the rollout's own session_meta: true when it was. */
function firstMeta(st: CodexState, type: string, o: Rec, p: Rec | null): boolean {
  if (type === 'session_meta' && p) {
    onMeta(st, o, p);
    return true;
  }
  // very early rollouts: a bare `{id, timestamp, instructions}` first line
  if (!type && str(o.id)) {
    onMeta(st, o, o);
    return true;
  }
  return false;
}

/** A decoded record with a payload (its time already taken). */
function onRecord(st: CodexState, type: string, o: Rec, p: Rec): void {
  // (a later session_meta is the parent's, copied with its history: only its time counts)
  if (type === 'turn_context') {
    const model = str(p.model);
    if (model) st.model = model;
    if (!st.cwd && isAbs(p.cwd)) st.cwd = p.cwd;
  } else if (type === 'response_item') onResponseItem(st, o, p);
  else if (type === 'event_msg') onEvent(st, o, p);
}

function onResponseItem(st: CodexState, o: Rec, p: Rec): void {
  if (p.type !== 'message') return;
  if (p.role === 'user') {
    const u = userContent(p.content);
    if (!codexInjected(u.text)) onPrompt(st, o, u.text, u.img, 'r');
  } else if (p.role === 'assistant') {
    const u = userContent(p.content);
    if (u.text.trim()) st.lastReply = promptText(u.text);
  }
}

function onEvent(st: CodexState, o: Rec, p: Rec): void {
  if (p.type === 'user_message') onUserMessage(st, o, p);
  else if (p.type === 'item_completed') onItemCompleted(st, o, p);
  else if (p.type === 'thread_name_updated') {
    const t = toMs(o.timestamp);
    if (st.child && st.metaTs != null && t != null && t < st.metaTs) return; // the parent's name
    const n = typeof p.thread_name === 'string' ? p.thread_name.trim() : '';
    st.threadName = n || null;
  } else if (p.type === 'agent_message' && typeof p.message === 'string' && p.message.trim()) {
    st.lastReply = promptText(p.message);
  }
}

function onItemCompleted(st: CodexState, o: Rec, p: Rec): void {
  const it = obj(p.item);
  if (!it) return;
  const ty = String(it.type ?? '');
  if (ty === 'UserMessage' || ty === 'userMessage' || ty === 'user_message') {
    const u = userContent(it.content);
    if (!codexInjected(u.text)) onPrompt(st, o, u.text, u.img, 'i');
  } else if (ty === 'AgentMessage' || ty === 'agentMessage' || ty === 'agent_message') {
    const t = typeof it.text === 'string' ? it.text : userContent(it.content).text;
    if (t.trim()) st.lastReply = promptText(t);
  }
}

/** A line of session_index.jsonl: a thread's name (the last line for an id wins, as session_index.rs reads it). */
function titleLine(st: TitlesState, buf: Buffer, start: number, end: number, complete: boolean): void {
  const c = countersOf(st);
  if (!complete) {
    c.hugeLines++;
    return;
  }
  const o = parseObject(c, buf, start, end);
  const id = o ? str(o.id) : null;
  if (!o || !id) return;
  const n = typeof o.thread_name === 'string' ? o.thread_name.trim() : '';
  st.seq++;
  if (n) st.names[id] = [n, toMs(o.updated_at) ?? 0];
  else delete st.names[id];
}

function newState(src: Source): CodexState {
  return {
    lines: 0,
    meta: false,
    id: codexIdFromPath(src.path),
    cwd: null,
    branch: null,
    model: null,
    source: null,
    subagent: false,
    parent: null,
    forkedFrom: null,
    child: false,
    metaTs: null,
    boundary: null,
    started: null,
    updated: null,
    firstPrompt: null,
    lastPrompt: null,
    lastReply: null,
    prompts: 0,
    copied: 0,
    threadName: null,
    lastText: null,
    lastKind: null,
    ph: [],
    pt: [],
    counters: newCounters(),
  };
}

/** Decode a `.jsonl.zst` rollout in chunks and hand its complete lines to `onLine` (lines over the cap are cut). */
export function zstLines(file: string, onLine: (buf: Buffer, s: number, e: number, complete: boolean) => void): void {
  let pending: Buffer[] = [];
  let plen = 0;
  let over = false;
  const flushLine = (final: Buffer | null, s: number, e: number) => {
    if (plen === 0 && final) {
      if (e - s > MAX_LINE) onLine(final, s, s + MAX_LINE, false);
      else onLine(final, s, e > s && final[e - 1] === 13 ? e - 1 : e, true);
      return;
    }
    if (final && !over) {
      const take = Math.min(MAX_LINE - plen, e - s);
      if (take > 0) pending.push(final.subarray(s, s + take));
      plen += take;
      if (e - s > take) over = true;
    }
    const line = Buffer.concat(pending);
    let le = line.length;
    if (!over && le > 0 && line[le - 1] === 13) le--;
    onLine(line, 0, le, !over);
    pending = [];
    plen = 0;
    over = false;
  };
  const onData = (b: Buffer) => {
    let s = 0;
    for (;;) {
      const nl = b.indexOf(10, s);
      if (nl < 0) break;
      flushLine(b, s, nl);
      s = nl + 1;
    }
    if (s < b.length && !over) {
      const take = Math.min(MAX_LINE - plen, b.length - s);
      if (take > 0) pending.push(Buffer.from(b.subarray(s, s + take)));
      plen += take;
      if (b.length - s > take) over = true;
    }
  };
  const fd = fs.openSync(file, 'r');
  try {
    if (fs.fstatSync(fd).size === 0) throw new Error('empty .zst file');
    const read = zstReader(fd);
    for (;;) {
      // a fresh buffer each time: a line handed on may point into it
      const buf = Buffer.allocUnsafe(1 << 20);
      const n = read(buf, 0, buf.length);
      if (n <= 0) break;
      onData(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  // A cold rollout is complete: a last line without a newline counts too.
  if (plen > 0) flushLine(null, 0, 0);
}

function mtimeOf(p: string): number | null {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return null;
  }
}

/** The CODEX_HOME a rollout lives in: `<home>/sessions/YYYY/MM/DD/` or `<home>/archived_sessions/`. */
export function codexHomeOf(file: string): string | null {
  const m = /^(.*)\/(?:sessions\/\d{4}\/\d\d\/\d\d|archived_sessions)\/[^/]+$/.exec(file);
  return m?.[1] ?? null;
}

/** The titles file of a CODEX_HOME. */
const isTitlesPath = (p: string) => p.endsWith('/session_index.jsonl');

/** The same inputs to the finish pass (id, links, prompt hashes and texts, own name)? */
function sameInputs(a: CodexState | null, b: CodexState | null): boolean {
  if (!a || !b) return a === b;
  if (a.id !== b.id || a.child !== b.child || a.forkedFrom !== b.forkedFrom || a.parent !== b.parent || a.threadName !== b.threadName)
    return false;
  const same = (x: string[] | undefined, y: string[] | undefined) =>
    Array.isArray(y) ? Array.isArray(x) && x.length === y.length && x.every((v, i) => v === y[i]) : x === y;
  return same(a.ph, b.ph) && same(a.pt, b.pt);
}

/** Ids whose entry in a titles file differs between two of its states. */
function renamed(a: TitlesState | null, b: TitlesState | null): string[] {
  const x = a?.names ?? {};
  const y = b?.names ?? {};
  const out: string[] = [];
  for (const [id, v] of Object.entries(y)) {
    const u = x[id];
    if (!u || u[0] !== v[0] || u[1] !== v[1]) out.push(id);
  }
  for (const id of Object.keys(x)) if (!(id in y)) out.push(id);
  return out;
}

/**
 * The finish pass for the threads a change concerns (see Finish.some). A thread's row depends on
 * its rollout, the rollouts its fork or spawn links name (byId), and the titles files. A change
 * reaches: the changed rollouts; the threads whose finish inputs changed (their id, links, prompt
 * hashes and texts, or own name in a rollout; or their entry in a titles file), and their forks and
 * spawned threads. Each is finished again against its linked rollouts and every titles file. Rollouts
 * are found by the thread id in their names; an id named by two rollouts (copies in two CODEX_HOMEs)
 * takes the full pass, where the first one found wins.
 */
function refinish(changes: FinishChange<AnyState>[], io: FinishIO<AnyState>): { files: string[]; sessions: SessionCore[] } | null {
  const reach = reachedBy(changes);
  if (!reach) return null;
  const { ids, files } = reach;
  const changed = new Map(changes.map((c) => [c.src.path, c]));
  const fileOf = rolloutFinder(io);
  for (const id of ids) if (fileOf(id) === null) return null;
  // (a rollout named for the thread of another: a copy, new or stored)
  for (const p of files) {
    const f = fileOf(codexIdFromPath(p) ?? '');
    if (f === null || (f !== undefined && f !== p)) return null;
  }
  const gone = (p: string) => changed.get(p)?.after === null;
  if (!addReached({ io, ids, files, gone })) return null;
  const load: Loading = { io, changed, states: new Map(), sessions: [] };
  const named = new Map<string, string | null>();
  if (!take(load, [...files], true, named)) return null;
  // the rollouts they are measured against, and every titles file
  const links = linkedRollouts(files, load.states, fileOf);
  if (!links) return null;
  if (!take(load, [...links.keys(), ...io.find('session_index.jsonl').filter(isTitlesPath)], false, links)) return null;
  return { files: [...files], sessions: finish(load.sessions, load.states) };
}

/** A titles file's state, else null. */
function titlesOf(st: AnyState | null | undefined): TitlesState | null {
  return st && isTitles(st) ? st : null;
}

/** A rollout's state, else null. */
function rolloutOf(st: AnyState | null | undefined): CodexState | null {
  return st && !isTitles(st) ? st : null;
}

/**
 * The threads whose finish inputs a change changed (their id, links, prompt hashes and texts, or own
 * name; or their entry in a titles file), and the changed rollouts; null when the full pass is needed.
 */
function reachedBy(changes: FinishChange<AnyState>[]): { ids: Set<string>; files: Set<string> } | null {
  const ids = new Set<string>();
  const files = new Set<string>();
  for (const c of changes) {
    if (c.src.kind === 'titles') {
      for (const id of renamed(titlesOf(c.before), titlesOf(c.after))) ids.add(id);
      continue;
    }
    const before = rolloutOf(c.before);
    const after = rolloutOf(c.after);
    if (c.after) files.add(c.src.path);
    if (!sameInputs(before, after)) for (const st of [before, after]) if (st?.id) ids.add(st.id);
  }
  return { ids, files };
}

/**
 * The rollout named for a thread (Codex names it by the lower-case id its session_meta holds):
 * undefined when none is, null when two are. Remembered per id.
 */
function rolloutFinder(io: FinishIO<AnyState>): (id: string) => string | null | undefined {
  const found = new Map<string, string | null | undefined>();
  return (id) => {
    if (found.has(id)) return found.get(id);
    const named = UUID.test(id) ? io.find(`${id}.jsonl`).filter((p) => codexIdFromPath(p) === id) : [];
    const f = named.length > 1 ? null : named[0];
    found.set(id, f);
    return f;
  };
}

/** Add to `files` the rollouts of the threads `ids` and of their forks and spawned threads (from the listing). */
function addReached(r: { io: FinishIO<AnyState>; ids: Set<string>; files: Set<string>; gone: (p: string) => boolean }): boolean {
  const { io, ids, files, gone } = r;
  for (const s of io.mentioning(ids)) {
    if ((ids.has(s.id) || (s.forkedFrom && ids.has(s.forkedFrom)) || (s.parent && ids.has(s.parent))) && !gone(s.file)) files.add(s.file);
  }
  return true;
}

/** The rollouts the threads of `files` fork or spawn from, not yet loaded, with the thread each holds; null when one is named twice. */
function linkedRollouts(
  files: Set<string>,
  states: Map<string, { src: Source; state: AnyState }>,
  fileOf: (id: string) => string | null | undefined,
): Map<string, string> | null {
  const links = new Map<string, string>();
  for (const p of files) {
    const st = rolloutOf(states.get(p)?.state);
    for (const id of [st?.forkedFrom, st?.parent]) {
      if (!id) continue;
      const f = fileOf(id);
      if (f === null) return null;
      if (f && !states.has(f)) links.set(f, id);
    }
  }
  return links;
}

/** What the partial pass has loaded: the states of the files it reads, and the sessions of the files it finishes. */
interface Loading {
  io: FinishIO<AnyState>;
  changed: Map<string, FinishChange<AnyState>>;
  states: Map<string, { src: Source; state: AnyState }>;
  sessions: SessionCore[];
}

/**
 * Load the states of these files (changed ones as they are now), and with `own` their sessions;
 * `ids`: the thread each must hold. False when one cannot be read or holds another thread.
 */
function take(l: Loading, want: string[], own: boolean, ids: Map<string, string | null>): boolean {
  const load: string[] = [];
  for (const p of want) {
    if (l.states.has(p)) continue;
    const c = l.changed.get(p);
    if (!c) load.push(p);
    else if (c.after) {
      l.states.set(p, { src: c.src, state: c.after });
      if (own) l.sessions.push(...c.now);
    }
  }
  const got = l.io.load(load);
  for (const p of load) {
    const e = got.get(p);
    if (!e) return false;
    // a rollout found by its name holds that thread
    if (ids.has(p) && rolloutOf(e.state)?.id !== ids.get(p)) return false;
    l.states.set(p, { src: e.src, state: e.state });
    if (own) l.sessions.push(...e.sessions);
  }
  return true;
}

/**
 * The finish pass: thread names from session_index.jsonl (the last entry per id; across roots the
 * newest), and a fork's or spawned thread's prompts copied from its parent left out.
 */
function finish(sessions: SessionCore[], states: Map<string, { src: Source; state: AnyState }>): SessionCore[] {
  const names = new Map<string, [string, number]>();
  const byId = new Map<string, CodexState>();
  const byFile = new Map<string, CodexState>();
  for (const { src, state } of states.values()) {
    if (!state) continue;
    if (src.kind === 'titles') {
      for (const [id, v] of Object.entries((state as TitlesState).names ?? {})) {
        const cur = names.get(id);
        if (!cur || v[1] >= cur[1]) names.set(id, v);
      }
    } else {
      const cs = state as CodexState;
      byFile.set(src.path, cs);
      if (cs.id && !byId.has(cs.id)) byId.set(cs.id, cs);
    }
  }
  return sessions.map((s) => {
    const st = byFile.get(s.file);
    const out = st ? withoutCopies(s, st, byId) : s;
    const n = names.get(s.id);
    let title = n ? promptText(n[0]) : st?.threadName ? promptText(st.threadName) : out.firstPrompt;
    // A fork starts with its parent's name (0.171 writes it to session_index.jsonl for the fork
    // too): listed by its own first prompt until it is given a name of its own.
    if (s.forkedFrom && out.firstPrompt && title !== out.firstPrompt) {
      const pn = names.get(s.forkedFrom)?.[0] ?? byId.get(s.forkedFrom)?.threadName ?? null;
      if (pn && promptText(pn) === title) title = out.firstPrompt;
    }
    return title === out.title ? out : { ...out, title };
  });
}

/**
 * A child's session without the copies of its parent's history that came with fresh time stamps:
 * its leading prompts that repeat the parent's prompts in order are not its own.
 */
function withoutCopies(s: SessionCore, st: CodexState, byId: Map<string, CodexState>): SessionCore {
  if (!st.child || !Array.isArray(st.ph) || st.ph.length === 0) return s;
  const from = byId.get(st.forkedFrom ?? '') ?? byId.get(st.parent ?? '');
  if (!from || from === st || !Array.isArray(from.ph)) return s;
  let l = 0;
  while (l < st.ph.length && l < from.ph.length && st.ph[l] === from.ph[l]) l++;
  if (l === 0) return s;
  const prompts = Math.max(0, s.prompts - l);
  return {
    ...s,
    prompts,
    firstPrompt: prompts === 0 ? null : (st.pt[l] ?? s.firstPrompt),
    lastPrompt: prompts === 0 ? null : s.lastPrompt,
  };
}

const isRollout = (n: string) => n.startsWith('rollout-') && (n.endsWith('.jsonl') || n.endsWith('.jsonl.zst'));

/** The rollouts under a CODEX_HOME's sessions/ into `out`; their names without `.zst`. */
function discoverLive(home: string, out: Source[]): Set<string> {
  const live = walk(path.join(home, 'sessions'), isRollout, 4);
  const liveSet = new Set(live);
  const liveNames = new Set(live.map((f) => path.basename(f).replace(/\.zst$/, '')));
  for (const f of live) {
    // x.jsonl and x.jsonl.zst: the plain file wins
    if (f.endsWith('.zst') && liveSet.has(f.slice(0, -4))) continue;
    out.push({ path: f, harness: 'codex', kind: 'session', mode: f.endsWith('.zst') ? 'whole' : 'lines' });
  }
  return liveNames;
}

/** The rollouts in a CODEX_HOME's archived_sessions/ into `out`, but those also in sessions/ (`liveNames`). */
function discoverArchived(home: string, liveNames: Set<string>, out: Source[]): void {
  const arch = path.join(home, 'archived_sessions');
  const archNames = new Set(
    entries(arch)
      .filter(direntMaybeFile)
      .map((d) => d.name),
  );
  for (const name of archNames) {
    if (!isRollout(name)) continue;
    const plain = name.replace(/\.zst$/, '');
    // the same rollout in sessions/ and archived_sessions/: the sessions/ copy wins
    if (liveNames.has(plain)) continue;
    if (name.endsWith('.zst') && archNames.has(plain)) continue;
    out.push({ path: path.join(arch, name), harness: 'codex', kind: 'archived', mode: name.endsWith('.zst') ? 'whole' : 'lines' });
  }
}

function codexHome(ctx: Ctx): Root {
  const v = ctx.env.CODEX_HOME;
  // Codex refuses to start with a CODEX_HOME that does not exist; so do we (no silent ~/.codex).
  if (v) return { path: path.resolve(expandHome(v, ctx.home)), via: 'CODEX_HOME', exists: false };
  return { path: path.join(ctx.home, '.codex'), via: 'default', exists: false };
}

export const codex: Adapter<AnyState, 'codex'> = {
  name: 'codex',
  label: 'Codex CLI',
  binaries: ['codex'],
  envVars: ['RESUME_CODEX_DIRS', 'CODEX_HOME'],
  color: 75,
  testedVersion: '0.171.0',
  search: {
    text: async () => (await import('./text.js')).codexText,
    hooks: async () => (await import('./text.js')).search,
  },

  roots(ctx) {
    const out: Root[] = envDirs(ctx, 'RESUME_CODEX_DIRS').map((p) => ({ path: p, via: 'RESUME_CODEX_DIRS', exists: false }));
    out.push(codexHome(ctx));
    return uniqueReal(out).map((r) => ({ ...r, exists: isDir(r.path) }));
  },

  // discover reads directories only (entries/walk): its sources are remembered by the index
  listsOnly: true,
  discover(_ctx, roots) {
    const out: Source[] = [];
    for (const r of roots) {
      if (!r.exists) continue;
      const liveNames = discoverLive(r.path, out);
      discoverArchived(r.path, liveNames, out);
      const idx = path.join(r.path, 'session_index.jsonl');
      if (entries(r.path).some((d) => d.name === 'session_index.jsonl' && direntMaybeFile(d))) {
        out.push({ path: idx, harness: 'codex', kind: 'titles', mode: 'lines' });
      }
    }
    return out;
  },

  lines: {
    begin(src: Source): CodexState | TitlesState {
      if (src.kind === 'titles') return { names: {}, seq: 0, counters: newCounters() };
      return newState(src);
    },

    wantLong(st: CodexState | TitlesState, head: Buffer) {
      // A line longer than one read that the prefilter would skip anyway (tool output, compaction
      // histories, token counts) is never assembled: only its ends are kept, for the timestamp.
      if (isTitles(st) || st.lines === 0) return true;
      const outer = peekStr(head, 0, head.length, B_TYPE, 512);
      if (outer == null) return true;
      if (SKIP_OUTER.has(outer))
        return (
          outer === 'response_item' &&
          peekStr(head, 0, head.length, B_PAYLOAD_TYPE, 1024) === 'message' &&
          head.subarray(0, 1024).indexOf(B_ROLE_USER) >= 0
        );
      if (outer === 'event_msg') {
        const pt = peekStr(head, 0, head.length, B_PAYLOAD_TYPE, 1024);
        return pt == null || WANT_EVENT.has(pt);
      }
      return true;
    },

    line(st: CodexState | TitlesState, l: Line) {
      const { buf, start, end, complete } = l;
      if (isTitles(st)) {
        titleLine(st, buf, start, end, complete);
        return;
      }
      lineInto(st, buf, start, end, complete);
    },
  },

  whole(src: Source): CodexState {
    const st = newState(src);
    zstLines(src.path, (buf, s, e, complete) => lineInto(st, buf, s, e, complete));
    return st;
  },

  sessions(st: CodexState | TitlesState, src: Source): SessionCore[] {
    if (isTitles(st)) return [];
    if (!st.id || (!st.meta && st.prompts === 0)) return [];
    let hiddenReason: string | null = null;
    if (st.subagent) hiddenReason = 'subagent';
    else if (st.source === 'exec') hiddenReason = 'exec';
    else if (st.source === 'mcp') hiddenReason = 'mcp';
    else if (src.kind === 'archived') hiddenReason = 'archived';
    else if (st.prompts === 0 && !st.threadName && !st.forkedFrom) hiddenReason = 'empty';
    // no readable time stamp at all: the file's mtime is the last activity
    const updated = st.updated ?? st.started ?? mtimeOf(src.path);
    return [
      {
        harness: 'codex',
        id: st.id,
        cwd: st.cwd,
        title: st.threadName ? promptText(st.threadName) : st.firstPrompt,
        firstPrompt: st.firstPrompt,
        lastPrompt: st.lastPrompt,
        allPrompts: st.all,
        lastReply: st.lastReply,
        prompts: st.prompts,
        branch: st.branch,
        model: st.model,
        started: st.started,
        updated,
        file: src.path,
        hidden: hiddenReason != null,
        hiddenReason,
        parent: st.parent,
        forkedFrom: st.forkedFrom,
      },
    ];
  },

  finish: {
    all: (sessions, _ctx, states) => finish(sessions, states),
    // what the pass reads: a titles file's names; a rollout's ids, fork links, prompt hashes and name
    reads(st, src) {
      if (src.kind === 'titles') return st;
      const { id, child, ph, pt, forkedFrom, parent, threadName } = st;
      return { id, child, ph, pt, forkedFrom, parent, threadName } as CodexState;
    },
    some: refinish,
  },

  launch(s, { fork, ctx }) {
    const argv = fork ? ['codex', 'fork', s.id] : ['codex', 'resume', s.id];
    const home = codexHomeOf(s.file);
    const env = ctx && home ? storeEnv('CODEX_HOME', home, codexHome(ctx).path) : undefined;
    return env ? { argv, env } : { argv };
  },
};
