// `resume __pick [QUERY...]` (hidden): the picker for the shell integration; prints the chosen
// session's id (130 on cancel). The picker's other callbacks are fzf-flags.ts, feed.ts and
// transcript.ts.
import { pick } from '../../fzf/picker.js';
import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { findSession } from '../select/find.js';
import { type FilterOpts, filtersOf, out } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const [query] = call.args as [string[]];
  const o = call.opts as FilterOpts;
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
}
