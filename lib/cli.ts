// The command line. Every subcommand lives in lib/commands/<name>.ts and registers itself here.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { makeApp, ExitError, type App } from './app.js';
import { register as ls } from './commands/ls.js';
import { register as rows } from './commands/rows.js';
import { register as show } from './commands/show.js';
import { register as indexCmd } from './commands/index-cmd.js';
import { register as resumeCmd } from './commands/resume.js';
import { register as resolveCmd } from './commands/resolve-cmd.js';
import { register as emit } from './commands/emit.js';
import { register as doctor } from './commands/doctor.js';
import { register as init } from './commands/init.js';
import { register as complete } from './commands/complete.js';
import { register as preview } from './commands/preview.js';
import { register as pickCmds } from './commands/pick.js';
import { register as searchCmd } from './commands/search.js';

const COMMANDS: ((p: Command, app: App) => void)[] = [ls, show, rows, indexCmd, doctor, init, complete, resolveCmd, emit, preview, pickCmds, searchCmd, resumeCmd];

export const VERSION = '0.1.0';

function fail(code: number, msg: string): never {
  // An empty message ends quietly (the picker cancelled with Esc: exit 130, like fzf itself).
  if (msg) process.stderr.write(`resume: ${msg.replace(/\s*\n\s*/g, ' ').trim()}\n`);
  process.exit(code);
}

export async function main(argv: string[]): Promise<void> {
  // --demo is global: take it wherever it stands before `--`.
  const dd = argv.indexOf('--');
  const head = dd >= 0 ? argv.slice(0, dd) : argv;
  const demo = head.includes('--demo');
  if (demo) argv = argv.filter((a, i) => !(a === '--demo' && (dd < 0 || i < dd)));
  const app = makeApp({ demo, distDir: path.dirname(fileURLToPath(import.meta.url)) });

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
  for (const reg of COMMANDS) reg(program, app);
  for (const c of program.commands) c.exitOverride().configureOutput({ outputError: () => {} });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof ExitError) fail(err.code, err.message);
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
      fail(2, err.message.replace(/^error: /, ''));
    }
    if (err && (err as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
    fail(2, `internal error: ${err instanceof Error ? err.message : String(err)}`);
  }
}
