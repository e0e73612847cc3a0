// Qwen Code: <root>/projects/<cwd, non-alphanumerics as ->/chats/<session id>.jsonl, root $QWEN_HOME
// or ~/.qwen. One record a line ({uuid, parentUuid, sessionId, timestamp, type, subtype, cwd,
// gitBranch, message: {role, parts}}); a fork copies its parent's records under its own sessionId,
// each marked `forkedFrom: {sessionId, messageUuid}`. Only the terminal UI writes
// `chats/<id>.runtime.json` beside the transcript: a session without one is a one-shot run.
import path from 'node:path';
import type { Adapter, Ctx, LineState, Root, SessionCore, Source } from '../../types.js';
import { direntIsDir, direntMaybeFile, entries } from '../../util/fsx.js';
import { expandHome, storeEnv } from '../../util/paths.js';
import { promptText, rawClip } from '../../util/text.js';
import { partsText } from '../gemini/index.js';
import {
  absolute,
  addPrompt,
  countersOf,
  newCounters,
  obj,
  parseObject,
  peekStr,
  peekTimestamp,
  type Rec,
  str,
  talkOf,
  touchSpans,
} from '../jsonl.js';
import { homeRoots } from '../roots.js';

interface QwenState extends LineState {
  lines: number;
  id: string | null;
  cwd: string | null;
  branch: string | null;
  model: string | null;
  title: string | null;
  /** the last title among a fork's records copied from its parent */
  copiedTitle: string | null;
  /** times of the session's own records (a fork's copied ones keep the parent's times) */
  started: number | null;
  updated: number | null;
  /** times of every record, for a session that has only copied ones */
  allStarted: number | null;
  allUpdated: number | null;
  firstPrompt: string | null;
  lastPrompt: string | null;
  all: string[];
  prompts: number;
  lastReply: string | null;
  forkedFrom: string | null;
  parent: string | null;
}

interface Hint {
  /** the terminal UI ran this session (`<id>.runtime.json` is there) */
  tui: boolean;
}

const B_TYPE = Buffer.from('"type":"');
/** Past this, an assistant or tool record (a tool's output) is read for its time only. */
const BIG = 256 * 1024;

/** `$QWEN_HOME`, else `~/.qwen`: the store Qwen Code itself uses. */
function home(ctx: Ctx): { path: string; via: string } {
  const h = ctx.env.QWEN_HOME;
  if (h) return { path: path.resolve(expandHome(h, ctx.home)), via: 'QWEN_HOME' };
  return { path: path.join(ctx.home, '.qwen'), via: 'default' };
}

/** What a user record says when a person wrote it: typed prompts and messages sent mid-turn. */
function promptOf(o: Rec): string | null {
  if (o.provenance != null && o.provenance !== 'real_user') return null;
  if (o.subtype != null && o.subtype !== 'mid_turn_user_message') return null;
  const parts = obj(o.message)?.parts;
  if (!Array.isArray(parts) || parts.some((p) => obj(p)?.functionResponse)) return null;
  const t = withoutReminders(partsText(parts));
  return t || null;
}

/**
 * A prompt's text without the `<system-reminder>` blocks Qwen Code puts before it (on a resume, in
 * the same text part: "1 background agent was restored…").
 */
export function withoutReminders(t: string): string {
  return t.replace(/^(?:\s*<system-reminder>[\s\S]*?<\/system-reminder>)+/, '').trim();
}

/** A prompt of the session's own (not one a fork copied). */
function ownPrompt(st: QwenState, o: Rec): void {
  const p = promptOf(o);
  if (p == null) return;
  addPrompt(st, promptText(p));
}

/** A reply: its model and text. */
function reply(st: QwenState, o: Rec): void {
  const model = str(o.model);
  if (model) st.model = model;
  const parts = obj(o.message)?.parts;
  const t = Array.isArray(parts) ? partsText(parts).trim() : '';
  if (t) st.lastReply = rawClip(t);
}

/** A system record: a title (`/rename`), or the parent of a sub-session. */
function system(st: QwenState, o: Rec, copied: boolean): void {
  const p = obj(o.systemPayload) ?? {};
  if (o.subtype === 'custom_title' && typeof p.customTitle === 'string') {
    // A title copied from a fork's parent gives way to the fork's own first prompt. The UI writes
    // the title again (unmarked) as it runs and exits, so the parent's title comes back uncopied.
    const t = p.customTitle.trim() || null;
    if (copied) st.copiedTitle = t;
    else if (t !== st.copiedTitle) st.title = t;
  } else if (o.subtype === 'parent_session') st.parent = str(p.parentSessionId) ?? st.parent;
}

function apply(st: QwenState, o: Rec): void {
  st.id ||= str(o.sessionId);
  if (!st.cwd && absolute(o.cwd)) st.cwd = o.cwd;
  st.branch = str(o.gitBranch) ?? st.branch;
  const fork = obj(o.forkedFrom);
  const copied = !!fork;
  if (fork && !st.forkedFrom) st.forkedFrom = str(fork.sessionId);
  touchSpans(st, o.timestamp, !copied);
  if (o.type === 'user') {
    if (!copied) ownPrompt(st, o);
  } else if (o.type === 'assistant') reply(st, o);
  else if (o.type === 'system') system(st, o, copied);
}

export const qwen: Adapter<QwenState, 'qwen'> = {
  name: 'qwen',
  label: 'Qwen Code',
  binaries: ['qwen'],
  envVars: ['RESUME_QWEN_DIRS', 'QWEN_HOME'],
  color: 99,
  testedVersion: '0.24.4',
  search: {
    text: async () => (await import('./text.js')).qwenText,
    hooks: async () => (await import('./text.js')).search,
  },
  perSource: true,

  roots(ctx): Root[] {
    return homeRoots(ctx, 'RESUME_QWEN_DIRS', home(ctx));
  },

  // discover reads directories only (entries): its sources are remembered by the index
  listsOnly: true,
  discover(_ctx, roots) {
    const out: Source[] = [];
    for (const r of roots) {
      if (!r.exists) continue;
      const projects = path.join(r.path, 'projects');
      for (const p of entries(projects)) {
        if (!direntIsDir(projects, p)) continue;
        const chats = path.join(projects, p.name, 'chats');
        const files = entries(chats).filter(direntMaybeFile);
        const names = new Set(files.map((f) => f.name));
        for (const f of files) {
          if (!f.name.endsWith('.jsonl')) continue;
          const hint: Hint = { tui: names.has(`${f.name.slice(0, -'.jsonl'.length)}.runtime.json`) };
          out.push({ path: path.join(chats, f.name), harness: 'qwen', kind: 'session', mode: 'lines', hint });
        }
      }
    }
    return out;
  },

  lines: {
    begin(): QwenState {
      return {
        lines: 0,
        id: null,
        cwd: null,
        branch: null,
        model: null,
        title: null,
        copiedTitle: null,
        started: null,
        updated: null,
        allStarted: null,
        allUpdated: null,
        firstPrompt: null,
        lastPrompt: null,
        all: [],
        prompts: 0,
        lastReply: null,
        forkedFrom: null,
        parent: null,
        counters: newCounters(),
      };
    },

    line(st, l) {
      const { buf, start, end, complete } = l;
      st.lines++;
      const type = !complete || end - start > BIG ? peekStr(buf, start, end, B_TYPE, { window: 4096 }) : null;
      if (!complete || (type != null && type !== 'user' && type !== 'system')) {
        // a tool's output or a long reply: its time is all a listing needs
        if (!complete) countersOf(st).hugeLines++;
        touchSpans(st, peekTimestamp(buf, start, end), true);
        return;
      }
      const o = parseObject(countersOf(st), buf, start, end);
      if (o) apply(st, o);
    },
  },

  sessions(st, src): SessionCore[] {
    if (!st.id) return [];
    const hint = (src.hint ?? {}) as Partial<Hint>;
    let hiddenReason: string | null = null;
    if (st.parent) hiddenReason = 'subagent';
    else if (st.prompts === 0 && !st.title) hiddenReason = 'empty';
    else if (!hint.tui) hiddenReason = 'headless';
    return [
      {
        harness: 'qwen',
        id: st.id,
        cwd: st.cwd,
        title: st.title ? promptText(st.title) : st.firstPrompt,
        ...talkOf(st),
        branch: st.branch,
        model: st.model,
        started: st.started ?? st.allStarted,
        updated: st.updated ?? st.allUpdated,
        file: src.path,
        hidden: hiddenReason != null,
        hiddenReason,
        parent: st.parent,
        forkedFrom: st.forkedFrom,
      },
    ];
  },

  launch(s, { fork, ctx }) {
    // Qwen Code finds a session by id among the chats of the directory it runs in (the launch's cwd).
    const argv = fork ? ['qwen', '--resume', s.id, '--fork-session'] : ['qwen', '--resume', s.id];
    const m = ctx ? /^(.*)\/projects\/[^/]+\/chats\/[^/]+\.jsonl$/.exec(s.file) : null;
    if (!ctx || !m) return { argv };
    const env = m[1] === undefined ? null : storeEnv('QWEN_HOME', m[1], home(ctx).path);
    return env ? { argv, env } : { argv };
  },
};
