// The one line the shell integration evaluates: `cd DIR && ARGV`, every word quoted for its shell.
import fs from 'node:fs';
import { ExitError } from '../errors.js';
import { quoteFor, SHELLS, type ShellName, shown } from '../util/quote.js';

export interface Plan {
  harness: string;
  id: string;
  cwd: string;
  argv: string[];
  env: Record<string, string>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `cd DIR && [NAME=value ...] ARGV` on one line. The command word stays bare when it is a plain
 * word, so the user's alias or function of that name runs (a quoted word would skip aliases).
 * Environment assignments as a prefix work in zsh, bash and fish >= 3.1, for functions too.
 */
export function shellLine(plan: Plan, shell: ShellName): string {
  const q = quoteFor(shell);
  const env = Object.entries(plan.env).map(([k, v]) => {
    if (!ENV_NAME.test(k)) throw new Error(`invalid environment variable name ${JSON.stringify(k)}`);
    return `${k}=${q(v)} `;
  });
  return `cd ${q(plan.cwd)} && ${env.join('')}${plan.argv.map(q).join(' ')}`;
}

/** The target shell: `--shell`, else RESUME_SHELL, else the login shell when it is one we know, else bash. */
export function pickShell(flag: string | undefined, env: NodeJS.ProcessEnv): ShellName | { bad: string; from: string } {
  if (flag != null) return (SHELLS as readonly string[]).includes(flag) ? (flag as ShellName) : { bad: flag, from: '--shell' };
  const rs = env.RESUME_SHELL;
  if (rs) {
    const name = rs.split('/').at(-1) ?? '';
    return (SHELLS as readonly string[]).includes(name) ? (name as ShellName) : { bad: rs, from: 'RESUME_SHELL' };
  }
  const login = (env.SHELL ?? '').split('/').at(-1) ?? '';
  return (SHELLS as readonly string[]).includes(login) ? (login as ShellName) : 'bash';
}

/** Write the one line the shell integration runs to its RESUME_EMIT_FILE; exit 2 when it cannot. */
export function writeEmitFile(file: string, line: string): void {
  try {
    fs.writeFileSync(file, `${line}\n`);
  } catch (err) {
    throw new ExitError(
      2,
      `cannot write RESUME_EMIT_FILE ${shown(file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
