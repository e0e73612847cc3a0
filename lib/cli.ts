// The command line. Every subcommand lives in lib/commands/<name>.ts and registers itself here.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { type App, makeApp } from './app.js';
import { withFilters } from './commands/common.js';
import { ExitError, usage } from './errors.js';
import { tellHomeless } from './util/paths.js';

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
/**
 * The options a command line may carry before its subcommand as well as after it (DESIGN.md: shared
 * options), declared on the program. `resume -a ls` is `resume ls -a`: a subcommand that declares the
 * same option takes the program's value (handOver); one that does not refuses it as it would after
 * its name.
 */
function withGlobals(c: Command): Command {
  return withFilters(c).option(
    '--json',
    'JSON output (ls, show, search, doctor, outdated; on resume QUERY: with --dry-run, one object {harness,id,cwd,argv,env})',
  );
}

/**
 * The subcommand's loader when argv names one, else null (the root command, help, a typo, an option
 * only the root command knows). Commander reads the global options (so `--harness ls` is a value,
 * not a subcommand) on a program of its own, which keeps the real one's state untouched.
 */
function only(CommandClass: typeof Command, argv: string[]): Loader | null {
  const names = withGlobals(
    new CommandClass()
      .enablePositionalOptions()
      .exitOverride()
      .configureOutput({ writeErr: () => {}, writeOut: () => {} }),
  );
  let first: string | undefined;
  try {
    first = names.parseOptions(argv).operands[0];
  } catch {
    return null; // (`--harness` without its value: the real parse says so)
  }
  // completion reads every command's options off the program: it needs them all registered
  if (first === undefined || first === '__complete') return null;
  const hit = COMMANDS.find(([names]) => names.includes(first));
  return hit ? hit[1] : null;
}

/**
 * Before a subcommand's action: the global options given before its name become its own (the value
 * written after the name wins), and one it does not take is refused as it would be after the name.
 */
function handOver(program: Command, cmd: Command): void {
  if (cmd === program) return;
  for (const g of program.options) {
    const key = g.attributeName();
    if (program.getOptionValueSource(key) !== 'cli') continue;
    const own = cmd.options.find((o) => o.long === g.long);
    if (!own) {
      // named as it was written (-a or --all), as commander names an unknown option
      const raw = (program as unknown as { rawArgs?: string[] }).rawArgs ?? [];
      const flag = raw.find((a) => a === g.short || a === g.long || a.startsWith(`${g.long}=`)) ?? g.long;
      throw usage(`unknown option '${flag}'`);
    }
    const mine = own.attributeName();
    if (cmd.getOptionValueSource(mine) !== 'cli') cmd.setOptionValueWithSource(mine, program.getOptionValue(key), 'cli');
  }
}

/** Commands whose stderr a picker, a shell or a hook shows, or that use no index: no note about a HOME that is not there. */
const QUIET = new Set(['rows', 'preview', 'init', 'snapshot']);

export const VERSION = '0.1.0';

function fail(code: number, msg: string): never {
  // An empty message ends quietly (the picker cancelled with Esc: exit 130, like fzf itself).
  if (msg) process.stderr.write(`resume: ${msg.replace(/\s*\n\s*/g, ' ').trim()}\n`);
  process.exit(code);
}

function handle(err: unknown, CommanderError?: new (...a: never[]) => Error & { code: string }): never {
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
  // Program options only before a subcommand: after it they are the subcommand's own (handOver).
  const program = withGlobals(
    new Command('resume').description('find and resume coding-agent sessions from anywhere').enablePositionalOptions(),
  )
    .option('--demo', 'use the bundled demo sessions instead of yours (also RESUME_DEMO=1)')
    .version(VERSION, '-V, --version')
    .hook('preAction', (self, cmd) => {
      handOver(self, cmd);
      if (!QUIET.has(cmd.name()) && !cmd.name().startsWith('__')) tellHomeless();
    })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      outputError: () => {
        /* reported once below */
      },
    });
  const one = only(Command, argv);
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
