// `resume rows`, `resume preview`, `resume ls` (without --json) and completion (`resume __complete --
// WORDS`) without the CLI framework: bin/resume loads this single bundled file directly when one of
// them is the command (every listing, every fzf reload and every cursor move in the picker runs one).
// Their options are the command table's (lib/commands/table.ts), read with Node's `util.parseArgs`;
// anything that does not parse here (--help, a bad value, an option before the command that is not
// the command's switch) goes to the full CLI, which answers it as it answers every command line.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type App, makeApp } from './app.js';
import { candidateLines, candidates, printWordCandidates } from './commands/complete.js';
import { type LsOpts, lsAction, withDirArg } from './commands/ls-list.js';
import { lookedFor, previewAction } from './commands/preview.js';
import { type RowsOpts, rowsAction } from './commands/rows.js';
import { attributeOf, type Cmd, commandNamed, countOf, type Opt, withoutDemo } from './commands/table.js';
import { exitOn } from './errors.js';
import { indexWork } from './index/index.js';
import { writeOut } from './util/stdout.js';

/** What this run did to the index beyond reading it (an append, a build): what its code cache may keep (lib/util/codecache.ts). */
export const work = indexWork;

interface Parsed {
  values: Record<string, unknown>;
  positionals: string[];
}

/** The lean commands; false: declined after all (`ls --json`), the full CLI runs it. */
const LEAN: Record<string, (app: App, p: Parsed) => Promise<boolean>> = {
  rows: async (app, p) => {
    await rowsAction(app, p.values as RowsOpts);
    return true;
  },
  ls: async (app, p) => {
    if (p.values.json) return false;
    await lsAction(app, withDirArg(p.values as LsOpts, p.positionals));
    return true;
  },
  preview: async (app, p) => {
    // (where a deep search's words are: a search, which the full CLI runs)
    const look = lookedFor(p.values.search);
    if (look?.deep) return false;
    await previewAction(app, p.positionals, look);
    return true;
  },
  __complete: async (app, p) => {
    const c = await candidates(app, p.positionals);
    if (Array.isArray(c.found)) writeOut(candidateLines(c.found));
    else await printWordCandidates(c.app, c.found, writeOut);
    return true;
  },
};

const isSwitch = (o: Opt, a: string) => !o.value && (a === o.long || a === o.short);

/**
 * Arguments that are all whole switches or plain words (`rows`, `rows --align --status --all`,
 * `preview KEY`: what the picker and its reloads pass) need no parser: node:util's parseArgs is
 * loaded on first use (~1 ms of a listing). Anything else, a value, a bundle of short flags, `--`,
 * goes to parseArgs.
 */
function switchesOnly(cmd: Cmd, args: string[]): Parsed | null {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (const a of args) {
    const o = cmd.options?.find((x) => isSwitch(x, a));
    if (o) values[attributeOf(o)] = true;
    else if (cmd.args?.length && !a.startsWith('-')) positionals.push(a);
    else return null;
  }
  return { values, positionals };
}

/** The command's options as parseArgs reads them, named as in the table (`dry-run`, `n`). */
function parseArgsOptions(cmd: Cmd): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const o of cmd.options ?? []) {
    const key = (o.long ?? o.short ?? '').replace(/^-+/, '');
    options[key] = {
      type: o.value ? 'string' : 'boolean',
      ...(o.short && o.short.length === 2 ? { short: o.short.slice(1) } : {}),
      ...(o.kind === 'repeat' ? { multiple: true } : {}),
    };
  }
  return options;
}

/** parseArgs over the command's options, the values named and read as commander names and reads them; null: not here. */
function parsed(cmd: Cmd, args: string[]): Parsed | null {
  const p = parseArgs({ args, options: parseArgsOptions(cmd), strict: true, allowPositionals: !!cmd.args?.length });
  const values: Record<string, unknown> = {};
  for (const o of cmd.options ?? []) {
    let v = (p.values as Record<string, unknown>)[(o.long ?? o.short ?? '').replace(/^-+/, '')];
    // a count that is no whole number is the CLI's to refuse
    if (o.kind === 'count' && v !== undefined) v = countOf(v as string) ?? null;
    if (v === null) return null;
    v ??= o.kind === 'repeat' ? [] : o.default;
    if (v !== undefined) values[attributeOf(o)] = v;
  }
  return { values, positionals: p.positionals };
}

/** The lean command argv names and what it was given; null: the full CLI takes the command line. */
export function parse(argv: string[]): { cmd: Cmd; demo: boolean; p: Parsed } | null {
  const { demo, argv: args } = withoutDemo(argv);
  const at = args.findIndex((a) => !a.startsWith('-'));
  const cmd = at >= 0 && Object.hasOwn(LEAN, args[at]) ? commandNamed(args[at]) : undefined;
  if (!cmd) return null;
  // before the command only the command's own switches (`-a rows`: the CLI hands them over)
  const before = args.slice(0, at);
  if (!before.every((a) => cmd.options?.some((o) => isSwitch(o, a)))) return null;
  const rest = [...before, ...args.slice(at + 1)];
  // completion takes every word after `--` as it is
  if (cmd.raw) return before.length === 0 && rest[0] === '--' ? { cmd, demo, p: { values: {}, positionals: rest.slice(1) } } : null;
  try {
    const p = switchesOnly(cmd, rest) ?? parsed(cmd, rest);
    return p && { cmd, demo, p };
  } catch {
    return null; // (parseArgs: an unknown option, a missing value: the CLI says so)
  }
}

export async function main(argv: string[]): Promise<boolean> {
  const got = parse(argv);
  if (!got) return false;
  // the bundle's directory (its CommonJS __dirname; from the module's URL when run as ESM, in tests)
  const app = makeApp({
    demo: got.demo,
    distDir: typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url)),
  });
  try {
    return await LEAN[got.cmd.name](app, got.p);
  } catch (err) {
    exitOn(err);
  }
}
