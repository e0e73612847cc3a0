// Which claude is installed, and how versions compare. The native installer keeps every build in a
// versions directory (`~/.local/share/claude/versions/<version>`) and points `~/.local/bin/claude`
// at the current one; when that symlink names a version, it is the answer without running anything.
// Otherwise `claude --version` (first `x.y.z` in its output, 5 s at most).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../../../types.js';
import { onPath } from '../../../util/which.js';
import { compareVersions } from '../../tested.js';

const VERSION = /^\d+(?:\.\d+)+$/;

/** Numeric parts of a version (`2.1.100` → [2,1,100]); null when it is not plain dotted numbers. */
export function parseVersion(v: string | null | undefined): number[] | null {
  if (!v) return null;
  const t = v.trim().replace(/^v/, '');
  return VERSION.test(t) ? t.split('.').map(Number) : null;
}

export { compareVersions };

export interface Installed {
  version: string;
  via: 'symlink' | 'claude --version';
  path: string;
}

/** The version named by a symlink into a versions directory (`…/versions/2.1.332`), or null. */
export function symlinkVersion(link: string): { version: string; target: string } | null {
  let target: string;
  try {
    target = fs.readlinkSync(link);
  } catch {
    return null;
  }
  const abs = path.resolve(path.dirname(link), target);
  const parts = abs.split(path.sep);
  const i = parts.lastIndexOf('versions');
  const v = i < 0 ? undefined : parts[i + 1];
  if (v === undefined) return null;
  return parseVersion(v) ? { version: v, target: abs } : null;
}

export function installedVersion(ctx: Ctx): Installed | { error: string } {
  const link = path.join(ctx.home, '.local', 'bin', 'claude');
  const s = symlinkVersion(link);
  if (s) return { version: s.version, via: 'symlink', path: link };
  const bin = onPath('claude', ctx.env.PATH ?? '');
  if (!bin) return { error: `no claude on PATH and ${link} is not a link into a versions directory` };
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 5000, killSignal: 'SIGKILL', env: ctx.env, maxBuffer: 1 << 16 });
  const version = /\b(\d+\.\d+(?:\.\d+)*)\b/.exec(String(r.stdout ?? ''))?.[1];
  if (r.status !== 0 || !version)
    return {
      error: `${bin} --version gave no version${r.error ? ` (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` : ''}`,
    };
  return { version, via: 'claude --version', path: bin };
}
