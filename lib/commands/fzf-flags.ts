// `resume __fzf-flags picker|tab` (hidden): the fzf flags of a context, one shell-quoted line
// (bash/zsh quoting). Whoever runs fzf with the picker flags sets RESUME_PICK_DIR to a fresh private
// directory and, for fzf before 0.51 (no --with-shell), SHELL=sh.
import { flagsFor } from '../../fzf/picker.js';
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { quotePosix } from '../util/quote.js';
import { out } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const [context] = call.args as [string];
  if (context !== 'picker' && context !== 'tab') throw usage(`__fzf-flags takes picker or tab, not '${context}'`);
  const f = flagsFor(app, context);
  out(`${f.args.map(quotePosix).join(' ')}\n`);
}
