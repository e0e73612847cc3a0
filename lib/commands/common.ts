import fs from 'node:fs';
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { applyFilters, type Filters, parseHarnesses, resolveDir, UsageError } from '../select/filter.js';
import { parseQuery, type Term } from '../select/rank.js';
import { namedAbove, type Resolution, type ResolveOptions, resolve } from '../select/resolve.js';
import type { Session } from '../types.js';
import { tildify } from '../util/paths.js';
import { writeOut } from '../util/stdout.js';
import { oneLine } from '../util/text.js';

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

/** A listing's filters as options (`--harness pi --dir ~/src`), for a message that nothing passed them; '' without. */
export function scopeOf(f: Filters, home: string): string {
  return [f.harness?.length ? `--harness ${f.harness.join(',')}` : '', f.dir ? `--dir ${oneLine(tildify(f.dir, home))}` : '']
    .filter(Boolean)
    .join(' ');
}

/**
 * The filters given, as typed, for a "no session …" message (` with --harness pi --since 1h`; empty
 * without): without them, nothing found under a filter reads as nothing anywhere.
 */
export function givenFilters(o: FilterOpts & { since?: string; until?: string }): string {
  const given = (
    [
      ['--harness', o.harness],
      ['--dir', o.dir],
      ['--since', o.since],
      ['--until', o.until],
    ] as const
  ).filter(([, v]) => v);
  return given.length ? ` with ${given.map(([k, v]) => `${k} ${oneLine(String(v))}`).join(' ')}` : '';
}

/**
 * "no session matches 'Q'" for a query `pool` holds none of (resume QUERY, resolve): with the
 * filters given (`scope`: givenFilters), how many the query names in the nearest directory above its
 * directory word (resolve.ts namedAbove), and, without `all`, how many hidden sessions it names,
 * which `-a` takes in.
 */
export function noMatch(
  app: App,
  query: string[],
  pool: Session[],
  o: { all: boolean; prompts: ResolveOptions['prompts']; scope: string; meant?: string | null },
): string {
  const n = o.all ? 0 : matches(resolve(query, pool, { all: true, prompts: o.prompts }));
  const more = n === 0 ? '' : `; ${n === 1 ? '1 hidden session matches, -a shows it' : `${n} hidden sessions match, -a shows them`}`;
  const above = namedAbove(query, pool, { all: o.all, prompts: o.prompts, home: app.ctx.home });
  const m = matches(above?.r ?? null);
  const up =
    above && m
      ? `; ${m === 1 ? '1 session matches' : `${m} sessions match`} in ${oneLine(tildify(above.dir, app.ctx.home))}, above it`
      : '';
  return `no session matches '${oneLine(query.join(' '))}'${o.scope}${up}${more}${meantSaid(o.meant)}`;
}

/** `; did you mean '…'?` after a "no session matches" message, for what the query probably meant (meantQuery); '' for nothing. */
export function meantSaid(meant: string | null | undefined): string {
  return meant ? `; did you mean '${oneLine(meant)}'?` : '';
}

/** "no session matches 'QUERY'", and what it probably meant (meantQuery): show, emit, TAB. */
export function noSessionMatches(query: string[], meant: string | null): string {
  return `no session matches '${oneLine(query.join(' '))}'${meantSaid(meant)}`;
}

/**
 * What a query that names no session probably meant (suggest.ts): its words that name no session
 * alone put right by one edit against the words of the sessions' labels, directories, branches and
 * harnesses (the filters' sessions, hidden ones with `all`); null unless that query names a session
 * by the same rules. Asked only once a query has named none: it reads every session.
 */
export async function meantQuery(app: App, query: string[], filters: Filters, all: boolean): Promise<string | null> {
  const [{ namedBy }, { corrected, sessionTexts, unheld }, { label }] = await Promise.all([
    import('../select/find.js'),
    import('../select/suggest.js'),
    import('../output.js'),
  ]);
  const terms = parseQuery(query);
  const names = async (q: string[]) => {
    const n = await namedBy(app, q);
    return resolve(q, applyFilters(n.sessions, { ...filters, all: true }), { all, prompts: n.prompts }).kind !== 'none';
  };
  const pool = applyFilters(await app.sessions(), { ...filters, all });
  const texts = pool.map((s) => sessionTexts({ label: label(s), cwd: s.cwd, branch: s.branch, harness: s.harness }));
  // (a word the texts lack may still name sessions alone, from a prompt: it is no typo)
  const wrong = new Set<Term>();
  for (const t of unheld(terms, texts)) if (!(await names([t.text]))) wrong.add(t);
  const meant = wrong.size ? corrected(terms, texts, wrong) : null;
  return meant && (await names(meant.words)) ? meant.words.join(' ') : null;
}

/** How many sessions a resolution names. */
const matches = (r: Resolution | null): number => (!r || r.kind === 'none' ? 0 : r.kind === 'one' ? 1 : r.candidates.length);

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
