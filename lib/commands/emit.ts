// `resume emit KEY [--shell zsh|bash|fish] [--fork] [-- ARGS]`: the line that resumes KEY.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { ExitError, usage } from '../app.js';
import { shortIds } from '../select/filter.js';
import { resolve } from '../select/resolve.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';
import { loadConfig } from '../launch/config.js';
import { shellLine } from '../launch/emit.js';
import { candidateLines, dashTail, prepare, shellOf } from './resume.js';

export function register(program: Command, app: App): void {
  program
    .command('emit')
    .description('print the command line that resumes KEY: cd DIR && COMMAND, quoted for the shell')
    .argument('<key>', 'a session key (harness:id), id or id prefix')
    .argument('[args...]', 'after --: arguments for the harness')
    .option('--shell <shell>', 'zsh, bash or fish (default: RESUME_SHELL, else $SHELL, else bash)')
    .option('--fork', "the harness's native fork instead of a resume")
    .action(async (key: string, args: string[], o: { shell?: string; fork?: boolean }) => {
      const tail = dashTail(program);
      if (args.length > tail.length) throw usage(`emit takes one KEY; put arguments for the harness after --`);
      const cfg = loadConfig(app.ctx);
      const shell = shellOf(o.shell);
      const all = await app.sessions();
      const shorts = shortIds(all);
      const r = resolve([key], all, { all: true });
      if (r.kind === 'none') throw new ExitError(1, `no session matches '${oneLine(key)}'`);
      if (r.kind !== 'one') {
        out(candidateLines(r.candidates, shorts));
        throw r.kind === 'ambiguous-prefix'
          ? usage(`'${oneLine(key)}' is the start of ${r.candidates.length} session ids; type more characters`)
          : new ExitError(1, `${r.candidates.length} sessions match '${oneLine(key)}'`);
      }
      const s = r.session;
      const plan = prepare(s, { fork: !!o.fork, extra: tail, cfg, name: shorts.get(s.id) ?? s.id, ctx: app.ctx });
      out(shellLine(plan, shell) + '\n');
    });
}
