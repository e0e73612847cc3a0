// `resume __feed [--query Q] [--toggle-hidden|--next-harness|--toggle-deep]` (hidden): the picker's
// list for the typed query (fzf's change:reload), or after a key changed its state; needs
// $RESUME_PICK_DIR, set by the picker for fzf.
import {
  binHarnesses,
  feedSource,
  layFields,
  listColor,
  nextHarness,
  type PickState,
  type PickView,
  pickerText,
  readState,
  writeState,
} from '../../fzf/feed.js';
import { termColumns } from '../../fzf/layout.js';
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { dirFilterable } from '../index/rowbin.js';
import { pathWords } from '../select/rank.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';
import type { Call } from './table.js';

/** Deep search (in this process) with the picker's filters, as picker lines under a status line. */
async function deepSearchText(
  app: App,
  query: string,
  state: PickState,
  view: PickView,
): Promise<{ text: string; after?: () => Promise<void> }> {
  const q = oneLine(query);
  // (a word that is a path is a directory, as in naming: rank.ts Term.dir)
  const { dir, rest } = pathWords(query, app.ctx.home, state.dir ?? undefined);
  if (rest.length === 0) {
    // (while the user types the first word: the search index made ready for it, run/prepareSearch)
    const after = async () => (await import('../search/run.js')).prepareSearch(app);
    // (76 characters: whole in an 80-column terminal, past fzf's gutter)
    return { text: '\tdeep search: type words to find in any transcript (ctrl-s: back to the list)\n', after };
  }
  let rows: string[][] = [];
  let status: string;
  let after: (() => Promise<void>) | undefined;
  try {
    const { searchRows } = await import('../search/run.js');
    const got = await searchRows(app, rest.join(' '), { all: state.all, harness: state.harness ?? undefined, dir });
    rows = got.rows;
    after = got.after;
    status = rows.length
      ? `deep search: ${q} · ${rows.length} session${rows.length === 1 ? '' : 's'} (best first)`
      : `deep search: ${q} · no session mentions it`;
    // (the first search on a machine reads every file while the search index is made behind it)
    if (got.unindexed > 0) status += ` · ${got.unindexed} file${got.unindexed === 1 ? '' : 's'} not yet indexed`;
  } catch (err) {
    status = `deep search failed: ${oneLine(err instanceof Error ? err.message : String(err))}`;
  }
  return { text: `${[`\t${status}`, ...layFields(rows, view, query)].join('\n')}\n`, after };
}

interface FeedOpts {
  toggleHidden?: boolean;
  nextHarness?: boolean;
  toggleDeep?: boolean;
  stateOnly?: boolean;
  query?: string;
}

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as FeedOpts;
  const dir = process.env.RESUME_PICK_DIR;
  if (!dir) throw usage('__feed runs inside the picker only (RESUME_PICK_DIR is not set)');
  const state = readState(dir);
  const query = o.query ?? '';
  const view: PickView = {
    cols: termColumns(process.env, state.cols),
    color: listColor(process.env),
    now: Date.now(),
    alt: state.alt ?? true,
  };
  if (o.toggleDeep) {
    state.deep = !state.deep;
    writeState(dir, state);
  }
  // (the picker runs the deep-search key so, to its end, then reloads: as a reload of its own, the
  // key typed next stopped it before it had written the state, and the words typed right after
  // Ctrl-S named sessions instead)
  if (o.stateOnly) return;
  if (state.deep && !o.toggleHidden && !o.nextHarness) {
    const got = await deepSearchText(app, query, state, view);
    out(got.text);
    // (after the rows are out: fzf shows them while this finishes, and stops it at the next key)
    await got.after?.();
    return;
  }
  out(await listText(app, o, { dir, state, query, view }));
}

/** The picker's lines for the query, after the key (if any) changed the state in `dir`. */
async function listText(
  app: App,
  o: FeedOpts,
  { dir, state, query, view }: { dir: string; state: PickState; query: string; view: PickView },
): Promise<string> {
  // A keystroke lists the rows the picker's own check left (the last build's, no stat of every
  // file again: at 22,000 sessions that is ~0.3 s a key); a key that changes the filters checks
  // the index first, as `rows` does.
  const keyed = o.toggleHidden || o.nextHarness;
  const last = keyed ? null : app.lastRows();
  const got = last && (!state.dir || dirFilterable(last.bin)) ? last : await feedSource(app, state);
  if (o.toggleHidden) state.all = !state.all;
  if (o.nextHarness) state.harness = nextHarness(state.harness, 'bin' in got ? binHarnesses(got.bin) : got.sessions);
  // only a key's change is written: a plain reload (fzf's load) must not write back what it read
  // while a key's reload may have changed it
  if (o.toggleHidden || o.nextHarness) writeState(dir, state);
  if (state.deep) return (await deepSearchText(app, query, state, view)).text;
  return pickerText(app, got, state, query, view);
}
