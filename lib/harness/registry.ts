// One line per harness. Order is the order of `--harness` cycling and of doctor's report.
import type { Adapter, Harness } from '../types.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { pi } from './pi/index.js';
import { opencode } from './opencode/index.js';
import { cursor } from './cursor/index.js';
import { gemini } from './gemini/index.js';

export const ADAPTERS: Adapter<any>[] = [
  claude,
  codex,
  pi,
  cursor,
  opencode,
  gemini,
];

export function adapter(name: Harness): Adapter<any> {
  const a = ADAPTERS.find((x) => x.name === name);
  if (!a) throw new Error(`unknown harness ${name}`);
  return a;
}
