// `resume preview KEY`: the text fzf shows beside the list. Fast enough to follow the cursor: it
// reads one session of the index database and nothing else (lib/select/find.ts); the text itself is
// lib/present/preview.ts. With `--search QUERY` it starts with where the words are: in the picker
// while it names sessions, the prompt they name (one more row of the database); otherwise (deep
// search) the session's transcripts are read for them (lib/search/run.ts foundIn), which runs in
// the full CLI, never in the lean bundle (lib/fast-rows.ts declines it).
import { readState } from '../../fzf/feed.js';
import { matchSpans } from '../../fzf/layout.js';
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { promptsOfSession } from '../index/prompts.js';
import type { Labelled } from '../present/evidence.js';
import { previewColor, previewColumns, previewText } from '../present/preview.js';
import { findForPreview } from '../select/find.js';
import { fold, parseQuery, pathWords } from '../select/rank.js';
import type { Session } from '../types.js';
import { MATCH } from '../util/color.js';
import { sanitize } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';
import type { Call } from './table.js';

/** What `--search` asks the preview to show: where a deep search's words are, or which prompt the typed words name. */
export interface Looked {
  query: string;
  deep: boolean;
}

/**
 * What `--search QUERY` looks for: null for no query (or only blanks). Inside the picker
 * (RESUME_PICK_DIR), by its mode: deep search, or naming sessions (the picker's preview passes the
 * typed query always; fzf cannot change the preview's command with the mode on every version);
 * elsewhere a deep search's.
 */
export function lookedFor(search: unknown, env: NodeJS.ProcessEnv = process.env): Looked | null {
  if (typeof search !== 'string' || !search.trim()) return null;
  const pick = env.RESUME_PICK_DIR;
  return { query: search, deep: !pick || readState(pick).deep === true };
}

/**
 * `resume preview [KEY...]`: the preview of each key; with none, of each key (or row) on stdin.
 * Several previews are separated by a line of dashes. A key that names no session is exit 1 after
 * the others are printed. `look`: a query whose words are looked for in each (lookedFor).
 */
export async function previewAction(app: App, keys: string[], look: Looked | null = null): Promise<void> {
  if (keys.length === 0) {
    if (process.stdin.isTTY) throw usage('preview needs a KEY, as an argument or on stdin (resume rows | head -1 | resume preview)');
    keys = await (await import('../util/stdin-keys.js')).stdinKeys();
    if (keys.length === 0) throw new ExitError(1, 'no key on stdin');
  }
  // (the picker's preview of an empty list: fzf gives it no key; nothing to show, and no error)
  if (process.env.RESUME_PICK_DIR && keys.every((k) => k === '')) return;
  const color = previewColor();
  const cols = previewColumns();
  const missing: string[] = [];
  let first = true;
  for (const key of keys) {
    const { session: s, fork } = await findForPreview(app, key);
    if (!s) {
      missing.push(key);
      continue;
    }
    const found = !look ? [] : look.deep ? await foundLines(app, s, look.query, color) : namedPrompt(app, s, look.query, color);
    out((first ? '' : `\n${'-'.repeat(40)}\n\n`) + previewText(s, app.ctx.home, { color, fork, found, cols }));
    first = false;
  }
  const [gone] = missing;
  if (gone !== undefined)
    throw new ExitError(1, `no session '${oneLine(gone)}'${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ''}`);
}

/** Where the query's words are in the session, a line each (`prompt: …`, as resume search prints its evidence). */
async function foundLines(app: App, s: Session, query: string, color: boolean): Promise<Labelled[]> {
  // (a word that is a path chose the directory, and is not looked for: rank.ts pathWords)
  const words = pathWords(query, app.ctx.home).rest;
  if (words.length === 0) return [];
  const [{ foundIn }, { labelledEvidence }] = await Promise.all([import('../search/run.js'), import('../present/evidence.js')]);
  let found: Awaited<ReturnType<typeof foundIn>>;
  try {
    found = await foundIn(app, s, words.join(' '));
  } catch (err) {
    // a query search refuses (a word of thousands of characters): the session as it is
    if (err instanceof ExitError) return [];
    throw err;
  }
  return found.map((e) => labelledEvidence(e, color));
}

/**
 * The prompt of the session that holds the most of the typed words (the first of those), as a line
 * `prompt: …`, the words marked as the list marks them; none when no prompt holds one, or the first
 * or last prompt, which the preview shows anyway, holds as many. (A word names a session from any
 * of its prompts: this shows which. A fork's prompts include those it copied, so they are not
 * counted or numbered.)
 */
function namedPrompt(app: App, s: Session, query: string, color: boolean): Labelled[] {
  const terms = parseQuery(query).filter((t) => !t.not && t.text && t.dir === undefined);
  if (terms.length === 0) return [];
  const held = (p: string | null | undefined) => {
    const f = fold(p ?? '');
    return terms.filter((t) => f.includes(t.text)).length;
  };
  let best: string | null = null;
  let most = Math.max(held(s.firstPrompt), held(s.lastPrompt));
  for (const p of promptsOfSession(app.ctx, s.key)) {
    const n = held(p);
    if (n > most) {
      most = n;
      best = p;
    }
  }
  if (best === null) return [];
  const text = oneLine(sanitize(best));
  return [{ label: 'prompt', text, marks: color ? matchSpans(text, terms) : [], paint: MATCH }];
}

export function run(app: App, call: Call): Promise<void> {
  const [keys] = call.args as [string[]];
  return previewAction(app, keys, lookedFor((call.opts as { search?: string }).search));
}
