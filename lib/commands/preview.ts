// `resume preview KEY`: the text fzf shows beside the list. Fast enough to follow the cursor: it
// reads the stored listing (list.json) and nothing else; only a key missing from it (or no index
// yet) brings the index up to date. Every value from a transcript is redacted and stripped of
// control characters and escape sequences.
import fs from 'node:fs';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import type { Session } from '../types.js';
import { INDEX_VERSION, indexFiles } from '../index/index.js';
import { resolve } from '../select/resolve.js';
import { out } from './common.js';
import { age, localTime } from '../util/time.js';
import { oneLine } from '../util/text.js';
import { tildify } from '../util/paths.js';
import { sanitize } from '../util/redact.js';
import { harnessColor } from '../output.js';
import { colorOn } from '../util/color.js';

/** Sessions from the stored listing, without statting anything; null when there is none. */
export function storedSessions(app: App): Session[] | null {
  try {
    const list = JSON.parse(fs.readFileSync(indexFiles(app.ctx).list, 'utf8')) as { v?: number; sessions?: Session[] };
    return list && list.v === INDEX_VERSION && Array.isArray(list.sessions) ? app.view(list.sessions) : null;
  } catch {
    return null;
  }
}

/** Find a session by key (`harness:id`), else by anything `resume QUERY` accepts when it names one. */
export async function findSession(app: App, key: string): Promise<Session | null> {
  return (await findWithList(app, key)).session;
}

/** The session a key names, and the list it was found in (for the short ids of its links). */
async function findWithList(app: App, key: string): Promise<{ session: Session | null; list: Session[] }> {
  const stored = storedSessions(app);
  const hit = stored?.find((s) => s.key === key);
  if (hit) return { session: hit, list: stored! };
  const all = await app.index({ quiet: true }).then((r) => r.sessions);
  const exact = all.find((s) => s.key === key);
  if (exact) return { session: exact, list: all };
  const r = resolve([key], all);
  return { session: r.kind === 'one' ? r.session : null, list: all };
}

/** The short id `ls` shows for one id among a list's ids (the rule of shortIds, for one id). */
export function shortOf(id: string, ids: Iterable<string>, min = 8): string {
  let l = 0;
  for (const other of ids) {
    if (other === id) continue;
    let i = 0;
    while (i < id.length && i < other.length && id[i] === other[i]) i++;
    if (i > l) l = i;
  }
  return id.slice(0, Math.min(id.length, Math.max(min, l + 1)));
}

/** "fork of <short id>" for a fork, else null. */
export function forkLine(s: { forkedFrom: string | null }, ids: Iterable<string>): string | null {
  return s.forkedFrom ? `fork of ${shortOf(s.forkedFrom, ids)}` : null;
}

const clean = (s: string | null | undefined): string => (s ? sanitize(s) : '');

/**
 * Colour: on a terminal, or in the picker's preview window (fzf renders it on the terminal; the
 * picker sets RESUME_PICK_DIR), never with NO_COLOR.
 */
export function previewColor(env: NodeJS.ProcessEnv = process.env, tty = !!process.stdout.isTTY): boolean {
  return colorOn(tty || !!env.RESUME_PICK_DIR, env);
}

export function previewText(s: Session, home: string, now = Date.now(), color = false, fork: string | null = null): string {
  const bold = (t: string) => (color ? `\x1b[1m${t}\x1b[0m` : t);
  const dim = (t: string) => (color ? `\x1b[2m${t}\x1b[0m` : t);
  const lines: string[] = [];
  const title = clean(s.title) || clean(s.firstPrompt) || '(no prompt)';
  lines.push(bold(title), '');
  const when = s.updated ?? s.started;
  const field = (k: string, v: string) => {
    if (v) lines.push(`${dim((k + ':').padEnd(10))}${v}`);
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
    lines.push('', dim(`${label}:`), t);
  };
  block('first prompt', s.firstPrompt);
  if (s.lastPrompt && s.lastPrompt !== s.firstPrompt) block('last prompt', s.lastPrompt);
  block('last reply', s.lastReply);
  lines.push('', `${dim('file:')} ${oneLine(s.file)}`);
  return lines.join('\n') + '\n';
}

/**
 * `resume preview [KEY...]`: the preview of each key; with none, of each key (or row) on stdin.
 * Several previews are separated by a line of dashes. A key that names no session is exit 1 after
 * the others are printed.
 */
export async function previewAction(app: App, keys: string[]): Promise<void> {
  if (keys.length === 0) {
    if (process.stdin.isTTY) throw usage('preview needs a KEY, as an argument or on stdin (resume rows | head -1 | resume preview)');
    keys = await (await import('./stdin-keys.js')).stdinKeys();
    if (keys.length === 0) throw new ExitError(1, 'no key on stdin');
  }
  const color = previewColor();
  const missing: string[] = [];
  let first = true;
  for (const key of keys) {
    const { session: s, list } = await findWithList(app, key);
    if (!s) {
      missing.push(key);
      continue;
    }
    out((first ? '' : '\n' + '-'.repeat(40) + '\n\n') + previewText(s, app.ctx.home, Date.now(), color, forkLine(s, list.map((x) => x.id))));
    first = false;
  }
  if (missing.length) throw new ExitError(1, `no session '${oneLine(missing[0]!)}'${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ''}`);
}

export function register(program: Command, app: App): void {
  program
    .command('preview')
    .description('the preview text for each KEY (the hidden first field of resume rows); none: keys or rows from stdin')
    .argument('[keys...]', 'harness:id, as in the first field of resume rows')
    .action((keys: string[]) => previewAction(app, keys));
}
