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
  await attached('sh', ['-c', pager], { input: text, env: pagerEnv(process.env) });
}

/**
 * The pager's environment: the text is UTF-8, so less is told so when the locale does not say it
 * (LANG unset or `C`, as under cron, `env -i` or a bare container: less then showed `·` as
 * `<C2><B7>`), unless LESSCHARSET or LESSCHARDEF is set. Other pagers do not read it.
 */
export function pagerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const ctype = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  if (/utf-?8/i.test(ctype) || env.LESSCHARSET || env.LESSCHARDEF) return env;
  return { ...env, LESSCHARSET: 'utf-8' };
}
