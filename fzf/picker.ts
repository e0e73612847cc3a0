// The picker: fzf over the sessions, newest first, with a preview and action keys.
//
// fzf starts at once and reads the rows from a pipe: on a warm index with fzf 0.45+, the last
// build's rows at once and a reload on fzf's `load` only if the check found a change; with older fzf,
// when the index is checked; on a cold index, as each session file is parsed, then replaced by the
// finished list on fzf's `load`. fzf's child commands (preview, reload, execute) run
// through a known POSIX shell (--with-shell 'sh -c', else SHELL=sh) and call back into resume by
// absolute path (node + bin/resume). The picker's state and the action file live in a private
// temporary directory ($RESUME_PICK_DIR) that is removed afterwards.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { App } from '../lib/app.js';
import { ExitError } from '../lib/errors.js';
import { haveListing, storedSession } from '../lib/index/index.js';
import { dirFilterable } from '../lib/index/rowbin.js';
import { loadConfig } from '../lib/launch/config.js';
import { row } from '../lib/output.js';
import type { Filters } from '../lib/select/filter.js';
import { applyFilters } from '../lib/select/filter.js';
import { findSession } from '../lib/select/find.js';
import { parseQuery, rank } from '../lib/select/rank.js';
import { sessionMatchable } from '../lib/select/resolve.js';
import type { Session } from '../lib/types.js';
import { noColor } from '../lib/util/color.js';
import { quoteSh, shown } from '../lib/util/quote.js';
import { oneLine } from '../lib/util/text.js';
import {
  coldWidths,
  feedSource,
  layFields,
  listColor,
  type PickState,
  type PickView,
  pickerText,
  stateFilters,
  writeState,
} from './feed.js';
import { ACTION_MARK, type Flags, fzfFlags, type PickAction } from './flags.js';
import { termColumns } from './layout.js';
import { type Fzf, fmtVersion, has, probeFzf } from './version.js';

export type PickResult = { kind: 'picked'; key: string; action: PickAction } | { kind: 'cancel' } | { kind: 'nomatch' };

export interface PickOptions {
  query?: string;
  filters?: Filters;
  /** sessions already loaded by the caller (else the index is brought up to date while fzf starts) */
  sessions?: Session[];
}

/** Is `resume search --rows` there for the deep-search key. */
export const DEEP_SEARCH = true;

/** The words that run this resume from an fzf child command (absolute paths, quoted for sh). */
export function selfCommand(app: App): string {
  return [process.execPath, app.self].map(quoteSh).join(' ') + (app.demo ? ' --demo' : '');
}

/** The flags of one context for this app's config and the installed fzf. */
export function flagsFor(app: App, context: 'picker' | 'tab', fzf: Fzf = probeFzf(app.ctx), loadOnce = false): Flags {
  const cfg = loadConfig(app.ctx);
  return fzfFlags({
    version: fzf.version,
    keys: cfg.keys,
    fzfOpts: cfg.fzfOpts,
    configFile: cfg.file,
    context,
    self: selfCommand(app),
    deepSearch: DEEP_SEARCH,
    noColor: noColor(process.env),
    ansi: listColor(process.env),
    loadOnce,
  });
}

/** fzf's stdout → the chosen action and key. */
export function parseOutput(out: string, actionFile: string | null): { key: string; action: PickAction } | null {
  const lines = out.split('\n').filter((l) => l !== '');
  let action: PickAction = 'resume';
  for (const l of lines) {
    if (l === `${ACTION_MARK}print`) action = 'print';
    else if (l === `${ACTION_MARK}fork`) action = 'fork';
    else if (l === `${ACTION_MARK}copy`) action = 'copy';
  }
  if (actionFile) {
    try {
      const a = fs.readFileSync(actionFile, 'utf8').trim();
      if (a === 'print' || a === 'fork' || a === 'copy') action = a;
    } catch {
      /* Enter: no file */
    }
  }
  const rowLine = [...lines].reverse().find((l) => l.includes('\t'));
  const key = rowLine?.split('\t')[0];
  if (!key) return null;
  return { key, action };
}

/** Can the picker run here: a terminal to draw on (fzf draws on stderr and reads keys from /dev/tty). */
export function pickerAvailable(): boolean {
  return !!process.stderr.isTTY && haveTerminal();
}

function haveTerminal(): boolean {
  try {
    fs.closeSync(fs.openSync('/dev/tty', 'r+'));
    return true;
  } catch {
    return false;
  }
}

/** How a pick starts: the fzf, the first state, and whether the rows stream in (cold) or come at once (warm). */
interface PickStart {
  fzf: Fzf;
  state: PickState;
  /** the terminal's width, if known */
  cols: number | null;
  /** a cold index: rows written as their files are read */
  stream: boolean;
  /** a warm index: the rows of the last build, shown at once while the index is checked */
  early: LastRows | null;
  flags: Flags;
}

type LastRows = NonNullable<ReturnType<App['lastRows']>>;

function pickStart(app: App, o: PickOptions): PickStart {
  const fzf = probeFzf(app.ctx);
  const f = o.filters ?? {};
  const cols = process.stderr.columns || null;
  const state: PickState = { all: !!f.all, harness: f.harness ?? null, dir: f.dir ?? null, cols, alt: has(fzf.version, 'previewAlt') };
  // A cold index (first run, or after an upgrade): rows are written as their files are read,
  // newest files first, under an "indexing" status line; when the input ends fzf's `load` event
  // replaces them once with the finished list (sorted, aligned, with the real status line).
  const loadable = !o.sessions && has(fzf.version, 'loadEvent') && has(fzf.version, 'unbind');
  const stream = loadable && !haveListing(app.ctx);
  // A warm index: the rows of the last build are shown at once, while the index is checked; the
  // check ends the input, and fzf's `load` then runs what it left in `onload`: nothing when
  // nothing changed, else a reload of the fresh rows (needs transform: older fzf waits for the check).
  const last = loadable && !stream && has(fzf.version, 'transform') ? app.lastRows() : null;
  // (with a directory filter, only rows that can apply it: see dirFilterable)
  const early = last && (!state.dir || dirFilterable(last.bin)) ? last : null;
  // Either way a key that reloads the list before that load (Ctrl-R pressed while the index is
  // read) unbinds it: the key's list is already the finished one, in the key's state.
  const flags = flagsFor(app, 'picker', fzf, !!(stream || early));
  return { fzf, state, cols, stream, early, flags };
}

/** fzf's arguments: the flags, the query, and the `load` binding of a cold or warm start (`onload` made empty for a warm one). */
function pickArgs(app: App, o: PickOptions, start: PickStart, onload: string): string[] {
  const args = [...start.flags.args];
  if (o.query) args.push(`--query=${o.query}`);
  if (start.stream) args.push(`--bind=load:unbind(load)+reload(${selfCommand(app)} __feed --query {q})`);
  if (start.early) {
    fs.writeFileSync(onload, '');
    args.push('--bind=load:unbind(load)+transform(cat "$RESUME_PICK_DIR/onload")');
  }
  return args;
}

/** What feeds fzf's input: where it goes, in which state, drawn how, for which query. */
interface Feed {
  app: App;
  o: PickOptions;
  stdin: Writable;
  state: PickState;
  view: PickView;
  query: string;
  /** the picker's private directory */
  dir: string;
  early: LastRows | null;
}

/** A cold index: rows written as their files are read (ranked for the query), then the input ended. */
async function feedCold(f: Feed): Promise<void> {
  const { app, stdin, view, query } = f;
  const filters = stateFilters(f.state);
  const terms = parseQuery(query);
  if (!stdin.destroyed) stdin.write('\tindexing: sessions appear as their files are read\n');
  const w = coldWidths(view);
  await app.index({
    quiet: true,
    onSessions: (batch) => {
      // (the first and last prompts only: the finished list, on fzf's load, weighs every prompt)
      const shown = rank(applyFilters(batch, filters), terms, app.ctx.home, (x) => sessionMatchable(x));
      if (!shown.length || stdin.destroyed) return;
      const rows = shown.map((x) => row(x, x.id.slice(0, 8), app.ctx.home, view.now).split('\t'));
      stdin.write(`${layFields(rows, view, query, w).join('\n')}\n`);
    },
  });
  if (!stdin.destroyed) stdin.end();
}

/**
 * A warm index (or the caller's sessions): the last build's rows at once when there are some, then
 * the checked list, as the whole input, or left in `fresh` for fzf's `load` to reload.
 */
async function feedWarm(f: Feed): Promise<void> {
  const { app, o, stdin, state, view, query, early } = f;
  const firstLines = early ? pickerText(app, early, state, query, view) : null;
  if (firstLines && !stdin.destroyed) stdin.write(firstLines);
  let lines: string;
  if (o.sessions) lines = pickerText(app, { sessions: o.sessions }, state, query, view);
  else {
    // the rendered rows when nothing changed, else the listing the check just brought up to date
    const got = await feedSource(app, state);
    // the rows shown are the build's that the check found current: nothing to replace
    if (firstLines && early && 'bin' in got && got.bin.id === early.bin.id) {
      if (!stdin.destroyed) stdin.end();
      return;
    }
    lines = pickerText(app, got, state, query, { ...view, now: Date.now() });
  }
  if (stdin.destroyed) return;
  if (!firstLines) stdin.end(lines);
  else {
    fs.writeFileSync(path.join(f.dir, 'fresh'), lines);
    fs.writeFileSync(path.join(f.dir, 'onload'), 'reload(cat "$RESUME_PICK_DIR/fresh")');
    stdin.end();
  }
}

/** What fzf's exit status and output mean: a pick, a cancel, no match, or an error (the feed's, else fzf's). */
function pickOutcome(code: number, feedError: unknown, fzf: Fzf, picked: () => ReturnType<typeof parseOutput>): PickResult {
  if (code === 130) return { kind: 'cancel' };
  if (feedError && code !== 0) throw feedError;
  if (code === 1) return { kind: 'nomatch' };
  if (code !== 0)
    throw new ExitError(
      2,
      `fzf ${fmtVersion(fzf.version)} (${fzf.path}) failed with exit status ${code}; check FZF_DEFAULT_OPTS and fzf_opts in the config`,
    );
  const r = picked();
  return r ? { kind: 'picked', ...r } : { kind: 'nomatch' };
}

export async function pick(app: App, o: PickOptions = {}): Promise<PickResult> {
  if (!haveTerminal()) throw new ExitError(2, 'the picker needs a terminal (name the session instead: resume QUERY, or resume ls)');
  const start = pickStart(app, o);
  const { fzf, state, flags } = start;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-pick-'));
  const ignoreInt = () => {
    /* fzf handles Ctrl-C itself and exits 130 */
  };
  process.on('SIGINT', ignoreInt);
  try {
    writeState(dir, state);
    const args = pickArgs(app, o, start, path.join(dir, 'onload'));
    const child = spawn(fzf.path, args, {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...flags.env, RESUME_PICK_DIR: dir },
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
    });
    child.stdin.on('error', () => {
      /* fzf closed its input (it exited, or a reload replaced the list) */
    });
    const exited = new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 1) : 2)));
    });
    let feedError: unknown = null;
    const view: PickView = {
      cols: termColumns({}, start.cols),
      color: listColor(process.env),
      now: Date.now(),
      alt: has(fzf.version, 'previewAlt'),
    };
    const f: Feed = { app, o, stdin: child.stdin, state, view, query: o.query ?? '', dir, early: start.early };
    const feed = (start.stream ? feedCold(f) : feedWarm(f)).catch((err) => {
      feedError = err;
      // say so in the status line rather than leave an unexplained empty list
      const msg = err instanceof Error ? err.message : String(err);
      if (!child.stdin.destroyed) child.stdin.end(`\tcannot list the sessions: ${oneLine(msg)}\n`);
    });
    // the list is there: what deep search needs (the search index, the group map) made ready in the
    // background (lib/search/sigfill.ts)
    if (!o.sessions)
      void feed.then(() =>
        import('../lib/search/sigfill.js')
          .then((m) => m.prepareSearchIndex(app))
          .catch(() => {
            /* deep search reads the files instead */
          }),
      );
    const code = await exited;
    await feed;
    return pickOutcome(code, feedError, fzf, () => parseOutput(out, flags.report === 'file' ? path.join(dir, 'action') : null));
  } finally {
    process.removeListener('SIGINT', ignoreInt);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** pick() for the resume command: the chosen session and action; Esc is a quiet 130, no match 1. */
export async function pickSession(app: App, o: PickOptions = {}): Promise<{ session: Session; action: PickAction; short?: string }> {
  const r = await pick(app, o);
  if (r.kind === 'cancel') throw new ExitError(130, '');
  if (r.kind === 'nomatch') throw new ExitError(1, 'no session picked');
  if (o.sessions) {
    const session = o.sessions.find((x) => x.key === r.key);
    if (!session) throw new ExitError(1, 'the picked session is gone');
    return { session, action: r.action };
  }
  // pick() brought the index up to date: the session is one record of its listing, with its short id
  const hit = storedSession(app.ctx, { key: r.key });
  if (hit) {
    // (as it was when the list was made: a transcript moved or deleted since is not resumed)
    if (gone(hit.session.file))
      throw new ExitError(1, `the picked session is gone: ${shown(hit.session.file)} was moved or deleted since the list was made`);
    return { session: app.named(app.view([hit.session]))[0], action: r.action, short: hit.short };
  }
  const found = await findSession(app, r.key);
  if (!found) throw new ExitError(1, 'the picked session is gone');
  return { session: app.named([found])[0], action: r.action };
}

/** A session's transcript no longer there (a session without one, as some harnesses keep, is not). */
function gone(file: string | null | undefined): boolean {
  return !!file && !fs.existsSync(file);
}
