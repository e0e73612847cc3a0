// How sessions are printed: `ls --json` objects, fzf rows, tables.

import { ADAPTERS, adapter } from './harness/registry.js';
import type { Harness, Session } from './types.js';
import { colorOn, DIM, fg256, RESET } from './util/color.js';
import { tildify } from './util/paths.js';
import { clip, cut, cutDir, fitWidth, oneLine, width } from './util/text.js';
import { age, iso } from './util/time.js';

export interface JsonSession {
  harness: string;
  id: string;
  short: string;
  cwd: string | null;
  title: string | null;
  firstPrompt: string | null;
  lastPrompt: string | null;
  prompts: number;
  branch: string | null;
  model: string | null;
  started: string | null;
  updated: string | null;
  file: string;
  hidden: boolean;
  hiddenReason: string | null;
  parent: string | null;
  forkedFrom: string | null;
  live: boolean;
  pid: number | null;
  /** `env` only when the harness must be pointed at a non-default store */
  resume: { cwd: string | null; argv: string[]; env?: Record<string, string> } | null;
}

/** The fields of `ls --json` / `show --json`, for their --help. */
export const JSON_FIELDS_HELP = `
JSON fields (ls --json: an array of these; show --json: one):
  harness, id, short       harness name, full id, shortest unique id prefix
  cwd                      the directory the session started in
  title                    explicit title (custom name, AI title, summary) or null
  firstPrompt, lastPrompt  clipped to 400 characters, redacted
  prompts                  number of prompts
  branch, model            git branch and model, or null
  started, updated         ISO 8601 times, or null
  file                     the transcript (or database) the session is read from
  hidden, hiddenReason     hidden from the default listing, and why (subagent, headless, sdk, exec, archived, empty)
  parent, forkedFrom       the session this one is a worker of / was forked from, or null
  live, pid                running now, and its process id
  resume                   {cwd, argv, env?}: what resuming runs (env only for a non-default store), or null
`;

export type LaunchFn = (s: Session) => { cwd: string | null; argv: string[]; env?: Record<string, string> } | null;

export function defaultLaunch(s: Session): { cwd: string | null; argv: string[] } | null {
  const spec = adapter(s.harness).launch(s, { fork: false });
  return typeof spec === 'string' ? null : { cwd: s.cwd, argv: spec.argv };
}

const c400 = (v: string | null) => (v == null ? null : clip(oneLine(v), 400));

export function toJson(s: Session, short: string, launch: LaunchFn = defaultLaunch, live?: { pid: number } | null): JsonSession {
  return {
    harness: s.harness,
    id: s.id,
    short,
    cwd: s.cwd,
    title: c400(s.title),
    firstPrompt: c400(s.firstPrompt),
    lastPrompt: c400(s.lastPrompt),
    prompts: s.prompts,
    branch: s.branch == null ? null : oneLine(s.branch),
    model: s.model == null ? null : oneLine(s.model),
    started: iso(s.started),
    updated: iso(s.updated ?? s.started),
    file: s.file,
    hidden: s.hidden,
    hiddenReason: s.hiddenReason,
    parent: s.parent,
    forkedFrom: s.forkedFrom,
    live: !!live,
    pid: live ? live.pid : null,
    resume: launch(s),
  };
}

/** Display label of a session: its title, else its first prompt, else a placeholder. */
export function label(s: Pick<Session, 'title' | 'firstPrompt'>): string {
  return oneLine(s.title || s.firstPrompt || '') || '(no prompt)';
}

/** A completion candidate (lib/commands/complete.ts): the value the shell inserts, and what it shows beside it. */
export interface Candidate {
  value: string;
  desc: string;
}

/** A value as a column shows it: one line, tabs as spaces (fzf rows, `ls` tables and columns, candidates). */
const column = (v: string): string => oneLine(v).replace(/\t/g, ' ');

/** The most characters a candidate's description shows (clipped with `…`). */
export const CANDIDATE_WIDTH = 120;

/**
 * The most columns a candidate's directory takes: longer ones are cut from the left (`…/src/webshop`,
 * cutDir, as the picker's column is), so that the title still shows in a shell's completion menu at
 * 80 columns.
 */
export const CANDIDATE_DIR = 24;

/** The most columns of a branch a candidate shows (within its parentheses; a longer one is cut with `…`). */
export const CANDIDATE_BRANCH = 24;

/**
 * A session candidate's description as its parts: age, harness, directory (cut from the left to
 * CANDIDATE_DIR), label, `(branch)` (cut to CANDIDATE_BRANCH); '' for a part it lacks. Each part
 * one line, tabs as spaces.
 */
export function candidateParts(when: string, harness: string, dir: string, branch: string, text: string): string[] {
  return [
    column(when),
    column(harness),
    dir ? cutDir(column(dir), CANDIDATE_DIR) : '',
    column(text),
    branch ? `(${cut(column(branch), CANDIDATE_BRANCH)})` : '',
  ];
}

/**
 * The columns of the candidates' descriptions before their labels (age, harness, directory): each
 * as wide as its widest part among them, 0 where none has one (the column is left out). The
 * candidates a shell lists together line up as the picker's rows do; the branch follows the label
 * (a column of branches took what the labels need at 80 columns, as the picker leaves it out there).
 */
export type CandidateColumns = [number, number, number];

export function candidateColumns(parts: Iterable<string[]>): CandidateColumns {
  const w: CandidateColumns = [0, 0, 0];
  for (const p of parts) for (let k = 0; k < 3; k++) w[k] = Math.max(w[k], width(p[k] ?? ''));
  return w;
}

/**
 * A session's candidate: the id to insert, and its description from its parts (candidateParts):
 * age, harness and directory each padded to its column (candidateColumns), two spaces apart, the
 * label, and ` (branch)`, clipped to CANDIDATE_WIDTH characters. rowbin.ts printCandidates writes
 * the same from a record's bytes.
 */
export function candidate(value: string, parts: string[], cols: CandidateColumns): Candidate {
  let desc = '';
  for (let k = 0; k < 3; k++) if (cols[k] > 0) desc += `${parts[k] ?? ''}${' '.repeat(cols[k] - width(parts[k] ?? ''))}  `;
  desc += parts[3] ?? '';
  if (parts[4]) desc += ` ${parts[4]}`;
  return { value: column(value), desc: clip(desc.trimEnd(), CANDIDATE_WIDTH) };
}

/** One fzf row: key, then visible columns. Tabs and controls inside values become spaces. */
export function row(
  s: Pick<Session, 'key' | 'updated' | 'started' | 'harness' | 'cwd' | 'branch' | 'title' | 'firstPrompt'>,
  short: string,
  home: string,
  now: number,
): string {
  return [
    s.key.replace(/[\t\n\r]/g, ' '),
    column(short),
    age(s.updated ?? s.started, now),
    s.harness,
    column(tildify(s.cwd, home) || '?'),
    column(s.branch ?? ''),
    column(label(s)),
  ].join('\t');
}

// (lib/index/rowbin.ts takes them from here)
export { DIM, RESET };

/** Colour on this stream (lib/util/color.ts decides). */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return colorOn(!!stream.isTTY);
}

/** The harness name in its adapter's colour (xterm-256) when `on`. */
/** The picker's columns after the key (short id, age, harness, directory, branch): a wider value is kept whole and pushes only its line right. */
export const ALIGN_CAPS = [40, 4, 8, 40, 24] as const;

/**
 * One picker line from a row's fields (`resume rows` split at its tabs: key, short id, age,
 * harness, directory, branch, label) and the widths of the five padded columns (0: the column is
 * left out): the key, a tab, then the columns padded, two spaces apart, colour around the values
 * (fzf --ansi matches the plain text), trailing blanks trimmed.
 */
export function alignLine(r: string[], w: ArrayLike<number>, color: boolean): string {
  return alignLineAt(r, w, color).line;
}

/**
 * alignLine's line, and where its age column (the text, its colour and its padding) lies in it, in
 * characters: null when the line has no age column (its width 0). rows.out's aligned kind renews
 * an age there (lib/index/rowsout.ts).
 */
export function alignLineAt(r: string[], w: ArrayLike<number>, color: boolean): { line: string; age: [number, number] | null } {
  const cols: string[] = [];
  let at = (r[0] ?? '').length + 1;
  let age: [number, number] | null = null;
  for (let i = 1; i <= 5; i++) {
    if (w[i - 1] === 0) continue;
    const v = r[i] ?? '';
    let col: string;
    if (i === 2) {
      col = ageColumn(v, w[1], color);
      age = [at, at + col.length];
    } else {
      const d = w[i - 1] - width(v);
      const padding = d > 0 ? ' '.repeat(d) : '';
      col = color && i === 3 ? harnessColor(v, true) + padding : v + padding;
    }
    cols.push(col);
    at += col.length + 2;
  }
  cols.push(r.slice(6).join(' '));
  const line = `${r[0] ?? ''}\t${cols.join('  ').trimEnd()}`;
  // (the trimmed blanks of a line that ends in its age column are not the column's)
  return { line, age: age && age[1] <= line.length ? age : null };
}

/** The age column of an aligned line: the age, dim when coloured, padded to the column's width. */
export function ageColumn(v: string, w: number, color: boolean): string {
  const d = w - width(v);
  return `${color ? `${DIM}${v}${RESET}` : v}${d > 0 ? ' '.repeat(d) : ''}`;
}

export function harnessColor(h: string, on: boolean): string {
  if (!on) return h;
  const c = ADAPTERS.find((a) => a.name === h)?.color;
  return `${c === undefined ? '' : fg256(c)}${h}${RESET}`;
}

/**
 * What `resume ls` shows of a session. It comes from the listing (lsRow) or, when nothing changed,
 * from the rendered rows (lib/index/rowbin.ts lsRows), which give the same values.
 */
export interface LsRow {
  short: string;
  /** updated, else started (ms since the epoch); null when unknown */
  time: number | null;
  harness: Harness;
  cwd: string | null;
  branch: string | null;
  prompts: number;
  /** the session's label (title, else first prompt, else a placeholder), on one line */
  label: string;
  hidden: boolean;
  hiddenReason: string | null;
}

export function lsRow(
  s: Pick<Session, 'harness' | 'cwd' | 'branch' | 'prompts' | 'title' | 'firstPrompt' | 'updated' | 'started' | 'hidden' | 'hiddenReason'>,
  short: string,
): LsRow {
  return {
    short,
    time: s.updated ?? s.started,
    harness: s.harness,
    cwd: s.cwd,
    branch: s.branch,
    prompts: s.prompts,
    label: label(s),
    hidden: s.hidden,
    hiddenReason: s.hiddenReason,
  };
}

/**
 * The header row of `ls` on a terminal, one name per column of `table`. The prompts column is
 * headed `#` where PROMPTS would leave the directory and title less than WIDE_REST columns: the
 * name would widen a column of one or two digits by five, taken from the title.
 */
export const TABLE_HEADER = {
  short: 'ID',
  age: 'AGE',
  harness: 'HARNESS',
  dir: 'DIRECTORY',
  branch: 'BRANCH',
  prompts: 'PROMPTS',
  title: 'TITLE',
} as const;
const NARROW_PROMPTS = '#';
/** The title keeps at least this many columns before a branch column is given any. */
const TITLE_MIN = 36;

/**
 * The branch column's width, in the picker and in `ls`'s table: what it wants, out of the columns
 * `left` for it and the title past the title's TITLE_MIN; none when that gives it fewer than 8 (or
 * fewer than it wants, when it wants fewer).
 */
export function branchWidth(want: number, left: number): number {
  const w = Math.min(want, Math.max(0, left - TITLE_MIN));
  return w < Math.min(8, want) ? 0 : w;
}
const WIDE_REST = 60;
/** The columns `ls`'s title keeps in a narrow terminal before the directory gives up its own. */
const NARROW_TITLE = 10;

/**
 * A table sized to the terminal: short id, age, harness, directory, branch, prompts, title, under a
 * header row (dim when coloured) whose names each column is at least as wide as. No rows, no header.
 */
export function table(list: LsRow[], home: string, now: number, cols: number, color: boolean): string[] {
  // (tabs become spaces: a tab would break the columns)
  const rows = list.map((s) => ({
    short: column(s.short),
    age: age(s.time, now),
    harness: s.harness,
    dir: column(tildify(s.cwd, home) || '?'),
    branch: column(s.branch ?? ''),
    title: column(s.label),
    prompts: String(s.prompts),
  }));
  if (!rows.length) return [];
  let wShort = 0,
    wAge = 3,
    wH = 0,
    wP = 1,
    wB = 0,
    wDirAll = 0;
  for (const r of rows) {
    wShort = Math.max(wShort, width(r.short));
    wAge = Math.max(wAge, width(r.age));
    wH = Math.max(wH, width(r.harness));
    wP = Math.max(wP, r.prompts.length);
    wB = Math.max(wB, width(r.branch));
    wDirAll = Math.max(wDirAll, width(r.dir));
  }
  // (each column at least as wide as its name in the header; no branch column when no row has one)
  const H0 = TABLE_HEADER;
  wShort = Math.max(H0.short.length, Math.min(40, wShort));
  wAge = Math.max(H0.age.length, Math.min(4, wAge));
  wH = Math.max(H0.harness.length, Math.min(8, wH));
  wP = Math.min(5, wP);
  wB = wB > 0 ? Math.max(H0.branch.length, Math.min(20, wB)) : 0;
  const wide = cols - (wShort + wAge + wH + Math.max(wP, H0.prompts.length) + wB + 6 * 2) >= WIDE_REST;
  const H = wide ? H0 : { ...H0, prompts: NARROW_PROMPTS };
  wP = Math.max(H.prompts.length, wP);
  const fixed = wShort + wAge + wH + wP + 5 * 2;
  const rest = Math.max(0, cols - fixed);
  // the directory: what it needs, up to 40% of what is left (at least 12); in a narrow terminal it
  // gives up columns, down to its name's width, before the title keeps fewer than NARROW_TITLE
  // (`rest` had a floor of 20: the demo at 50 columns has 19, and every row was a column too wide
  // and wrapped onto a second line)
  const wDir = Math.max(H.dir.length, Math.min(wDirAll, 60, Math.max(12, Math.floor(rest * 0.4)), rest - NARROW_TITLE));
  // the branch as in the picker (its header's width at least); the title takes the rest
  const b = branchWidth(wB, rest - wDir - 2);
  wB = b && Math.max(H.branch.length, b);
  const wTitle = Math.max(8, rest - wDir - (wB > 0 ? wB + 2 : 0));
  const names = [
    fitWidth(H.short, wShort),
    fitWidth(H.age, wAge),
    fitWidth(H.harness, wH),
    fitWidth(H.dir, wDir),
    ...(wB > 0 ? [fitWidth(H.branch, wB)] : []),
    H.prompts.padStart(wP),
    H.title,
  ].join('  ');
  const header = color ? DIM + names + RESET : names;
  return [
    header,
    ...rows.map((r) => {
      const parts = [
        fitWidth(r.short, wShort),
        color ? DIM + fitWidth(r.age, wAge) + RESET : fitWidth(r.age, wAge),
        color ? harnessColor(r.harness, true) + ' '.repeat(Math.max(0, wH - r.harness.length)) : fitWidth(r.harness, wH),
        fitWidth(cutDir(r.dir, wDir), wDir),
        ...(wB > 0 ? [color ? DIM + fitWidth(r.branch, wB) + RESET : fitWidth(r.branch, wB)] : []),
        r.prompts.padStart(wP),
        cut(r.title, wTitle),
      ];
      return parts.join('  ').trimEnd();
    }),
  ];
}

/** Plain tab-separated columns for a pipe: short id, updated (ISO), harness, directory, branch, prompts, title. */
export function plain(s: LsRow): string {
  return [
    column(s.short),
    iso(s.time) ?? '',
    s.harness,
    column(s.cwd ?? ''),
    column(s.branch ?? ''),
    String(s.prompts),
    column(s.label),
  ].join('\t');
}
