// `resume resolve QUERY...`: the key(s) a query names, one per line.
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { applyFilters } from '../select/filter.js';
import { lookup } from '../select/find.js';
import { resolve } from '../select/resolve.js';
import { oneLine } from '../util/text.js';
import { type FilterOpts, filtersOf, givenFilters, meantQuery, noMatch, out } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const [query] = call.args as [string[]];
  const o = call.opts as FilterOpts;
  const filters = filtersOf(o);
  const { hit, named } = await lookup(app, query);
  if (hit && applyFilters([hit.session], { ...filters, all: true }).length === 1) {
    out(`${hit.session.key}\n`);
    return;
  }
  const { sessions, prompts } = await named();
  const pool = applyFilters(sessions, { ...filters, all: true });
  const r = resolve(query, pool, { all: !!o.all, prompts });
  const q = oneLine(query.join(' '));
  if (r.kind === 'none') {
    const meant = await meantQuery(app, query, filters, !!o.all);
    throw new ExitError(1, noMatch(app, query, pool, { all: !!o.all, prompts, scope: givenFilters(o), meant }));
  }
  if (r.kind === 'one') {
    out(`${r.session.key}\n`);
    return;
  }
  out(r.candidates.map((s) => `${s.key}\n`).join(''));
  if (r.kind === 'ambiguous-prefix') throw usage(`'${q}' is the start of ${r.candidates.length} session ids; type more characters`);
  throw new ExitError(1, `${r.candidates.length} sessions match '${q}'`);
}
