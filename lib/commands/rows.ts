// `resume rows`: one line per session, newest first, for fzf and for pipes. The one row format that
// the picker (its first list and its reloads), `resume __pick`, fzf-tab previews and the by-hand
// pipe read; flags add what differs: --align pads the visible columns as the picker shows them,
// --status puts the picker's status line first (an empty key: fzf --header-lines=1), --ansi colours.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { filtered, filtersOf, out, withFilters, type FilterOpts } from './common.js';
import { applyFilters, shortIds } from '../select/filter.js';
import { haveListing } from '../index/index.js';
import type { Session } from '../types.js';
import { row } from '../output.js';

export interface RowsOpts extends FilterOpts {
  align?: boolean;
  status?: boolean;
  ansi?: boolean;
}

export async function rowsAction(app: App, o: RowsOpts): Promise<void> {
  if (o.align || o.status) {
    const { feedLines } = await import('../../fzf/feed.js');
    const f = filtersOf(o);
    const all = (await app.index({ quiet: true })).sessions;
    const lines = feedLines(all, { all: !!f.all, harness: f.harness ?? null, dir: f.dir ?? null }, app.ctx.home, !!o.ansi, Date.now(), !o.align);
    out((o.status ? lines : lines.slice(1)).map((l) => l + '\n').join(''));
    return;
  }
  const now = Date.now();
  // A cold index (first run, or after an upgrade of the index format): the sessions of each file
  // are written as the file is read (newest files first; harnesses whose sessions need a pass over
  // all their files come with the finished list), then the rest in the finished list's order.
  const written = new Set<string>();
  let onSessions: ((batch: Session[]) => void) | undefined;
  if (!haveListing(app.ctx)) {
    const f = filtersOf(o);
    onSessions = (batch) => {
      const rows = applyFilters(batch, f)
        .filter((x) => !written.has(x.key))
        .map((x) => {
          written.add(x.key);
          return row(x, x.id.slice(0, 8), app.ctx.home, now) + '\n';
        });
      if (rows.length) out(rows.join(''));
    };
  }
  const { all, shown } = await filtered(app, o, onSessions);
  const shorts = shortIds(all);
  // Written in blocks so fzf sees the first screen at once on a long list.
  let buf = '';
  for (const s of shown) {
    if (written.has(s.key)) continue;
    buf += row(s, shorts.get(s.id)!, app.ctx.home, now) + '\n';
    if (buf.length > 65536) {
      out(buf);
      buf = '';
    }
  }
  out(buf);
}

export function register(program: Command, app: App): void {
  withFilters(program.command('rows').description('tab-separated rows for fzf, newest first (key, id, age, harness, dir, branch, title)'))
    .option('--align', 'pad the visible columns to line up, as the picker shows them')
    .option('--status', "a status line first (empty key), for fzf's --header-lines=1")
    .option('--ansi', "colour the id and harness columns (for fzf's --ansi)")
    .action((o: RowsOpts) => rowsAction(app, o));
}
