// `<program> --version`: the one probe of what version of a program is installed (fzf for its
// flags, claude for outdated sessions, every harness client in `resume doctor`). A query under the
// one timeout (run.ts); the version is the first dotted number in what it printed.
import { clip, oneLine } from '../util/text.js';
import { type RunResult, run, runSync } from './run.js';

export interface VersionProbe {
  /** the first dotted version number it printed (`2.1.332`, `0.65.2`), or null */
  version: string | null;
  /** its first non-blank line, one line of printable text, at most 80 columns; null when it failed */
  line: string | null;
  /** why there is no version: `'fzf --version' failed: ENOENT`, `… printed "…"`; null when there is */
  error: string | null;
}

/** The first dotted version number in a text (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`), or null. */
export function versionIn(text: string | null): string | null {
  const m = text ? /(\d+(?:\.\d+)+)/.exec(text) : null;
  return m?.[1] ?? null;
}

function probed(bin: string, r: RunResult): VersionProbe {
  const first = r.ok ? r.stdout.split('\n').find((l) => l.trim()) : undefined;
  const line = first ? clip(oneLine(first), 80) : null;
  const version = r.ok ? versionIn(r.stdout) : null;
  if (version) return { version, line, error: null };
  const said = r.error ? `failed: ${r.error}` : `printed ${JSON.stringify((r.stdout || r.stderr).trim().slice(0, 60))}`;
  return { version, line, error: `'${bin} --version' ${said}` };
}

/** Probe `bin`, waiting here. */
export function probeVersion(bin: string, env?: NodeJS.ProcessEnv): VersionProbe {
  return probed(bin, runSync(bin, ['--version'], { env, maxBuffer: 1 << 16 }));
}

/** Probe `bin` without blocking (doctor probes every client at once). */
export async function probeVersionAsync(bin: string, env?: NodeJS.ProcessEnv): Promise<VersionProbe> {
  return probed(bin, await run(bin, ['--version'], { env, maxBuffer: 1 << 16 }));
}
