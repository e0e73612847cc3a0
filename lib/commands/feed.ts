// `resume __feed [--toggle-hidden|--next-harness|--search Q]` (hidden): the picker's list after a
// key changed its state (fzf reload); needs $RESUME_PICK_DIR, set by the picker for fzf.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { out } from './common.js';
import { alignRows, binHarnesses, feedSource, linesCache, listColor, nextHarness, readState, writeLines, writeState, type PickState } from '../../fzf/feed.js';
import { writeOut } from '../util/stdout.js';
import { oneLine } from '../util/text.js';

/** Deep search (in this process) with the picker's filters, as picker lines under a status line. */
async function deepSearchLines(app: App, query: string, state: PickState): Promise<string[]> {
  const q = oneLine(query);
  let rows: string[][] = [];
  let status: string;
  try {
    const { searchRows } = await import('../search/run.js');
    rows = await searchRows(app, query, { all: state.all, harness: state.harness ?? undefined, dir: state.dir ?? undefined });
    status = rows.length ? `deep search: ${q} · ${rows.length} session${rows.length === 1 ? '' : 's'} (best first)` : `deep search: ${q} · no session mentions it`;
  } catch (err) {
    status = `deep search failed: ${oneLine(err instanceof Error ? err.message : String(err))}`;
  }
  return ['\t' + status, ...alignRows(rows, listColor(process.env))];
}

export function register(program: Command, app: App): void {
  program
    .command('__feed', { hidden: true })
    .description("the picker's list after a key changed its state (fzf reload)")
    .option('--toggle-hidden', 'show or hide hidden sessions')
    .option('--next-harness', 'the next harness filter: all, then each harness, then all')
    .option('--search <query>', 'deep-search results for the query (as resume search --rows); empty: the list')
    .action(async (o: { toggleHidden?: boolean; nextHarness?: boolean; search?: string }) => {
      const dir = process.env.RESUME_PICK_DIR;
      if (!dir) throw usage('__feed runs inside the picker only (RESUME_PICK_DIR is not set)');
      const state = readState(dir);
      if (o.search != null && o.search.trim() !== '') {
        out((await deepSearchLines(app, o.search, state)).join('\n') + '\n');
        return;
      }
      // what `rows` reads: the rendered rows when nothing changed, else rows.json
      const got = await feedSource(app, state);
      if (o.toggleHidden) state.all = !state.all;
      if (o.nextHarness) state.harness = nextHarness(state.harness, 'bin' in got ? binHarnesses(got.bin) : got.sessions);
      // only a key's change is written: a plain reload (fzf's load) must not write back what it read
      // while a key's reload may have changed it
      if (o.toggleHidden || o.nextHarness) writeState(dir, state);
      const color = listColor(process.env);
      writeLines(got, state, app.ctx.home, color, Date.now(), true, writeOut, false, 'bin' in got ? linesCache(app, state, color, true, got.bin) : null);
    });
}
