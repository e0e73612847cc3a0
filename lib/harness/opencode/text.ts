// Searchable text of one opencode part (formats.md §5). A record is `{role, part}`: the part's JSON
// (`part.data` in the v1.2 database, a `part/<msg>/<id>.json` file before) and its message's role.
import type { ExtractCtx, Piece } from '../../search/types.js';
import { ms, outputText, piece, toolPiece } from '../../search/extract-util.js';

export function opencodeText(o: any, _cx: ExtractCtx): Piece[] {
  if (!o || typeof o !== 'object') return [];
  const p = o.part;
  if (!p || typeof p !== 'object') return [];
  const role = o.role === 'user' ? 'user' : 'assistant';
  const ts = ms(p.time?.start ?? p.time?.created ?? o.ts);
  const summary = !!o.summary;
  switch (p.type) {
    case 'text':
      if (p.ignored) return [];
      // synthetic parts are injected file contents and notes, not what anyone typed
      if (p.synthetic) return piece('tool-output', p.text, ts);
      return piece(role, p.text, ts, summary ? { summary: true } : {});
    case 'reasoning':
      return piece('assistant', p.text, ts);
    case 'tool': {
      const out: Piece[] = [];
      const tp = toolPiece(p.tool, p.state?.input, ts);
      if (tp) out.push(tp);
      out.push(...piece('tool-output', outputText(p.state?.output ?? p.state?.error), ts));
      return out;
    }
    case 'subtask':
      return piece('task', [p.description, p.prompt].filter((x) => typeof x === 'string' && x).join('\n'), ts);
    case 'patch':
      return piece('tool-call', Array.isArray(p.files) ? `patch ${p.files.join(' ')}` : '', ts, { write: true });
    default:
      return [];
  }
}
