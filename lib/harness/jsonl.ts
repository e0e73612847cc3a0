// Helpers adapters share for tolerant, cheap JSONL parsing.
import type { Counters, LineState, SessionCore } from '../types.js';
import { promptText, rawClip } from '../util/text.js';
import { maxMs, minMs, toMs } from '../util/time.js';

/** A decoded JSON object: its values are read through the narrowing readers below (`rec`, `str`, …). */
export type Rec = Record<string, unknown>;

/** `v` when it is a JSON object (not an array), else null. */
export function rec(v: unknown): Rec | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : null;
}

/** `v` when it is an object, an array too (its keys then read as absent); null otherwise. */
export function obj(v: unknown): Rec | null {
  return v !== null && typeof v === 'object' ? (v as Rec) : null;
}

export function newCounters(): Counters {
  return { badLines: 0, hugeLines: 0, unknownTypes: {} };
}

/** A line state's counters (`begin` makes them; a state without them is a bug). */
export function countersOf(st: LineState): Counters {
  const c = st.counters;
  if (!c) throw new Error('a line state without counters (begin makes them)');
  return c;
}

/** Decode one line as a JSON object; null (counted) when it is not one. */
export function parseObject(c: Counters, buf: Buffer, start: number, end: number): Rec | null {
  if (end <= start) return null;
  const o = decodeObject(buf, start, end);
  if (!o) c.badLines++;
  return o;
}

/** Decode bytes as a JSON object; null when they are not one. */
function decodeObject(buf: Buffer, start: number, end: number): Rec | null {
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8', start, end));
  } catch {
    return null;
  }
  return v === null || typeof v !== 'object' || Array.isArray(v) ? null : (v as Rec);
}

/** A state that puts lines off to the end of their file (LineReader.settle). */
export interface Deferring {
  /** where each line put off starts in the file and its length, newest last */
  deferred?: number[];
}

/** Put a line off to the end of the file (`at`: where it starts in the file). */
export function deferLine(st: Deferring, at: number, len: number): void {
  st.deferred ??= [];
  st.deferred.push(at, len);
}

/**
 * The lines put off, newest first, each read back, decoded and given to `take` with its place among
 * them (0 the oldest), until `take` has what it needs (returns true). A line that is not a JSON object
 * (any more) is passed over, uncounted. The list is then gone from the state.
 */
export function settleDeferred(
  st: Deferring,
  read: (at: number, len: number) => Buffer | null,
  take: (o: Rec, i: number) => boolean,
): void {
  const d = st.deferred;
  if (!d) return;
  delete st.deferred;
  for (let i = d.length - 2; i >= 0; i -= 2) {
    const at = d[i];
    const len = d[i + 1];
    // pushed in pairs by deferLine, so both are there
    if (at === undefined || len === undefined) continue;
    const b = read(at, len);
    const o = b && decodeObject(b, 0, b.length);
    if (o && take(o, i / 2)) return;
  }
}

/**
 * The model and the last reply from the assistant messages put off, as decoding each in turn would
 * have set them: the newest whose model counts sets the model, the newest with text is the last
 * reply. `message`: a decoded line's assistant message, null when it is none (or one that sets
 * neither). `modelFrom`: the place among the lines put off (0 the oldest) from which a model counts
 * (an older one was replaced since: pi's model change).
 */
export function settleModelReply(
  st: Deferring & { model: string | null; lastReply: string | null },
  read: (at: number, len: number) => Buffer | null,
  message: (o: Rec) => Rec | null,
  modelFrom = 0,
): void {
  let model = false;
  let reply = false;
  settleDeferred(st, read, (o, i) => {
    const m = message(o);
    if (m) {
      const named = !model && i >= modelFrom ? str(m.model) : null;
      if (named) {
        st.model = named;
        model = true;
      }
      if (!reply) {
        const t = textOf(m.content, ['text']).trim();
        if (t) {
          st.lastReply = rawClip(t);
          reply = true;
        }
      }
    }
    return reply && (model || i <= modelFrom);
  });
}

/** `"role":"`, and the bytes after it (or after `"type":"`) that name an assistant message. */
export const B_ROLE = Buffer.from('"role":"');
export const V_ASSISTANT = Buffer.from('assistant"');

/** The position just past the first `needle` in `buf[start, end)`, or -1. */
export function after(buf: Buffer, start: number, end: number, needle: Buffer): number {
  const i = buf.subarray(start, end).indexOf(needle);
  return i < 0 ? -1 : start + i + needle.length;
}

/** Do the bytes at `at` begin with `word` (within `end`)? */
export function bytesAt(buf: Buffer, at: number, end: number, word: Buffer): boolean {
  if (at < 0 || at + word.length > end) return false;
  for (let k = 0; k < word.length; k++) if (buf[at + k] !== word[k]) return false;
  return true;
}

export function countUnknown(c: Counters, type: string): void {
  const t = type.length > 60 ? type.slice(0, 60) : type;
  c.unknownTypes[t] = (c.unknownTypes[t] ?? 0) + 1;
}

/** Does `needle` occur in the first `n` bytes of the line? (a byte-level prefilter; no decoding) */
export function headHas(buf: Buffer, start: number, end: number, needle: Buffer, n = 2048): boolean {
  // Search a bounded view: Buffer#indexOf has no end, and would run on through the whole chunk.
  return after(buf, start, Math.min(end, start + n), needle) >= 0;
}

const TS = Buffer.from('"timestamp":"');

/**
 * The value of a `"timestamp":"…"` key found near either end of a line, without decoding it.
 * Used on lines skipped for size (tool output) so activity times stay right.
 */
export function peekTimestamp(buf: Buffer, start: number, end: number, window = 1024): string | null {
  const read = (view: Buffer, i: number): string | null => {
    if (i < 0) return null;
    const s = i + TS.length;
    const q = view.indexOf(34, s); // closing quote
    if (q < 0 || q - s > 40) return null;
    const v = view.toString('latin1', s, q);
    return /^\d{4}-\d\d-\d\dT/.test(v) ? v : null;
  };
  const tail = buf.subarray(Math.max(start, end - window), end);
  const v = read(tail, tail.lastIndexOf(TS));
  if (v) return v;
  const head = buf.subarray(start, Math.min(end, start + window));
  return read(head, head.indexOf(TS));
}

/** Plain text of a content value that is a string or an array of `{type:'text', text}` blocks. */
export function textOf(content: unknown, types: string[] = ['text', 'input_text', 'output_text']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) {
    if (typeof b === 'string') parts.push(b);
    else if (b && typeof b === 'object') {
      const { type, text } = b as { type?: unknown; text?: unknown };
      if (typeof type === 'string' && types.includes(type) && typeof text === 'string') parts.push(text);
    }
  }
  return parts.join('\n');
}

export function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** A directory a session can be resumed in: an absolute path (POSIX or Windows). */
export function absolute(v: unknown): v is string {
  return typeof v === 'string' && (v.startsWith('/') || /^[A-Za-z]:[\\/]/.test(v) || v.startsWith('\\\\'));
}

/** Widen a state's `started`/`updated` span by a record's timestamp (ISO or epoch). */
export function touchTimes(st: { started: number | null; updated: number | null }, ts: unknown): void {
  const t = toMs(ts);
  if (t == null) return;
  st.started = minMs(st.started, t);
  st.updated = maxMs(st.updated, t);
}

/**
 * Widen a state's spans by a record's time: every record's (`allStarted`/`allUpdated`), and the
 * session's own (`started`/`updated`) unless the record was copied from the session it forked from.
 */
export function touchSpans(
  st: { started: number | null; updated: number | null; allStarted: number | null; allUpdated: number | null },
  ts: unknown,
  own: boolean,
): void {
  const t = toMs(ts);
  if (t == null) return;
  st.allStarted = minMs(st.allStarted, t);
  st.allUpdated = maxMs(st.allUpdated, t);
  if (own) {
    st.started = minMs(st.started, t);
    st.updated = maxMs(st.updated, t);
  }
}

/** How far `peekStr` looks: the first `window` bytes of a line, a value of at most `max` bytes. */
export interface Peek {
  window: number;
  max?: number;
  enc?: BufferEncoding;
}

/**
 * The string value right after `needle` (a `"key":"` prefix) within the first `window` bytes of a
 * line, at most `max` bytes long (200 unless told); no decoding of the rest of the line.
 */
export function peekStr(buf: Buffer, start: number, end: number, needle: Buffer, peek: Peek): string | null {
  const { window, max = 200, enc = 'utf8' } = peek;
  // search only the window (an unbounded indexOf would scan the rest of the chunk when absent)
  const s = after(buf, start, Math.min(end, start + window), needle);
  if (s < 0) return null;
  const q = buf.subarray(s, Math.min(end, s + max + 1)).indexOf(34);
  if (q < 0) return null;
  return buf.toString(enc, s, s + q);
}

/** What an adapter's state keeps of a session's own prompts and its last reply. */
export interface Talk {
  firstPrompt: string | null;
  lastPrompt: string | null;
  /** every own prompt, clipped (SessionCore.allPrompts) */
  all?: string[];
  lastReply: string | null;
  prompts: number;
}

/** Count an own prompt (already clipped with promptText). */
export function addPrompt(st: Talk, p: string): void {
  st.prompts++;
  st.firstPrompt ??= p;
  st.lastPrompt = p;
  st.all ??= [];
  st.all.push(p);
}

/** A session's prompt fields from its state; the last reply (kept raw) is folded here. */
export function talkOf(st: Talk): Pick<SessionCore, 'firstPrompt' | 'lastPrompt' | 'allPrompts' | 'lastReply' | 'prompts'> {
  return {
    firstPrompt: st.firstPrompt,
    lastPrompt: st.lastPrompt,
    allPrompts: st.all,
    lastReply: st.lastReply == null ? null : promptText(st.lastReply),
    prompts: st.prompts,
  };
}

/** A session's hidden fields from the reason it is hidden (null: listed). */
export function hiding(reason: string | null): Pick<SessionCore, 'hidden' | 'hiddenReason'> {
  return { hidden: reason != null, hiddenReason: reason };
}
