// The pager: text into `$PAGER` (default less) on the terminal, straight to stdout elsewhere.
import { attached } from '../os/run.js';
import { writeOut } from '../util/stdout.js';

/** Text into `$PAGER` (default less) on the terminal; straight to stdout when that is not a terminal. */
export async function page(text: string): Promise<void> {
  if (!process.stdout.isTTY) {
    if (text) writeOut(text);
    return;
  }
  const pager = process.env.PAGER?.trim() || 'less';
  await attached('sh', ['-c', pager], { input: text });
}
