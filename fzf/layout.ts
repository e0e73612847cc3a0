// The picker's lines, laid out for the terminal fzf draws on: short id, age, harness, directory,
// branch and title, each column as wide as what it holds needs and the screen allows, the title
// taking the rest. At 80 columns the title keeps at least 30 characters: the directory is cut from
// the left (`…/acme/webshop`, its last parts are what tells projects apart) and the branch column is
// left out when there is no room for it (the preview shows it). In a narrow pane, where the title
// would keep fewer than TITLE_WITH_ID, the id column goes too (the preview shows the id, and a
// typed id still matches). Lines never need fzf to scroll them sideways (the picker runs fzf with
// --no-hscroll), so the harness stays in view.
import { ageColumn, branchWidth, harnessColor } from '../lib/output.js';
import { fold, type Term } from '../lib/select/rank.js';
import { DIM, MATCH, RESET } from '../lib/util/color.js';
import { cut, cutDir, width } from '../lib/util/text.js';

/** A row's visible fields: `resume rows` split at its tabs, the key first. */
export type RowFields = string[];

/** The preview goes below the list when, on the right, it would be narrower than this. */
export const PREVIEW_MIN = 70;

/** fzf's gutter left of each line (pointer and marker) and a column kept free on the right (scrollbar). */
const GUTTER = 3;
const GAP = 2;
const CAP = { short: 12, age: 4, harness: 8, dir: 40, branch: 24 } as const;
/**
 * Fewer columns of title than this and the id column is left out (the demo at 60 columns: 21
 * columns of title with it, 30 without; at 50, 10 and 23): a title is what a person picks by.
 */
const TITLE_WITH_ID = 24;

/** The preview window flag that matches listWidth's rule (fzf >= 0.31: the alternative layout). */
export function previewWindow(alt: boolean): string {
  return alt ? `--preview-window=right,50%,wrap,<${PREVIEW_MIN}(down,40%,wrap)` : '--preview-window=right:50%:wrap';
}

/** fzf-tab's preview window: beside the list when wide enough (the picker's rule), else hidden (fzf-tab's few lines leave no room below). */
export function tabPreviewWindow(alt: boolean): string {
  return alt ? `--preview-window=right,50%,wrap,<${PREVIEW_MIN}(hidden)` : '--preview-window=right:50%:wrap';
}

/** The columns the list gets in a terminal `cols` wide, with the preview where fzf puts it. */
export function listWidth(cols: number, alt = true): number {
  const right = Math.floor(cols / 2);
  if (!alt || right >= PREVIEW_MIN) return cols - right - 1;
  return cols;
}

/** The terminal's width for a layout: fzf's own ($FZF_COLUMNS), else the picker's, else 80. */
export function termColumns(env: NodeJS.ProcessEnv, saved?: number | null): number {
  const n = Number(env.FZF_COLUMNS);
  if (Number.isInteger(n) && n > 0) return n;
  if (saved && saved > 0) return saved;
  const c = process.stderr.columns;
  return c && c > 0 ? c : 80;
}

export interface Widths {
  /** 0: no id column (a narrow list: TITLE_WITH_ID) */
  short: number;
  age: number;
  harness: number;
  dir: number;
  /** 0: no branch column */
  branch: number;
  title: number;
}

/** Column widths for these rows in a list `listCols` wide. */
export function widths(rows: readonly RowFields[], listCols: number): Widths {
  const max = { short: 0, age: 0, harness: 0, branch: 0 };
  for (const r of rows) {
    max.short = Math.max(max.short, width(r[1] ?? ''));
    max.age = Math.max(max.age, width(r[2] ?? ''));
    max.harness = Math.max(max.harness, width(r[3] ?? ''));
    max.branch = Math.max(max.branch, width(r[5] ?? ''));
  }
  const w = widthsWith(rows, listCols, max, Math.min(CAP.short, max.short));
  return w.title >= TITLE_WITH_ID || w.short === 0 ? w : widthsWith(rows, listCols, max, 0);
}

/** widths() with an id column `short` wide (0: none). */
function widthsWith(
  rows: readonly RowFields[],
  listCols: number,
  max: { age: number; harness: number; branch: number },
  short: number,
): Widths {
  const age = Math.min(CAP.age, max.age);
  const harness = Math.min(CAP.harness, max.harness);
  const rest = listCols - GUTTER - (short ? short + GAP : 0) - age - harness - 2 * GAP;
  // the directory: what it needs, up to a share of what is left (its last parts carry the meaning),
  // as wide as the widest directory once cut to that share
  const dirCap = Math.min(CAP.dir, Math.max(10, Math.floor(rest * 0.3)));
  let dir = 0;
  for (const r of rows) dir = Math.max(dir, width(cutDir(r[4] ?? '', dirCap)));
  let left = rest - dir - GAP;
  // the branch: only where the title keeps its columns (lib/output.ts branchWidth)
  const branch = branchWidth(Math.min(max.branch, CAP.branch), left - GAP);
  if (branch > 0) left -= branch + GAP;
  return { short, age, harness, dir, branch, title: Math.max(10, left) };
}

/**
 * `v` with the places the terms occur in it highlighted (bold green, as fzf marks a match), when
 * colour is on and folding keeps the text's length (so a place in the folded text is the same place).
 */
export function highlight(v: string, terms: readonly Term[] | null, color: boolean, after = ''): string {
  if (!color) return v;
  let out = '';
  let i = 0;
  for (const [a, b] of matchSpans(v, terms)) {
    out += `${v.slice(i, a)}${MATCH}${v.slice(a, b)}${RESET}${after}`;
    i = b;
  }
  return out + v.slice(i);
}

/**
 * Where the terms occur in `v`, as [start, end) spans in order, apart (none when folding changes
 * the text's length: a place in the folded text is then not the same place).
 */
export function matchSpans(v: string, terms: readonly Term[] | null): [number, number][] {
  if (!terms?.length || !v) return [];
  const f = fold(v);
  if (f.length !== v.length) return [];
  const on = new Uint8Array(v.length);
  for (const t of terms) {
    if (t.not || !t.text || t.dir !== undefined) continue;
    for (let i = f.indexOf(t.text); i >= 0; i = f.indexOf(t.text, i + t.text.length)) on.fill(1, i, i + t.text.length);
  }
  const spans: [number, number][] = [];
  for (let i = 0; i < v.length; i++) {
    if (!on[i]) continue;
    let j = i;
    while (j < v.length && on[j]) j++;
    spans.push([i, j]);
    i = j;
  }
  return spans;
}

/** One fzf line: the key, a tab, then the columns at these widths (trailing blanks trimmed). */
export function layLine(r: RowFields, w: Widths, color: boolean, terms: readonly Term[] | null = null): string {
  const short = cut(r[1] ?? '', w.short);
  const age = cut(r[2] ?? '', w.age);
  const harness = cut(r[3] ?? '', w.harness);
  const dir = cutDir(r[4] ?? '', w.dir);
  const branch = w.branch ? cut(r[5] ?? '', w.branch) : '';
  const title = cut(r.slice(6).join(' '), w.title);
  const cols = [
    ...(w.short ? [padTo(highlight(short, terms, color), short, w.short)] : []),
    ageColumn(age, w.age, color),
    padTo(harnessColor(harness, color), harness, w.harness),
    padTo(highlight(dir, terms, color), dir, w.dir),
  ];
  if (w.branch) cols.push(padTo(color ? DIM + highlight(branch, terms, color, DIM) + RESET : branch, branch, w.branch));
  cols.push(highlight(title, terms, color));
  return `${r[0] ?? ''}\t${cols.join(' '.repeat(GAP)).trimEnd()}`;
}

/** `shown` (which may hold colour) padded as if it were `plain`, to `w` columns. */
function padTo(shown: string, plain: string, w: number): string {
  return shown + ' '.repeat(Math.max(0, w - width(plain)));
}

/** The lines for these rows in a list `listCols` wide (at widths `w`, else their own). */
export function layRows(
  rows: readonly RowFields[],
  listCols: number,
  color: boolean,
  terms: readonly Term[] | null = null,
  w: Widths = widths(rows, listCols),
): string[] {
  return rows.map((r) => layLine(r, w, color, terms));
}

/**
 * Widths for rows that come a batch at a time (a cold build's, as their files are read): each
 * column as wide as any row's can be, no branch column, so that every batch lines up with the
 * ones before it (each laid out at its own widths, the columns moved from batch to batch).
 */
export function streamWidths(listCols: number, harnesses: readonly string[]): Widths {
  const harness = harnesses.reduce((a, h) => (h.length > a.length ? h : a), '');
  // (a streamed row's id is its first 8 characters: short ids are worked out once the build ends)
  return widths([['', 'x'.repeat(8), 'x'.repeat(CAP.age), harness, `/${'x'.repeat(CAP.dir)}`]], listCols);
}
