// `resume __pick [QUERY...]` (hidden): the picker for the shell integration; prints the chosen
// session's id (130 on cancel). With --words, the arguments are a command line's words after
// `resume` (bash's TAB: the query's words, the filters and the subcommand among them). The
// picker's other callbacks are fzf-flags.ts, feed.ts and transcript.ts.
import { pick } from '../../fzf/picker.js';
import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { findSession } from '../select/find.js';
import { queryText } from '../select/rank.js';
import { type FilterOpts, filtersOf, out } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const [args] = call.args as [string[]];
  const o = call.opts as FilterOpts & { words?: boolean };
  const line = o.words ? (await import('./complete.js')).lineQuery(app, args) : null;
  if (line) app = line.app;
  const r = await pick(app, { query: line ? queryText(line.query) : args.join(' '), filters: line?.filters ?? filtersOf(o) });
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
