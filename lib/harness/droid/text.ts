// Searchable text of one Factory Droid record (a line of sessions/<folder>/<id>.jsonl): prompts,
// replies, tool calls (`tool_use` parts) and their results (`tool_result` parts of user records).
// A fork's records up to its `forkedAtMessageId` are copies of its parent's and are marked copied.
import { ms, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { ExtractCtx, Piece } from '../../search/types.js';
import { rec, str, textOf } from '../jsonl.js';
import { promptOf } from './index.js';

/** The text, tool calls and tool results of one message. */
function messagePieces(o: Record<string, unknown>, m: Record<string, unknown>, ts: number | null, extra: Partial<Piece>): Piece[] {
  const parts = Array.isArray(m.content) ? m.content : [];
  if (m.role === 'user') {
    const out: Piece[] = [];
    for (const v of parts) {
      const p = rec(v);
      if (p?.type === 'tool_result') out.push(...piece('tool-output', outputText(p.content), ts, extra));
    }
    if (out.length) return out;
    const own = promptOf(o, m);
    // injected context and task reports are metadata, not what a person typed
    return own != null ? piece('user', own, ts, extra) : piece('metadata', textOf(parts, ['text']), ts, extra);
  }
  if (m.role !== 'assistant') return [];
  const out = [...piece('assistant', textOf(parts, ['text']), ts, extra)];
  for (const v of parts) {
    const p = rec(v);
    if (p?.type !== 'tool_use') continue;
    const tp = toolPiece(p.name, p.input, ts);
    if (tp) out.push({ ...tp, ...extra });
  }
  return out;
}

export function droidText(v: unknown, cx: ExtractCtx): Piece[] {
  const o = rec(v);
  if (!o) return [];
  if (o.type === 'session_start') {
    cx.st.copyingUntil = str(o.parent) ? str(o.forkedAtMessageId) : null;
    const title = str(o.title);
    return o.isSessionTitleManuallySet === true && title ? piece('metadata', title, null) : [];
  }
  const m = rec(o.message);
  if (o.type !== 'message' || !m) return [];
  const copied = cx.st.copyingUntil != null;
  if (copied && o.id === cx.st.copyingUntil) cx.st.copyingUntil = null;
  return messagePieces(o, m, ms(o.timestamp), copied ? { copied: true } : {});
}
