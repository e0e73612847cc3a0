// `resume __pick [QUERY...]` (hidden): the picker for the shell integration; prints the chosen
// session's id (130 on cancel). The picker's other callbacks are fzf-flags.ts, feed.ts and
// transcript.ts.
import type { Command } from 'commander';
import { pick } from '../../fzf/picker.js';
import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { findSession } from '../select/find.js';
import { type FilterOpts, filtersOf, out, withFilters } from './common.js';

export function register(program: Command, app: App): void {
  withFilters(program.command('__pick', { hidden: true }).description('pick a session in fzf and print its id'))
    .argument('[query...]', 'the initial query')
    .action(async (query: string[], o: FilterOpts) => {
      const r = await pick(app, { query: query.join(' '), filters: filtersOf(o) });
      if (r.kind === 'cancel') {
        // Esc / Ctrl-C: quiet, like fzf itself
        process.exitCode = 130;
        return;
      }
      if (r.kind === 'nomatch') throw new ExitError(1, 'nothing picked');
      const s = await findSession(app, r.key);
      if (!s) throw new ExitError(1, 'the picked session is gone');
      out(`${s.id}\n`);
    });
}
