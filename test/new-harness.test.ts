// Adding a harness is one folder under lib/harness/<name>/ plus its import and entry in
// lib/harness/registry.ts. The proof: copy the tree, add test/fixtures/new-harness/toy/ as
// lib/harness/toy/ and the two registry lines, and nothing else; the copy must typecheck and build,
// and its CLI must list, show, resolve, launch (--dry-run), colour, keep the toy store out of
// --demo and report the harness in doctor. The envVars check below holds every real adapter to the
// same promise --demo relies on: it reads no environment variable it does not declare.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../lib/harness/registry.js';
import type { Ctx } from '../lib/types.js';
import { envFor, FIXTURES, jsonl, must, ROOT, write } from './helpers.js';
import type { Doctor, Listed } from './json.js';

// What a checkout holds besides tests and benchmarks; dist/ and node_modules are not copied.
const TREE = ['lib', 'fzf', 'bin', 'shell', 'demo', 'scripts', 'package.json', 'tsconfig.json'];
const ADAPTER = path.join(FIXTURES, 'new-harness', 'toy', 'index.ts.in');

let tmp = '';
let tree = '';
let home = '';

function sh(cmd: string, args: string[], cwd: string): { code: number; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

/** The copy's CLI with the temp HOME; `toy` (a stand-in printing its version) first on PATH. */
function resume(args: string[], extra: Record<string, string | undefined> = {}): { code: number; stdout: string; stderr: string } {
  const env = envFor(home, { PATH: `${path.join(tmp, 'bin')}:${process.env.PATH}`, ...extra });
  const r = spawnSync(process.execPath, [path.join(tree, 'bin', 'resume'), ...args], { env, cwd: home, encoding: 'utf8', input: '' });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

const ID = '7a1f0c2e-5b6d-4e8f-9a0b-1c2d3e4f5a6b';
const OTHER = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-newh-'));
  tree = path.join(tmp, 'tree');
  for (const t of TREE) fs.cpSync(path.join(ROOT, t), path.join(tree, t), { recursive: true, verbatimSymlinks: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));

  // the one folder
  fs.mkdirSync(path.join(tree, 'lib', 'harness', 'toy'));
  fs.copyFileSync(ADAPTER, path.join(tree, 'lib', 'harness', 'toy', 'index.ts'));
  // the registry's two lines: the import after the last adapter import, the entry at the end of the list
  const reg = path.join(tree, 'lib', 'harness', 'registry.ts');
  const before = fs.readFileSync(reg, 'utf8').split('\n');
  const isImport = (l: string) => /^import \{ \w+ \} from '\.\/\w+\/index\.js';$/.test(l);
  const lastImport = before.length - 1 - [...before].reverse().findIndex(isImport);
  const listEnd = before.findIndex((l) => /^\] as const;$/.test(l));
  expect(lastImport).toBeGreaterThan(0);
  expect(listEnd).toBeGreaterThan(lastImport);
  const after = [...before];
  after.splice(listEnd, 0, '  toy,');
  after.splice(lastImport + 1, 0, "import { toy } from './toy/index.js';");
  fs.writeFileSync(reg, after.join('\n'));
  expect(after.length - before.length).toBe(2);

  // the stand-in client and a store with two sessions (one in the default root, one in RESUME_TOY_DIRS)
  home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(tmp, 'bin'));
  write(home, path.join(tmp, 'bin', 'toy'), '#!/bin/sh\n[ "$1" = --version ] && echo "toy 1.2.0"\n');
  fs.chmodSync(path.join(tmp, 'bin', 'toy'), 0o755);
  const proj = path.join(home, 'src', 'toyproj');
  fs.mkdirSync(proj, { recursive: true });
  write(
    home,
    `.toy/sessions/${ID}.jsonl`,
    jsonl(
      { type: 'start', id: ID, cwd: proj, time: '2026-11-20T10:00:00Z' },
      { type: 'user', text: 'teach the parser about tabs', time: '2026-11-20T10:00:05Z' },
      { type: 'agent', text: 'Done: tabs are folded to spaces.', time: '2026-11-20T10:01:00Z' },
      { type: 'user', text: 'and add a test', time: '2026-11-20T10:02:00Z' },
    ),
  );
  write(
    home,
    `extra/sessions/${OTHER}.jsonl`,
    jsonl(
      { type: 'start', id: OTHER, cwd: proj, time: '2026-11-19T09:00:00Z' },
      { type: 'user', text: 'an older toy session', time: '2026-11-19T09:00:05Z' },
    ),
  );
}, 300_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a seventh harness from one folder and its registry lines', () => {
  it('typechecks and builds with nothing else edited', () => {
    const tsc = sh(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', tree], tree);
    expect(tsc.out).toBe('');
    expect(tsc.code).toBe(0);
    const build = sh(process.execPath, [path.join(tree, 'scripts', 'build.mjs')], tree);
    expect(build.code, build.out).toBe(0);
  }, 300_000);

  it('lists its sessions (ls --json, --harness, rows) with the adapter colour', () => {
    const r = resume(['ls', '--json', '--harness', 'toy'], { RESUME_TOY_DIRS: path.join(home, 'extra') });
    expect(r.stderr).toBe('');
    const list: Listed[] = JSON.parse(r.stdout);
    expect(list.map((s) => [s.harness, s.id, s.prompts])).toEqual([
      ['toy', ID, 2],
      ['toy', OTHER, 1],
    ]);
    expect(list[0]).toMatchObject({
      cwd: path.join(home, 'src', 'toyproj'),
      firstPrompt: 'teach the parser about tabs',
      lastPrompt: 'and add a test',
    });

    const bad = resume(['ls', '--harness', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('toy');
    expect(resume(['--help']).stdout.replace(/\s+/g, ' ')).toContain(`${must(ADAPTERS.at(-1)).name}, toy`);

    const rows = resume(['rows', '--align', '--ansi'], { NO_COLOR: undefined });
    expect(rows.code).toBe(0);
    const line = rows.stdout.split('\n').find((l) => l.startsWith(`toy:${ID}\t`));
    expect(line).toContain('\x1b[38;5;208mtoy\x1b[0m');
  });

  it('shows, resolves by prefix and by harness:prefix, and plans the launch', () => {
    const show = resume(['show', '--json', ID.slice(0, 6)]);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ harness: 'toy', id: ID, prompts: 2, firstPrompt: 'teach the parser about tabs' });
    expect(resume(['show', ID.slice(0, 6)]).stdout).toMatch(/^harness: +toy$/m);

    const plan = resume(['--dry-run', '--json', `toy:${ID.slice(0, 4)}`]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({
      harness: 'toy',
      id: ID,
      cwd: path.join(home, 'src', 'toyproj'),
      argv: ['toy', '--resume', ID],
    });

    const fork = resume(['--dry-run', '--fork', 'tabs', 'parser']);
    expect(fork.code, fork.stderr).toBe(0);
    expect(fork.stdout).toContain(`toy --fork ${ID}`);
  });

  it('--demo clears the variables its roots follow', () => {
    // the real store moved away: only TOY_HOME and RESUME_TOY_DIRS point at it
    const env = { HOME: path.join(tmp, 'elsewhere'), TOY_HOME: path.join(home, '.toy'), RESUME_TOY_DIRS: path.join(home, 'extra') };
    fs.mkdirSync(env.HOME, { recursive: true });
    const real: Listed[] = JSON.parse(resume(['ls', '--json', '-a'], env).stdout);
    expect(real.filter((s) => s.harness === 'toy')).toHaveLength(2);
    const demo = resume(['ls', '--json', '-a', '--demo'], env);
    expect(demo.code).toBe(0);
    const list: Listed[] = JSON.parse(demo.stdout);
    expect(list.length).toBeGreaterThan(0); // the bundled demo sessions
    expect(list.filter((s) => s.harness === 'toy')).toEqual([]);
  });

  it('doctor reports its roots, sessions, binary and version drift', () => {
    const r = resume(['doctor', '--json'], { TOY_HOME: path.join(home, '.toy') });
    expect(r.code, r.stderr).toBeLessThan(2);
    const h = must((JSON.parse(r.stdout) as Doctor).harnesses.find((x) => x.name === 'toy'));
    expect(h).toMatchObject({ label: 'Toy Agent', sessions: 1, tested: '1.0.0', newerThanTested: true });
    expect(h.roots).toEqual([expect.objectContaining({ path: path.join(home, '.toy'), via: 'TOY_HOME', exists: true })]);
    expect(must(h.binary).path).toBe(path.join(tmp, 'bin', 'toy'));
    const text = resume(['doctor'], { TOY_HOME: path.join(home, '.toy') }).stdout;
    expect(text).toContain('toy (Toy Agent)');
    expect(text).toContain('1.2.0 is newer than 1.0.0');
  });
});

describe('every adapter declares the environment it reads', () => {
  // A recording environment: every variable read is noted; each is unset in one pass and set to a
  // directory in the other, so both branches of `if (ctx.env.X)` run.
  function reads(set: boolean, run: (ctx: Ctx) => void): Set<string> {
    const seen = new Set<string>();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-envvars-'));
    try {
      const env = new Proxy({} as NodeJS.ProcessEnv, {
        get(_t, k) {
          if (typeof k === 'string') seen.add(k);
          return set && typeof k === 'string' ? path.join(dir, k.toLowerCase()) : undefined;
        },
        has(_t, k) {
          if (typeof k === 'string') seen.add(k);
          return set;
        },
      });
      run({ env, home: dir });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return seen;
  }

  for (const a of ADAPTERS) {
    it(`${a.name}: roots and discover read only its envVars`, () => {
      for (const set of [false, true]) {
        const seen = reads(set, (ctx) => a.discover(ctx, a.roots(ctx)));
        expect([...seen].filter((k) => !a.envVars.includes(k))).toEqual([]);
      }
      expect(a.envVars).toContain(`RESUME_${a.name.toUpperCase()}_DIRS`);
    });
  }
});
