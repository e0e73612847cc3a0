// Helpers the per-harness text extractors share.

import { toMs } from '../util/time.js';
import type { Piece, Role } from './types.js';

/** Tools that write or edit files (by name, across harnesses). */
export const WRITE_TOOL =
  /^(write|edit|multiedit|multi_edit|notebookedit|str_replace|strreplace|str_replace_based_edit_tool|apply_patch|applypatch|patch|write_file|writefile|replace|create_file|createfile|edit_file|editfile|search_replace|delete_file|file_write|file_edit)$/i;
/** Tools that delegate a task to another agent. */
export const TASK_TOOL = /^(task|agent|spawn_agent|delegate|delegate_to_agent|subagent|run_subagent|dispatch_agent|new_task)$/i;

/** Every string leaf of a value, newline-joined (keys left out); numbers and booleans are skipped. */
export function leaves(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 8 || v == null) return out;
  if (typeof v === 'string') {
    if (v) out.push(v);
  } else if (Array.isArray(v)) {
    for (const x of v) leaves(x, out, depth + 1);
  } else if (typeof v === 'object') {
    for (const x of Object.values(v as object)) leaves(x, out, depth + 1);
  }
  return out;
}

/** A JSON string holding arguments (Codex `arguments`) decoded when it is JSON, else kept. */
export function argsValue(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch {
      return v;
    }
  }
  return v;
}

/** A tool call as one piece (a delegation becomes a `task` piece: its prompt is the text). */
export function toolPiece(name: unknown, input: unknown, ts: number | null | undefined): Piece | null {
  const n = typeof name === 'string' ? name : '';
  const val = argsValue(input);
  if (TASK_TOOL.test(n) && val && typeof val === 'object') {
    const o = val as Record<string, unknown>;
    const prompt = [o.prompt, o.message, o.task, o.description, o.objective].filter((x) => typeof x === 'string' && x).join('\n');
    if (prompt) return { role: 'task', text: prompt, ts };
  }
  const text = leaves(val).join('\n');
  if (!text && !n) return null;
  return { role: 'tool-call', text: n ? `${n} ${text}` : text, ts, write: WRITE_TOOL.test(n) };
}

/** Text of `{type:'text', text}` style blocks (and plain strings) in a content value. */
export { textOf as blockText } from '../harness/jsonl.js';

/** Tool output of any shape as text (images and other binary blobs are left out). */
export function outputText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(outputText).filter(Boolean).join('\n');
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.type === 'image' || o.type === 'input_image' || o.type === 'inlineData' || o.inlineData) return '';
    if (typeof o.text === 'string') return o.text;
    if ('content' in o) return outputText(o.content);
    if ('output' in o) return outputText(o.output);
    return leaves(o).join('\n');
  }
  return '';
}

export function piece(role: Role, text: unknown, ts?: number | null, extra: Partial<Piece> = {}): Piece[] {
  if (typeof text !== 'string' || !text.trim()) return [];
  return [{ role, text, ts: ts ?? null, ...extra }];
}

export const ms = toMs;

/**
 * Whether a JSONL line is a record of tool output, from its bytes: one of `markers` (an object
 * key and the start of its value, e.g. `"payload":{"type":"function_call_output"`) lies within the
 * line's first `head` bytes with no object or array opened before it, so it is a key of the record
 * itself (inside a string those bytes would be escaped), and `type` (e.g. `"type":"response_item"`)
 * is a key of the record before it. For a harness's `outputOnly` hook: true only where the
 * record's decoded text is tool output alone; any other layout is decoded as usual. pi and Codex
 * write the marker within ~150 bytes; Claude Code after the directory, so further in.
 */
export function outputRecord(line: Buffer, type: Buffer, markers: Buffer[], head = 1 << 10): boolean {
  return outputMarkerEnd(line, type, markers, head) >= 0;
}

/** outputRecord's test, giving where the marker found ends in the line (-1: not such a record). */
export function outputMarkerEnd(line: Buffer, type: Buffer, markers: Buffer[], head = 1 << 10): number {
  if (line[0] !== 0x7b) return -1;
  const h = line.length > head ? line.subarray(0, head) : line;
  let i = -1;
  let m: Buffer | undefined;
  for (m of markers) {
    i = h.indexOf(m);
    if (i > 0) break;
  }
  if (i <= 0) return -1;
  for (let j = 1; j < i; j++) if (line[j] === 0x7b || line[j] === 0x5b) return -1;
  const t = h.indexOf(type);
  return t > 0 && t < i && (line[t - 1] === 0x7b || line[t - 1] === 0x2c) ? i + (m?.length ?? 0) : -1;
}
