// Which claude is installed, and how versions compare. The native installer keeps every build in a
// versions directory (`~/.local/share/claude/versions/<version>`) and points `~/.local/bin/claude`
// at the current one; when that symlink names a version, it is the answer without running anything.
// Otherwise `claude --version` (lib/os/version.ts).

import fs from 'node:fs';
import path from 'node:path';
import { probeVersion } from '../../../os/version.js';
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
  const p = probeVersion(bin, ctx.env);
  return p.version
    ? { version: p.version, via: 'claude --version', path: bin }
    : { error: p.error ?? `'${bin} --version' gave no version` };
}
