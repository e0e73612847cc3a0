// Searchable text of one Cursor CLI record (formats.md §4): a transcript JSONL line
// (`{role, message:{content:[…]}}`, Anthropic-style blocks) or a `store.db` message blob
// (`{role, content:[text|reasoning|tool-call|tool-result]}`, Vercel AI SDK shape).
import path from 'node:path';
import { ms, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { ExtractCtx, Piece, ScanIO, SearchHooks } from '../../search/types.js';
import type { Session } from '../../types.js';
import { entries } from '../../util/fsx.js';
import { obj, type Rec } from '../jsonl.js';
import { cursorPromptText } from './index.js';

export function cursorText(v: unknown, _cx: ExtractCtx): Piece[] {
  const o = obj(v);
  if (!o) return [];
  const role = o.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'tool') return [];
  const m = obj(o.message);
  const content = m ? m.content : o.content;
  const ts = ms(o.timestamp);
  const out: Piece[] = [];
  const blocks: unknown[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
  for (const x of blocks) {
    const b = obj(x);
    if (b) out.push(...blockPieces(role, b, ts));
  }
  return out;
}

/** One content block's pieces, by its type (transcript and store.db names). */
function blockPieces(role: 'user' | 'assistant' | 'tool', b: Rec, ts: number | null): Piece[] {
  switch (b.type) {
    case 'text':
      if (role === 'user') return piece('user', cursorPromptText(String(b.text ?? '')), ts);
      if (role === 'assistant') return b.text !== '[REDACTED]' ? piece('assistant', b.text, ts) : [];
      return piece('tool-output', b.text, ts);
    case 'thinking':
    case 'reasoning':
      return b.text !== '[REDACTED]' && b.thinking !== '[REDACTED]' ? piece('assistant', b.thinking ?? b.text, ts) : [];
    case 'tool_use':
    case 'tool-call': {
      const tp = toolPiece(b.name ?? b.toolName, b.input ?? b.args, ts);
      return tp ? [tp] : [];
    }
    case 'tool_result':
    case 'tool-result':
      return piece('tool-output', outputText(b.content ?? b.output ?? b.result), ts);
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------
// Search hooks

/** Subagent transcripts: `agent-transcripts/<parentId>/subagents/*.jsonl|txt`. */
function children(s: Session): string[] {
  if (!/\.(jsonl|txt)$/.test(s.file)) return [];
  const sub = path.join(path.dirname(s.file), 'subagents');
  return entries(sub)
    .filter((d) => d.name.endsWith('.jsonl') || d.name.endsWith('.txt'))
    .map((d) => path.join(sub, d.name));
}

/** `store.db` without a transcript: JSON message blobs (encrypted blobs do not parse and are skipped). */
function scan(s: Session, io: ScanIO, emit: (p: Piece, file: string) => void): boolean {
  if (!/\.db$/.test(s.file)) return false;
  const d = io.db(s.file);
  if (!d) return true;
  const f = io.sqlFilter('CAST(data AS TEXT)');
  const rows = d.prepare(`SELECT data FROM blobs WHERE 1${f.sql}`).all(...f.args) as { data: Buffer | string }[];
  const ecx: ExtractCtx = { first: false, st: {} };
  for (const r of rows) {
    const t = typeof r.data === 'string' ? r.data : Buffer.from(r.data).toString('utf8');
    if (!t.startsWith('{')) continue;
    let o: unknown;
    try {
      o = JSON.parse(t);
    } catch {
      continue;
    }
    for (const p of cursorText(o, ecx)) emit(p, s.file);
  }
  io.counted();
  return true;
}

export const search: SearchHooks = { children, scan };
