// Without the shell integration: start the harness ourselves in the session's directory, terminal
// attached, and end with its exit code (128 + signal number when a signal ended it).
import { ExitError } from '../errors.js';
import { attached } from '../os/run.js';
import { shown } from '../util/quote.js';
import type { Plan } from './emit.js';

/**
 * Run the plan on this terminal (lib/os/run.ts `attached`: signals sent to resume are passed on)
 * and resolve with the exit code to end with.
 */
export async function execPlan(plan: Plan, hint: string): Promise<number> {
  const [cmd, ...args] = plan.argv;
  if (!cmd) throw new ExitError(2, 'nothing to run');
  try {
    return await attached(cmd, args, { cwd: plan.cwd, env: { ...process.env, ...plan.env } });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new ExitError(2, `cannot run ${shown(cmd)}: not found on PATH${hint}`);
    if (err.code === 'EACCES') throw new ExitError(2, `cannot run ${shown(cmd)}: permission denied`);
    throw new ExitError(2, `cannot run ${shown(cmd)}: ${err.message}`);
  }
}
