// Searchable text of one Codex rollout line (formats.md §2).

import { blockText, ms, outputRecord, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { ExtractCtx, Piece, SearchHooks } from '../../search/types.js';

import { obj, type Rec } from '../jsonl.js';
import { codexInjected } from './index.js';

/**
 * One user turn is written in two shapes (old builds: event user_message + response_item; 0.148+:
 * response_item + item_completed UserMessage): a prompt of another shape with the same text right
 * after the last one is its second copy and is not searched twice.
 */
function seen(st: Rec, text: string, kind: string): boolean {
  const t = text.trim();
  if (st.lastKind != null && st.lastKind !== kind && st.lastText === t) {
    st.lastKind = null;
    st.lastText = null;
    return true;
  }
  st.lastKind = kind;
  st.lastText = t;
  return false;
}

export function codexText(v: unknown, cx: ExtractCtx): Piece[] {
  const o = obj(v);
  if (!o) return [];
  const st = cx.st;
  const p = obj(o.payload);
  const ts = ms(o.timestamp);
  if (o.type === 'session_meta' && p) return sessionMeta(st, p, ts);
  if (!p) return [];
  const copied = !!st.child && typeof st.metaTs === 'number' && ts != null && ts < st.metaTs;
  const out: Piece[] = [];
  const add = (ps: Piece[]) => {
    for (const x of ps) out.push(copied ? { ...x, copied: true } : x);
  };
  if (o.type === 'event_msg') eventMsg(st, p, ts, add);
  else if (o.type === 'response_item') responseItem(st, p, ts, add);
  else if (o.type === 'compacted') compacted(p, ts, add);
  return out;
}

type Add = (ps: Piece[]) => void;

/**
 * The session's start (for telling copies), and its git facts as evidence (a commit hash, the branch,
 * the repository). Not its directory: that is in every session's metadata already, from `~`
 * (lib/search/groups.ts metadataText), where this would name the home directory in full.
 */
function sessionMeta(st: Rec, p: Rec, ts: number | null): Piece[] {
  // A fork or a spawned thread begins with copies of its parent's history, which keep their
  // older time stamps: anything older than this thread's own start is a copy.
  if (st.metaTs == null) {
    st.metaTs = ms(p.timestamp) ?? ts;
    st.child = !!(p.forked_from_id || p.parent_thread_id || obj(p.source)?.subagent);
  }
  const g = obj(p.git) ?? {};
  return piece(
    'metadata',
    [
      ['commit', g.commit_hash],
      ['branch', g.branch],
      ['repository', g.repository_url],
    ]
      .filter(([, v]) => typeof v === 'string' && v)
      .map(([k, v]) => `${k}: ${v}`)
      .join(' · '),
    ts,
  );
}

function eventMsg(st: Rec, p: Rec, ts: number | null, add: Add): void {
  switch (p.type) {
    case 'user_message':
      if (typeof p.message === 'string' && !seen(st, p.message, 'e')) add(piece('user', p.message, ts));
      break;
    case 'item_completed':
      itemCompleted(st, obj(p.item), ts, add);
      break;
    case 'agent_message':
      add(piece('assistant', p.message, ts));
      break;
    case 'agent_reasoning':
      add(piece('assistant', p.text, ts));
      break;
    case 'thread_name_updated':
      add(piece('user', p.thread_name, ts, { summary: true }));
      break;
  }
}

function itemCompleted(st: Rec, it: Rec | null, ts: number | null, add: Add): void {
  if (!it) return;
  const ty = String(it.type ?? '');
  if (ty === 'UserMessage' || ty === 'userMessage' || ty === 'user_message') {
    const t = blockText(it.content, ['text', 'input_text']);
    if (!codexInjected(t) && !seen(st, t, 'i')) add(piece('user', t, ts));
  } else if (ty === 'AgentMessage' || ty === 'agentMessage' || ty === 'agent_message') {
    add(piece('assistant', typeof it.text === 'string' ? it.text : blockText(it.content), ts));
  }
}

/** A tool call's name and arguments, by the payload type that carries them. */
function toolCall(p: Rec, ts: number | null): Piece | null {
  switch (p.type) {
    case 'function_call':
    case 'custom_tool_call':
    case 'tool_search_call':
      return toolPiece(p.name ?? p.type, p.arguments ?? p.input, ts);
    case 'local_shell_call':
      return toolPiece('shell', p.action, ts);
    case 'web_search_call':
      return toolPiece('web_search', p.action, ts);
    default:
      return null;
  }
}

function responseItem(st: Rec, p: Rec, ts: number | null, add: Add): void {
  switch (p.type) {
    case 'message': {
      const t = blockText(p.content);
      if (p.role === 'assistant') add(piece('assistant', t, ts));
      else if (p.role === 'user' && !codexInjected(t) && !seen(st, t, 'r')) add(piece('user', t, ts));
      return;
    }
    case 'reasoning':
      // summaries only; `encrypted_content` is never decoded
      add(piece('assistant', blockText(p.summary, ['summary_text']), ts));
      return;
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'tool_search_output':
      add(piece('tool-output', outputText(p.output ?? p.tools), ts));
      return;
    default: {
      const tp = toolCall(p, ts);
      if (tp) add([tp]);
    }
  }
}

/** The post-compaction history restates earlier turns of this same file. */
function compacted(p: Rec, ts: number | null, add: Add): void {
  add(piece('assistant', p.message, ts, { summary: true }));
  if (!Array.isArray(p.replacement_history)) return;
  for (const v of p.replacement_history) {
    const it = obj(v);
    if (it && it.type === 'message') {
      const t = blockText(it.content);
      if (!codexInjected(t)) add(piece(it.role === 'user' ? 'user' : 'assistant', t, ts, { summary: true }));
    }
  }
}

const K_RESPONSE_ITEM = Buffer.from('"type":"response_item"');
const K_OUTPUTS = ['function_call_output', 'custom_tool_call_output', 'tool_search_output'].map((t) =>
  Buffer.from(`"payload":{"type":"${t}"`),
);

/**
 * Tool output lines: long ones are never decoded (only the text around a hit is shown), and a
 * record of tool output (`response_item` whose payload starts with its type, as Codex writes it)
 * is held back by search and decoded only while it can change the results.
 */
export const search: SearchHooks = {
  rawHead: ['"type":"function_call_output"', '"type":"custom_tool_call_output"'],
  outputOnly: (line) => outputRecord(line, K_RESPONSE_ITEM, K_OUTPUTS),
};
