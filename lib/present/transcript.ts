// The whole transcript of one session as readable text, for the picker's pager key: every turn in
// order (prompts, replies, tool calls, clipped tool output), read with the deep-search extractors so
// every harness format is understood. Secrets are redacted and control characters removed: nothing
// from a transcript reaches the terminal raw.
import fs from 'node:fs';
import { label } from '../output.js';
import { EXTRACTORS, rawHeads } from '../search/registry.js';
import { LINE_FIRST, scanFile } from '../search/scan.js';
import type { ExtractCtx, Piece } from '../search/types.js';
import type { Session } from '../types.js';
import { readText } from '../util/fsx.js';
import { tildify } from '../util/paths.js';
import { sanitizeText } from '../util/redact.js';
import { oneLine, wrapWords } from '../util/text.js';
import { localTime } from '../util/time.js';

const WHOLE_CAP = 64 << 20;
const TOOL_CLIP = 2000;

/** The pieces of a session's own transcript file, in order; null when it is not a file we can read whole. */
export function transcriptPieces(s: Session): Piece[] | null {
  const f = s.file;
  if (/\.(db|sqlite)$/.test(f)) return null;
  const ex = EXTRACTORS[s.harness];
  const out: Piece[] = [];
  if (f.endsWith('.json')) {
    if (s.harness === 'opencode' || s.harness === 'kilo') return null; // legacy storage tree: one file per message part
    const st = fs.statSync(f);
    if (st.size > WHOLE_CAP) return null;
    let doc: unknown;
    try {
      doc = JSON.parse(readText(f));
    } catch {
      return null;
    }
    return ex(doc, { first: true, st: {} });
  }
  const cx: ExtractCtx = { first: false, st: {} };
  scanFile(
    f,
    [],
    {
      line(buf, start, end, _at, kind) {
        let o: unknown;
        try {
          o = JSON.parse(buf.toString('utf8', start, end));
        } catch {
          return;
        }
        cx.first = (kind & LINE_FIRST) !== 0;
        for (const p of ex(o, cx)) out.push(p);
      },
      raw() {
        /* lines too long to decode are left out */
      },
    },
    rawHeads(s.harness),
  );
  return out;
}

const ROLE: Record<Piece['role'], string> = {
  user: 'user',
  assistant: 'assistant',
  'tool-call': 'tool call',
  'tool-output': 'tool output',
  task: 'task',
  metadata: 'metadata',
};

const clean = (t: string) =>
  sanitizeText(t)
    .replace(/[ \t]+$/gm, '')
    .trim();

/** The turns whose text is prose, wrapped on a terminal; tool calls and output are code and logs, left as written. */
const PROSE: ReadonlySet<Piece['role']> = new Set(['user', 'assistant', 'task', 'metadata']);

/**
 * Prose wrapped at spaces to `cols` columns (a pager wraps at its last column, inside words):
 * every line but a fence (```), those inside one, and those that start with a blank (indented
 * code, a nested list's body) or a `|` (a table's row), which are kept as written.
 */
export function wrapProse(text: string, cols: number): string {
  let fenced = false;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const fence = /^\s*(```|~~~)/.test(line);
    if (fence) fenced = !fenced;
    if (fence || fenced || /^[ \t|]/.test(line)) out.push(line);
    else out.push(...wrapWords(line, cols));
  }
  return out.join('\n');
}

/** `cols`: the terminal's width, the prose turns wrapped to it (null: each line whole). */
export function renderTranscript(s: Session, pieces: Piece[] | null, home: string, cols: number | null = null): string {
  const head = [
    clean(label(s)),
    `${s.harness} · ${oneLine(tildify(s.cwd, home) || '?')}${s.branch ? ` · ${oneLine(s.branch)}` : ''} · ${s.prompts} prompt${s.prompts === 1 ? '' : 's'}`,
    oneLine(s.file),
    '',
  ];
  const w = cols !== null && cols >= 20 ? cols : null;
  if (!pieces) return `${[...head, ...indexedText(s, w)].join('\n')}\n`;
  const body = turnsText(pieces, w);
  if (body.length === 0) body.push('(no turns in this transcript)');
  return `${[...head, ...body].join('\n')}\n`;
}

/** A session kept in a database, not a transcript file: what the index knows of it. */
function indexedText(s: Session, cols: number | null): string[] {
  const out = ['This session is kept in a database, not a transcript file; what the index knows:', ''];
  for (const [k, v] of [
    ['first prompt', s.firstPrompt],
    ['last prompt', s.lastPrompt],
    ['last reply', s.lastReply],
  ] as const) {
    if (v) out.push(`── ${k} ──`, cols === null ? clean(v) : wrapProse(clean(v), cols), '');
  }
  return out;
}

/** The turns of a transcript, each under a rule naming its role, its tags and its time. */
function turnsText(pieces: Piece[], cols: number | null): string[] {
  const body: string[] = [];
  let prev = '';
  for (const p of pieces) {
    let t = clean(p.text);
    if (!t) continue;
    // Some harnesses record a turn twice (an event and the message itself): show it once.
    if (`${p.role}\n${t}` === prev) continue;
    prev = `${p.role}\n${t}`;
    if (p.role === 'tool-output' && t.length > TOOL_CLIP) t = `${t.slice(0, TOOL_CLIP)}\n… (${t.length - TOOL_CLIP} more characters)`;
    const when = p.ts != null ? ` · ${localTime(p.ts)}` : '';
    const tags = [p.summary ? 'summary' : '', p.copied ? 'copied' : ''].filter(Boolean).join(', ');
    body.push(`── ${ROLE[p.role]}${tags ? ` (${tags})` : ''}${when} ──`, cols !== null && PROSE.has(p.role) ? wrapProse(t, cols) : t, '');
  }
  return body;
}
