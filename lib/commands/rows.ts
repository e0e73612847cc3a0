// `resume rows`: one line per session, newest first, for fzf and for pipes. The one row format that
// the picker (its first list and its reloads), `resume __pick`, fzf-tab previews and the by-hand
// pipe read; flags add what differs: --align pads the visible columns as the picker shows them,
// --status puts the picker's status line first (an empty key: fzf --header-lines=1), --ansi colours.
import type { App } from '../app.js';
import { printRowBin } from '../index/rowbin.js';
import { row } from '../output.js';
import { applyFilters, MIN_SHORT } from '../select/filter.js';
import type { Session } from '../types.js';
import { writeOut as out } from '../util/stdout.js';
import { type FilterOpts, filtersOf } from './common.js';
import type { Call } from './table.js';

export interface RowsOpts extends FilterOpts {
  align?: boolean;
  status?: boolean;
  ansi?: boolean;
}

export async function rowsAction(app: App, o: RowsOpts): Promise<void> {
  const filters = filtersOf(o);
  if (o.align || o.status) {
    const { feedSource, linesCache, writeLines } = await import('../../fzf/feed.js');
    const state = { all: !!filters.all, harness: filters.harness ?? null, dir: filters.dir ?? null };
    // the rendered rows when nothing changed, else the listing rows from the database (not the whole sessions);
    // the padded lines printed last for the same listing while they stand
    const src = await feedSource(app, state);
    const cache = 'bin' in src && o.align ? linesCache(app, state, !!o.ansi, !!o.status, src.bin) : null;
    const look = { home: app.ctx.home, color: !!o.ansi, now: Date.now(), plain: !o.align };
    writeLines(src, state, { ...look, status: !!o.status, write: out, cache });
    return;
  }
  const now = Date.now();
  // A full build (cold index) hands over the finished list in order while it still reads files:
  // each batch is written at once. Its short ids are unique among the rows written so far (a later
  // session may share a longer prefix; the key field is always whole).
  let streamed = false;
  const ids = new StreamShorts();
  const onSessions = (batch: Session[]) => {
    streamed = true;
    let buf = '';
    for (const s of applyFilters(batch, filters)) buf += `${row(s, ids.add(s.id), app.ctx.home, now)}\n`;
    out(buf);
  };
  // the rendered rows when nothing changed (with --dir, when they can tell each session's directory);
  // without a harness or directory filter, the rows printed last time when they still stand (rows.out)
  const rowsOut = filters.harness || filters.dir ? undefined : { all: !!filters.all, now, write: out };
  const got = await app.listingRows({ onSessions, dir: filters.dir, rowsOut });
  if (streamed) return;
  if ('bin' in got) {
    printRowBin(got.bin, filters, { readNames: got.names, now, write: out, tape: got.tape });
    got.keep?.();
    return;
  }
  if (got.printed) return;
  const all = got.sessions;
  const shown = applyFilters(all, filters);
  // Written in blocks so fzf sees the first screen at once on a long list.
  let buf = '';
  for (const s of shown) {
    buf += `${row(s, s.short, app.ctx.home, now)}\n`;
    if (buf.length > 65536) {
      out(buf);
      buf = '';
    }
  }
  out(buf);
}

/** Short ids while streaming: the shortest prefix (8 or more) unique among the ids added so far. */
export class StreamShorts {
  private ids: string[] = [];
  add(id: string): string {
    const a = this.ids;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      const v = a[m];
      if (v === undefined) throw new Error('StreamShorts: the binary search left the sorted ids');
      if (v < id) lo = m + 1;
      else hi = m;
    }
    if (a[lo] !== id) a.splice(lo, 0, id);
    const lcp = (b: string | undefined) => {
      if (b == null || b === id) return 0;
      let i = 0;
      while (i < id.length && i < b.length && id[i] === b[i]) i++;
      return i;
    };
    const l = Math.max(lcp(a[lo - 1]), lcp(a[lo + 1]));
    return id.slice(0, Math.min(id.length, Math.max(MIN_SHORT, l + 1)));
  }
}

export function run(app: App, call: Call): Promise<void> {
  return rowsAction(app, call.opts as RowsOpts);
}
