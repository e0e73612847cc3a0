// From a named session to what will run: the argv (adapter + config + arguments after `--`), the
// directory, and the refusals checked before anything runs (no fork, directory gone, live session).
import fs from 'node:fs';
import path from 'node:path';
import { ExitError } from '../errors.js';
import { adapter } from '../harness/registry.js';
import type { Ctx, Session } from '../types.js';
import { shown } from '../util/quote.js';
import { applyConfig, type Config } from './config.js';
import type { Plan } from './emit.js';
import { harnessNames } from './info.js';
import { findLive, type LiveHit } from './live.js';

export interface PlanOptions {
  fork: boolean;
  /** arguments after `--`, appended for the harness */
  extra: string[];
  cfg: Config;
  /** how the session is called in messages (its short id) */
  name: string;
  /** the user's environment: a session in a non-default store gets the variable that points there */
  ctx?: Ctx;
}

/** The argv and cwd for a session; ExitError(2) when the harness refuses (no fork, cannot resume). */
export function makePlan(s: Session, o: PlanOptions): Plan {
  const spec = adapter(s.harness).launch(s, { fork: o.fork, ctx: o.ctx });
  if (typeof spec === 'string') {
    throw new ExitError(2, o.fork ? `cannot fork ${o.name}: ${spec}` : `cannot resume ${o.name}: ${spec}`);
  }
  if (!s.cwd) throw new ExitError(2, `the directory of ${o.name} is unknown; not starting it anywhere else`);
  return {
    harness: s.harness,
    id: s.id,
    cwd: s.cwd,
    argv: [...applyConfig(spec.argv, s.harness, o.cfg), ...o.extra],
    env: { ...(spec.env ?? {}) },
  };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The git work tree a directory is in (a `.git` directory or file), or null. */
function gitRoot(dir: string): string | null {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return d;
    if (path.dirname(d) === d) return null;
  }
}

/** The directory must exist and be enterable: never launch anywhere else. */
export function checkDir(cwd: string, name: string): void {
  if (!path.isAbsolute(cwd))
    throw new ExitError(2, `the directory of ${name} is not absolute (${shown(cwd)}); not starting it anywhere else`);
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(cwd);
  } catch {
    st = null;
  }
  if (st && !st.isDirectory()) throw new ExitError(2, `${shown(cwd)}, the directory of ${name}, is not a directory`);
  if (st) {
    try {
      fs.accessSync(cwd, fs.constants.X_OK);
      return;
    } catch {
      throw new ExitError(2, `cannot enter ${shown(cwd)}, the directory of ${name} (permission denied)`);
    }
  }
  let near = path.dirname(cwd);
  while (!isDir(near) && path.dirname(near) !== near) near = path.dirname(near);
  const repo = gitRoot(near);
  const where =
    repo === near
      ? `the nearest existing directory is the git repository ${shown(near)}`
      : `the nearest existing directory is ${shown(near)}${repo ? `, inside the git repository ${shown(repo)}` : ''}`;
  throw new ExitError(2, `the directory of ${name}, ${shown(cwd)}, no longer exists (${where}); not starting it anywhere else`);
}

/**
 * A session that is running: the refusal as it stands when nothing catches it; `resume` and `emit`
 * catch it to go to the session's tmux pane instead (lib/launch/reach.ts).
 */
export class LiveError extends ExitError {
  constructor(
    public hit: LiveHit,
    public session: string,
  ) {
    super(2, `${session} is running (pid ${hit.pid}); use --fork to open a copy of it`);
  }
}

/** Refuse a session that is running now: two writers corrupt a transcript. */
export function checkLive(s: Session, cfg: Config, name: string): void {
  const hit = findLive([s], { names: harnessNames(cfg), thorough: true }).get(s.key);
  if (hit) throw new LiveError(hit, name);
}

/** Permission-bypass flags: never shown in a launch line written to a pipe or file when they came from config. */
export const BYPASS_FLAGS = new Set([
  '--dangerously-skip-permissions',
  '--allow-dangerously-skip-permissions',
  '--dangerously-bypass-approvals-and-sandbox',
  '--yolo',
  '--approval-mode=yolo',
]);

/**
 * The plan as it may be shown or run when stdout is not a terminal (`--dry-run`, `--print`, `emit`
 * into a pipe or file, a launch run by resume itself): the permission-bypass flags that came from the config's `args` taken out, the
 * rest kept in order. The line the shell integration runs (RESUME_EMIT_FILE) is never filtered.
 */
export function shownPlan(plan: Plan, cfg: Config): { plan: Plan; withheld: string[] } {
  const n = cfg.harness[plan.harness as Session['harness']]?.args.length ?? 0;
  if (n === 0) return { plan, withheld: [] };
  const withheld: string[] = [];
  const argv = plan.argv.filter((a, i) => {
    // config args sit right after the command (applyConfig): positions 1..n
    const fromConfig = i >= 1 && i <= n;
    const bypass =
      BYPASS_FLAGS.has(a) ||
      (plan.harness === 'gemini' && a === '-y') ||
      (a === 'yolo' && plan.argv[i - 1] === '--approval-mode' && i - 1 >= 1);
    const prevIsMode = a === '--approval-mode' && plan.argv[i + 1] === 'yolo' && i + 1 <= n;
    if (fromConfig && (bypass || prevIsMode)) {
      withheld.push(a);
      return false;
    }
    return true;
  });
  return withheld.length ? { plan: { ...plan, argv }, withheld } : { plan, withheld };
}

/** The stderr line that says which flags a shown launch line (or a launch run) leaves out, or null. */
export function withheldNote(withheld: string[], harness: string, what: 'shown' | 'run' = 'shown'): string | null {
  if (withheld.length === 0) return null;
  const where = what === 'run' ? 'the launch' : 'the line shown';
  return `resume: left out of ${where} (stdout is not a terminal): ${withheld.join(' ')} from the config's [${harness}] args; the shell integration and a terminal keep them`;
}
