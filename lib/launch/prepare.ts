// What every way of launching shares (resume, emit, the picker's keys): the shell to quote for, the
// refusals (no fork, directory gone, session running) and the plan, and the plan as a line on stdout
// shows it.

import { ExitError, usage } from '../errors.js';
import { nameBack } from '../harness/claude/care/restore.js';
import type { Ctx, Session } from '../types.js';
import { type ShellName, shown } from '../util/quote.js';
import { oneLine } from '../util/text.js';
import type { Config } from './config.js';
import { type Plan, pickShell } from './emit.js';
import { carryTo } from './moved.js';
import { checkDir, checkLive, makePlan, shownPlan, withheldNote } from './plan.js';

/** The shell to quote for; a bad `--shell` or RESUME_SHELL is a usage error. */
export function shellOf(flag: string | undefined): ShellName {
  const sh = pickShell(flag, process.env);
  if (typeof sh === 'string') return sh;
  throw usage(`${sh.from} must be zsh, bash or fish, not ${shown(sh.bad)}`);
}

/** The refusals (no fork, directory gone, session running), then the plan. Same checks for every mode. */
export function prepare(
  s: Session,
  o: { fork: boolean; extra: string[]; cfg: Config; name: string; env?: Record<string, string>; ctx?: Ctx; cwd?: string },
): Plan {
  let plan = makePlan(s, o);
  // another directory (--cd, or a moved repository the person said yes to): as the harness allows
  if (o.cwd != null) {
    const c = carryTo(plan, s, o.cwd, o.fork);
    if (typeof c === 'string') throw new ExitError(2, `cannot resume ${o.name} in ${shown(o.cwd)}: ${c}`);
    plan = c;
  }
  // the demo's stand-in harness commands (App.launchEnv)
  if (o.env) Object.assign(plan.env, o.env);
  checkDir(plan.cwd, o.name);
  if (!o.fork) checkLive(s, o.cfg, o.name);
  // Claude Code: a /rename name its transcript lost goes back as --name, before the user's own arguments
  if (s.harness === 'claude' && o.ctx) {
    const nb = nameBack(o.ctx, s, o.fork, o.extra);
    if (nb.args.length) plan.argv.splice(plan.argv.length - o.extra.length, 0, ...nb.args);
    if (nb.note) process.stderr.write(`resume: ${oneLine(nb.note)}\n`);
  }
  return plan;
}

/**
 * The plan a launch line on stdout shows, or a launch run with stdout not a terminal starts: all of
 * it on a terminal; into a pipe or file, without the permission-bypass flags from config (named on
 * stderr). A run whose output is piped is not a person at the terminal who chose those flags.
 */
export function forStdout(plan: Plan, cfg: Config, what: 'shown' | 'run' = 'shown'): { plan: Plan; withheld: string[] } {
  if (process.stdout.isTTY) return { plan, withheld: [] };
  const r = shownPlan(plan, cfg);
  const n = withheldNote(r.withheld, plan.harness, what);
  if (n) process.stderr.write(`${n}\n`);
  return r;
}
