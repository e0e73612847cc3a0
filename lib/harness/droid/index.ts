// Factory Droid: <root>/sessions/<cwd with every / as ->/<session id>.jsonl, root
// $FACTORY_HOME_OVERRIDE/.factory or ~/.factory, with <id>.settings.json beside each (model,
// autonomy, token counts). Recorded from 0.225.2 (test/fixtures/real/droid-0.225.2).
//
// What the recording shows:
//   - Line 1 is a `session_start`: id, cwd, title, `isSessionTitleManuallySet`; `/rename` rewrites
//     this line in place (the index reads a file whose head changed again from its start). A fork
//     names its parent (`parent`) and the last message it copied (`forkedAtMessageId`); a subagent's
//     session names the session that called it (`callingSessionId`).
//   - Then `message` records ({id, parentId, timestamp, message: {role, content}}) and
//     `agent_turn_outcome`. Each turn's first user record is injected context (`id` "context-…",
//     `<system-reminder>` blocks); a finished background task is reported as a user record with
//     `visibility: "llm_only"`; tool results are user records of `tool_result` parts. None is a prompt.
//   - The terminal UI marks each prompt `userMessageSource: "cli_tui"`; `droid exec` marks none
//     (its settings file tags it "exec", but an `exec --fork` is not tagged): a session with no TUI
//     prompt is an exec run. An exec run resumed in the TUI and typed into has one.
//   - A fork copies the parent's records with their ids and times up to `forkedAtMessageId`, and
//     the parent's title (not marked as set by hand).
//   - A TUI session started in a folder not yet trusted also writes an empty session (line 1 only,
//     titled "New Session"); a /rename in that run renames the empty one.
import fs from 'node:fs';
import path from 'node:path';
import type { Adapter, Ctx, LineState, Root, SessionCore, Source } from '../../types.js';
import { direntIsDir, direntMaybeFile, entries } from '../../util/fsx.js';
import { expandHome, samePlace, storeEnv } from '../../util/paths.js';
import { promptText, rawClip } from '../../util/text.js';
import {
  absolute,
  addPrompt,
  countersOf,
  headHas,
  hiding,
  newCounters,
  parseObject,
  peekStr,
  peekTimestamp,
  type Rec,
  rec,
  str,
  type Talk,
  talkOf,
  textOf,
  touchSpans,
} from '../jsonl.js';
import { homeRoots } from '../roots.js';

interface DroidState extends LineState, Talk {
  id: string | null;
  cwd: string | null;
  model: string | null;
  title: string | null;
  /** the title was given by hand (/rename), not Droid's own (or a fork's copy of its parent's) */
  named: boolean;
  forkedFrom: string | null;
  parent: string | null;
  /** a fork's records are copies until the message with this id has passed */
  copyingUntil: string | null;
  copied: number;
  /** a prompt came from the terminal UI */
  tui: boolean;
  /** times of the session's own records (a fork's copies keep the parent's times) */
  started: number | null;
  updated: number | null;
  /** times of every record, for a fork with no record of its own yet */
  allStarted: number | null;
  allUpdated: number | null;
}

/** The title of a session Droid has not titled yet. */
const PLACEHOLDER_TITLE = 'New Session';
/** Injected context: the first user record of each turn. */
const B_CONTEXT = Buffer.from('{"type":"message","id":"context-');
const B_ROLE = Buffer.from('"role":"');
/** A record's own id: the first `"id":"` of its line. */
const B_ID = Buffer.from('"id":"');
/** Past this, a record that is not a person's is read for its time only (a tool's output). */
const BIG = 256 * 1024;

/** Where Droid keeps its state: `$FACTORY_HOME_OVERRIDE/.factory` (it replaces the home directory), else `~/.factory`. */
function factoryDir(ctx: Ctx): { path: string; via: string } {
  const h = ctx.env.FACTORY_HOME_OVERRIDE;
  if (h) return { path: path.join(path.resolve(expandHome(h, ctx.home)), '.factory'), via: 'FACTORY_HOME_OVERRIDE' };
  return { path: path.join(ctx.home, '.factory'), via: 'default' };
}

function mtimeOf(p: string): number | null {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return null;
  }
}

/** A user record's text when a person wrote it (not context, a task report, a tool result or a reminder). */
export function promptOf(o: Rec, m: Rec): string | null {
  const id = str(o.id) ?? '';
  if (id.startsWith('context-') || m.visibility === 'llm_only' || o.visibility === 'llm_only') return null;
  const parts = Array.isArray(m.content) ? m.content : [];
  if (parts.some((p) => rec(p)?.type === 'tool_result')) return null;
  const t = withoutReminders(textOf(parts, ['text']));
  return t || null;
}

/** A prompt's text without leading `<system-reminder>` blocks. */
export function withoutReminders(t: string): string {
  return t.replace(/^(?:\s*<system-reminder>[\s\S]*?<\/system-reminder>)+/, '').trim();
}

function sessionStart(st: DroidState, o: Rec): void {
  if (st.id) return;
  st.id = str(o.id);
  if (absolute(o.cwd)) st.cwd = o.cwd;
  st.named = o.isSessionTitleManuallySet === true;
  const title = str(o.title)?.trim() || null;
  st.title = title === PLACEHOLDER_TITLE && !st.named ? null : title;
  st.forkedFrom = str(o.parent);
  st.copyingUntil = st.forkedFrom ? str(o.forkedAtMessageId) : null;
  st.parent = str(o.callingSessionId);
}

function message(st: DroidState, o: Rec): void {
  const m = rec(o.message);
  const copied = st.copyingUntil != null;
  if (copied && o.id === st.copyingUntil) st.copyingUntil = null;
  touchSpans(st, o.timestamp, !copied);
  if (!m) return;
  if (m.role === 'user') {
    const p = promptOf(o, m);
    if (p == null) return;
    if (copied) st.copied++;
    else {
      addPrompt(st, promptText(p));
      if (str(m.userMessageSource)) st.tui = true;
    }
  } else if (m.role === 'assistant' && !copied) {
    st.model = str(m.modelId) ?? st.model;
    const t = textOf(m.content, ['text']).trim();
    if (t) st.lastReply = rawClip(t);
  }
}

function apply(st: DroidState, o: Rec): void {
  if (o.type === 'session_start') sessionStart(st, o);
  else if (o.type === 'message') message(st, o);
}

export const droid: Adapter<DroidState, 'droid'> = {
  name: 'droid',
  label: 'Factory Droid',
  binaries: ['droid'],
  envVars: ['RESUME_DROID_DIRS', 'FACTORY_HOME_OVERRIDE'],
  color: 208,
  testedVersion: '0.225.2',
  search: {
    text: async () => (await import('./text.js')).droidText,
  },
  perSource: true,

  roots(ctx): Root[] {
    return homeRoots(ctx, 'RESUME_DROID_DIRS', factoryDir(ctx), 'sessions');
  },

  // discover reads directories only (entries): its sources are remembered by the index
  listsOnly: true,
  discover(_ctx, roots) {
    const out: Source[] = [];
    for (const r of roots) {
      if (!r.exists) continue;
      const sessions = path.join(r.path, 'sessions');
      for (const p of entries(sessions)) {
        if (!direntIsDir(sessions, p)) continue;
        const dir = path.join(sessions, p.name);
        for (const f of entries(dir)) {
          if (f.name.endsWith('.jsonl') && direntMaybeFile(f))
            out.push({ path: path.join(dir, f.name), harness: 'droid', kind: 'session', mode: 'lines' });
        }
      }
    }
    return out;
  },

  lines: {
    begin(): DroidState {
      return {
        id: null,
        cwd: null,
        model: null,
        title: null,
        named: false,
        forkedFrom: null,
        parent: null,
        copyingUntil: null,
        copied: 0,
        tui: false,
        started: null,
        updated: null,
        allStarted: null,
        allUpdated: null,
        firstPrompt: null,
        lastPrompt: null,
        lastReply: null,
        prompts: 0,
        counters: newCounters(),
      };
    },

    line(st, l) {
      const { buf, start, end, complete } = l;
      // Injected context (several KiB of reminders each turn), and a long record that is no prompt:
      // their time is all a listing needs. A fork's copies end at a message id, so a copied record
      // is always decoded while copying.
      const big = !complete || end - start > BIG;
      const context = headHas(buf, start, end, B_CONTEXT, B_CONTEXT.length);
      if ((context || (big && peekStr(buf, start, end, B_ROLE, { window: 4096 }) !== 'user')) && st.copyingUntil == null) {
        if (!complete) countersOf(st).hugeLines++;
        touchSpans(st, peekTimestamp(buf, start, end), true);
        return;
      }
      if (!complete) {
        // a copy cut at the size cap may still be the last one copied
        countersOf(st).hugeLines++;
        if (peekStr(buf, start, end, B_ID, { window: 256 }) === st.copyingUntil) st.copyingUntil = null;
        return;
      }
      const o = parseObject(countersOf(st), buf, start, end);
      if (o) apply(st, o);
    },
  },

  sessions(st, src): SessionCore[] {
    if (!st.id) return [];
    let hiddenReason: string | null = null;
    if (st.parent) hiddenReason = 'subagent';
    else if (st.prompts === 0) hiddenReason = 'empty';
    else if (!st.tui) hiddenReason = 'exec';
    // A fork carries its parent's title, not set by hand: it gives way to the fork's own first prompt.
    const title = st.named || !st.forkedFrom ? st.title : null;
    return [
      {
        harness: 'droid',
        id: st.id,
        cwd: st.cwd,
        title: title ? promptText(title) : st.firstPrompt,
        ...talkOf(st),
        branch: null,
        model: st.model,
        started: st.started ?? st.allStarted,
        // no record with a time (an empty stub): the file's mtime is its last activity
        updated: st.updated ?? st.allUpdated ?? mtimeOf(src.path),
        file: src.path,
        ...hiding(hiddenReason),
        parent: st.parent,
        forkedFrom: st.forkedFrom,
      },
    ];
  },

  launch(s, { fork, ctx }) {
    // Droid finds a session by id in any folder of its store; run in the session's directory, it
    // asks nothing (elsewhere it asks to trust the session's folder, then moves there).
    const argv = fork ? ['droid', '--fork', s.id] : ['droid', '--resume', s.id];
    // <home>/.factory/sessions/<folder>/<id>.jsonl: FACTORY_HOME_OVERRIDE names the home, not the store
    const root = ctx ? /^(.*)\/sessions\/[^/]+\/[^/]+\.jsonl$/.exec(s.file)?.[1] : undefined;
    if (!ctx || root === undefined) return { argv };
    const dflt = factoryDir(ctx).path;
    if (samePlace(root, dflt)) return { argv };
    if (path.basename(root) !== '.factory') return `Factory Droid reads sessions only from <home>/.factory; this one is in ${root}`;
    const env = storeEnv('FACTORY_HOME_OVERRIDE', path.dirname(root), path.dirname(dflt));
    return env ? { argv, env } : { argv };
  },
};
