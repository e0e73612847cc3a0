// From a named session to what will run: the argv (adapter + config + arguments after `--`), the
// directory, and the refusals checked before anything runs (no fork, directory gone, live session).
import fs from 'node:fs';
import path from 'node:path';
import { ExitError } from '../app.js';
import { adapter } from '../harness/registry.js';
import type { Ctx, Session } from '../types.js';
import { applyConfig, type Config } from './config.js';
import type { Plan } from './emit.js';
import { harnessNames } from './info.js';
import { findLive } from './live.js';
import { shown } from './quote.js';

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
  if (!path.isAbsolute(cwd)) throw new ExitError(2, `the directory of ${name} is not absolute (${shown(cwd)}); not starting it anywhere else`);
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
      : `the nearest existing directory is ${shown(near)}` + (repo ? `, inside the git repository ${shown(repo)}` : '');
  throw new ExitError(2, `the directory of ${name}, ${shown(cwd)}, no longer exists (${where}); not starting it anywhere else`);
}

/** Refuse a session that is running now: two writers corrupt a transcript. */
export function checkLive(s: Session, cfg: Config, name: string): void {
  const hit = findLive([s], { names: harnessNames(cfg), thorough: true }).get(s.key);
  if (hit) throw new ExitError(2, `${name} is running (pid ${hit.pid}); use --fork to open a copy of it`);
}
