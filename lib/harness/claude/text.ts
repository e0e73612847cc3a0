// Searchable text of one Claude Code transcript line (formats.md §1).
import type { ExtractCtx, Piece } from '../../search/types.js';
import { blockText, ms, outputText, piece, toolPiece } from '../../search/extract-util.js';

/** User-line text the harness wrote (command output, notifications): shown as output, not as a prompt. */
const OUTPUT_TAGS = /^\s*(<local-command-stdout>|<local-command-stderr>|<bash-stdout>|<bash-stderr>|<task-notification>|<local-command-caveat>|Caveat: The messages below)/;

export function claudeText(o: any, _cx: ExtractCtx): Piece[] {
  if (!o || typeof o !== 'object') return [];
  const ts = ms(o.timestamp);
  // Lines a fork copied from its source carry `forkedFrom`.
  const copied = !!(o.forkedFrom && typeof o.forkedFrom === 'object');
  const out: Piece[] = [];
  const add = (ps: Piece[]) => {
    for (const p of ps) out.push(copied ? { ...p, copied: true } : p);
  };
  switch (o.type) {
    case 'user': {
      const c = o.message?.content;
      if (o.isCompactSummary) {
        add(piece('assistant', blockText(c, ['text']), ts, { summary: true }));
        return out;
      }
      if (Array.isArray(c)) {
        for (const b of c) {
          if (b && b.type === 'tool_result') add(piece('tool-output', outputText(b.content), ts));
        }
      }
      let t = blockText(c, ['text']).replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();
      if (!t) return out;
      if (o.isMeta) add(piece('assistant', t, ts, { summary: true }));
      else if (OUTPUT_TAGS.test(t)) add(piece('tool-output', t, ts));
      else add(piece('user', t, ts));
      return out;
    }
    case 'assistant': {
      const c = o.message?.content;
      if (o.message?.model === '<synthetic>') return out;
      if (typeof c === 'string') add(piece('assistant', c, ts));
      else if (Array.isArray(c)) {
        for (const b of c) {
          if (!b || typeof b !== 'object') continue;
          if (b.type === 'text') add(piece('assistant', b.text, ts));
          else if (b.type === 'thinking') add(piece('assistant', b.thinking, ts));
          else if (b.type === 'tool_use') {
            const p = toolPiece(b.name, b.input, ts);
            if (p) add([p]);
          }
        }
      }
      return out;
    }
    case 'summary':
      add(piece('assistant', o.summary, ts, { summary: true }));
      return out;
    case 'custom-title':
      add(piece('user', o.customTitle, ts, { summary: true }));
      return out;
    case 'ai-title':
      add(piece('assistant', o.aiTitle, ts, { summary: true }));
      return out;
    case 'attachment': {
      const a = o.attachment;
      if (a && a.type === 'queued_command') add(piece('user', blockText(a.prompt, ['text']), ts));
      return out;
    }
    default:
      return out;
  }
}
