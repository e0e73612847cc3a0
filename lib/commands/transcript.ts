// `resume __transcript KEY` (hidden): the whole transcript of one session, readable and redacted,
// in $PAGER (the picker's pager key).
import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { page } from '../present/pager.js';
import { renderTranscript, transcriptPieces } from '../present/transcript.js';
import { loadExtractors } from '../search/registry.js';
import { findSession } from '../select/find.js';
import { stdoutColumns } from '../util/lazy.js';
import { shown } from '../util/quote.js';
import { oneLine } from '../util/text.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const [key] = call.args as [string];
  const s = await findSession(app, key);
  if (!s) throw new ExitError(1, 'no such session');
  let pieces: ReturnType<typeof transcriptPieces>;
  await loadExtractors();
  try {
    pieces = transcriptPieces(s);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // (the picker's list is as it was when it opened: a transcript may have gone since)
    if (code === 'ENOENT') throw new ExitError(1, `the transcript is gone: ${shown(s.file)} was moved or deleted since the list was made`);
    throw new ExitError(2, `cannot read the transcript ${shown(s.file)}: ${code ?? oneLine((err as Error).message)}`);
  }
  // (on a terminal, for its pager: the prose wrapped to its width)
  await page(renderTranscript(s, pieces, app.ctx.home, stdoutColumns()));
}
