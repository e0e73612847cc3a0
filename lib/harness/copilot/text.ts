// Searchable text of one Copilot CLI event (a line of session-state/<id>/events.jsonl).

import { ms, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { ExtractCtx, Piece } from '../../search/types.js';
import { rec } from '../jsonl.js';

export function copilotText(v: unknown, _cx: ExtractCtx): Piece[] {
  const o = rec(v);
  const d = rec(o?.data);
  if (!o || !d) return [];
  const ts = ms(o.timestamp);
  switch (o.type) {
    case 'user.message':
      // a subagent's prompt or injected text is not what a person typed
      return piece(o.agentId || d.source ? 'tool-output' : 'user', d.content, ts);
    case 'assistant.message': {
      const out = piece('assistant', d.content, ts);
      for (const r of Array.isArray(d.toolRequests) ? d.toolRequests : []) {
        const req = rec(r);
        const tp = req ? toolPiece(req.name, req.arguments, ts) : null;
        if (tp) out.push(tp);
      }
      return out;
    }
    case 'tool.execution_complete': {
      const result = rec(d.result);
      return piece('tool-output', outputText(result?.content ?? d.result), ts);
    }
    default:
      return [];
  }
}
