// The pager: text into `$PAGER` (default less) on the terminal, straight to stdout elsewhere.
import { spawn } from 'node:child_process';
import { writeOut } from '../util/stdout.js';

/** Text into `$PAGER` (default less) on the terminal; straight to stdout when that is not a terminal. */
export async function page(text: string): Promise<void> {
  if (!process.stdout.isTTY) {
    if (text) writeOut(text);
    return;
  }
  const pager = process.env.PAGER?.trim() || 'less';
  const child = spawn('sh', ['-c', pager], { stdio: ['pipe', 'inherit', 'inherit'] });
  child.stdin.on('error', () => {
    /* the pager quit before reading everything */
  });
  child.stdin.end(text);
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}
