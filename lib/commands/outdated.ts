// `resume outdated [--json]`: live Claude sessions running an older claude than the installed one.
// Read-only. Exit 0 whether or not any is outdated; 2 when the installed version cannot be told.
import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { tildify } from '../util/paths.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as { json?: boolean };
  const { findOutdated } = await import('../harness/claude/care/outdated.js');
  const r = findOutdated(app.ctx);
  if ('error' in r) throw new ExitError(2, `cannot tell the installed claude version: ${r.error}`);
  if (o.json) {
    out(`${JSON.stringify(r.sessions, null, 2)}\n`);
    return;
  }
  const f = (s: string | null) => oneLine(s ?? '');
  let text = '';
  for (const s of r.sessions) {
    const v = s.version_unparseable ? `${f(s.version) || '?'} (unparseable)` : f(s.version);
    text += `${[
      s.session,
      String(s.pid),
      `${v} < ${s.installed}`,
      s.busy ? `busy (${f(s.status) || 'no status'})` : 'idle',
      s.pane ? `${s.pane_kind}:${f(s.pane)}` : '-',
      f(tildify(s.cwd, app.ctx.home)),
      f(s.name),
    ].join('\t')}\n`;
  }
  out(text);
  process.stderr.write(
    `resume: installed claude ${r.installed.version} (${r.installed.via}); ${r.sessions.length} live session(s) older\n`,
  );
}
