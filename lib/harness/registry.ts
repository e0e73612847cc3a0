// The harnesses resume reads: one import and one entry per harness. The list's order is the order
// of `--harness` cycling, of listings' ties and of doctor's report. The names (`HARNESSES`) and the
// `Harness` type are derived from it, so a harness exists exactly when it has a line here.
import type { Adapter, Ctx, Root } from '../types.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { cursor } from './cursor/index.js';
import { droid } from './droid/index.js';
import { gemini } from './gemini/index.js';
import { kilo } from './kilo/index.js';
import { opencode } from './opencode/index.js';
import { pi } from './pi/index.js';
import { qwen } from './qwen/index.js';

const LIST = [
  // one line each: adding a harness adds a line here (test/new-harness.test.ts adds one before the end)
  claude,
  codex,
  pi,
  cursor,
  opencode,
  gemini,
  qwen,
  copilot,
  droid,
  kilo,
] as const;

/** A harness name: `'claude' | 'codex' | …`, one per adapter in the list above. */
export type Harness = (typeof LIST)[number]['name'];

/**
 * An adapter of any harness. Each adapter's state type is its own: a state comes from that adapter's
 * `lines.begin`/`whole` and is only ever handed back to the same adapter, which TypeScript cannot say of
 * a list of adapters (no existential types); `Adapter<LineState>` would reject the states the index
 * carries as `{}`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the state type differs per adapter in the list (see above)
export type AnyAdapter = Adapter<any>;

export const ADAPTERS: AnyAdapter[] = [...LIST];

export const HARNESSES: readonly Harness[] = LIST.map((a) => a.name);

export function adapter(name: Harness): AnyAdapter {
  const a = ADAPTERS.find((x) => x.name === name);
  if (!a) throw new Error(`unknown harness ${name}`);
  return a;
}

/** An adapter's roots; none when it cannot say (a harness's bad configuration never stops the others). */
export function rootsOf(a: AnyAdapter, ctx: Ctx): Root[] {
  try {
    return a.roots(ctx);
  } catch {
    return [];
  }
}

/** Every environment variable some adapter's roots follow (`--demo` clears them). */
export function rootVars(): string[] {
  return [...new Set(ADAPTERS.flatMap((a) => a.envVars))];
}
