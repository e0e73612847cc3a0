// Finding fzf, probing its version once, and the one table of minimum versions for every fzf action,
// event and option resume uses. Flags are generated from this table (fzf/flags.ts): an action the
// installed fzf does not know makes it exit 2 at start-up, so nothing above the installed version
// may ever be emitted.

import fs from 'node:fs';
import path from 'node:path';
import { ExitError } from '../lib/errors.js';
import { probeVersion } from '../lib/os/version.js';
import type { Ctx } from '../lib/types.js';
import { writeAtomic } from '../lib/util/fsx.js';
import { cacheDir } from '../lib/util/paths.js';
import { executable, onPath } from '../lib/util/which.js';

export type Version = [number, number, number];

/**
 * Minimum fzf version of everything resume emits, checked against fzf's CHANGELOG. Where the
 * CHANGELOG entry was ambiguous the later version is used.
 */
export const MIN = {
  /** execute-silent(...) action */
  executeSilent: '0.16.3',
  /** half-page-up / half-page-down actions */
  halfPage: '0.16.1',
  /** --layout=reverse */
  layout: '0.17.4',
  /** reload(...) action */
  reload: '0.19.0',
  /** clear-query action */
  clearQuery: '0.20.0',
  /** preview-half-page-up / preview-half-page-down actions */
  previewHalfPage: '0.23.0',
  /** change-prompt(...) action */
  changePrompt: '0.24.4',
  /** --disabled (--phony before), with the `change` event: resume filters the list itself */
  disabled: '0.25.0',
  /** first / last actions (`top` before) */
  firstLast: '0.25.0',
  /** unbind(...) action */
  unbind: '0.27.1',
  /** rebind(...) action */
  rebind: '0.30.0',
  /** `<SIZE(ALTERNATIVE)` in --preview-window */
  previewAlt: '0.31.0',
  /** `start` event */
  startEvent: '0.35.0',
  /** `load` event (the input stream is complete) */
  loadEvent: '0.36.0',
  /** transform(...) action */
  transform: '0.45.0',
  /** $FZF_PROMPT (and $FZF_QUERY, …) exported to child processes */
  envPrompt: '0.46.0',
  /** --with-shell */
  withShell: '0.51.0',
  /** print(...) action */
  print: '0.53.0',
  /** fzf itself honours NO_COLOR */
  noColorEnv: '0.53.0',
  /** several keys before one colon in a --bind (`a,b:action`) */
  multiKeyBind: '0.59.0',
} as const;

export type Feature = keyof typeof MIN;

export function parseVersion(s: string): Version | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(s);
  if (!m) return null;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

export function cmpVersion(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

export function fmtVersion(v: Version): string {
  return v.join('.');
}

/** Does fzf `v` have `f`? */
export function has(v: Version, f: Feature): boolean {
  return cmpVersion(v, minVersion(f)) >= 0;
}

function minVersion(f: Feature): Version {
  const v = parseVersion(MIN[f]);
  if (!v) throw new Error(`MIN.${f} is '${MIN[f]}', not a version`);
  return v;
}

export interface Fzf {
  path: string;
  version: Version;
}

export const INSTALL_HINT =
  'install fzf (Debian/Ubuntu: apt-get install fzf; macOS: brew install fzf; or https://github.com/junegunn/fzf/releases) or set RESUME_FZF to its path';

/** The fzf binary: `RESUME_FZF` (a path or a command name), else `fzf` on PATH. Exit 2 when missing. */
export function findFzf(env: NodeJS.ProcessEnv): string {
  const want = env.RESUME_FZF?.trim() || 'fzf';
  if (want.includes('/')) {
    const abs = path.resolve(want);
    if (executable(abs)) return abs;
    throw new ExitError(2, `RESUME_FZF=${want} is not an executable file; ${INSTALL_HINT}`);
  }
  const found = onPath(want, env.PATH);
  if (found) return found;
  throw new ExitError(
    2,
    `${want === 'fzf' ? 'fzf is not on PATH' : `RESUME_FZF=${want} is not on PATH`}; the picker needs it: ${INSTALL_HINT}`,
  );
}

interface CacheFile {
  v: 1;
  entries: Record<string, { mtime: number; size: number; version: Version }>;
}

/** `fzf --version`, probed once per binary (cached by its path, mtime and size). */
export function fzfVersion(ctx: Ctx, bin: string): Version {
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(bin);
  } catch {
    st = null;
  }
  const file = path.join(cacheDir(ctx), 'fzf-version.json');
  let cache: CacheFile = { v: 1, entries: {} };
  try {
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as CacheFile;
    if (c && c.v === 1 && c.entries && typeof c.entries === 'object') cache = c;
  } catch {
    /* no cache yet */
  }
  const hit = cache.entries[bin];
  if (st && hit && hit.mtime === st.mtimeMs && hit.size === st.size && Array.isArray(hit.version) && hit.version.length === 3) {
    return hit.version;
  }
  const p = probeVersion(bin);
  const v = p.version ? parseVersion(p.version) : null;
  if (!v) throw new ExitError(2, `cannot tell the version of ${bin} (${p.error}); ${INSTALL_HINT}`);
  if (st) {
    cache.entries[bin] = { mtime: st.mtimeMs, size: st.size, version: v };
    try {
      writeAtomic(file, JSON.stringify(cache));
    } catch {
      /* a cache we cannot write only costs one probe next time */
    }
  }
  return v;
}

export function probeFzf(ctx: Ctx): Fzf {
  const bin = findFzf(ctx.env);
  return { path: bin, version: fzfVersion(ctx, bin) };
}
