// Searchable text of one Qwen Code record (a JSONL line of chats/<id>.jsonl): prompts, replies,
// tool calls (`functionCall` parts) and their results (`tool_result` records). A fork's records
// copied from its parent carry `forkedFrom` and are marked copied.
import path from 'node:path';
import type { Session } from '../../types.js';
import type { ExtractCtx, Piece, SearchHooks } from '../../search/types.js';
import { entries } from '../../util/fsx.js';
import { leaves, ms, piece, toolPiece } from '../../search/extract-util.js';
import { withoutReminders } from './index.js';

export function qwenText(o: any, _cx: ExtractCtx): Piece[] {
  if (!o || typeof o !== 'object') return [];
  const parts: unknown[] = Array.isArray(o.message?.parts) ? o.message.parts : [];
  const ts = ms(o.timestamp);
  const extra = o.forkedFrom ? { copied: true } : {};
  const out: Piece[] = [];
  const texts = (p: any) => typeof p?.text === 'string' && !p.thought;
  if (o.type === 'user') {
    // a person's prompt; injected records (notifications, reminders) are not theirs
    const mine = (o.provenance == null || o.provenance === 'real_user') && (o.subtype == null || o.subtype === 'mid_turn_user_message');
    const text = parts.filter(texts).map((p: any) => p.text).join('\n');
    out.push(...piece(mine ? 'user' : 'metadata', mine ? withoutReminders(text) : text, ts, extra));
  } else if (o.type === 'assistant') {
    out.push(...piece('assistant', parts.filter(texts).map((p: any) => p.text).join('\n'), ts, extra));
    for (const p of parts as any[]) {
      const call = p?.functionCall;
      if (!call) continue;
      const tp = toolPiece(call.name, call.args, ts);
      if (tp) out.push({ ...tp, ...extra });
    }
  } else if (o.type === 'tool_result') {
    for (const p of parts as any[]) {
      if (p?.functionResponse) out.push(...piece('tool-output', leaves(p.functionResponse.response).join('\n'), ts, extra));
    }
  } else if (o.type === 'system' && o.subtype === 'custom_title' && typeof o.systemPayload?.customTitle === 'string') {
    out.push(...piece('metadata', o.systemPayload.customTitle, ts));
  }
  return out;
}

/** Subagent transcripts: `<project>/subagents/<session id>/agent-*.jsonl` (same records), searched with the session. */
function children(s: Session): string[] {
  const sub = path.join(path.dirname(path.dirname(s.file)), 'subagents', s.id);
  return entries(sub).filter((d) => d.name.endsWith('.jsonl')).map((d) => path.join(sub, d.name));
}

export const search: SearchHooks = { children };
