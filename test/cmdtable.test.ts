// The command table (lib/commands/table.ts) is the one place a command's options are declared: an
// option of `rows` is accepted by the lean path (lib/fast-rows.ts) and by the commander program
// (lib/cli.ts), and --help, the man page and TAB completion show it, with no other line written.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { makeApp } from '../lib/app.js';
import { candidates } from '../lib/commands/complete.js';
import { flowHelp } from '../lib/commands/flow.js';
import { attributeOf, type Cmd, commandNamed, flagsOf, type Opt, ROOT } from '../lib/commands/table.js';
import { parse } from '../lib/fast-rows.js';
import { program, render, roff } from '../lib/man.js';
import { envFor, ROOT as REPO, run, tempHome } from './helpers.js';

/** A value each kind of option takes. */
function sample(o: Opt): string[] {
  if (!o.value) return [];
  if (o.kind === 'count') return ['3'];
  if (o.values === 'harnesses') return ['claude,codex'];
  if (o.values === 'dirs') return ['.'];
  return ['x'];
}

/** What TAB offers after `resume <words> -` (in-process, on an empty HOME). */
async function offered(words: string[]): Promise<string[]> {
  const app = makeApp({ env: envFor(tempHome()), distDir: path.join(REPO, 'dist') });
  const c = await candidates(app, [...words, '-']);
  return Array.isArray(c.found) ? c.found.map((r) => r.value) : [];
}

/** The commander command for a table entry of the program made from the table now. */
function commanderOf(prog: Command, name: string): Command {
  const c = prog.commands.find((x) => x.name() === name);
  if (!c) throw new Error(`no ${name} on the program`);
  return c;
}

/** Every option of `cmd` is taken by the lean parser, by commander, and is shown by --help, the man page and completion. */
async function everywhere(cmd: Cmd): Promise<void> {
  const prog = await program();
  const theirs = commanderOf(prog, cmd.name);
  const help = theirs.helpInformation();
  const man = render(prog);
  const tab = await offered([cmd.name]);
  for (const o of cmd.options ?? []) {
    const flag = o.long ?? o.short ?? '';
    const args = [flag, ...sample(o)];
    const lean = parse([cmd.name, ...args]);
    expect(lean, `${cmd.name} ${args.join(' ')}: the lean path`).not.toBeNull();
    expect(lean?.p.values[attributeOf(o)], `${cmd.name} ${flag}: its value on the lean path`).toBeDefined();
    const full = theirs.parseOptions(args);
    expect(full.unknown, `${cmd.name} ${args.join(' ')}: commander`).toEqual([]);
    expect(help, `${cmd.name} --help`).toContain(flagsOf(o));
    expect(man, `man: ${cmd.name} ${flag}`).toContain(roff(flagsOf(o)));
    expect(tab, `TAB: ${cmd.name} ${flag}`).toContain(flag);
  }
}

describe('the command table', () => {
  const rows = commandNamed('rows') as Cmd;
  const added: Opt = { long: '--zz-table-test', help: 'an option declared in the table only' };
  afterEach(() => {
    rows.options = rows.options?.filter((o) => o !== added);
  });

  it('every option of rows, ls and preview is taken on the lean path and by commander, and shown by --help, man and TAB', async () => {
    for (const name of ['rows', 'ls', 'preview']) await everywhere(commandNamed(name) as Cmd);
  });

  it('an option added to rows in the table is all it takes', async () => {
    expect(parse(['rows', added.long as string])).toBeNull();
    rows.options?.push(added);
    await everywhere(rows);
    expect(parse(['rows', '--zz-table-test', '--align'])?.p.values).toEqual({ zzTableTest: true, align: true });
  });

  it('the lean path takes what the program takes before the command, and leaves the rest to the CLI', () => {
    expect(parse(['--demo', 'preview', 'k:1'])).toMatchObject({ demo: true, p: { positionals: ['k:1'] } });
    expect(parse(['-a', 'rows'])?.p.values).toEqual({ all: true });
    expect(parse(['ls', '-n', '2'])?.p.values).toEqual({ n: 2 });
    // not here: help, a bad count, a value before the command, an unknown option, words rows does not take
    for (const argv of [
      ['rows', '--help'],
      ['ls', '-n', 'x'],
      ['--harness', 'claude', 'rows'],
      ['rows', '--bogus'],
      ['rows', 'x'],
      ['--', 'rows'],
    ])
      expect(parse(argv), argv.join(' ')).toBeNull();
  });

  it('every command has a handler that loads, and no two commands share a name', async () => {
    const all = (c: Cmd): Cmd[] => [c, ...(c.commands ?? []).flatMap(all)];
    const names = (ROOT.commands ?? []).map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of all(ROOT)) {
      if (c.commands?.length) continue;
      expect(typeof (await c.run?.()), c.name).toBe('function');
    }
  });

  it('TAB after --demo offers the demo sessions (the words after `resume` on the line name the roots too)', () => {
    const h = tempHome();
    expect(run(h, ['__complete', '--', '']).stdout).toBe('');
    const demo = run(h, ['__complete', '--', '--demo', '']);
    expect(demo.code).toBe(0);
    expect(demo.stdout.split('\n').filter(Boolean).length).toBeGreaterThan(3);
  });

  it('the lean bundle has no commander in it', () => {
    expect(fs.readFileSync(path.join(REPO, 'dist', 'rows.cjs'), 'utf8')).not.toContain('CommanderError');
  });

  it("every command's --help fits 80 columns: what follows the options is flowed as they are", () => {
    const h = tempHome();
    const names = (c: Cmd, at: string[]): string[][] =>
      (c.commands ?? [])
        .filter((x) => !x.hidden && !x.name.startsWith('__'))
        .flatMap((x) => [[...at, x.name], ...names(x, [...at, x.name])]);
    const all = [[], ...names(ROOT, [])];
    expect(all.length).toBeGreaterThan(10);
    for (const argv of all) {
      const r = run(h, [...argv, '--help']);
      expect(r.code, argv.join(' ')).toBe(0);
      for (const line of r.stdout.split('\n')) expect(line.length, `resume ${argv.join(' ')} --help: ${line}`).toBeLessThanOrEqual(80);
    }
  });

  it("flows prose into paragraphs, a term's description under itself, and keeps examples as written", () => {
    const text = [
      'One sentence that was written',
      'on two lines.',
      'Exit 0: done; 2: bad usage.',
      '',
      'Fields:',
      '  name        a description long enough to need a second line at this width',
      '  # a comment that is far too long to fit but is code, so it stays exactly as written here',
    ].join('\n');
    expect(flowHelp(text, 40).split('\n')).toEqual([
      'One sentence that was written on two',
      'lines.',
      'Exit 0: done; 2: bad usage.',
      '',
      'Fields:',
      '  name        a description long enough',
      '              to need a second line at',
      '              this width',
      '  # a comment that is far too long to fit but is code, so it stays exactly as written here',
    ]);
  });

  it('a usage error is one line and exit 2 on the lean path and in the CLI alike', () => {
    const h = tempHome();
    for (const argv of [
      ['rows', '--bogus'],
      ['ls', '-n', 'x'],
      ['--dry-run', 'ls'],
      ['rows', '--harness', 'nope'],
    ]) {
      const r = run(h, argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^resume: [^\n]+\n$/);
    }
  });
});
