// Searchable text of one pi session line (formats.md §3).
import type { ExtractCtx, Piece } from '../../search/types.js';
import { blockText, ms, outputText, piece, toolPiece } from '../../search/extract-util.js';

export function piText(o: any, cx: ExtractCtx): Piece[] {
  if (!o || typeof o !== 'object') return [];
  const st = cx.st;
  if (cx.first) {
    if (o.type === 'session') {
      st.header = true;
      st.startTs = ms(o.timestamp);
      // a fork (`--fork`, `/fork`, `/clone`) copies the source's entries with their time stamps
      st.fork = !!(o.parentSession || o.branchedFrom);
    }
    return [];
  }
  if (!st.header) return []; // pi ignores a file without a session header
  const ts = ms(o.timestamp) ?? (typeof o.message?.timestamp === 'number' ? o.message.timestamp : null);
  const copied = !!st.fork && st.startTs != null && ts != null && ts < st.startTs;
  const out: Piece[] = [];
  const add = (ps: Piece[]) => {
    for (const x of ps) out.push(copied ? { ...x, copied: true } : x);
  };
  switch (o.type) {
    case 'message': {
      const m = o.message;
      if (!m || typeof m !== 'object') return out;
      switch (m.role) {
        case 'user':
          add(piece('user', blockText(m.content, ['text']), ts));
          break;
        case 'assistant':
          if (typeof m.content === 'string') add(piece('assistant', m.content, ts));
          else if (Array.isArray(m.content)) {
            for (const b of m.content) {
              if (!b || typeof b !== 'object') continue;
              if (b.type === 'text') add(piece('assistant', b.text, ts));
              else if (b.type === 'thinking') add(piece('assistant', b.thinking, ts));
              else if (b.type === 'toolCall') {
                const tp = toolPiece(b.name, b.arguments, ts);
                if (tp) add([tp]);
              }
            }
          }
          break;
        case 'toolResult':
          add(piece('tool-output', outputText(m.content), ts));
          break;
        case 'bashExecution':
          // a `!command` the user ran in pi's shell mode
          add(piece('tool-call', typeof m.command === 'string' ? `bash ${m.command}` : '', ts));
          add(piece('tool-output', m.output, ts));
          break;
        case 'custom':
          add(piece('assistant', blockText(m.content, ['text']), ts));
          break;
      }
      return out;
    }
    case 'compaction':
    case 'branch_summary':
      add(piece('assistant', o.summary, ts, { summary: true }));
      return out;
    case 'custom_message':
      add(piece('assistant', blockText(o.content, ['text']), ts));
      return out;
    case 'session_info':
      add(piece('user', o.name, ts, { summary: true }));
      return out;
    default:
      return out;
  }
}
