// The preview text fzf shows beside the list (and `resume preview` prints). Every value from a
// transcript is redacted and stripped of control characters and escape sequences.

import { harnessColor } from '../output.js';
import type { Session } from '../types.js';
import { BOLD, colorOn, DIM, RESET } from '../util/color.js';
import { tildify } from '../util/paths.js';
import { sanitize } from '../util/redact.js';
import { oneLine, wrapWords } from '../util/text.js';
import { age, localTime } from '../util/time.js';
import { type Labelled, wrapLabelled } from './evidence.js';

/** "fork of <short id>" for a fork, else null. */
export function forkLine(s: { forkedFrom: string | null }, short: (id: string) => string): string | null {
  return s.forkedFrom ? `fork of ${short(s.forkedFrom)}` : null;
}

const clean = (s: string | null | undefined): string => (s ? sanitize(s) : '');

/**
 * Colour: on a terminal, or in the picker's preview window (fzf renders it on the terminal; the
 * picker sets RESUME_PICK_DIR), never with NO_COLOR.
 */
export function previewColor(env: NodeJS.ProcessEnv = process.env, tty = !!process.stdout.isTTY): boolean {
  return colorOn(tty || !!env.RESUME_PICK_DIR, env);
}

/**
 * The columns of the fzf preview window the text is for ($FZF_PREVIEW_COLUMNS, which fzf gives its
 * preview command), else null.
 */
export function previewColumns(env: NodeJS.ProcessEnv = process.env): number | null {
  const n = Number(env.FZF_PREVIEW_COLUMNS);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * Columns kept free at the end of the first row in an fzf preview window: fzf draws where the view
 * is (`1/23`) over that row's right end when the text is longer than the window, and a long title
 * lost its last characters under it.
 */
const INFO_ROOM = 8;

/**
 * Text of several words wrapped at spaces for the preview window, to its columns less one (fzf
 * keeps its last column for the scroll bar, and wrapped a longer line there, inside a word); as it is
 * (one line, for fzf to wrap) when the columns are not known or too few to spare.
 */
function wrapped(text: string, cols: number | null, first?: number): string[] {
  const w = wraps(cols);
  return w ? wrapWords(text, w.rest, first ?? w.first) : [text];
}

/** The widths wrapped() wraps to (null: one line each). */
const wraps = (cols: number | null) => (cols !== null && cols - INFO_ROOM >= 20 ? { first: cols - 1, rest: cols - 1 } : null);

/** How a preview is made: its time, colour, `fork of …` line, and lines to show first. */
export interface PreviewLook {
  now?: number;
  color?: boolean;
  /** the preview window's columns (previewColumns): the title's first row leaves room for fzf's scroll information */
  cols?: number | null;
  fork?: string | null;
  /** under the title: where the query's words are in the session (made safe to print by the caller) */
  found?: Labelled[];
}

export function previewText(s: Session, home: string, look: PreviewLook = {}): string {
  const { now = Date.now(), color = false, fork = null, found = [], cols = null } = look;
  const bold = (t: string) => (color ? `${BOLD}${t}${RESET}` : t);
  const dim = (t: string) => (color ? `${DIM}${t}${RESET}` : t);
  const lines: string[] = [];
  const title = clean(s.title) || clean(s.firstPrompt) || '(no prompt)';
  // (its first row leaves room for fzf's scroll information)
  lines.push(...wrapped(title, cols, cols === null ? undefined : cols - INFO_ROOM).map(bold), '');
  if (found.length) lines.push(...found.flatMap((f) => wrapLabelled(f, wraps(cols), color)), '');
  const when = s.updated ?? s.started;
  const field = (k: string, v: string) => {
    if (v) lines.push(`${dim(`${k}:`.padEnd(10))}${v}`);
  };
  if (fork) lines.push(fork, '');
  field('harness', harnessColor(s.harness, color));
  field('id', s.id);
  field('dir', clean(tildify(s.cwd, home)) || '?');
  field('branch', clean(s.branch));
  field('updated', when != null ? `${age(when, now)} ago (${localTime(when)})` : '');
  field('started', s.started != null && s.started !== when ? `${age(s.started, now)} ago (${localTime(s.started)})` : '');
  field('prompts', String(s.prompts));
  field('model', clean(s.model));
  if (s.hidden) field('hidden', s.hiddenReason ?? 'yes');
  const block = (label: string, text: string | null) => {
    const t = clean(text);
    if (!t) return;
    lines.push('', dim(`${label}:`), ...wrapped(t, cols));
  };
  block('first prompt', s.firstPrompt);
  if (s.lastPrompt && s.lastPrompt !== s.firstPrompt) block('last prompt', s.lastPrompt);
  block('last reply', s.lastReply);
  lines.push('', `${dim('file:')} ${oneLine(s.file)}`);
  return `${lines.join('\n')}\n`;
}
