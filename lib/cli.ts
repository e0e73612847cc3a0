// The command line. Every subcommand lives in lib/commands/<name>.ts and registers itself here.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { makeApp, type App } from './app.js';
import { ExitError } from './errors.js';
type Register = (p: Command, app: App) => void;
type Loader = () => Promise<{ register: Register }>;

// Subcommands load on demand: `resume rows` (run on every listing and every fzf reload) reads only
// its own chunk of the bundle, not the picker's, the search's or the launcher's.
const COMMANDS: [names: string[], load: Loader][] = [
  [['ls'], () => import('./commands/ls.js')],
  [['show'], () => import('./commands/show.js')],
  [['rows'], () => import('./commands/rows.js')],
  [['index'], () => import('./commands/index-cmd.js')],
  [['doctor'], () => import('./commands/doctor.js')],
  [['init'], () => import('./commands/init.js')],
  [['__complete'], () => import('./commands/complete.js')],
  [['resolve'], () => import('./commands/resolve-cmd.js')],
  [['emit'], () => import('./commands/emit.js')],
  [['preview'], () => import('./commands/preview.js')],
  [['__pick'], () => import('./commands/pick.js')],
  [['__fzf-flags'], () => import('./commands/fzf-flags.js')],
  [['__transcript'], () => import('./commands/transcript.js')],
  [['__feed'], () => import('./commands/feed.js')],
  [['search'], () => import('./commands/search.js')],
  [['snapshot'], () => import('./commands/snapshot.js')],
  [['outdated'], () => import('./commands/outdated.js')],
  [['restart'], () => import('./commands/restart.js')],
  [['hooks'], () => import('./commands/hooks.js')],
  [['uninstall'], () => import('./commands/uninstall.js')],
];
/** `resume [QUERY...]`: the root command's action and options. */
const ROOT: Loader = () => import('./commands/resume.js');
/** root options that take a value (so the value is not taken for a subcommand name) */
const ROOT_VALUE_OPTS = new Set(['--harness', '--dir', '--shell']);

/** The subcommand's loader when argv names one, else null (the root command, help, a typo). */
function only(argv: string[]): Loader | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return null;
    if (ROOT_VALUE_OPTS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) {
      if (a === '-h' || a === '--help' || a === '-V' || a === '--version') return null;
      continue;
    }
    // completion reads every command's options off the program: it needs them all registered
    if (a === '__complete') return null;
    const hit = COMMANDS.find(([names]) => names.includes(a));
    return hit ? hit[1] : null;
  }
  return null;
}

export const VERSION = '0.1.0';

function fail(code: number, msg: string): never {
  // An empty message ends quietly (the picker cancelled with Esc: exit 130, like fzf itself).
  if (msg) process.stderr.write(`resume: ${msg.replace(/\s*\n\s*/g, ' ').trim()}\n`);
  process.exit(code);
}

function handle(err: unknown, CommanderError?: new (...a: any[]) => Error & { code: string }): never {
  if (err instanceof ExitError) fail(err.code, err.message);
  if (CommanderError && err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
    fail(2, err.message.replace(/^error: /, ''));
  }
  if (err && (err as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
  fail(2, `internal error: ${err instanceof Error ? err.message : String(err)}`);
}

/** `inspect`: handed the program with every command registered, instead of a run (the man page: lib/man.ts). */
export async function main(argv: string[], inspect?: (program: Command) => void): Promise<void> {
  // --demo is global: take it wherever it stands before `--`.
  const dd = argv.indexOf('--');
  const head = dd >= 0 ? argv.slice(0, dd) : argv;
  const demo = head.includes('--demo');
  if (demo) argv = argv.filter((a, i) => !(a === '--demo' && (dd < 0 || i < dd)));
  const app = makeApp({ demo, distDir: path.dirname(fileURLToPath(import.meta.url)) });

  const { Command, CommanderError } = await import('commander');
  const program = new Command('resume')
    .description('find and resume coding-agent sessions from anywhere')
    .version(VERSION, '-V, --version')
    .option('--demo', 'use the bundled demo sessions instead of yours (also RESUME_DEMO=1)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      outputError: () => {
        /* reported once below */
      },
    });
  const one = only(argv);
  const mods = await Promise.all(one ? [one()] : [...COMMANDS.map(([, load]) => load()), ROOT()]);
  for (const m of mods) m.register(program, app);
  for (const c of program.commands) c.exitOverride().configureOutput({ outputError: () => {} });
  if (inspect) return inspect(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    handle(err, CommanderError);
  }
}
