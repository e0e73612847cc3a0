// Searchable text of one opencode part (formats.md §5). A record is `{role, part}`: the part's JSON
// (`part.data` in the v1.2 database, a `part/<msg>/<id>.json` file before) and its message's role.
import fs from 'node:fs';
import path from 'node:path';
import { ms, outputText, piece, toolPiece } from '../../search/extract-util.js';
import type { ExtractCtx, Piece, ScanIO, SearchHooks } from '../../search/types.js';
import type { Session } from '../../types.js';
import { entries } from '../../util/fsx.js';
import { obj, type Rec } from '../jsonl.js';
import { columns, type Db } from '../sqlite.js';

/**
 * opencode 2.x: one `session_message` entry (`{type, entry}`: the row's type and its JSON data);
 * `copied` for a fork's entries up to its boundary (the parent's, copied).
 */
function entryText(type: unknown, v: unknown, copied: boolean): Piece[] {
  const e = obj(v);
  if (!e) return [];
  const ts = ms(obj(e.time)?.created);
  const out: Piece[] = [];
  switch (type) {
    case 'user':
      out.push(...piece('user', e.text, ts));
      break;
    case 'assistant':
      for (const c of Array.isArray(e.content) ? e.content : []) out.push(...contentText(obj(c), ts));
      break;
    case 'shell':
      out.push(...piece('tool-call', typeof e.command === 'string' ? `shell ${e.command}` : '', ts));
      out.push(...piece('tool-output', e.output, ts));
      break;
    case 'synthetic':
      out.push(...piece('tool-output', e.text, ts));
      break;
    case 'compaction':
      out.push(...piece('assistant', e.summary, ts, { summary: true }));
      break;
  }
  return copied ? out.map((p) => ({ ...p, copied: true })) : out;
}

/** One content item of a 2.x assistant entry. */
function contentText(c: Rec | null, ts: number | null): Piece[] {
  if (!c) return [];
  if (c.type === 'text' && !c.ignored) return piece(c.synthetic ? 'tool-output' : 'assistant', c.text, ts);
  if (c.type === 'reasoning') return piece('assistant', c.text, ts);
  if (c.type !== 'tool') return [];
  const state = obj(c.state);
  const out: Piece[] = [];
  const tp = toolPiece(c.name, state?.input, ts);
  if (tp) out.push(tp);
  out.push(...piece('tool-output', outputText(state?.content ?? state?.result ?? state?.error), ts));
  return out;
}

export function opencodeText(v: unknown, _cx: ExtractCtx): Piece[] {
  const o = obj(v);
  if (!o) return [];
  if ('entry' in o) return entryText(o.type, o.entry, !!o.copied);
  const p = obj(o.part);
  if (!p) return [];
  const role = o.role === 'user' ? 'user' : 'assistant';
  const time = obj(p.time);
  const ts = ms(time?.start ?? time?.created ?? o.ts);
  return partText(p, role, ts, !!o.summary);
}

/** One part (v1.2 and before), of a message of `role`. */
function partText(p: Rec, role: 'user' | 'assistant', ts: number | null, summary: boolean): Piece[] {
  switch (p.type) {
    case 'text':
      if (p.ignored) return [];
      // synthetic parts are injected file contents and notes, not what anyone typed
      if (p.synthetic) return piece('tool-output', p.text, ts);
      return piece(role, p.text, ts, summary ? { summary: true } : {});
    case 'reasoning':
      return piece('assistant', p.text, ts);
    case 'tool': {
      const state = obj(p.state);
      const out: Piece[] = [];
      const tp = toolPiece(p.tool, state?.input, ts);
      if (tp) out.push(tp);
      out.push(...piece('tool-output', outputText(state?.output ?? state?.error), ts));
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

// ---------------------------------------------------------------------------------------------
// Search hooks: opencode keeps no transcript file

/** 2.x: the `session_message` entries of one session (a fork's up to its `fork_boundary` are copies). */
function scanEntries(s: Session, d: Db, io: ScanIO, emit: (p: Piece, file: string) => void): void {
  const mc = columns(d, 'session_message');
  if (!['session_id', 'type', 'seq', 'data'].every((c) => mc.has(c))) return;
  const sc = columns(d, 'session_v2');
  const boundary =
    sc.has('id') && sc.has('fork_boundary')
      ? ((d.prepare('SELECT fork_boundary AS b FROM session_v2 WHERE id = ?').get(s.id) as { b: unknown } | undefined)?.b ?? null)
      : null;
  const f = io.sqlFilter('data');
  const rows = d.prepare(`SELECT type, seq, data FROM session_message WHERE session_id = ?${f.sql} ORDER BY seq`).all(s.id, ...f.args) as {
    type: unknown;
    seq: unknown;
    data: string;
  }[];
  const ecx: ExtractCtx = { first: false, st: {} };
  for (const r of rows) {
    let entry: unknown;
    try {
      entry = JSON.parse(r.data);
    } catch {
      continue;
    }
    const copied = typeof boundary === 'number' && typeof r.seq === 'number' && r.seq <= boundary;
    for (const p of opencodeText({ type: r.type, entry, copied }, ecx)) emit(p, s.file);
  }
}

/** v1.2+: the parts of one session in the database, with their message's role; 2.x: its entries too. */
function scanDb(s: Session, io: ScanIO, emit: (p: Piece, file: string) => void): void {
  const d = io.db(s.file);
  if (!d) return;
  scanEntries(s, d, io, emit);
  const pc = columns(d, 'part');
  if (!pc.has('session_id') || !pc.has('data')) {
    io.counted();
    return;
  }
  const f = io.sqlFilter('p.data');
  const rows = d
    .prepare(
      `SELECT p.data AS part, m.data AS msg FROM part p LEFT JOIN message m ON m.id = p.message_id WHERE p.session_id = ?${f.sql} ORDER BY p.id`,
    )
    .all(s.id, ...f.args) as { part: string; msg: string | null }[];
  const ecx: ExtractCtx = { first: false, st: {} };
  for (const r of rows) {
    let part: unknown;
    let msg: Rec | null = null;
    try {
      part = JSON.parse(r.part);
      msg = r.msg ? obj(JSON.parse(r.msg)) : null;
    } catch {
      continue;
    }
    for (const p of opencodeText({ part, role: msg?.role, summary: msg?.summary === true }, ecx)) emit(p, s.file);
  }
  io.counted();
}

/** before v1.2: storage/session/<project>/<id>.json, message/<id>/*.json, part/<msg>/*.json */
function scanLegacy(s: Session, io: ScanIO, emit: (p: Piece, file: string) => void): void {
  const storage = path.dirname(path.dirname(path.dirname(s.file)));
  const mdir = path.join(storage, 'message', s.id);
  const ecx: ExtractCtx = { first: false, st: {} };
  const msgs = entries(mdir)
    .filter((d) => d.name.endsWith('.json'))
    .map((d) => d.name)
    .sort();
  for (const mf of msgs) {
    let msg: Rec | null;
    try {
      msg = obj(JSON.parse(fs.readFileSync(path.join(mdir, mf), 'utf8')));
    } catch {
      continue;
    }
    const mid = typeof msg?.id === 'string' ? msg.id : mf.replace(/\.json$/, '');
    const pdir = path.join(storage, 'part', mid);
    for (const pf of entries(pdir)
      .filter((d) => d.name.endsWith('.json'))
      .map((d) => d.name)
      .sort()) {
      let part: unknown;
      try {
        part = io.readDoc(path.join(pdir, pf));
      } catch {
        continue;
      }
      if (part === undefined) continue;
      for (const p of opencodeText({ part, role: msg?.role, summary: msg?.summary === true }, ecx)) emit(p, s.file);
    }
  }
}

export const search: SearchHooks = {
  scan(s, io, emit) {
    if (/\.db$/.test(s.file)) scanDb(s, io, emit);
    else if (s.file.endsWith('.json')) scanLegacy(s, io, emit);
    else return false;
    return true;
  },
};
