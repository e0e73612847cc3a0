// `resume __feed [--toggle-hidden|--next-harness|--search Q]` (hidden): the picker's list after a
// key changed its state (fzf reload); needs $RESUME_PICK_DIR, set by the picker for fzf.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { out } from './common.js';
import { alignRows, feedLines, listColor, nextHarness, readState, writeState, type PickState } from '../../fzf/feed.js';
import { oneLine } from '../util/text.js';
import { spawnSync } from 'node:child_process';

/** `resume search --rows QUERY` with the picker's filters, as picker lines under a status line. */
function deepSearchLines(app: App, query: string, state: PickState): string[] {
  const args = [app.self, ...(app.demo ? ['--demo'] : []), 'search', '--rows'];
  if (state.all) args.push('--all');
  if (state.harness) args.push('--harness', state.harness.join(','));
  if (state.dir) args.push('--dir', state.dir);
  args.push('--', query);
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  const rows = (r.stdout ?? '').split('\n').filter((l) => l.includes('\t')).map((l) => l.split('\t'));
  const q = oneLine(query);
  let status: string;
  if (rows.length) status = `deep search: ${q} · ${rows.length} session${rows.length === 1 ? '' : 's'} (best first)`;
  else if (r.status === 1 || r.status === 0) status = `deep search: ${q} · no session mentions it`;
  else status = `deep search failed: ${oneLine((r.stderr ?? '').replace(/^resume: /, '')) || `exit ${r.status ?? r.signal}`}`;
  return ['\t' + status, ...alignRows(rows, listColor(process.env))];
}

export function register(program: Command, app: App): void {
  program
    .command('__feed', { hidden: true })
    .description("the picker's list after a key changed its state (fzf reload)")
    .option('--toggle-hidden', 'show or hide hidden sessions')
    .option('--next-harness', 'the next harness filter: all, then each harness, then all')
    .option('--search <query>', 'deep-search results for the query (resume search --rows); empty: the list')
    .action(async (o: { toggleHidden?: boolean; nextHarness?: boolean; search?: string }) => {
      const dir = process.env.RESUME_PICK_DIR;
      if (!dir) throw usage('__feed runs inside the picker only (RESUME_PICK_DIR is not set)');
      const state = readState(dir);
      if (o.search != null && o.search.trim() !== '') {
        out(deepSearchLines(app, o.search, state).join('\n') + '\n');
        return;
      }
      const all = (await app.index({ quiet: true })).sessions;
      if (o.toggleHidden) state.all = !state.all;
      if (o.nextHarness) state.harness = nextHarness(state.harness, all);
      writeState(dir, state);
      out(feedLines(all, state, app.ctx.home, listColor(process.env)).join('\n') + '\n');
    });
}
