// Live Claude sessions whose registry version is older than the installed claude.
import type { Ctx } from '../../../types.js';
import { liveEntries, procEnviron } from './registry.js';
import { compareVersions, type Installed, installedVersion, parseVersion } from './version.js';

export interface Outdated {
  session: string;
  pid: number;
  name: string | null;
  cwd: string | null;
  version: string | null;
  installed: string;
  status: string | null;
  busy: boolean;
  pane: string;
  pane_kind: 'tmux' | 'herdr' | null;
  version_unparseable: boolean;
}

/** The pane a process runs in, from its own environment (TMUX_PANE, else HERDR_PANE_ID). */
export function paneOf(pid: number): { pane: string; kind: 'tmux' | 'herdr' | null; env: Record<string, string> | null } {
  const env = procEnviron(pid);
  if (env?.TMUX_PANE) return { pane: env.TMUX_PANE, kind: 'tmux', env };
  if (env?.HERDR_PANE_ID) return { pane: env.HERDR_PANE_ID, kind: 'herdr', env };
  return { pane: '', kind: null, env };
}

export function findOutdated(ctx: Ctx): { installed: Installed; sessions: Outdated[] } | { error: string } {
  const inst = installedVersion(ctx);
  if ('error' in inst) return inst;
  const want = parseVersion(inst.version);
  // installedVersion only names versions of dotted numbers, so this holds unless it changes.
  if (!want) return { error: `the installed claude version ${inst.version} is not plain dotted numbers` };
  const sessions: Outdated[] = [];
  for (const e of liveEntries(ctx)) {
    const v = parseVersion(e.version);
    if (v && compareVersions(v, want) >= 0) continue;
    const p = paneOf(e.pid);
    sessions.push({
      session: e.sessionId,
      pid: e.pid,
      name: e.name,
      cwd: e.cwd,
      version: e.version,
      installed: inst.version,
      status: e.status,
      busy: e.status !== 'idle',
      pane: p.pane,
      pane_kind: p.kind,
      version_unparseable: !v,
    });
  }
  sessions.sort((a, b) => a.pid - b.pid);
  return { installed: inst, sessions };
}
