import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { allPrompts } from '../index/prompts.js';
import { launchInfo, liveInfo } from '../launch/info.js';
import { toJson } from '../output.js';
import { resolve } from '../select/resolve.js';
import type { Session } from '../types.js';
import { stdoutColumns } from '../util/lazy.js';
import { tildify } from '../util/paths.js';
import { oneLine, wrapWords } from '../util/text.js';
import { age, localTime } from '../util/time.js';
import { meantQuery, noSessionMatches, out } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const [query] = call.args as [string[]];
  const o = call.opts as { json?: boolean };
  const all = await app.sessions();
  const r = resolve(query, all, { prompts: (words) => allPrompts(app.ctx, words) });
  const shorts = await app.shorts();
  if (r.kind === 'none') {
    const meant = await meantQuery(app, query, {}, false);
    throw new ExitError(1, noSessionMatches(query, meant));
  }
  if (r.kind !== 'one') {
    out(r.candidates.map((s) => `${shorts.get(s.id)}\t${s.harness}\t${oneLine(s.title ?? s.firstPrompt ?? '')}\n`).join(''));
    throw new ExitError(
      r.kind === 'ambiguous-prefix' ? 2 : 1,
      r.kind === 'ambiguous-prefix'
        ? `'${query.join(' ')}' is the start of ${r.candidates.length} ids; type more characters`
        : `${r.candidates.length} sessions match '${query.join(' ')}'`,
    );
  }
  const s = r.session;
  const launch = await launchInfo(app);
  const live = await liveInfo(app, [s]);
  const j = toJson(s, shorts.get(s.id) ?? s.id, launch, live.get(s.key));
  if (o.json) {
    out(`${JSON.stringify(j, null, 2)}\n`);
    return;
  }
  out(showText(s, j, { home: app.ctx.home, shorts, cols: stdoutColumns() }));
}

/** Where `show`'s values start: after the longest key (`first prompt: `). */
const KEY_WIDTH = 14;
/** The values of words `show` wraps on a terminal (the paths and the resume line stay whole: they are copied). */
const PROSE = new Set(['title', 'first prompt', 'last prompt']);

/**
 * `show` as text: a `key: value` line for each field known. On a terminal (`cols`) the title and
 * prompts are wrapped at spaces, each line under the first: the terminal wrapped them inside
 * words, at its first column.
 */
function showText(
  s: Session,
  j: ReturnType<typeof toJson>,
  { home, shorts, cols }: { home: string; shorts: Map<string, string>; cols: number | null },
): string {
  const now = Date.now();
  const lines: [string, string | null][] = [
    ['title', j.title],
    ['harness', s.harness],
    ['id', s.id],
    ['short', j.short],
    ['directory', s.cwd ? oneLine(tildify(s.cwd, home)) : null],
    ['branch', j.branch],
    ['model', j.model],
    ['started', s.started != null ? `${localTime(s.started)} (${age(s.started, now)} ago)` : null],
    ['updated', (s.updated ?? s.started) != null ? `${localTime(s.updated ?? s.started)} (${age(s.updated ?? s.started, now)} ago)` : null],
    ['prompts', String(s.prompts)],
    ['first prompt', j.firstPrompt],
    ['last prompt', j.lastPrompt],
    ['hidden', s.hidden ? `yes (${s.hiddenReason})` : 'no'],
    ['parent', s.parent],
    ['forked from', s.forkedFrom ? `${s.forkedFrom} (fork of ${shorts.get(s.forkedFrom) ?? s.forkedFrom})` : null],
    ['live', j.live ? `yes (pid ${j.pid})` : 'no'],
    ['file', oneLine(s.file)],
    ['resume', j.resume ? `cd ${oneLine(j.resume.cwd ?? '?')} && ${j.resume.argv.map(oneLine).join(' ')}` : null],
  ];
  const wrapped = (k: string, v: string) =>
    cols !== null && cols - KEY_WIDTH >= 20 && PROSE.has(k) ? wrapWords(v, cols - KEY_WIDTH) : [v];
  return lines
    .filter((l): l is [string, string] => l[1] != null && l[1] !== '')
    .map(
      ([k, v]) =>
        `${wrapped(k, v)
          .map((l, i) => (i ? ' '.repeat(KEY_WIDTH) : `${k}:`.padEnd(KEY_WIDTH)) + l)
          .join('\n')}\n`,
    )
    .join('');
}
