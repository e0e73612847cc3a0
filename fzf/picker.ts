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
import { quoteSh } from '../lib/util/quote.js';
import { oneLine } from '../lib/util/text.js';
import { feedSource, layFields, listColor, type PickState, type PickView, pickerText, stateFilters, writeState } from './feed.js';
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

export async function pick(app: App, o: PickOptions = {}): Promise<PickResult> {
  if (!haveTerminal()) throw new ExitError(2, 'the picker needs a terminal (name the session instead: resume QUERY, or resume ls)');
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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-pick-'));
  const ignoreInt = () => {
    /* fzf handles Ctrl-C itself and exits 130 */
  };
  process.on('SIGINT', ignoreInt);
  try {
    writeState(dir, state);
    const args = [...flags.args];
    if (o.query) args.push(`--query=${o.query}`);
    if (stream) args.push(`--bind=load:unbind(load)+reload(${selfCommand(app)} __feed --query {q})`);
    const onload = path.join(dir, 'onload');
    if (early) {
      fs.writeFileSync(onload, '');
      args.push('--bind=load:unbind(load)+transform(cat "$RESUME_PICK_DIR/onload")');
    }
    const child = spawn(fzf.path, args, {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...flags.env, RESUME_PICK_DIR: dir },
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.stdin.on('error', () => {
      /* fzf closed its input (it exited, or a reload replaced the list) */
    });
    const exited = new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 1) : 2)));
    });
    let feedError: unknown = null;
    const query = o.query ?? '';
    const view: PickView = {
      cols: termColumns({}, cols),
      color: listColor(process.env),
      now: Date.now(),
      alt: has(fzf.version, 'previewAlt'),
    };
    const feed = (async () => {
      if (stream) {
        const filters = stateFilters(state);
        const terms = parseQuery(query);
        if (!child.stdin.destroyed) child.stdin.write('\tindexing: sessions appear as their files are read\n');
        await app.index({
          quiet: true,
          onSessions: (batch) => {
            // (the first and last prompts only: the finished list, on fzf's load, weighs every prompt)
            const shown = rank(applyFilters(batch, filters), terms, app.ctx.home, (x) => sessionMatchable(x));
            if (!shown.length || child.stdin.destroyed) return;
            const rows = shown.map((x) => row(x, x.id.slice(0, 8), app.ctx.home, view.now).split('\t'));
            child.stdin.write(`${layFields(rows, view, query).join('\n')}\n`);
          },
        });
        if (!child.stdin.destroyed) child.stdin.end();
        return;
      }
      const firstLines = early ? pickerText(app, early, state, query, view) : null;
      if (firstLines && !child.stdin.destroyed) child.stdin.write(firstLines);
      let lines: string;
      if (o.sessions) lines = pickerText(app, { sessions: o.sessions }, state, query, view);
      else {
        // the rendered rows when nothing changed, else the listing the check just brought up to date
        const got = await feedSource(app, state);
        // the rows shown are the build's that the check found current: nothing to replace
        if (firstLines && early && 'bin' in got && got.bin.id === early.bin.id) {
          if (!child.stdin.destroyed) child.stdin.end();
          return;
        }
        lines = pickerText(app, got, state, query, { ...view, now: Date.now() });
      }
      if (child.stdin.destroyed) return;
      if (!firstLines) child.stdin.end(lines);
      else {
        fs.writeFileSync(path.join(dir, 'fresh'), lines);
        fs.writeFileSync(onload, 'reload(cat "$RESUME_PICK_DIR/fresh")');
        child.stdin.end();
      }
    })().catch((err) => {
      feedError = err;
      // say so in the status line rather than leave an unexplained empty list
      const msg = err instanceof Error ? err.message : String(err);
      if (!child.stdin.destroyed) child.stdin.end(`\tcannot list the sessions: ${oneLine(msg)}\n`);
    });
    const code = await exited;
    await feed;
    if (code === 130) return { kind: 'cancel' };
    if (feedError && code !== 0) throw feedError;
    if (code === 1) return { kind: 'nomatch' };
    if (code !== 0)
      throw new ExitError(
        2,
        `fzf ${fmtVersion(fzf.version)} (${fzf.path}) failed with exit status ${code}; check FZF_DEFAULT_OPTS and fzf_opts in the config`,
      );
    const r = parseOutput(out, flags.report === 'file' ? path.join(dir, 'action') : null);
    return r ? { kind: 'picked', ...r } : { kind: 'nomatch' };
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
  if (hit) return { session: app.named(app.view([hit.session]))[0], action: r.action, short: hit.short };
  const found = await findSession(app, r.key);
  if (!found) throw new ExitError(1, 'the picked session is gone');
  return { session: app.named([found])[0], action: r.action };
}
