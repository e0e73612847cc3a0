// `resume ls` without --json: a table sized to a terminal, tab-separated columns for a pipe, and on
// stderr how many sessions are hidden. A module of its own, so the rows bundle (lib/fast-rows.ts)
// runs it without the CLI framework; when nothing changed it prints from the rendered rows
// (rows.bin), as `rows` does, and never reads the listing.
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { type LsPick, lsRows } from '../index/rowbin.js';
import { lsOutName, printLsOut, type RowsOutKey, rowsOutKey, saveLsOut } from '../index/rowsout.js';
import { lsRow, plain, table } from '../output.js';
import { applyFilters, type Filters, hiddenSummary } from '../select/filter.js';
import { checkedRows } from '../select/find.js';
import { looksLikeDir } from '../select/rank.js';
import { colorOn } from '../util/color.js';
import { isDir } from '../util/fsx.js';
import { isTty } from '../util/lazy.js';
import { cacheDir, tellHomeless } from '../util/paths.js';
import { writeOut } from '../util/stdout.js';
import { oneLine } from '../util/text.js';
import { type FilterOpts, filtersOf, scopeOf } from './common.js';

export interface LsOpts extends FilterOpts {
  n?: number;
}

/**
 * `ls DIR`: the directory as `--dir DIR` (what `ls .` means to a person; once, not both). The
 * options with it, for lsAction and `ls --json`.
 */
export function withDirArg<T extends LsOpts>(o: T, args: readonly string[]): T {
  const [dir, more] = args;
  if (dir === undefined) return o;
  if (more !== undefined) throw usage(`ls takes one directory, not words ('${oneLine(args.join(' '))}'): resume WORDS names sessions`);
  if (o.dir !== undefined) throw usage('give the directory once: ls DIR, or ls --dir DIR');
  // a bare word that is no directory here is a query someone meant for `resume WORDS`
  if (!looksLikeDir(dir) && !isDir(dir))
    throw usage(`no directory '${oneLine(dir)}' here (ls takes a directory; resume ${oneLine(dir)} names sessions by words)`);
  return { ...o, dir };
}

export async function lsAction(app: App, o: LsOpts): Promise<void> {
  const filters = filtersOf(o);
  tellHomeless();
  const limit = o.n ?? 0;
  const got = await app.listingRows({ dir: filters.dir });
  const tty = isTty(1);
  // every session into a pipe, unfiltered: what the last such run printed for the same listing (ls.out)
  const kept = !tty && limit === 0 && !filters.harness && !filters.dir && 'bin' in got ? lsOutFor(app, !!filters.all, got.bin.id) : null;
  let printed = false;
  /** the stderr line ('' for none); null until the lines are printed */
  let said = kept
    ? printLsOut(kept.file, kept.key, (b) => {
        printed = true;
        writeOut(b);
      })
    : null;
  if (said === null) ({ printed, said } = await printListing(app, { got, filters, limit, tty, kept }));
  if (said) note(said);
  // none at all, hidden ones included: a new machine (said on a pipe too; stdout stays empty)
  const none = ('bin' in got ? got.bin.count : got.sessions.length) === 0;
  if (none && !app.demo) note(NO_SESSIONS);
  else if (!printed && isTty(2)) {
    // (a filter left nothing: say which; hidden ones, said above: not where resume looked)
    const scope = scopeOf(filters, app.ctx.home);
    if (scope) note(`no sessions with ${scope}`);
    else if (!said) note('no sessions found (resume doctor shows where it looked)');
  }
}

/** What `ls` says on stderr on a machine with no sessions (`rows`, which feeds fzf, says nothing). */
export const NO_SESSIONS =
  'resume: no sessions on this machine yet (resume doctor shows where it looked; resume --demo tries the bundled demo sessions)';

/** ls.out of listing `id` (ls-all.out with `--all`), and what it depends on. */
function lsOutFor(app: App, all: boolean, id: string): { file: string; key: RowsOutKey } {
  return {
    file: path.join(cacheDir(app.ctx), lsOutName(all)),
    key: rowsOutKey(app.ctx, id),
  };
}

/**
 * The sessions `ls` shows (at most `limit`; 0: all), newest first, and the hidden ones for the count
 * of those left out: from the rendered rows when nothing changed, else from the listing the run made
 * or read (and when the rows cannot give them exactly: lsRows).
 */
async function lsListing(app: App, got: Awaited<ReturnType<App['listingRows']>>, filters: Filters, limit: number): Promise<LsPick> {
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
    fs.writeSync(2, `${line}\n`);
  } catch {
    /* nowhere to say it */
  }
}

/** Print the listing (a table on a terminal, else plain lines in blocks, kept as ls.out when `kept`): printed any, the stderr line. */
async function printListing(
  app: App,
  {
    got,
    filters,
    limit,
    tty,
    kept,
  }: {
    got: Awaited<ReturnType<App['listingRows']>>;
    filters: Filters;
    limit: number;
    tty: boolean;
    kept: { file: string; key: RowsOutKey } | null;
  },
): Promise<{ printed: boolean; said: string }> {
  const { shown: list, hidden } = await lsListing(app, got, filters, limit);
  const said = hiddenSummary(hidden, filters) ?? '';
  const taken: Buffer[] = [];
  const out = (text: string) => {
    if (kept) taken.push(Buffer.from(text, 'utf8'));
    writeOut(text);
  };
  if (tty) {
    const lines = table(list, app.ctx.home, Date.now(), process.stdout.columns || 100, colorOn(true));
    writeOut(lines.length ? `${lines.join('\n')}\n` : '');
  } else {
    // in blocks: a long listing is never one string
    let buf = '';
    for (const s of list) {
      buf += `${plain(s)}\n`;
      if (buf.length > 65536) {
        out(buf);
        buf = '';
      }
    }
    out(buf);
  }
  if (kept) saveLsOut(kept.file, kept.key, taken, said);
  return { printed: list.length > 0, said };
}
