// `resume __transcript KEY` (hidden): the whole transcript of one session, readable and redacted,
// in $PAGER (the picker's pager key).
import type { Command } from 'commander';
import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { page } from '../present/pager.js';
import { renderTranscript, transcriptPieces } from '../present/transcript.js';
import { loadExtractors } from '../search/registry.js';
import { findSession } from '../select/find.js';

export function register(program: Command, app: App): void {
  program
    .command('__transcript', { hidden: true })
    .description('the whole transcript of one session, readable and redacted, in $PAGER')
    .argument('<key>', 'harness:id')
    .action(async (key: string) => {
      const s = await findSession(app, key);
      if (!s) throw new ExitError(1, 'no such session');
      let pieces: ReturnType<typeof transcriptPieces>;
      await loadExtractors();
      try {
        pieces = transcriptPieces(s);
      } catch (err) {
        throw new ExitError(2, `cannot read the transcript: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      await page(renderTranscript(s, pieces, app.ctx.home));
    });
}
