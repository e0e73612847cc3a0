// Searchable text of one Gemini CLI record (formats.md §6): a JSONL line (metadata, message,
// `$set`, `$rewindTo`) or a whole legacy `.json` session document.
import path from 'node:path';
import { leaves, ms, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { BranchTracker, ExtractCtx, Piece, SearchHooks } from '../../search/types.js';
import type { Session } from '../../types.js';
import { entries } from '../../util/fsx.js';
import { bytes, firstString } from '../branches.js';
import { obj, type Rec } from '../jsonl.js';

/** Gemini `PartListUnion` as text: a string, a part, or a list of parts (`text` parts only). */
function partsText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(partsText).filter(Boolean).join('\n');
  const text = obj(c)?.text;
  return typeof text === 'string' ? text : '';
}

function messageText(v: unknown): Piece[] {
  const m = obj(v);
  if (!m) return [];
  const ts = ms(m.timestamp);
  if (m.type === 'user') return userPieces(m, ts);
  if (m.type === 'gemini' || m.type === 'model') return modelPieces(m, ts);
  return [];
}

function userPieces(m: Rec, ts: number | null): Piece[] {
  // `displayContent` is what was typed; `content` may hold expanded @file contents
  const out = [...piece('user', partsText(m.displayContent ?? m.content), ts)];
  if (m.displayContent != null) {
    const full = partsText(m.content);
    if (full && full !== partsText(m.displayContent)) out.push(...piece('tool-output', full, ts));
  }
  return out;
}

function modelPieces(m: Rec, ts: number | null): Piece[] {
  const out = [...piece('assistant', partsText(m.content), ts)];
  if (Array.isArray(m.thoughts)) {
    for (const v of m.thoughts) {
      const t = obj(v);
      out.push(...piece('assistant', [t?.subject, t?.description].filter(Boolean).join('\n'), ts));
    }
  }
  if (Array.isArray(m.toolCalls)) {
    for (const v of m.toolCalls) {
      const c = obj(v);
      if (c) out.push(...toolCallPieces(c, ts));
    }
  }
  return out;
}

/** A tool call and its result (a list of function responses, or output). */
function toolCallPieces(c: Rec, ts: number | null): Piece[] {
  const out: Piece[] = [];
  const tp = toolPiece(c.name, c.args, ts);
  if (tp) out.push(tp);
  const res = Array.isArray(c.result)
    ? c.result
        .map((r: unknown) => {
          const fr = obj(r)?.functionResponse;
          return fr ? leaves(obj(fr)?.response).join('\n') : outputText(r);
        })
        .join('\n')
    : outputText(c.result);
  out.push(...piece('tool-output', res || (typeof c.resultDisplay === 'string' ? c.resultDisplay : ''), ts));
  return out;
}

export function geminiText(v: unknown, _cx: ExtractCtx): Piece[] {
  const o = obj(v);
  if (!o) return [];
  const set = obj(o.$set);
  // legacy whole-file session, or a `$set` that replaces the whole history
  const msgs = Array.isArray(o.messages) ? o.messages : set && Array.isArray(set.messages) ? set.messages : null;
  if (msgs) {
    const out: Piece[] = [];
    for (const m of msgs) out.push(...messageText(m));
    if (typeof o.summary === 'string') out.push(...piece('assistant', o.summary, null, { summary: true }));
    return out;
  }
  if (set) return typeof set.summary === 'string' ? piece('assistant', set.summary, null, { summary: true }) : [];
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
      let o: Rec | null;
      if (line[0] === 0x7b && line[1] === 0x22 && line[2] === 0x24)
        o = obj(parse()); // {"$rewindTo" / {"$set"
      else {
        // a message: Gemini CLI writes its `id` first
        const id = firstString(line, K_ID);
        o = id != null && line.indexOf(K_TYPE) >= 0 ? { id, type: 'message' } : null;
      }
      if (!o) return;
      const to = o.$rewindTo;
      if (typeof to === 'string') {
        const i = at.get(to);
        if (i != null) {
          for (const id of live.slice(i)) {
            dropped.add(id);
            at.delete(id);
          }
          live = live.slice(0, i);
        }
        return;
      }
      const set = obj(o.$set)?.messages;
      if (Array.isArray(set)) {
        live = set.map((m: unknown) => obj(m)?.id).filter((x: unknown): x is string => typeof x === 'string');
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
  recordId: (rec) => {
    const o = obj(rec);
    return o && typeof o.id === 'string' && typeof o.type === 'string' ? o.id : null;
  },
  branches,
};
