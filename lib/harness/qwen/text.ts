// Searchable text of one Qwen Code record (a JSONL line of chats/<id>.jsonl): prompts, replies,
// tool calls (`functionCall` parts) and their results (`tool_result` records). A fork's records
// copied from its parent carry `forkedFrom` and are marked copied.
import path from 'node:path';
import { leaves, ms, piece, toolPiece } from '../../search/extract-util.js';
import type { ExtractCtx, Piece, SearchHooks } from '../../search/types.js';
import type { Session } from '../../types.js';
import { entries } from '../../util/fsx.js';
import { obj, type Rec } from '../jsonl.js';
import { withoutReminders } from './index.js';

/** The text parts of a record's message (thoughts left out). */
function textParts(parts: unknown[]): string {
  const out: string[] = [];
  for (const v of parts) {
    const p = obj(v);
    if (p && typeof p.text === 'string' && !p.thought) out.push(p.text);
  }
  return out.join('\n');
}

/** The parts of a record's message (none when it has none). */
function partsOf(o: Rec): unknown[] {
  const parts = obj(o.message)?.parts;
  return Array.isArray(parts) ? parts : [];
}

/** A person's prompt; injected records (notifications, reminders) are metadata. */
function userPieces(o: Rec, ts: number | null, extra: Partial<Piece>): Piece[] {
  const mine = (o.provenance == null || o.provenance === 'real_user') && (o.subtype == null || o.subtype === 'mid_turn_user_message');
  const text = textParts(partsOf(o));
  return piece(mine ? 'user' : 'metadata', mine ? withoutReminders(text) : text, ts, extra);
}

/** A reply, and the tool calls it made. */
function assistantPieces(o: Rec, ts: number | null, extra: Partial<Piece>): Piece[] {
  const parts = partsOf(o);
  const out = [...piece('assistant', textParts(parts), ts, extra)];
  for (const v of parts) {
    const call = obj(obj(v)?.functionCall);
    if (!call) continue;
    const tp = toolPiece(call.name, call.args, ts);
    if (tp) out.push({ ...tp, ...extra });
  }
  return out;
}

/** What tools answered. */
function resultPieces(o: Rec, ts: number | null, extra: Partial<Piece>): Piece[] {
  const out: Piece[] = [];
  for (const v of partsOf(o)) {
    const r = obj(obj(v)?.functionResponse);
    if (r) out.push(...piece('tool-output', leaves(r.response).join('\n'), ts, extra));
  }
  return out;
}

export function qwenText(v: unknown, _cx: ExtractCtx): Piece[] {
  const o = obj(v);
  if (!o) return [];
  const ts = ms(o.timestamp);
  const extra = o.forkedFrom ? { copied: true } : {};
  if (o.type === 'user') return userPieces(o, ts, extra);
  if (o.type === 'assistant') return assistantPieces(o, ts, extra);
  if (o.type === 'tool_result') return resultPieces(o, ts, extra);
  const title = obj(o.systemPayload)?.customTitle;
  if (o.type === 'system' && o.subtype === 'custom_title' && typeof title === 'string') return piece('metadata', title, ts);
  return [];
}

/** Subagent transcripts: `<project>/subagents/<session id>/agent-*.jsonl` (same records), searched with the session. */
function children(s: Session): string[] {
  const sub = path.join(path.dirname(path.dirname(s.file)), 'subagents', s.id);
  return entries(sub)
    .filter((d) => d.name.endsWith('.jsonl'))
    .map((d) => path.join(sub, d.name));
}

export const search: SearchHooks = { children };
