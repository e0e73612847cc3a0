// The man page: man/resume.1 is what scripts/man.mjs makes from the command definitions now, man(1)
// renders it, and it names every command and option `--help` shows and every RESUME_ variable the
// code reads.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, INTERNAL_ENV, manPage, program, visibleCommands } from '../lib/man.js';
import { BIN, envFor, needs, ROOT, tempHome } from './helpers.js';

const FILE = path.join(ROOT, 'man', 'resume.1');

/** The page as man(1) shows it, wide enough that no option term wraps, no formatting. */
function rendered(): string {
  const r = spawnSync('man', ['-l', FILE], {
    env: { PATH: process.env.PATH, MANWIDTH: '250', LANG: 'C.UTF-8', MAN_KEEP_FORMATTING: '' },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout;
}

/** The text of one command's entry under COMMANDS: from its heading to the next. */
function section(text: string, usage: string): string {
  const lines = text.split('\n');
  const at = lines.indexOf(`   ${usage}`);
  expect(at, `no heading '${usage}'`).toBeGreaterThan(-1);
  const end = lines.findIndex((l, i) => i > at && /^ {3}\S|^\S/.test(l));
  return lines.slice(at, end < 0 ? undefined : end).join('\n');
}

describe('man page', () => {
  it('is what the generator makes from the command definitions now (npm run man writes it)', async () => {
    expect(fs.readFileSync(FILE, 'utf8'), 'man/resume.1 is stale: run npm run man').toBe(await manPage());
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    // (a list: npm links a man page into PREFIX/share/man on a global install only from a list)
    expect(pkg.man).toEqual(['./man/resume.1']);
  });

  it.skipIf(needs('man'))('renders, and names every command, argument and option that --help shows', async () => {
    const text = rendered();
    for (const s of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'COMMANDS', 'EXIT STATUS', 'ENVIRONMENT', 'FILES', 'SEE ALSO']) {
      expect(text).toMatch(new RegExp(`^${s}$`, 'm'));
    }
    for (const code of ['0', '1', '2', '130']) expect(text).toMatch(new RegExp(`^ {7}${code} +\\S`, 'm'));
    const prog = await program();
    const help = prog.createHelp();
    const cmds = visibleCommands(prog);
    expect(cmds.map((c) => c.name())).toEqual(expect.arrayContaining(['ls', 'show', 'search', 'init', 'doctor', 'hooks', 'install']));
    for (const c of cmds) {
      const usage = help.commandUsage(c);
      const entry = section(text, usage);
      expect(entry).toContain(c.description().split(' ').slice(0, 4).join(' '));
      // what the built binary's --help lists for the command, option by option
      const words = usage
        .split(' ')
        .slice(1)
        .filter((w) => !/^[[<]/.test(w));
      const r = spawnSync(process.execPath, [BIN, ...words, '--help'], { env: envFor(tempHome()), encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const shown = r.stdout
        .split('\n')
        .filter((l) => /^ {2}-/.test(l))
        .map((l) => l.trim().split(/ {2,}/)[0]);
      expect(shown.length).toBeGreaterThan(0);
      for (const flags of shown) {
        if (flags === '-h, --help') continue;
        expect(entry, `${usage}: ${flags}`).toContain(flags);
      }
      for (const a of help.visibleArguments(c)) expect(entry).toContain(a.name());
    }
    // the root's own options, under OPTIONS
    const opts = text.slice(text.indexOf('\nOPTIONS\n'), text.indexOf('\nCOMMANDS\n'));
    for (const o of help.visibleOptions(prog)) expect(opts).toContain(o.flags);
  });

  it.skipIf(needs('man'))('documents every RESUME_ variable the code and the shell integration read', () => {
    const found = new Set<string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else for (const m of fs.readFileSync(p, 'utf8').matchAll(/\bRESUME_[A-Z][A-Z_]*[A-Z]\b/g)) found.add(m[0]);
      }
    };
    for (const d of ['lib', 'shell', 'fzf']) walk(path.join(ROOT, d));
    expect(found.size).toBeGreaterThan(10);
    const documented = ENVIRONMENT.flatMap(([k]) => k.split(/,\s*/));
    const text = rendered();
    for (const v of found) {
      if (INTERNAL_ENV.includes(v)) continue;
      expect(documented, v).toContain(v);
      expect(text).toContain(v);
    }
    for (const v of ['NO_COLOR', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_CACHE_HOME']) expect(text).toContain(v);
  });
});
