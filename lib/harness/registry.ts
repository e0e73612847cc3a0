// The harnesses resume reads: one import and one entry per harness. The list's order is the order
// of `--harness` cycling, of listings' ties and of doctor's report. The names (`HARNESSES`) and the
// `Harness` type are derived from it, so a harness exists exactly when it has a line here.
import type { Adapter } from '../types.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { cursor } from './cursor/index.js';
import { gemini } from './gemini/index.js';
import { opencode } from './opencode/index.js';
import { pi } from './pi/index.js';

const LIST = [claude, codex, pi, cursor, opencode, gemini] as const;

/** A harness name: `'claude' | 'codex' | …`, one per adapter in the list above. */
export type Harness = (typeof LIST)[number]['name'];

export const ADAPTERS: Adapter<any>[] = [...LIST];

export const HARNESSES: readonly Harness[] = LIST.map((a) => a.name);

export function adapter(name: Harness): Adapter<any> {
  const a = ADAPTERS.find((x) => x.name === name);
  if (!a) throw new Error(`unknown harness ${name}`);
  return a;
}

/** Every environment variable some adapter's roots follow (`--demo` clears them). */
export function rootVars(): string[] {
  return [...new Set(ADAPTERS.flatMap((a) => a.envVars))];
}
