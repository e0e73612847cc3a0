// What `ls --json` and `show` say about launching: the argv resume would run (with the config's
// command and arguments), and whether a session is live.
import type { App } from '../app.js';
import { ADAPTERS, adapter } from '../harness/registry.js';
import type { LaunchFn } from '../output.js';
import type { Harness, Session } from '../types.js';
import { applyConfig, type Config, loadConfig } from './config.js';
import { findLive, type LiveHit } from './live.js';

/**
 * `{cwd, argv}` per session as `resume` would run it, plus `env` when the harness must be pointed
 * at a non-default store; throws ExitError(2) on a bad config.
 */
export async function launchInfo(app: App, cfg: Config = loadConfig(app.ctx)): Promise<LaunchFn> {
  return (s: Session) => {
    const spec = adapter(s.harness).launch(s, { fork: false, ctx: app.ctx });
    if (typeof spec === 'string') return null;
    const out: { cwd: string | null; argv: string[]; env?: Record<string, string> } = {
      cwd: s.cwd,
      argv: applyConfig(spec.argv, s.harness, cfg),
    };
    if (spec.env && Object.keys(spec.env).length) out.env = spec.env;
    return out;
  };
}

/** Program names that run each harness: the adapter's binaries and the configured command. */
export function harnessNames(cfg: Config): Map<Harness, string[]> {
  const m = new Map<Harness, string[]>();
  for (const a of ADAPTERS) {
    const cmd = cfg.harness[a.name]?.command;
    m.set(a.name, cmd ? [...a.binaries, cmd] : [...a.binaries]);
  }
  return m;
}

/** Live sessions among those about to be printed (one pass over the process table). */
export async function liveInfo(app: App, sessions: Session[], cfg: Config = loadConfig(app.ctx)): Promise<Map<string, LiveHit>> {
  return findLive(sessions, { names: harnessNames(cfg), thorough: sessions.length === 1 });
}
