// What `npm pack` ships: the files the installed binary needs (the bundles in dist/, the shell
// integration, the demo, the man page) and nothing of the tests or benchmarks; and the unpacked
// package runs from another directory through a link, as `npm install -g` puts it on PATH.
// (--ignore-scripts: `npm test` has built dist/ already; prepare would rebuild it under the other
// test files' feet.)

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, needs, ROOT, tempDir, tempHome } from './helpers.js';

const npm = (args: string[], cwd = ROOT) => {
  const r = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

describe('the npm package', { timeout: 60_000 }, () => {
  it('holds the bin, the bundles, the shell integration, the demo and the man page; no tests, benchmarks or sources', () => {
    const [pack] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts']));
    const files: string[] = pack.files.map((f: { path: string }) => f.path);
    for (const f of [
      'bin/resume',
      'bin/package.json',
      'dist/boot.cjs',
      'dist/cli.cjs',
      'dist/rows.cjs',
      'dist/worker.cjs',
      'dist/search-worker.cjs',
      'shell/zsh/resume.zsh',
      'shell/bash/resume.bash',
      'shell/fish/resume.fish',
      'man/resume.1',
      'package.json',
      'README.md',
    ]) {
      expect(files, f).toContain(f);
    }
    // better-sqlite3's one-file copy, for Node 20 (lib/os/sqlite.ts), when it is installed here
    if (fs.existsSync(path.join(ROOT, 'node_modules', 'better-sqlite3')))
      expect(files.some((f) => /^dist\/sqlite3-[\d.]+\.cjs$/.test(f))).toBe(true);
    expect(files.some((f) => f.startsWith('demo/home/'))).toBe(true);
    expect(files.some((f) => f.startsWith('demo/bin/'))).toBe(true);
    for (const f of files) expect(f, f).not.toMatch(/^(test|bench|lib|scripts|fzf|node_modules|\.ci)\/|\.ts$|\.map$|\.tmp-|\.old-/);
    // the demo HOME, whole: every file in the repository's copy is shipped
    const demo: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(path.join(ROOT, d), { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else demo.push(path.join(d, e.name));
      }
    };
    walk('demo');
    // (npm's output masks anything shaped like a UUID, as it would a token: the ids in the names too)
    const masked = (f: string) => f.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '***');
    expect(
      files
        .filter((f) => f.startsWith('demo/'))
        .map(masked)
        .sort(),
    ).toEqual(demo.map(masked).sort());
    // no install-time script of ours: an install runs none (the bundles are built before packing, by
    // prepack), and npm's allowScripts advisory names only better-sqlite3
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts, s).not.toHaveProperty(s);
    expect(scripts.prepack).toMatch(/scripts\/build\.mjs.*scripts\/man\.mjs/);
    // bin/resume stays executable in the tarball
    expect(pack.files.find((f: { path: string; mode: number }) => f.path === 'bin/resume').mode & 0o111).toBe(0o111);
  });

  it.skipIf(needs('tar'))(
    'unpacked, runs from another directory through a link on PATH: the demo, the shell integration, the man page',
    () => {
      const out = tempDir('resume-pack-');
      const [pack] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', out]));
      const tgz = path.join(out, pack.filename);
      expect(spawnSync('tar', ['xzf', tgz, '-C', out]).status).toBe(0);
      const pkg = path.join(out, 'package');
      // the dependencies as npm would install them beside it (better-sqlite3 is the only one the bundles load)
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
      const bin = path.join(out, 'bin');
      fs.mkdirSync(bin);
      fs.symlinkSync(path.join(pkg, 'bin', 'resume'), path.join(bin, 'resume'));
      const home = tempHome();
      const elsewhere = tempDir('resume-cwd-');
      const env = envFor(home, { PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}` });
      const resume = (args: string[]) => spawnSync('resume', args, { cwd: elsewhere, env, encoding: 'utf8' });
      const ls = resume(['--demo', 'ls', '-a', '--json']);
      expect(ls.status, ls.stderr).toBe(0);
      const list = JSON.parse(ls.stdout);
      // every demo harness (the clients demo/manifest.json says recorded it), opencode's SQLite store included
      const recorded = JSON.parse(fs.readFileSync(path.join(ROOT, 'demo', 'manifest.json'), 'utf8'));
      const clients = new Set<string>(
        (recorded.sessions ?? recorded).map((s: { client?: string; harness?: string }) => s.client ?? s.harness),
      );
      expect(clients.has('opencode')).toBe(true);
      expect(new Set(list.map((s: { harness: string }) => s.harness))).toEqual(clients);
      expect(ls.stderr).not.toMatch(/cannot/);
      // a demo session resumed: the package's own stand-in answers (npm packs no symlinks: a linked
      // stand-in would be missing, and the real claude on PATH would start)
      const claude = recorded.sessions.find(
        (s: { client: string; mode: string; forkedFrom?: string }) => s.client === 'claude' && s.mode === 'interactive' && !s.forkedFrom,
      );
      const codex = recorded.sessions.find((s: { client: string; mode: string }) => s.client === 'codex' && s.mode === 'interactive');
      const launched = resume(['--demo', claude.id]);
      expect(launched.status, launched.stderr).toBe(0);
      expect(launched.stdout).toBe(
        `claude (demo stand-in): would resume ${claude.id} in ~/.cache/resume/demo/home/${path.relative('/home/demo', claude.cwd)}\n`,
      );
      const fork = resume(['--demo', '--fork', codex.id]);
      expect(fork.stdout).toMatch(new RegExp(`^codex \\(demo stand-in\\): would fork ${codex.id}`));
      for (const sh of ['zsh', 'bash', 'fish']) {
        const init = resume(['init', sh]);
        expect(init.status, init.stderr).toBe(0);
        expect(init.stdout).toContain(`resume init ${sh}`);
        expect(init.stdout).toContain(path.join(pkg, 'bin', 'resume'));
      }
      if (!needs('man')) {
        const man = spawnSync('man', ['-l', path.join(pkg, 'man', 'resume.1')], {
          env: { PATH: process.env.PATH, MANWIDTH: '100' },
          encoding: 'utf8',
        });
        expect(man.status, man.stderr).toBe(0);
        expect(man.stdout).toMatch(/^ {3}resume uninstall \[options\]$/m);
      }
    },
  );
});
