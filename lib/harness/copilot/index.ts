// GitHub Copilot CLI: <COPILOT_HOME or ~/.copilot>/session-state/<id>/events.jsonl, one session per
// folder, with workspace.yaml beside it (the session's name). Recorded from 1.0.102 (formats.md §7,
// test/fixtures/real/copilot-1.0.102).
//
// What the recording shows:
//   - `session.start` gives the id, the cwd (`data.context.cwd`), the branch and the model; a
//     resume appends `session.resume` to the same file (with the cwd it was resumed from, not the
//     session's).
//   - A prompt is a `user.message` (`data.content`, as typed; `transformedContent` is what was sent,
//     with the time prepended). A subagent writes into the same file: its records carry `agentId`,
//     and the prompt it is given has `data.source` `agent-<id>`; `source` also marks injected skill
//     text, `isAutopilotContinuation` autopilot's own turns. None of these is a person's prompt.
//   - A print run (`-p`) is told by its system prompt ("You are running in non-interactive mode")
//     and by no `session.model_change` at startup; an interactive session has that event and an
//     interactive system prompt. A print run resumed interactively becomes a person's session.
//   - `/fork` writes a new folder: a `session.start` of its own, then copies of the parent's
//     records with their original ids and times (older than the start), then a `session.info`
//     (`infoType` "fork") whose message names the parent's id.
//   - The name is only in workspace.yaml (`name`, `user_named`): the first prompt until /rename or
//     `--name` (`user_named: true`); a fork is named "<parent's name> (fork)".
import fs from 'node:fs';
import path from 'node:path';
import type { Adapter, Ctx, LineState, Root, SessionCore, Source } from '../../types.js';
import { entries } from '../../util/fsx.js';
import { expandHome, storeEnv } from '../../util/paths.js';
import { promptText, rawClip } from '../../util/text.js';
import { toMs } from '../../util/time.js';
import {
  absolute,
  addPrompt,
  countersOf,
  countUnknown,
  headHas,
  hiding,
  newCounters,
  parseObject,
  peekTimestamp,
  type Rec,
  rec,
  str,
  type Talk,
  talkOf,
  touchTimes,
} from '../jsonl.js';
import { homeRoots } from '../roots.js';

interface CopilotState extends LineState, Talk {
  id: string | null;
  cwd: string | null;
  branch: string | null;
  model: string | null;
  started: number | null;
  updated: number | null;
  /** the session's own start: records older than it were copied from a fork's parent */
  startTs: number | null;
  /** prompts copied from the parent (a fork) */
  copied: number;
  /** an own record shows an interactive run (startup model change, interactive system prompt) */
  interactive: boolean;
  /** the last own `session.title_changed` */
  title: string | null;
  forkedFrom: string | null;
}

const KNOWN = new Set([
  'session.start',
  'session.resume',
  'session.shutdown',
  'session.info',
  'session.model_change',
  'session.usage_record',
  'session.title_changed',
  'session.context_changed',
  'user.message',
  'system.message',
  'assistant.message',
  'assistant.turn_start',
  'assistant.turn_end',
  'tool.execution_start',
  'tool.execution_complete',
  'subagent.started',
  'subagent.selected',
  'subagent.configured',
  'subagent.completed',
  'subagent.failed',
]);
/** Records that are most of the bytes and say nothing a listing shows: only their time is read. */
const BULKY = [
  'tool.execution_complete',
  'tool.execution_start',
  'session.usage_record',
  'session.shutdown',
  'tool.execution_partial_result',
].map((t) => Buffer.from(`{"type":"${t}"`));
const B_SYSTEM = Buffer.from('{"type":"system.message"');
const B_AGENT = Buffer.from('"agentId":"');
const MAIN_PROMPT = 'You are the GitHub Copilot CLI';
const PRINT_MARK = 'running in non-interactive mode';
/** The parent's id in a fork's `session.info`: `Forked from "<name>" (<id>) as "<name>" (<id>).` */
const FORKED_FROM = /^Forked from .*\(([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\) as /;

/** Where Copilot CLI keeps its state: $COPILOT_HOME, else ~/.copilot. */
function copilotHome(ctx: Ctx): { path: string; via: string } {
  const v = ctx.env.COPILOT_HOME;
  if (v) return { path: path.resolve(expandHome(v, ctx.home)), via: 'COPILOT_HOME' };
  return { path: path.join(ctx.home, '.copilot'), via: 'default' };
}

/** The `name` and `user_named` of a session's workspace.yaml (flat `key: value` lines), or null. */
export function workspaceName(file: string): { name: string | null; userNamed: boolean } | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(path.dirname(file), 'workspace.yaml'), 'utf8');
  } catch {
    return null;
  }
  let name: string | null = null;
  let userNamed = false;
  for (const line of text.split('\n')) {
    const m = /^(name|user_named):[ \t]*(.*?)\s*$/.exec(line);
    if (!m) continue;
    if (m[1] === 'user_named') userNamed = m[2] === 'true';
    else name = yamlScalar(m[2] ?? '');
  }
  return { name, userNamed };
}

/** A one-line YAML scalar: quoted ('…' with '' for a quote, "…" JSON-like) or plain. */
function yamlScalar(v: string): string | null {
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1).replace(/''/g, "'") || null;
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) {
    try {
      return (JSON.parse(v) as string) || null;
    } catch {
      return v.slice(1, -1) || null;
    }
  }
  return v === '' || v === '~' || v === 'null' ? null : v;
}

/** A record older than the session's own start was copied from the parent by /fork. */
function copiedRecord(st: CopilotState, ts: unknown): boolean {
  const t = toMs(ts);
  return st.startTs != null && t != null && t < st.startTs;
}

/** A main-agent system prompt (peeked from the line's head): print run or interactive. */
function systemMessage(st: CopilotState, buf: Buffer, start: number, end: number): void {
  if (headHas(buf, start, end, B_AGENT, end - start)) return; // a subagent's
  const ts = peekTimestamp(buf, start, end);
  touchTimes(st, ts);
  if (copiedRecord(st, ts)) return;
  const head = buf.toString('utf8', start, Math.min(end, start + 512));
  const i = head.indexOf(MAIN_PROMPT);
  if (i >= 0 && !head.includes(PRINT_MARK, i)) st.interactive = true;
}

function userMessage(st: CopilotState, o: Rec): void {
  const d = rec(o.data);
  if (!d || str(o.agentId) || str(d.source) || d.isAutopilotContinuation === true) return;
  const t = typeof d.content === 'string' ? d.content.trim() : '';
  if (!t) return;
  if (copiedRecord(st, o.timestamp)) {
    st.copied++;
    return;
  }
  addPrompt(st, promptText(t));
}

/** `session.start`: the session's id, start, directory, branch and model (the first one only). */
function sessionStart(st: CopilotState, o: Rec, d: Rec): void {
  if (st.id) return;
  st.id = str(d.sessionId);
  st.startTs = toMs(o.timestamp) ?? toMs(d.startTime);
  st.started = st.startTs;
  const c = rec(d.context);
  if (c) {
    if (absolute(c.cwd)) st.cwd = c.cwd;
    st.branch = str(c.branch);
  }
  st.model = str(d.selectedModel) ?? st.model;
}

/** The events of the session's own (not a subagent's, not copied by a fork) that say something of it. */
function ownEvent(st: CopilotState, type: string, d: Rec): void {
  switch (type) {
    case 'session.model_change':
      if (d.source === 'startup') st.interactive = true;
      st.model = str(d.newModel) ?? st.model;
      return;
    case 'session.info':
      if (d.infoType === 'fork' && typeof d.message === 'string' && !st.forkedFrom)
        st.forkedFrom = FORKED_FROM.exec(d.message)?.[1] ?? null;
      return;
    case 'session.title_changed': {
      const title = str(d.title);
      if (title) st.title = title.trim() || null;
      return;
    }
    case 'assistant.message': {
      st.model = str(d.model) ?? st.model;
      if (typeof d.content === 'string' && d.content.trim()) st.lastReply = rawClip(d.content.trim());
      return;
    }
    default:
  }
}

function record(st: CopilotState, o: Rec): void {
  const type = typeof o.type === 'string' ? o.type : '';
  const d = rec(o.data) ?? {};
  touchTimes(st, o.timestamp);
  if (!KNOWN.has(type)) countUnknown(countersOf(st), type || '(none)');
  if (type === 'session.start') sessionStart(st, o, d);
  else if (type === 'user.message') userMessage(st, o);
  else if (!str(o.agentId) && !copiedRecord(st, o.timestamp)) ownEvent(st, type, d);
}

export const copilot: Adapter<CopilotState, 'copilot'> = {
  name: 'copilot',
  label: 'Copilot CLI',
  binaries: ['copilot'],
  envVars: ['RESUME_COPILOT_DIRS', 'COPILOT_HOME'],
  color: 204,
  testedVersion: '1.0.102',
  search: {
    text: async () => (await import('./text.js')).copilotText,
  },
  perSource: true,

  roots(ctx): Root[] {
    return homeRoots(ctx, 'RESUME_COPILOT_DIRS', copilotHome(ctx), 'session-state');
  },

  discover(_ctx, roots) {
    const out: Source[] = [];
    for (const r of roots) {
      if (!r.exists) continue;
      const dir = path.join(r.path, 'session-state');
      for (const e of entries(dir)) {
        if (!e.isDirectory() || e.name.startsWith('.')) continue;
        const f = path.join(dir, e.name, 'events.jsonl');
        // workspace.yaml holds the name: a rename changes only it
        out.push({ path: f, harness: 'copilot', kind: 'session', mode: 'lines', deps: [path.join(dir, e.name, 'workspace.yaml')] });
      }
    }
    return out;
  },

  lines: {
    begin(): CopilotState {
      return {
        id: null,
        cwd: null,
        branch: null,
        model: null,
        started: null,
        updated: null,
        startTs: null,
        firstPrompt: null,
        lastPrompt: null,
        lastReply: null,
        prompts: 0,
        copied: 0,
        interactive: false,
        title: null,
        forkedFrom: null,
        counters: newCounters(),
      };
    },

    wantLong(_st, head) {
      return !BULKY.some((b) => headHas(head, 0, head.length, b, b.length)) && !headHas(head, 0, head.length, B_SYSTEM, B_SYSTEM.length);
    },

    line(st, l) {
      const { buf, start, end, complete } = l;
      if (headHas(buf, start, end, B_SYSTEM, B_SYSTEM.length)) {
        systemMessage(st, buf, start, end);
        return;
      }
      if (!complete || BULKY.some((b) => headHas(buf, start, end, b, b.length))) {
        if (!complete) countersOf(st).hugeLines++;
        touchTimes(st, peekTimestamp(buf, start, end));
        return;
      }
      const o = parseObject(countersOf(st), buf, start, end);
      if (o) record(st, o);
    },
  },

  sessions(st, src): SessionCore[] {
    if (!st.id) return [];
    const ws = workspaceName(src.path);
    // A name someone gave (/rename, --name); Copilot's own names are the first prompt, or for a
    // fork its parent's name plus " (fork)": the listing shows a fork by its own first prompt.
    const title = st.title ?? (ws?.userNamed ? ws.name : null);
    let hiddenReason: string | null = null;
    if (st.prompts === 0 && !(ws?.userNamed && title)) hiddenReason = 'empty';
    else if (!st.interactive) hiddenReason = 'print';
    return [
      {
        harness: 'copilot',
        id: st.id,
        cwd: st.cwd,
        title: title ? promptText(title) : st.firstPrompt,
        ...talkOf(st),
        branch: st.branch,
        model: st.model,
        // a fork starts when it was made, not when the history it copied did
        started: st.startTs ?? st.started,
        updated: st.updated,
        file: src.path,
        ...hiding(hiddenReason),
        parent: null,
        forkedFrom: st.forkedFrom,
      },
    ];
  },

  launch(s, { fork, ctx }) {
    // There is no fork flag: `-i /fork` runs the /fork command as the resumed session opens.
    const argv = fork ? ['copilot', '--resume', s.id, '-i', '/fork'] : ['copilot', '--resume', s.id];
    // <COPILOT_HOME>/session-state/<id>/events.jsonl
    const env = ctx ? storeEnv('COPILOT_HOME', path.dirname(path.dirname(path.dirname(s.file))), copilotHome(ctx).path) : undefined;
    return env ? { argv, env } : { argv };
  },
};
