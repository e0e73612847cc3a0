// Without the shell integration: start the harness ourselves in the session's directory, terminal
// attached, and end with its exit code (128 + signal number when a signal ended it).
import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import { ExitError } from '../errors.js';
import { shown } from '../util/quote.js';
import type { Plan } from './emit.js';

const FORWARD = ['SIGINT', 'SIGQUIT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Run the plan and resolve with the exit code to end with. Signals sent to resume are passed on.
 * Ctrl-C and Ctrl-\ typed on a terminal already reach the harness (it is in the same foreground
 * process group), so SIGINT and SIGQUIT are only passed on when stdin is not a terminal: a second
 * copy would make an interactive harness quit instead of interrupting its current turn.
 */
export function execPlan(plan: Plan, hint: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = plan.argv;
    if (!cmd) return reject(new ExitError(2, 'nothing to run'));
    // Handlers first, so a signal arriving while the child starts is caught (JS handlers run on a
    // later tick, when `child` is set) instead of ending resume and orphaning the harness.
    let child: ChildProcess | null = null;
    const handlers = new Map<string, () => void>();
    for (const sig of FORWARD) {
      const h = () => {
        if ((sig === 'SIGINT' || sig === 'SIGQUIT') && process.stdin.isTTY) return;
        try {
          child?.kill(sig);
        } catch {
          /* already gone */
        }
      };
      handlers.set(sig, h);
      process.on(sig, h);
    }
    child = spawn(cmd, args, { cwd: plan.cwd, stdio: 'inherit', env: { ...process.env, ...plan.env } });
    const done = () => {
      for (const [sig, h] of handlers) process.removeListener(sig, h);
    };
    child.on('error', (err: NodeJS.ErrnoException) => {
      done();
      if (err.code === 'ENOENT') reject(new ExitError(2, `cannot run ${shown(cmd)}: not found on PATH${hint}`));
      else if (err.code === 'EACCES') reject(new ExitError(2, `cannot run ${shown(cmd)}: permission denied`));
      else reject(new ExitError(2, `cannot run ${shown(cmd)}: ${err.message}`));
    });
    child.on('exit', (code, signal) => {
      done();
      if (code != null) resolve(code);
      else resolve(128 + (signal ? (os.constants.signals[signal] ?? 0) : 0));
    });
  });
}
