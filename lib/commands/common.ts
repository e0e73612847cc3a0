import fs from 'node:fs';
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { applyFilters, type Filters, parseHarnesses, resolveDir, UsageError } from '../select/filter.js';
import type { Session } from '../types.js';
import { writeOut } from '../util/stdout.js';

export interface FilterOpts {
  all?: boolean;
  harness?: string;
  dir?: string;
}

export function filtersOf(o: FilterOpts): Filters {
  try {
    return { all: !!o.all, harness: parseHarnesses(o.harness), dir: resolveDir(o.dir) };
  } catch (err) {
    if (err instanceof UsageError) throw usage(err.message);
    throw err;
  }
}

export async function filtered(app: App, o: FilterOpts): Promise<{ all: Session[]; shown: Session[]; filters: Filters }> {
  const filters = filtersOf(o);
  const all = await app.sessions();
  return { all, shown: applyFilters(all, filters), filters };
}

/** Write text to stdout (a long text in pieces; a closed pipe is a quiet exit 0: lib/util/stdout.ts). */
export function out(text: string): void {
  if (text) writeOut(text);
}

/**
 * A line on stderr. Written with write(2): when stderr is a pipe nobody reads any more
 * (`resume ls 2>&1 | head -3`), the note is dropped (EPIPE) and the command ends as it would have.
 */
export function note(line: string): void {
  try {
    fs.writeSync(2, `${line}\n`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPIPE' && (err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
  }
}
