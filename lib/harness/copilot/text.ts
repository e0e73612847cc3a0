// Searchable text of one Copilot CLI event (a line of session-state/<id>/events.jsonl).
import type { ExtractCtx, Piece } from '../../search/types.js';
import { ms, outputText, piece, toolPiece } from '../../search/extract-util.js';

export function copilotText(o: any, _cx: ExtractCtx): Piece[] {
  if (!o || typeof o !== 'object' || !o.data || typeof o.data !== 'object') return [];
  const d = o.data;
  const ts = ms(o.timestamp);
  switch (o.type) {
    case 'user.message':
      // a subagent's prompt or injected text is not what a person typed
      return piece(o.agentId || d.source ? 'tool-output' : 'user', d.content, ts);
    case 'assistant.message': {
      const out = piece('assistant', d.content, ts);
      for (const r of Array.isArray(d.toolRequests) ? d.toolRequests : []) {
        const tp = r && typeof r === 'object' ? toolPiece(r.name, r.arguments, ts) : null;
        if (tp) out.push(tp);
      }
      return out;
    }
    case 'tool.execution_complete':
      return piece('tool-output', outputText(d.result?.content ?? d.result), ts);
    default:
      return [];
  }
}
