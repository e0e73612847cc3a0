// pi coding agent: <sessions>/--<encoded cwd>--/<ts>_<id>.jsonl, or flat in a custom session dir
// (formats.md §3).
import fs from 'node:fs';
import path from 'node:path';
import type { Adapter, Ctx, LineState, Root, SessionCore, Source } from '../../types.js';
import { isDir, uniqueReal, walk } from '../../util/fsx.js';
import { envDirs, expandHome } from '../../util/paths.js';
import { promptText, rawClip } from '../../util/text.js';
import { toMs } from '../../util/time.js';
import {
  absolute,
  addPrompt,
  after,
  B_ROLE,
  bytesAt,
  countersOf,
  countUnknown,
  type Deferring,
  deferLine,
  newCounters,
  obj,
  parseObject,
  peekTimestamp,
  type Rec,
  settleModelReply,
  str,
  talkOf,
  textOf,
  touchTimes,
  V_ASSISTANT,
} from '../jsonl.js';

interface PiState extends LineState, Deferring {
  header: boolean;
  id: string | null;
  cwd: string | null;
  name: string | null;
  model: string | null;
  started: number | null;
  updated: number | null;
  firstPrompt: string | null;
  lastPrompt: string | null;
  /** every prompt, clipped (SessionCore.allPrompts) */
  all?: string[];
  lastReply: string | null;
  prompts: number;
  parentSession: string | null;
  lines: number;
  /** a fork's header time: entries older than it were copied from the parent */
  forkTs?: number | null;
  /** prompts copied from the parent (not counted) */
  copied?: number;
  /**
   * Whether every own prompt so far came in the burst that started the session (each within
   * PRINT_GAP_MS of the entry before it: the header, or the reply it followed), as `pi -p A B` sends
   * them; false once one came later (a person typed it); null when a prompt had no time.
   */
  burst?: boolean | null;
  /** the newest entry time seen, while `burst` is still true (what the next prompt is measured from) */
  lastTs?: number | null;
  /** with lines put off: how many were before the last model change (they cannot set the model) */
  modelCut?: number;
}

const KNOWN = new Set([
  'session',
  'message',
  'model_change',
  'thinking_level_change',
  'compaction',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'session_info',
]);
const R_TOOLRESULT = Buffer.from('toolResult"');
const R_BASH = Buffer.from('bashExecution"');
const B_MESSAGE = Buffer.from('{"type":"message",');
const B_TS = Buffer.from('"timestamp":');
const BIG = 64 * 1024;

function agentDir(ctx: Ctx): { path: string; via: string } {
  const v = ctx.env.PI_CODING_AGENT_DIR;
  if (v) return { path: path.resolve(expandHome(v, ctx.home)), via: 'PI_CODING_AGENT_DIR' };
  return { path: path.join(ctx.home, '.pi', 'agent'), via: 'default' };
}

function settingsSessionDir(dir: string, home: string): string | null {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8'));
    if (s && typeof s.sessionDir === 'string' && s.sessionDir) return path.resolve(dir, expandHome(s.sessionDir, home));
  } catch {
    /* no settings */
  }
  return null;
}

/** The session id in a pi file name `<ts>_<id>.jsonl`, else the stem. */
export function piIdFromPath(p: string): string {
  const stem = path.basename(p).replace(/\.jsonl$/, '');
  const i = stem.indexOf('_');
  return i >= 0 ? stem.slice(i + 1) : stem;
}

/**
 * Where the first role named in a line's first 512 bytes begins (just past `"role":"`), or -1. pi
 * writes a message's role before its content, so this is the message's own role (a role in the
 * text would be escaped, `\"role\"`).
 */
function roleAt(buf: Buffer, start: number, end: number): number {
  return after(buf, start, Math.min(end, start + 512), B_ROLE);
}

/** Tool output and shell runs are most of the bytes and never matter for a listing; nor does a big assistant line (tool call arguments). */
function skippable(buf: Buffer, start: number, end: number, big: boolean): boolean {
  return skippableRole(buf, roleAt(buf, start, end), end, big);
}

/** The same, given where the role begins (`roleAt`). */
function skippableRole(buf: Buffer, r: number, end: number, big: boolean): boolean {
  return bytesAt(buf, r, end, R_TOOLRESULT) || bytesAt(buf, r, end, R_BASH) || (big && bytesAt(buf, r, end, V_ASSISTANT));
}

/**
 * An assistant message's time without decoding it: the message's own `timestamp` (epoch ms, among its
 * last keys: pi 0.73 writes `responseId` after it), else the entry's (an ISO string near the start),
 * as a decoded line gives it.
 */
function replyTime(buf: Buffer, start: number, end: number): number | string | null {
  const from = Math.max(start, end - 256);
  const i = buf.subarray(from, end).lastIndexOf(B_TS);
  if (i >= 0) {
    const s = from + i + B_TS.length;
    let e = s;
    while (e < end && isDigit(buf[e])) e++;
    if (e > s && e < end && (buf[e] === 125 || buf[e] === 44)) return Number(buf.toString('latin1', s, e)); // then `}` or `,`
  }
  return peekTimestamp(buf, start, Math.min(end, start + 512));
}

const isDigit = (b: number | undefined) => b !== undefined && b >= 48 && b <= 57;

const touch = touchTimes;

/** The first line: pi ignores a file whose first line is not a session header. */
function header(st: PiState, type: string, o: Rec): void {
  if (type !== 'session') return;
  st.header = true;
  st.id = str(o.id);
  st.cwd = absolute(o.cwd) ? o.cwd : null;
  st.parentSession = str(o.parentSession) ?? str(o.branchedFrom);
  // A fork or clone (`--fork`, `/fork`, `/clone`) begins with copies of its parent's entries,
  // which keep their time stamps: they are older than its own header.
  st.forkTs = st.parentSession ? toMs(o.timestamp) : null;
  burstTs(st, o.timestamp);
  st.model = str(o.modelId) ?? st.model;
  touch(st, o.timestamp);
}

/** A decoded entry after the header. */
function entry(st: PiState, type: string, o: Rec): void {
  switch (type) {
    case 'message':
      message(st, o);
      return;
    case 'session_info': {
      touch(st, o.timestamp);
      burstTs(st, o.timestamp);
      const at = toMs(o.timestamp);
      if (st.forkTs != null && at != null && at < st.forkTs) return; // the parent's name, copied
      const n = typeof o.name === 'string' ? o.name.trim() : '';
      st.name = n || null;
      return;
    }
    case 'model_change': {
      touch(st, o.timestamp);
      burstTs(st, o.timestamp);
      const model = str(o.modelId);
      if (model) {
        st.model = model;
        if (st.deferred) st.modelCut = st.deferred.length / 2;
      }
      return;
    }
    default:
      touch(st, o.timestamp);
      burstTs(st, o.timestamp);
  }
}

function message(st: PiState, o: Rec): void {
  const m = obj(o.message);
  if (!m) return;
  touch(st, typeof m.timestamp === 'number' ? m.timestamp : o.timestamp);
  if (m.role === 'user') userMessage(st, o, m);
  else if (m.role === 'assistant') {
    burstTs(st, o.timestamp);
    st.model = str(m.model) ?? st.model;
    const t = textOf(m.content, ['text']).trim();
    if (t) st.lastReply = rawClip(t); // folded once, in sessions()
  }
}

function userMessage(st: PiState, o: Rec, m: Rec): void {
  const t = textOf(m.content, ['text']).trim();
  if (!t) return;
  const ts = toMs(o.timestamp) ?? toMs(m.timestamp);
  if (st.forkTs != null && ts != null && ts < st.forkTs) {
    st.copied = (st.copied ?? 0) + 1;
    return;
  }
  burstPrompt(st, ts);
  burstTs(st, o.timestamp);
  addPrompt(st, promptText(t));
}

/**
 * A line told from its bytes that needs no decoding: a tool result or shell run (its time taken),
 * or an assistant message put off to the end of the file (only the last ones count: the model, the
 * last reply; they are more than half the bytes decoded), when `at` says it can be read back there.
 */
function passedOver(st: PiState, buf: Buffer, start: number, end: number, at: number | undefined): boolean {
  const r = roleAt(buf, start, end);
  if (r < 0) return false;
  if (skippableRole(buf, r, end, end - start > BIG)) {
    const ts = peekTimestamp(buf, start, end, 256);
    touch(st, ts);
    burstTs(st, ts);
    return true;
  }
  if (at !== undefined && st.header && bytesAt(buf, r, end, V_ASSISTANT) && bytesAt(buf, start, end, B_MESSAGE)) {
    touch(st, replyTime(buf, start, end));
    // the entry's own time (when the reply was written, near the line's start), not the message's (when it began)
    if (st.burst !== false && st.burst !== null) burstTs(st, peekTimestamp(buf, start, Math.min(end, start + 512)));
    deferLine(st, at, end - start);
    return true;
  }
  return false;
}

/** Longer than pi takes to send a message it was given (at start, or after the reply before it), shorter than anyone types one. */
const PRINT_GAP_MS = 1000;

/** Track the newest entry time while the session still looks like one burst (nothing to do after). */
function burstTs(st: PiState, ts: unknown): void {
  if (st.burst === false || st.burst === null) return;
  const t = toMs(ts);
  if (t != null && (st.lastTs == null || t > st.lastTs)) st.lastTs = t;
}

/** An own prompt at `ts`: did it come in the burst (straight after the entry before it)? */
function burstPrompt(st: PiState, ts: number | null): void {
  if (st.burst === false || st.burst === null) return;
  st.burst = ts == null || st.lastTs == null ? null : ts - st.lastTs < PRINT_GAP_MS;
}

/**
 * A print run (pi writes no marker for it): every prompt came in the burst that started the session,
 * as `pi -p A` or `pi -p A B` sends them, where a person types a prompt seconds after the reply
 * before it. A session started with its first prompt on the command line (`pi "A"`) and then typed
 * into is a person's. Without time stamps, a one-prompt session is taken for a print run.
 */
function headless(st: PiState): boolean {
  if (st.prompts === 0) return false;
  if (st.burst == null) return st.prompts === 1;
  return st.burst;
}

export const pi: Adapter<PiState, 'pi'> = {
  name: 'pi',
  label: 'pi',
  binaries: ['pi'],
  envVars: ['RESUME_PI_DIRS', 'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR'],
  color: 141,
  testedVersion: '0.73.1',
  search: {
    text: async () => (await import('./text.js')).piText,
    hooks: async () => (await import('./text.js')).search,
  },
  perSource: true,

  roots(ctx) {
    const out: Root[] = envDirs(ctx, 'RESUME_PI_DIRS').map((p) => ({ path: p, via: 'RESUME_PI_DIRS', exists: false }));
    const a = agentDir(ctx);
    if (ctx.env.PI_CODING_AGENT_SESSION_DIR) {
      out.push({
        path: path.resolve(expandHome(ctx.env.PI_CODING_AGENT_SESSION_DIR, ctx.home)),
        via: 'PI_CODING_AGENT_SESSION_DIR',
        exists: false,
      });
    }
    const fromSettings = settingsSessionDir(a.path, ctx.home);
    if (fromSettings) out.push({ path: fromSettings, via: `sessionDir in ${path.join(a.path, 'settings.json')}`, exists: false });
    // The default store is still scanned when a custom one is set: older sessions stay there.
    out.push({ path: path.join(a.path, 'sessions'), via: a.via, exists: false });
    return uniqueReal(out).map((r) => ({ ...r, exists: isDir(r.path) }));
  },

  // discover reads directories only (entries/walk): its sources are remembered by the index
  listsOnly: true,
  discover(_ctx, roots) {
    const out: Source[] = [];
    for (const r of roots) {
      if (!r.exists) continue;
      const rootLen = r.path.endsWith('/') ? r.path.length : r.path.length + 1;
      for (const f of walk(r.path, (n) => n.endsWith('.jsonl'), 3)) {
        const sub = `/${f.slice(rootLen)}`.includes('/subagents/');
        out.push({ path: f, harness: 'pi', kind: sub ? 'subagent' : 'session', mode: 'lines' });
      }
    }
    return out;
  },

  lines: {
    begin(): PiState {
      return {
        header: false,
        id: null,
        cwd: null,
        name: null,
        model: null,
        started: null,
        updated: null,
        firstPrompt: null,
        lastPrompt: null,
        lastReply: null,
        prompts: 0,
        parentSession: null,
        lines: 0,
        counters: newCounters(),
      };
    },

    wantLong(st, head) {
      return st.lines === 0 || !skippable(head, 0, head.length, true);
    },

    line(st, l) {
      const { buf, start, end, complete, at } = l;
      const c = countersOf(st);
      const first = st.lines++ === 0;
      if (!complete) {
        c.hugeLines++;
        const ts = peekTimestamp(buf, start, end);
        touch(st, ts);
        burstTs(st, ts);
        return;
      }
      if (!first && passedOver(st, buf, start, end, at)) return;
      const o = parseObject(c, buf, start, end);
      if (!o) return;
      const type = typeof o.type === 'string' ? o.type : '';
      if (first) return header(st, type, o);
      if (!st.header) return;
      if (!KNOWN.has(type)) countUnknown(c, type || '(none)');
      entry(st, type, o);
    },

    settle(st, read) {
      // (an assistant message older than the last model change cannot set the model)
      const cut = st.modelCut ?? 0;
      delete st.modelCut;
      settleModelReply(
        st,
        read,
        (o) => {
          const m = o.type === 'message' ? obj(o.message) : null;
          return m?.role === 'assistant' ? m : null;
        },
        cut,
      );
    },
  },

  sessions(st, src): SessionCore[] {
    if (!st.header || !st.id) return [];
    let hiddenReason: string | null = null;
    if (src.kind === 'subagent') hiddenReason = 'subagent';
    else if (st.prompts === 0) hiddenReason = 'empty';
    // pi writes no marker for print mode: an unnamed session all of whose prompts came in the
    // burst that started it is a print run (headless). `--all` shows them.
    else if (!st.name && headless(st)) hiddenReason = 'headless';
    return [
      {
        harness: 'pi',
        id: st.id,
        cwd: st.cwd,
        title: st.name ? promptText(st.name) : st.firstPrompt,
        ...talkOf(st),
        branch: null,
        model: st.model,
        // a fork starts when it was made, not when the history it copied did
        started: st.forkTs ?? st.started,
        updated: st.updated,
        file: src.path,
        hidden: hiddenReason != null,
        hiddenReason,
        parent: null,
        forkedFrom: st.parentSession ? piIdFromPath(st.parentSession) : null,
      },
    ];
  },

  launch(s, { fork }) {
    return { argv: fork ? ['pi', '--fork', s.file] : ['pi', '--session', s.file] };
  },
};
