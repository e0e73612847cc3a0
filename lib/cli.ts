// The command line: the commander program made from the command table (lib/commands/table.ts). A
// command's handler (lib/commands/<name>.ts) is loaded when it runs, so `resume ls` reads only its
// own chunk of the bundle, not the picker's, the search's or the launcher's.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, Option } from 'commander';
import { type App, makeApp } from './app.js';
import { flowHelp } from './commands/flow.js';
import { type Cmd, countOf, flagsOf, type Opt, ROOT, VERSION, withoutDemo } from './commands/table.js';
import { exitOn, usage } from './errors.js';
import { tellHomeless } from './util/paths.js';

export { VERSION };

type Commander = typeof import('commander');

/**
 * Before a subcommand's action: the program's options given before its name become its own (the
 * value written after the name wins), and one it does not take is refused as it would be after the
 * name (DESIGN.md: shared options, before or after the subcommand).
 */
function handOver(program: Command, cmd: Command, argv: string[]): void {
  if (cmd === program) return;
  for (const g of program.options) {
    const key = g.attributeName();
    if (program.getOptionValueSource(key) !== 'cli') continue;
    const own = cmd.options.find((o) => o.long === g.long);
    if (!own) {
      // named as it was written (-a or --all), as commander names an unknown option
      const flag = argv.find((a) => a === g.short || a === g.long || a.startsWith(`${g.long}=`)) ?? g.long;
      throw usage(`unknown option '${flag}'`);
    }
    const mine = own.attributeName();
    if (cmd.getOptionValueSource(mine) !== 'cli') cmd.setOptionValueWithSource(mine, program.getOptionValue(key), 'cli');
  }
}

/** A table option as commander takes it. */
function optionOf(OptionClass: Commander['Option'], o: Opt): Option {
  const opt = new OptionClass(flagsOf(o), o.help);
  if (o.kind === 'count') {
    opt.argParser((v: string) => {
      const n = countOf(v);
      if (n === null) throw usage(`${o.short ?? o.long} takes a whole number, not '${v}'`);
      return n;
    });
  }
  if (o.kind === 'repeat') opt.argParser((v: string, acc: string[]) => [...acc, v]).default([]);
  if (o.default !== undefined) opt.default(o.default);
  return opt;
}

interface Run {
  app: App;
  program: Command;
  /** the command line as parsed (without --demo) */
  argv: string[];
  OptionClass: Commander['Option'];
}

/** Give `c` what the table says of `spec`: description, arguments, options, help, handler, subcommands. */
function fill(c: Command, spec: Cmd, r: Run): Command {
  c.description(spec.description);
  for (const a of spec.args ?? []) c.argument(a.name, a.help);
  for (const o of spec.options ?? []) {
    if (o.kind === 'version') c.version(VERSION, flagsOf(o), o.help);
    else c.addOption(optionOf(r.OptionClass, o));
  }
  const after = spec.after;
  if (after) c.addHelpText('after', () => flowHelp(after));
  if (spec.raw) c.allowUnknownOption(true).helpOption(false);
  const load = spec.run;
  if (load) {
    c.action(async (...given: unknown[]) => {
      handOver(r.program, c, r.argv);
      if (!spec.quiet && !spec.name.startsWith('__')) tellHomeless();
      const at = r.argv.indexOf('--');
      const handler = await load();
      await handler(r.app, {
        args: given.slice(0, -2),
        opts: given.at(-2) as Record<string, unknown>,
        tail: at >= 0 ? r.argv.slice(at + 1) : [],
      });
    });
  }
  for (const sub of spec.commands ?? []) fill(c.command(sub.name, sub.hidden ? { hidden: true } : {}), sub, r);
  return c;
}

/** `inspect`: handed the program, every command on it, instead of a run (the man page: lib/man.ts). */
export async function main(argv: string[], inspect?: (program: Command) => void): Promise<void> {
  const taken = withoutDemo(argv);
  const demo = taken.demo;
  argv = taken.argv;
  const app = makeApp({ demo, distDir: path.dirname(fileURLToPath(import.meta.url)) });

  const { Command, Option } = await import('commander');
  // Program options only before a subcommand: after it they are the subcommand's own (handOver).
  // Set before the subcommands are made, which take these settings over.
  const program = new Command(ROOT.name)
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      outputError: () => {
        /* reported once, by exitOn */
      },
    });
  fill(program, ROOT, { app, program, argv, OptionClass: Option });
  if (inspect) return inspect(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    exitOn(err);
  }
}
