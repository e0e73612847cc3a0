// Searchable text of one Gemini CLI record (formats.md §6): a JSONL line (metadata, message,
// `$set`, `$rewindTo`) or a whole legacy `.json` session document.
import path from 'node:path';
import { leaves, ms, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { BranchTracker, ExtractCtx, Piece, SearchHooks } from '../../search/types.js';
import type { Session } from '../../types.js';
import { entries } from '../../util/fsx.js';
import { bytes, firstString } from '../branches.js';

/** Gemini `PartListUnion` as text: a string, a part, or a list of parts (`text` parts only). */
function partsText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(partsText).filter(Boolean).join('\n');
  if (c && typeof c === 'object' && typeof (c as any).text === 'string') return (c as any).text;
  return '';
}

function messageText(m: any): Piece[] {
  if (!m || typeof m !== 'object') return [];
  const ts = ms(m.timestamp);
  const out: Piece[] = [];
  if (m.type === 'user') {
    // `displayContent` is what was typed; `content` may hold expanded @file contents
    out.push(...piece('user', partsText(m.displayContent ?? m.content), ts));
    if (m.displayContent != null) {
      const full = partsText(m.content);
      if (full && full !== partsText(m.displayContent)) out.push(...piece('tool-output', full, ts));
    }
  } else if (m.type === 'gemini' || m.type === 'model') {
    out.push(...piece('assistant', partsText(m.content), ts));
    if (Array.isArray(m.thoughts)) {
      for (const t of m.thoughts) out.push(...piece('assistant', [t?.subject, t?.description].filter(Boolean).join('\n'), ts));
    }
    if (Array.isArray(m.toolCalls)) {
      for (const c of m.toolCalls) {
        if (!c || typeof c !== 'object') continue;
        const tp = toolPiece(c.name, c.args, ts);
        if (tp) out.push(tp);
        const res = Array.isArray(c.result)
          ? c.result.map((r: any) => (r?.functionResponse ? leaves(r.functionResponse.response).join('\n') : outputText(r))).join('\n')
          : outputText(c.result);
        out.push(...piece('tool-output', res || (typeof c.resultDisplay === 'string' ? c.resultDisplay : ''), ts));
      }
    }
  }
  return out;
}

export function geminiText(o: any, _cx: ExtractCtx): Piece[] {
  if (!o || typeof o !== 'object') return [];
  // legacy whole-file session, or a `$set` that replaces the whole history
  const msgs = Array.isArray(o.messages) ? o.messages : o.$set && Array.isArray(o.$set.messages) ? o.$set.messages : null;
  if (msgs) {
    const out: Piece[] = [];
    for (const m of msgs) out.push(...messageText(m));
    if (typeof o.summary === 'string') out.push(...piece('assistant', o.summary, null, { summary: true }));
    return out;
  }
  if (o.$set && typeof o.$set === 'object') {
    return typeof o.$set.summary === 'string' ? piece('assistant', o.$set.summary, null, { summary: true }) : [];
  }
  if (typeof o.type === 'string' && 'id' in o) return messageText(o);
  return [];
}

// ---------------------------------------------------------------------------------------------
// Search hooks

/** Subagent chats: `chats/<parentSessionId>/*.jsonl|json` beside the session. */
function children(s: Session): string[] {
  const sub = path.join(path.dirname(s.file), s.id);
  return entries(sub)
    .filter((d) => d.name.endsWith('.jsonl') || d.name.endsWith('.json'))
    .map((d) => path.join(sub, d.name));
}

/**
 * Messages a `{"$rewindTo": id}` dropped (that message and every later one) and that did not come
 * back. A `$set` with `messages` replaces the history (a checkpoint after compression): what it
 * leaves out was condensed, not abandoned.
 */
const K_ID = bytes('"id":"');
const K_TYPE = bytes('"type":"');

function branches(): BranchTracker {
  let live: string[] = [];
  let at = new Map<string, number>();
  const dropped = new Set<string>();
  return {
    visit(line, parse) {
      let o: any;
      if (line[0] === 0x7b && line[1] === 0x22 && line[2] === 0x24)
        o = parse(); // {"$rewindTo" / {"$set"
      else {
        // a message: Gemini CLI writes its `id` first
        const id = firstString(line, K_ID);
        o = id != null && line.indexOf(K_TYPE) >= 0 ? { id, type: 'message' } : null;
      }
      if (!o || typeof o !== 'object') return;
      if (typeof o.$rewindTo === 'string') {
        const i = at.get(o.$rewindTo);
        if (i != null) {
          for (const id of live.slice(i)) {
            dropped.add(id);
            at.delete(id);
          }
          live = live.slice(0, i);
        }
        return;
      }
      if (o.$set && Array.isArray(o.$set.messages)) {
        live = o.$set.messages.map((m: any) => m?.id).filter((x: unknown): x is string => typeof x === 'string');
        at = new Map(live.map((id, i) => [id, i]));
        return;
      }
      if (typeof o.id === 'string' && typeof o.type === 'string' && !at.has(o.id)) {
        at.set(o.id, live.length);
        live.push(o.id);
      }
    },
    result() {
      for (const id of live) dropped.delete(id);
      return dropped;
    },
  };
}

export const search: SearchHooks = {
  children,
  recordId: (o) => (o && typeof o.id === 'string' && typeof o.type === 'string' ? o.id : null),
  branches,
};
