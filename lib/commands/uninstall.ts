// `resume uninstall [--dry-run]`: remove what resume wrote outside its cache, then its stores, one
// line on stderr for each (lib/uninstall.ts). The package itself is npm's to remove.
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { oneLine } from '../util/text.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as { dryRun?: boolean };
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
}
