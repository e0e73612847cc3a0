// Every run starts here (bin/resume): the bundle that does the work (dist/rows.cjs, from
// lib/fast-rows.ts, for `rows`, `preview` and `ls`; dist/cli.cjs, from lib/cli.ts, for the rest) is loaded
// with V8's code cache (lib/util/codecache.ts), in resume's cache directory. This file is small on
// purpose: it is compiled on every run.
import path from 'node:path';
import { cacheFileFor, loadCached, type RunWork } from './util/codecache.js';
import { cacheDir, makeCtx } from './util/paths.js';

type Main = (argv: string[]) => Promise<boolean>;

/** Run `rows`, `preview` or `ls` from the bundle in `distDir`; false: not parsed there (the full CLI takes it). */
export async function main(argv: string[], distDir: string): Promise<boolean> {
  const file = path.join(distDir, 'rows.cjs');
  // this file's own require: dist/boot.cjs sits beside the bundles, so it resolves the same
  const m = loadCached<{ main: Main; work?: () => RunWork }>(file, cacheFor(file, fastVariant(argv)), require);
  const done = await m.exports.main(argv);
  // a run that built the index compiled code a listing never runs: it writes no cache; an append's is kept
  m.save(m.exports.work?.() ?? 'none');
  return done;
}

/**
 * The code cache of a fast command: `preview`, `ls`, the picker's list (`rows --align` or
 * `--status`: it compiles the aligning code plain `rows` never runs, and plain `rows` would
 * otherwise compile it lazily on every run when the picker's list wrote the cache, or the other
 * way round), and `rows`.
 */
function fastVariant(argv: string[]): string {
  // (the command is the first word that is no option: `--demo preview KEY` is what the picker runs)
  const cmd = argv.find((a) => !a.startsWith('-'));
  if (cmd === 'preview' || cmd === 'ls' || cmd === '__complete') return cmd;
  return argv.includes('--align') || argv.includes('--status') ? 'rows-align' : 'rows';
}

/**
 * Every other command: the whole CLI (dist/cli.cjs, from lib/cli.ts), loaded the same way. The cache
 * is written when the process exits, once the run has compiled what it needed (a command may end
 * with process.exit).
 */
export async function cli(argv: string[], distDir: string): Promise<void> {
  const file = path.join(distDir, 'cli.cjs');
  const m = loadCached<{ main: (argv: string[]) => Promise<void> }>(file, cacheFor(file, variantOf(argv)), require);
  process.once('exit', () => m.save());
  await m.exports.main(argv);
}

/** The commands of the CLI that keep a code cache of their own; anything else (`resume QUERY`, the picker, --help) shares `main`. */
const CACHED = new Set([
  'ls',
  'show',
  'rows',
  'index',
  'doctor',
  'init',
  '__complete',
  'resolve',
  'emit',
  'preview',
  '__pick',
  '__fzf-flags',
  '__transcript',
  '__feed',
  'search',
  'snapshot',
  'outdated',
  'restart',
  'hooks',
]);

function variantOf(argv: string[]): string {
  const first = argv.find((a) => !a.startsWith('-'));
  return first !== undefined && CACHED.has(first) ? `cli-${first}` : 'cli-main';
}

/** The code cache of this bundle for this command in resume's cache directory; null without one. */
function cacheFor(file: string, variant: string): string | null {
  try {
    return cacheFileFor(file, cacheDir(makeCtx()), variant);
  } catch {
    return null;
  }
}
