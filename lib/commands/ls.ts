import type { Command } from 'commander';
import type { App } from '../app.js';
import { filtered, note, out, positiveInt, withFilters, type FilterOpts } from './common.js';
import { hiddenSummary, shortIds } from '../select/filter.js';
import { JSON_FIELDS_HELP, plain, table, toJson, useColor } from '../output.js';
import { launchInfo, liveInfo } from '../launch/info.js';

export function register(program: Command, app: App): void {
  withFilters(program.command('ls').description('list sessions, newest first'))
    .option('-n <N>', 'at most N sessions (0: no limit)', positiveInt)
    .option('--json', 'one JSON array of session objects (fields below)')
    .addHelpText('after', JSON_FIELDS_HELP)
    .action(async (o: FilterOpts & { n?: number; json?: boolean }) => {
      const { all, shown, filters } = await filtered(app, o);
      const list = o.n ? shown.slice(0, o.n) : shown;
      const shorts = shortIds(all);
      const now = Date.now();
      if (o.json) {
        const launch = await launchInfo(app);
        const live = await liveInfo(app, list);
        out(JSON.stringify(list.map((s) => toJson(s, shorts.get(s.id)!, launch, live.get(s.key))), null, 2) + '\n');
      } else if (process.stdout.isTTY) {
        const lines = table(list, shorts, app.ctx.home, now, process.stdout.columns || 100, useColor());
        out(lines.length ? lines.join('\n') + '\n' : '');
      } else {
        out(list.map((s) => plain(s, shorts.get(s.id)!) + '\n').join(''));
      }
      const h = hiddenSummary(all, filters);
      // on stderr, so it is seen under --json too without touching the JSON
      if (h) note(h);
      if (list.length === 0 && !o.json && process.stderr.isTTY) note('no sessions found (resume doctor shows where it looked)');
    });
}
