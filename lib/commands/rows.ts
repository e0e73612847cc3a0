import type { Command } from 'commander';
import type { App } from '../app.js';
import { filtersOf, out, withFilters, type FilterOpts } from './common.js';
import { applyFilters } from '../select/filter.js';
import { row } from '../output.js';

export async function rowsAction(app: App, o: FilterOpts): Promise<void> {
  const filters = filtersOf(o);
  const all = await app.listing();
  const shown = applyFilters(all, filters);
  const now = Date.now();
  // Written in blocks so fzf sees the first screen at once on a long list.
  let buf = '';
  for (const s of shown) {
    buf += row(s, s.short, app.ctx.home, now) + '\n';
    if (buf.length > 65536) {
      out(buf);
      buf = '';
    }
  }
  out(buf);
}

export function register(program: Command, app: App): void {
  withFilters(program.command('rows').description('tab-separated rows for fzf, newest first (key, id, age, harness, dir, branch, title)'))
    .action((o: FilterOpts) => rowsAction(app, o));
}
