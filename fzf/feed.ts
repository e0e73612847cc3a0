// What the picker's fzf reads: a status line (fzf's --header-lines=1) and the rows, with the
// visible columns padded so they line up. The picker state (hidden shown, harness filter) lives in a
// small JSON file in the picker's private directory ($RESUME_PICK_DIR), so the keys that reload the
// list (`resume __feed --toggle-hidden`, …) work on every fzf version without transform.

import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../lib/app.js';
import { promptQualities } from '../lib/index/holding.js';
import { allPrompts } from '../lib/index/prompts.js';
import { eachRow, printAligned, type RowBin } from '../lib/index/rowbin.js';
import { alignedName, printRowsOut, type RowsOutKey, RowsTape, rowsOutKey } from '../lib/index/rowsout.js';
import { ALIGN_CAPS, alignLine, row } from '../lib/output.js';
import { applyFilters, type Filters, shortIds, under } from '../lib/select/filter.js';
import { fold, type Matchable, PromptQualities, parseQuery, rankAsking, type Term, wantedWords } from '../lib/select/rank.js';
import { corrected, sessionTexts, unheld } from '../lib/select/suggest.js';
import type { Harness, Session } from '../lib/types.js';
import { HARNESSES } from '../lib/types.js';
import { colorOn } from '../lib/util/color.js';
import { writeAtomic } from '../lib/util/fsx.js';
import { cacheDir, tildify } from '../lib/util/paths.js';
import { oneLine, width } from '../lib/util/text.js';
import { layRows, listWidth, streamWidths, type Widths } from './layout.js';

/** What a fed row needs of a session: a listing row or a whole session. */
export type Fed = Pick<Session, 'key' | 'id' | 'updated' | 'started' | 'harness' | 'cwd' | 'branch' | 'title' | 'firstPrompt' | 'hidden'>;

export interface PickState {
  all: boolean;
  harness: Harness[] | null;
  dir: string | null;
  /** Ctrl-S: the query searches every transcript (deep search) instead of naming sessions */
  deep?: boolean;
  /** the terminal's width when the picker started (fzf before 0.4x does not say it to reloads) */
  cols?: number | null;
  /** the fzf has the preview's alternative layout (>= 0.31): the list's width depends on it */
  alt?: boolean;
}

export function stateFile(pickDir: string): string {
  return path.join(pickDir, 'state.json');
}

export function writeState(pickDir: string, s: PickState): void {
  writeAtomic(stateFile(pickDir), JSON.stringify(s));
}

export function readState(pickDir: string): PickState {
  try {
    const s = JSON.parse(fs.readFileSync(stateFile(pickDir), 'utf8')) as PickState;
    const harness = Array.isArray(s.harness) ? s.harness.filter((h) => (HARNESSES as readonly string[]).includes(h)) : null;
    return {
      all: !!s.all,
      harness: harness?.length ? harness : null,
      dir: typeof s.dir === 'string' ? s.dir : null,
      deep: s.deep === true,
      cols: typeof s.cols === 'number' && s.cols > 0 ? s.cols : null,
      alt: s.alt !== false,
    };
  } catch {
    return { all: false, harness: null, dir: null };
  }
}

export function stateFilters(s: PickState): Filters {
  return { all: s.all, harness: s.harness ?? undefined, dir: s.dir ?? undefined };
}

/** The harness filter after `current` in the cycle: all → each harness that has sessions → all. */
export function nextHarness(current: Harness[] | null, sessions: Pick<Session, 'harness'>[]): Harness[] | null {
  const present = HARNESSES.filter((h) => sessions.some((s) => s.harness === h));
  const options: (Harness[] | null)[] = [null, ...present.map((h) => [h])];
  const idx = options.findIndex((o) => (o === null ? current === null : current !== null && current.length === 1 && current[0] === o[0]));
  if (idx < 0) return present.length ? [present[0]] : null;
  return options[(idx + 1) % options.length] ?? null;
}

/** The status line above the list (the --header-lines line: empty hidden key, then the text). */
export function statusLine<T extends Fed>(all: T[], shown: T[], s: PickState, home: string, search?: string): string {
  const hidden = s.all || search != null ? 0 : applyFilters(all, { ...stateFilters(s), all: true }).length - shown.length;
  return statusOf({ total: all.length, shown: shown.length, hidden }, s, home, search);
}

/**
 * What the status line counts: every session, those shown, those the state's filters show but for
 * being hidden, and (with a query) those it matches.
 */
export interface StatusCounts {
  total: number;
  shown: number;
  hidden: number;
  matched?: number;
  /** when none shown matches: how many hidden ones do */
  hiddenMatched?: number;
  /** when none matches, hidden ones neither: the query probably meant (lib/select/suggest.ts) */
  meant?: string;
}

/** The status line from counts. */
export function statusOf(
  { total, shown, hidden, matched, hiddenMatched, meant }: StatusCounts,
  s: PickState,
  home: string,
  search?: string,
): string {
  if (total === 0 && search == null) return '\tno sessions yet (resume doctor shows where it looked; resume --demo tries the demo)';
  const parts: string[] = [];
  if (search != null) parts.push(`deep search: ${oneLine(search)}`);
  parts.push(s.harness ? s.harness.join(',') : 'all harnesses');
  if (s.dir) parts.push(`in ${oneLine(tildify(s.dir, home))}`);
  let n = matched != null ? `${matched} of ${shown} session${shown === 1 ? '' : 's'} match` : `${shown} session${shown === 1 ? '' : 's'}`;
  if (s.all) n += ' incl. hidden';
  else if (hiddenMatched) n += ` · ${hiddenMatched} hidden match${hiddenMatched === 1 ? 'es' : ''} (ctrl-t)`;
  // (what was probably meant, in place of the hidden ones' count, which the query does not match either)
  else if (meant) n += ` · did you mean '${oneLine(meant)}'?`;
  else if (search == null && hidden > 0) n += ` (+${hidden} hidden)`;
  parts.push(n);
  return `\t${parts.join(' · ')}`;
}

/**
 * Rows in `resume rows` format (key, short id, age, harness, directory, branch, title) turned into
 * fzf lines: the key, a tab, then the visible columns padded to line up (lib/output.ts alignLine).
 * A value longer than its column's cap is kept whole (it stays searchable) and only that line is
 * pushed right.
 */
export function alignRows(rows: string[][], color = false): string[] {
  const w = [0, 0, 0, 0, 0];
  for (const r of rows) {
    for (let i = 1; i <= 5; i++) {
      const cw = width(r[i] ?? '');
      if (cw <= ALIGN_CAPS[i - 1] && cw > w[i - 1]) w[i - 1] = cw;
    }
  }
  return rows.map((r) => alignLine(r, w, color));
}

/** How fed lines are drawn: directories against `home`, ages from `now`, coloured or not, aligned unless `plain`. */
export interface LineLook {
  home: string;
  color: boolean;
  now: number;
  plain?: boolean;
}

/** The sessions the state shows, as fzf lines: the status line first, then the rows. */
export function feedLines<T extends Fed>(all: T[], s: PickState, { home, color, now, plain = false }: LineLook): string[] {
  const shown = applyFilters(all, stateFilters(s));
  const shorts = shortIds(all);
  const rows = shown.map((x) => row(x, shorts.get(x.id) ?? x.id, home, now));
  return [
    statusLine(all, shown, s, home),
    ...(plain
      ? rows
      : alignRows(
          rows.map((r) => r.split('\t')),
          color,
        )),
  ];
}

/** What the picker's lines are made from: the rendered rows (rows.bin), or the listing rows. */
export type FeedSource = { bin: RowBin; names: () => Record<string, string> } | { sessions: Fed[] };

/**
 * Bring the index up to date and take what the lines for state `s` are made from: the rendered rows
 * when nothing changed, else the listing rows from the database; these too for a directory filter the
 * rendered rows cannot apply (app.listingRows). Never the whole sessions.
 */
export function feedSource(app: App, s: PickState): Promise<FeedSource> {
  return app.listingRows({ quiet: true, dir: s.dir });
}

/**
 * The lines for state `s` (the status line first) from a feed source: from rendered rows the same
 * lines feedLines gives from the listing. Rendered rows come with a directory filter only when they
 * can apply it (feedSource, and the picker's own check of app.lastRows: dirFilterable).
 */
export function linesOf(src: FeedSource, s: PickState, look: LineLook): string[] {
  if ('sessions' in src) return feedLines(src.sessions, s, look);
  const { home, color, now, plain = false } = look;
  const rows: string[][] = [];
  let hidden = 0;
  eachRow(src.bin, src.names, now, (r) => {
    if (s.harness && !s.harness.includes(r.harness)) return;
    if (s.dir && !under(r.cwd, s.dir)) return;
    if (r.hidden && !s.all) hidden++;
    else rows.push(r.fields);
  });
  return [
    statusOf({ total: src.bin.count, shown: rows.length, hidden }, s, home),
    ...(plain ? rows.map((r) => r.join('\t')) : alignRows(rows, color)),
  ];
}

/** What writeLines writes: the lines' look, the status line or not, where to, and the lines kept from the last run. */
export interface LinesOut extends LineLook {
  status: boolean;
  write: (b: Buffer) => void;
  cache?: LinesCache | null;
}

/**
 * linesOf(...), each line ending in a newline, handed to `write` in blocks (`status`: the status
 * line first). Aligned lines from rendered rows are written from the records' bytes
 * (lib/index/rowbin.ts printAligned: the same lines, without a string per field); the rest through
 * linesOf (`plain`: the rows unaligned).
 */
export function writeLines(src: FeedSource, s: PickState, o: LinesOut): void {
  const { home, color, now, status, write, plain = false, cache = null } = o;
  if ('bin' in src && !plain) {
    const { bin } = src;
    // the lines printed last for this listing, while they stand (lib/index/rowsout.ts)
    const kept = cache && cache.key.id === bin.id ? cache : null;
    if (kept && printRowsOut(kept.file, kept.key, now, write)) return;
    const tape = kept ? new RowsTape(now, { color }) : undefined;
    printAligned(bin, s, {
      readNames: src.names,
      now,
      color,
      head: (shown, hidden) => (status ? `${statusOf({ total: bin.count, shown, hidden }, s, home)}\n` : ''),
      write,
      tape,
    });
    if (kept && tape) tape.save(kept.file, kept.key);
    return;
  }
  const lines = linesOf(src, s, { home, color, now, plain });
  write(Buffer.from((status ? lines : lines.slice(1)).map((l) => `${l}\n`).join(''), 'utf8'));
}

/** Where the picker's lines for a state are kept between runs (rows.out's aligned kind), and what they depend on. */
export interface LinesCache {
  file: string;
  key: RowsOutKey;
}

/**
 * The kept lines of the listing `bin` for state `s` (with the status line or not, coloured or not):
 * none with a harness or directory filter, or for the demo.
 */
export function linesCache(app: App, s: PickState, color: boolean, status: boolean, bin: RowBin): LinesCache | null {
  if (s.harness || s.dir || app.demo) return null;
  const file = path.join(cacheDir(app.ctx), alignedName(s.all, status, color));
  return { file, key: rowsOutKey(app.ctx, bin.id) };
}

/** The harnesses that have sessions in rendered rows, as nextHarness wants them. */
export function binHarnesses(bin: RowBin): Pick<Session, 'harness'>[] {
  const seen = new Set<Harness>();
  eachRow(
    bin,
    () => ({}),
    0,
    (r) => seen.add(r.harness),
  );
  return [...seen].map((harness) => ({ harness }));
}

/** Colour in the list unless NO_COLOR is set (fzf itself runs on the terminal). */
export function listColor(env: NodeJS.ProcessEnv): boolean {
  return colorOn(true, env);
}

/** A row of the picker with what a query is matched against. */
interface PickRow {
  fields: string[];
  hidden: boolean;
  harness: Harness;
  cwd: string | null;
}

/** How the picker's list is drawn: the terminal's width, colour, and the time ages are counted from. */
export interface PickView {
  cols: number;
  color: boolean;
  now: number;
  /** fzf takes the preview's alternative layout (fzf >= 0.31) */
  alt?: boolean;
}

/** Every row of a feed source, in its order (newest first), with what filters and queries read. */
function pickRows(src: FeedSource, home: string, now: number): PickRow[] {
  const out: PickRow[] = [];
  if ('bin' in src) {
    eachRow(src.bin, src.names, now, (r) => out.push({ fields: r.fields, hidden: r.hidden, harness: r.harness, cwd: r.cwd }));
    return out;
  }
  const shorts = shortIds(src.sessions);
  for (const x of src.sessions)
    out.push({ fields: row(x, shorts.get(x.id) ?? x.id, home, now).split('\t'), hidden: x.hidden, harness: x.harness, cwd: x.cwd });
  return out;
}

const keyOf = (r: PickRow): string => r.fields[0] ?? '';

/** What a picker row offers to a query (lib/select/rank.ts) besides its session's prompts. */
function rowMatchable(r: PickRow): Matchable {
  return {
    id: keyOf(r).slice(r.harness.length + 1),
    harness: r.harness,
    cwd: r.cwd,
    branch: r.fields[5] ?? null,
    label: r.fields.slice(6).join(' '),
  };
}

/**
 * The keys of the shown rows a word (folded) is in: in a row's key, directory or fields, all a row
 * is matched on besides the prompts (rowMatchable), so a row without it can match only through a
 * prompt.
 */
function rowsWith(shown: PickRow[]): (word: string) => string[] {
  let text: [string, string][] | null = null;
  return (word) => {
    text ??= shown.map((r) => [r.fields[0] ?? '', fold(`${r.cwd ?? ''}\n${r.fields.join('\n')}`)]);
    return text.filter(([, t]) => t.includes(word)).map(([key]) => key);
  };
}

/**
 * The picker's list for state `s` and the typed query: the status line, then the rows the filters
 * show, those the query matches best first (lib/select/rank.ts, the rules of `resume WORDS`), laid
 * out for the screen (fzf/layout.ts). Prompts are read only for a query.
 */
export function pickerText(app: App, src: FeedSource, s: PickState, query: string, v: PickView): string {
  const home = app.ctx.home;
  const all = pickRows(src, home, v.now);
  const hiddenRows: PickRow[] = [];
  let shown: PickRow[] = [];
  for (const r of all) {
    if (s.harness && !s.harness.includes(r.harness)) continue;
    if (s.dir && !under(r.cwd, s.dir)) continue;
    if (r.hidden && !s.all) hiddenRows.push(r);
    else shown.push(r);
  }
  const terms = parseQuery(query);
  const count = shown.length;
  let hiddenMatched: number | undefined;
  let meant: string | undefined;
  if (terms.length) {
    const ranked = (rows: PickRow[], ts: Term[] = terms) => {
      const words = wantedWords(ts);
      // (only the prompts of the rows they can move: rank.ts rankAsking)
      return rankAsking(rows, ts, home, rowMatchable, (need) => {
        if (!words.length) return null;
        const only = need.length < rows.length ? new Set(need.map(keyOf)) : undefined;
        const found = new PromptQualities(ts);
        if (promptQualities(app.ctx, found, rowsWith(rows), only)) return found.size ? (r) => found.get(keyOf(r)) : null;
        const prompts = allPrompts(app.ctx, words);
        return prompts.size ? (r) => prompts.get(keyOf(r)) : null;
      });
    };
    const listed = shown;
    shown = ranked(listed);
    // none listed matches: whether hidden ones do, which the hidden key would show
    if (shown.length === 0 && hiddenRows.length) hiddenMatched = ranked(hiddenRows).length;
    // none at all: what was probably meant (a word put right by one edit), when that names some
    if (shown.length === 0 && !hiddenMatched && listed.length) meant = meantOf(listed, terms, ranked);
  }
  const status = statusOf(
    { total: all.length, shown: count, hidden: hiddenRows.length, matched: terms.length ? shown.length : undefined, hiddenMatched, meant },
    s,
    home,
  );
  const lines = layRows(
    shown.map((r) => r.fields),
    listWidth(v.cols, v.alt ?? true),
    v.color,
    terms,
  );
  return `${[status, ...lines].join('\n')}\n`;
}

/**
 * What a query that matches none of `listed` probably meant (lib/select/suggest.ts), when that
 * matches some of them by `ranked` (the picker's rules); undefined otherwise.
 */
function meantOf(listed: PickRow[], terms: Term[], ranked: (rows: PickRow[], ts: Term[]) => PickRow[]): string | undefined {
  const texts = listed.map((r) =>
    sessionTexts({ label: r.fields.slice(6).join(' '), cwd: r.cwd, branch: r.fields[5], harness: r.harness }),
  );
  const wrong = new Set(unheld(terms, texts).filter((t) => ranked(listed, [t]).length === 0));
  const fixed = wrong.size ? corrected(terms, texts, wrong) : null;
  if (!fixed) return undefined;
  // (a word put right is one the rows' own texts hold: the rows that hold them all are enough to tell)
  const some = listed.filter((_, i) => fixed.put.every((w) => texts[i].includes(w)));
  return ranked(some, parseQuery(fixed.words)).length > 0 ? fixed.words.join(' ') : undefined;
}

/** Rows in `resume rows` format (deep search's, or a batch of a cold build's) as picker lines; `w`: at these widths. */
export function layFields(rows: string[][], v: PickView, query = '', w?: Widths): string[] {
  return layRows(rows, listWidth(v.cols, v.alt ?? true), v.color, query ? parseQuery(query) : null, w);
}

/** The widths a cold build's batches are laid out at (layout.ts streamWidths), for this view. */
export const coldWidths = (v: PickView): Widths => streamWidths(listWidth(v.cols, v.alt ?? true), HARNESSES);
