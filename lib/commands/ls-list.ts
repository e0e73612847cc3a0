// `resume ls` without --json: a table sized to a terminal, tab-separated columns for a pipe, and on
// stderr how many sessions are hidden. A module of its own, so the rows bundle (lib/fast-rows.ts)
// runs it without the CLI framework; when nothing changed it prints from the rendered rows
// (rows.bin), as `rows` does, and never reads the listing.
import fs from 'node:fs';
import type { App } from '../app.js';
import { filtersOf, type FilterOpts } from './common.js';
import { applyFilters, hiddenSummary, type Filters } from '../select/filter.js';
import { lsRow, plain, table } from '../output.js';
import { lsRows, type LsPick } from '../index/rowbin.js';
import { checkedRows } from '../select/find.js';
import { writeOut } from '../util/stdout.js';
import { isTty } from '../util/lazy.js';
import { colorOn } from '../util/color.js';

export interface LsOpts extends FilterOpts {
  n?: number;
}

export async function lsAction(app: App, o: LsOpts): Promise<void> {
  const filters = filtersOf(o);
  const { shown: list, hidden } = await lsListing(app, filters, o.n ?? 0);
  if (isTty(1)) {
    const lines = table(list, app.ctx.home, Date.now(), process.stdout.columns || 100, colorOn(true));
    writeOut(lines.length ? lines.join('\n') + '\n' : '');
  } else {
    // in blocks: a long listing is never one string
    let buf = '';
    for (const s of list) {
      buf += plain(s) + '\n';
      if (buf.length > 65536) {
        writeOut(buf);
        buf = '';
      }
    }
    writeOut(buf);
  }
  const h = hiddenSummary(hidden, filters);
  if (h) note(h);
  if (list.length === 0 && isTty(2)) note('no sessions found (resume doctor shows where it looked)');
}

/**
 * The sessions `ls` shows (at most `limit`; 0: all), newest first, and the hidden ones for the count
 * of those left out: from the rendered rows when nothing changed, else from the listing the run made
 * or read (and when the rows cannot give them exactly: lsRows).
 */
async function lsListing(app: App, filters: Filters, limit: number): Promise<LsPick> {
  const got = await app.listingRows({ dir: filters.dir });
  const picked = 'bin' in got ? lsRows(got.bin, got.names, filters, limit) : null;
  if (picked) return picked;
  // the listing rows the run made or read, else those of the build it just checked
  const all = ('bin' in got ? await checkedRows(app) : got.sessions).map((s) => lsRow(s, s.short));
  const shown = applyFilters(all, filters);
  return { shown: limit > 0 ? shown.slice(0, limit) : shown, hidden: all.filter((s) => s.hidden) };
}

/** A line on stderr (written at once: building process.stderr costs more than the line). */
function note(line: string): void {
  try {
    fs.writeSync(2, line + '\n');
  } catch {
    /* nowhere to say it */
  }
}
