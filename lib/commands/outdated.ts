// `resume outdated [--json]`: live Claude sessions running an older claude than the installed one.
// Read-only. Exit 0 whether or not any is outdated; 2 when the installed version cannot be told.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { tildify } from '../util/paths.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';

const FIELDS = `
JSON fields (--json: an array, [] when none; one object per session, these names exactly):
  session              the Claude session id
  pid                  the claude process
  name                 its /rename name, or null
  cwd                  its working directory, or null
  version              the version its registry file names (as written), or null
  installed            the installed claude version
  status               the registry status as written (idle, busy, waiting, shell, …), or null
  busy                 true unless status is exactly "idle"
  pane                 TMUX_PANE or HERDR_PANE_ID from the process's own environment; "" when unknown
  pane_kind            "tmux", "herdr" or null
  version_unparseable  true when version is not plain dotted numbers: listed, never guessed

The installed version is the target of ~/.local/bin/claude when it links into a versions
directory, else the output of \`claude --version\`. Versions compare numerically (2.1.100 > 2.1.99).
Exit 0 whether or not anything is outdated; 2 when the installed version cannot be told.`;

export function register(program: Command, app: App): void {
  program
    .command('outdated')
    .description('live Claude sessions running an older claude than the installed one (read-only)')
    .option('--json', 'a JSON array (fields below)')
    .addHelpText('after', FIELDS)
    .action(async (o: { json?: boolean }) => {
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
    });
}
