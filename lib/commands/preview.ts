// `resume preview KEY`: the text fzf shows beside the list. Fast enough to follow the cursor: it
// reads one session of the index database and nothing else (lib/select/find.ts); the text itself is
// lib/present/preview.ts. With `--search QUERY` (the picker's deep search) it also reads the
// session's transcripts for where the words are (lib/search/run.ts foundIn): that runs in the full
// CLI, never in the lean bundle (lib/fast-rows.ts declines it).
import { readState } from '../../fzf/feed.js';
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { previewColor, previewText } from '../present/preview.js';
import { findForPreview } from '../select/find.js';
import type { Session } from '../types.js';
import { DIM, RESET } from '../util/color.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';
import type { Call } from './table.js';

/**
 * The query `--search` asks to look for, or null: none, no words, or inside the picker
 * (RESUME_PICK_DIR) while it names sessions rather than searching them (its preview passes the
 * typed query always; fzf cannot change the preview's command with the mode on every version).
 */
export function searchedFor(search: unknown, env: NodeJS.ProcessEnv = process.env): string | null {
  if (typeof search !== 'string' || !search.trim()) return null;
  const pick = env.RESUME_PICK_DIR;
  return pick && !readState(pick).deep ? null : search;
}

/**
 * `resume preview [KEY...]`: the preview of each key; with none, of each key (or row) on stdin.
 * Several previews are separated by a line of dashes. A key that names no session is exit 1 after
 * the others are printed. `search`: a query (searchedFor) whose words are looked for in each.
 */
export async function previewAction(app: App, keys: string[], search: string | null = null): Promise<void> {
  if (keys.length === 0) {
    if (process.stdin.isTTY) throw usage('preview needs a KEY, as an argument or on stdin (resume rows | head -1 | resume preview)');
    keys = await (await import('../util/stdin-keys.js')).stdinKeys();
    if (keys.length === 0) throw new ExitError(1, 'no key on stdin');
  }
  const color = previewColor();
  const missing: string[] = [];
  let first = true;
  for (const key of keys) {
    const { session: s, fork } = await findForPreview(app, key);
    if (!s) {
      missing.push(key);
      continue;
    }
    const found = search === null ? [] : await foundLines(app, s, search, color);
    out((first ? '' : `\n${'-'.repeat(40)}\n\n`) + previewText(s, app.ctx.home, { color, fork, found }));
    first = false;
  }
  const [gone] = missing;
  if (gone !== undefined)
    throw new ExitError(1, `no session '${oneLine(gone)}'${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ''}`);
}

/** Where the query's words are in the session, a line each (`prompt: …`, as resume search prints its evidence). */
async function foundLines(app: App, s: Session, query: string, color: boolean): Promise<string[]> {
  const [{ foundIn }, { marked }, { evidenceTag }] = await Promise.all([
    import('../search/run.js'),
    import('../search/snippet.js'),
    import('../present/evidence.js'),
  ]);
  const dim = (t: string) => (color ? DIM + t + RESET : t);
  return (await foundIn(app, s, query)).map((e) => `${dim(`${evidenceTag(e)}:`)} ${marked(e.snippet, color)}`);
}

export function run(app: App, call: Call): Promise<void> {
  const [keys] = call.args as [string[]];
  return previewAction(app, keys, searchedFor((call.opts as { search?: string }).search));
}
