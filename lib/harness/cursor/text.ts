// Searchable text of one Cursor CLI record (formats.md §4): a transcript JSONL line
// (`{role, message:{content:[…]}}`, Anthropic-style blocks) or a `store.db` message blob
// (`{role, content:[text|reasoning|tool-call|tool-result]}`, Vercel AI SDK shape).
import path from 'node:path';
import { ms, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { ExtractCtx, Piece, ScanIO, SearchHooks } from '../../search/types.js';
import type { Session } from '../../types.js';
import { entries } from '../../util/fsx.js';
import { cursorPromptText } from './index.js';

export function cursorText(o: any, _cx: ExtractCtx): Piece[] {
  if (!o || typeof o !== 'object') return [];
  const role = o.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'tool') return [];
  const content = o.message && typeof o.message === 'object' ? o.message.content : o.content;
  const ts = ms(o.timestamp);
  const out: Piece[] = [];
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
  for (const b of blocks) {
    if (!b || typeof b !== 'object') continue;
    switch (b.type) {
      case 'text':
        if (role === 'user') out.push(...piece('user', cursorPromptText(String(b.text ?? '')), ts));
        else if (role === 'assistant' && b.text !== '[REDACTED]') out.push(...piece('assistant', b.text, ts));
        else if (role === 'tool') out.push(...piece('tool-output', b.text, ts));
        break;
      case 'thinking':
      case 'reasoning':
        if (b.text !== '[REDACTED]' && b.thinking !== '[REDACTED]') out.push(...piece('assistant', b.thinking ?? b.text, ts));
        break;
      case 'tool_use':
      case 'tool-call': {
        const tp = toolPiece(b.name ?? b.toolName, b.input ?? b.args, ts);
        if (tp) out.push(tp);
        break;
      }
      case 'tool_result':
      case 'tool-result':
        out.push(...piece('tool-output', outputText(b.content ?? b.output ?? b.result), ts));
        break;
    }
  }
  return out;
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
