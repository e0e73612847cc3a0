// How a search's evidence reads, in `resume search` and in the picker's preview during deep search:
// what the text was (a prompt, a reply, …) and where it lies when not in the session's own live
// transcript.
import type { Evidence } from '../search/search.js';
import { marked } from '../search/snippet.js';
import { DIM, EVIDENCE, RESET } from '../util/color.js';
import { wrapWords } from '../util/text.js';

const ROLE_LABEL: Record<Evidence['role'], string> = {
  user: 'prompt',
  assistant: 'reply',
  'tool-call': 'tool call',
  'tool-output': 'tool output',
  task: 'task',
  metadata: 'metadata',
};

/** `prompt`, `reply (subagent)`, `prompt (prompt history)`, `tool output (abandoned branch)`, … */
export function evidenceTag(e: Evidence): string {
  return (
    ROLE_LABEL[e.role] +
    (e.via ? ` (${e.via})` : '') +
    (e.copied ? ' (copied)' : '') +
    (e.child ? ' (subagent)' : '') +
    (e.abandoned ? ' (abandoned branch)' : '')
  );
}

/** A labelled line of found text: `prompt: … webhook …`, with the places to paint in the text. */
export interface Labelled {
  /** `prompt`, `reply (subagent)`: shown dim, before a colon */
  label: string;
  text: string;
  /** [start, end) of each place in `text` to paint with `paint` (in order, apart) */
  marks: [number, number][];
  paint: string;
}

/** A piece of evidence as a Labelled line: its marks painted with colour on, else «» in its text. */
export function labelledEvidence(e: Evidence, color: boolean): Labelled {
  const label = evidenceTag(e);
  return color
    ? { label, text: e.snippet.text, marks: e.snippet.marks, paint: EVIDENCE }
    : { label, text: marked(e.snippet, false), marks: [], paint: '' };
}

/**
 * `label: text` wrapped at spaces (wrapWords: the first line at most `wrap.first` columns, the
 * rest `wrap.rest`; one line when `wrap` is null), its label dim and its marks painted with colour
 * on: a terminal wraps a long line at its last column, inside a word.
 */
export function wrapLabelled(f: Labelled, wrap: { first: number; rest: number } | null, color: boolean): string[] {
  const head = `${f.label}:`;
  const line = `${head} ${f.text}`;
  const at = head.length + 1;
  const out: string[] = [];
  let pos = 0;
  for (const part of wrap ? wrapWords(line, wrap.rest, wrap.first) : [line]) {
    // (a part is the line from its place on, less the spaces it was broken at)
    const start = line.indexOf(part, pos);
    const end = start + part.length;
    pos = end;
    if (!color) {
      out.push(part);
      continue;
    }
    let text = '';
    let i = start;
    const put = (to: number, style: string | null) => {
      if (to <= i) return;
      text += style ? style + line.slice(i, to) + RESET : line.slice(i, to);
      i = to;
    };
    if (start < head.length) put(Math.min(end, head.length), DIM);
    for (const [a, b] of f.marks) {
      if (b + at <= i) continue;
      if (a + at >= end) break;
      put(Math.max(i, a + at), null);
      put(Math.min(end, b + at), f.paint);
    }
    put(end, null);
    out.push(text);
  }
  return out;
}
