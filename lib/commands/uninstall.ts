// `resume uninstall [--dry-run]`: remove what resume wrote outside its cache, then its stores, one
// line on stderr for each (lib/uninstall.ts). The package itself is npm's to remove.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { oneLine } from '../util/text.js';

export function register(program: Command, app: App): void {
  program
    .command('uninstall')
    .description(
      "remove what resume wrote outside its cache (the Claude Stop hook, the update hooks' units; shell lines are named for you to remove), then its cache and stores",
    )
    .option('--dry-run', 'say what would be removed; remove nothing')
    .addHelpText(
      'after',
      `
In order: the lines that load the shell integration (resume init zsh|bash|fish in ~/.zshrc,
~/.bashrc, ~/.profile, fish's config.fish or conf.d: resume never writes them, so they are named,
file and line, for you to remove); the Stop hook resume init claude-hook --write added to Claude
Code's settings.json (that entry only, after a backup; other settings stay); the watcher resume
hooks install wrote (stopped and disabled first with systemctl --user or launchctl); then the cache
(the index), the snapshot store and the state directory. A directory that holds files resume did not
write keeps them, and they are named. The config file and the harnesses' own files stay. Then:
npm uninstall -g resume-sessions.`,
    )
    .action(async (o: { dryRun?: boolean }) => {
      if (app.demo) throw usage('uninstall works on your own files: run it without --demo');
      const { plan, removeAgainAtExit } = await import('../uninstall.js');
      const p = plan(app.ctx);
      const say = (line: string) => process.stderr.write(`resume: ${oneLine(line)}\n`);
      let failed = 0;
      for (const s of p.steps) {
        if (o.dryRun || !s.run) {
          say(o.dryRun ? s.dry : s.done);
          continue;
        }
        try {
          s.run();
          say(s.done);
        } catch (err) {
          failed++;
          say(`could not ${s.dry.replace(/^would /, '')}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
      }
      if (!p.steps.length) say("nothing of resume's to remove");
      if (!o.dryRun) removeAgainAtExit(p.recheck);
      if (failed) throw new ExitError(2, `${failed} step${failed > 1 ? 's' : ''} failed (above)`);
    });
}
