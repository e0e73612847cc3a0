// `resume rows`, `resume preview`, `resume ls` (without --json) and the completion of a bare session
// word (`resume __complete -- WORD`) without the CLI framework:
// bin/resume imports this single bundled file directly when its first argument is one of them
// (every listing, every fzf reload and every cursor move in the picker runs one). Options are parsed
// with Node's `util.parseArgs`; anything it does not take (--json, --help, a bad value) falls back
// to the full CLI, which answers it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeApp } from './app.js';
import { printWordCandidates } from './commands/complete.js';
import { lsAction } from './commands/ls-list.js';
import { previewAction } from './commands/preview.js';
import { type RowsOpts, rowsAction } from './commands/rows.js';
import { ExitError } from './errors.js';
import { indexWork } from './index/index.js';
import { writeOut } from './util/stdout.js';

/** What this run did to the index beyond reading it (an append, a build): what its code cache may keep (lib/util/codecache.ts). */
export const work = indexWork;

/** The switches `rows` and `ls` take that have no value, as written on a command line. */
const SWITCHES: Record<string, string> = {
  '--all': 'all',
  '-a': 'all',
  '--demo': 'demo',
  '--align': 'align',
  '--status': 'status',
  '--ansi': 'ansi',
};

/**
 * Arguments that are all whole switches (`rows`, `rows --align --status --all`, what the picker and
 * its reloads pass) need no parser: node:util's parseArgs is loaded on first use (~1 ms of a
 * listing). Anything else, a value, a bundle of short flags, `--`, goes to parseArgs.
 */
function switchesOnly(args: string[], allowed: readonly string[]): Record<string, unknown> | null {
  const values: Record<string, unknown> = {};
  for (const a of args) {
    const name = Object.hasOwn(SWITCHES, a) ? SWITCHES[a] : undefined;
    if (name === undefined || !allowed.includes(name)) return null;
    values[name] = true;
  }
  return values;
}

function parse(argv: string[]): { values: Record<string, unknown>; positionals: string[] } | null {
  const cmd = argv[0];
  try {
    const quick =
      cmd === 'rows'
        ? switchesOnly(argv.slice(1), ['all', 'demo', 'align', 'status', 'ansi'])
        : cmd === 'ls'
          ? switchesOnly(argv.slice(1), ['all', 'demo'])
          : null;
    if (quick) return { values: quick, positionals: [] };
    if (cmd === 'rows') {
      return parseArgs({
        args: argv.slice(1),
        options: {
          all: { type: 'boolean', short: 'a' },
          harness: { type: 'string' },
          dir: { type: 'string' },
          demo: { type: 'boolean' },
          align: { type: 'boolean' },
          status: { type: 'boolean' },
          ansi: { type: 'boolean' },
        },
        strict: true,
        allowPositionals: false,
      });
    }
    if (cmd === 'ls') {
      const p = parseArgs({
        args: argv.slice(1),
        options: {
          all: { type: 'boolean', short: 'a' },
          harness: { type: 'string' },
          dir: { type: 'string' },
          demo: { type: 'boolean' },
          n: { type: 'string', short: 'n' },
        },
        strict: true,
        allowPositionals: false,
      });
      const n = p.values.n;
      // -n takes a whole number; anything else is the CLI's to refuse
      if (n !== undefined && !/^\d+$/.test(n)) return null;
      return { values: { ...p.values, n: n === undefined ? undefined : Number(n) }, positionals: [] };
    }
    if (cmd === 'preview') {
      // `preview KEY` (`--demo` first, as bin/resume puts it), what every cursor move in the picker
      // runs, needs no parser either (parseArgs loads two modules of Node's own)
      const rest = argv.slice(1);
      const demo = rest[0] === '--demo';
      const keys = demo ? rest.slice(1) : rest;
      if (keys.length > 0 && keys.every((k) => !k.startsWith('-'))) return { values: demo ? { demo: true } : {}, positionals: keys };
      return parseArgs({ args: rest, options: { demo: { type: 'boolean' } }, strict: true, allowPositionals: true });
    }
    // TAB on a bare session word, `resume WORD<TAB>` (what the shell integration runs most): the
    // word alone after `--`, not an option. Anything else on the line is the full CLI's to walk.
    if (cmd === '__complete' && argv.length === 3 && argv[1] === '--' && !argv[2].startsWith('-'))
      return { values: {}, positionals: [argv[2]] };
  } catch {
    return null;
  }
  return null;
}

export async function main(argv: string[]): Promise<boolean> {
  const p = parse(argv);
  if (!p) return false;
  const v = p.values;
  // the bundle's directory (its CommonJS __dirname; from the module's URL when run as ESM, in tests)
  const app = makeApp({
    demo: !!v.demo,
    distDir: typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url)),
  });
  try {
    if (argv[0] === 'rows') await rowsAction(app, v as RowsOpts);
    else if (argv[0] === 'ls') await lsAction(app, v);
    else if (argv[0] === '__complete') await printWordCandidates(app, { word: p.positionals[0], filters: { all: false } }, writeOut);
    else await previewAction(app, p.positionals);
  } catch (err) {
    if (err instanceof ExitError) {
      if (err.message) process.stderr.write(`resume: ${err.message.replace(/\s*\n\s*/g, ' ').trim()}\n`);
      process.exit(err.code);
    }
    if (err && (err as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
    process.stderr.write(`resume: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  return true;
}
