// `resume preview KEY`: the text fzf shows beside the list. Fast enough to follow the cursor: it
// reads one session of the index database and nothing else (lib/select/find.ts); the text itself is
// lib/present/preview.ts.
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { previewColor, previewText } from '../present/preview.js';
import { findForPreview } from '../select/find.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';
import type { Call } from './table.js';

/**
 * `resume preview [KEY...]`: the preview of each key; with none, of each key (or row) on stdin.
 * Several previews are separated by a line of dashes. A key that names no session is exit 1 after
 * the others are printed.
 */
export async function previewAction(app: App, keys: string[]): Promise<void> {
  if (keys.length === 0) {
    if (process.stdin.isTTY) throw usage('preview needs a KEY, as an argument or on stdin (resume rows | head -1 | resume preview)');
    keys = await (await import('../util/stdin-keys.js')).stdinKeys();
    if (keys.length === 0) throw new ExitError(1, 'no key on stdin');
  }
  const color = previewColor();
  const missing: string[] = [];
  let first = true;
  for (const key of keys) {
    const { session: s, fork } = await findForPreview(app, key);
    if (!s) {
      missing.push(key);
      continue;
    }
    out((first ? '' : `\n${'-'.repeat(40)}\n\n`) + previewText(s, app.ctx.home, Date.now(), color, fork));
    first = false;
  }
  const [gone] = missing;
  if (gone !== undefined)
    throw new ExitError(1, `no session '${oneLine(gone)}'${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ''}`);
}

export function run(app: App, call: Call): Promise<void> {
  const [keys] = call.args as [string[]];
  return previewAction(app, keys);
}
