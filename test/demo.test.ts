// The demo tells the truth: its sessions read as the real clients recorded them (demo/manifest.json,
// written by test/real/demo.mjs), `ls`, `show` and the pager's header agree on every session's
// prompts, every README recipe marked `<!-- demo-recipe -->` runs on it, and --demo keeps the user's
// picker settings but never a harness command.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, envFor, lsJson, must, needs, ROOT, run, tempHome, write } from './helpers.js';
import { TmuxShell } from './shell-helpers.js';

interface Recorded {
  client: string;
  id: string;
  cwd: string;
  prompts: string[];
  mode: string;
  forkedFrom?: string;
}
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'demo', 'manifest.json'), 'utf8')) as { sessions: Recorded[] };
const demoLs = (home: string) => lsJson(home, {}, ['-a', '--demo']);

describe('the demo sessions are what the clients recorded', () => {
  const home = tempHome('resume-demo-');
  const list = demoLs(home);

  it('every recorded session is listed with its own prompts, in its directory', () => {
    expect(manifest.sessions.length).toBeGreaterThanOrEqual(10);
    for (const r of manifest.sessions) {
      const s = must(
        list.find((x) => x.harness === r.client && x.id === r.id),
        `${r.client} ${r.id}`,
      );
      expect(s.prompts, `${r.client} ${r.id}`).toBe(r.prompts.length);
      expect(s.firstPrompt).toContain(r.prompts[0]);
      expect(s.lastPrompt).toContain(r.prompts.at(-1));
      expect(s.cwd).toBe(path.join(home, '.cache', 'resume', 'demo', 'home', r.cwd.slice('/home/demo'.length)));
      if (r.forkedFrom) expect(s.forkedFrom).toBe(r.forkedFrom);
      // what a person typed into is listed (which one-shot runs are hidden is issue 43's item 6)
      if (r.mode === 'interactive') expect(s.hidden, `${r.client} ${r.id}`).toBe(false);
    }
  });

  it('runs in a HOME of its own: links to the bundled stores (made again after the package moved), its directories shown under ~', async () => {
    const bundled = path.join(ROOT, 'demo', 'home');
    const own = path.join(home, '.cache', 'resume', 'demo', 'home');
    const names = fs.readdirSync(bundled);
    expect(names).toContain('.claude');
    for (const n of names) expect(fs.readlinkSync(path.join(own, n))).toBe(path.join(bundled, n));
    const dirs = (h: string) =>
      run(h, ['--demo', 'rows'])
        .stdout.split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[4]);
    expect(dirs(home)).toContain('~/src/webshop');
    // a link left by a package that has moved since is pointed at this one
    const moved = tempHome('resume-demo-moved-');
    const ownMoved = path.join(moved, '.cache', 'resume', 'demo', 'home');
    fs.mkdirSync(ownMoved, { recursive: true });
    fs.symlinkSync('/nonexistent/demo/home/.claude', path.join(ownMoved, '.claude'));
    expect(demoLs(moved).length).toBe(list.length);
    expect(fs.readlinkSync(path.join(ownMoved, '.claude'))).toBe(path.join(bundled, '.claude'));
    // demo runs started together on a new cache each make or find the same links
    const together = tempHome('resume-demo-together-');
    const outs = await Promise.all(
      [1, 2, 3, 4].map(
        () =>
          new Promise<string>((done) => {
            const c = spawn(process.execPath, [BIN, '--demo', 'rows'], { env: envFor(together) });
            let o = '';
            c.stdout.on('data', (b: Buffer) => {
              o += b.toString();
            });
            c.on('close', () => done(o));
          }),
      ),
    );
    for (const o of outs)
      expect(
        o
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[4]),
      ).toContain('~/src/webshop');
    // a cache that cannot be written: the bundled HOME is read, and the directories show whole
    const ro = tempHome('resume-demo-ro-');
    write(ro, 'cache-is-a-file', 'x');
    const r = run(ro, ['--demo', 'rows'], { RESUME_CACHE_DIR: path.join(ro, 'cache-is-a-file') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).length).toBe(dirs(home).length);
  });

  it('has what a real machine has: forks, subagents, hidden runs, several prompts, look-alike projects', () => {
    expect(list.filter((s) => s.forkedFrom).length).toBeGreaterThanOrEqual(2);
    expect(list.some((s) => s.hiddenReason === 'subagent' && s.parent)).toBe(true);
    expect(list.filter((s) => s.prompts >= 2).length).toBeGreaterThanOrEqual(5);
    expect(new Set(list.map((s) => s.harness))).toEqual(new Set(['claude', 'codex', 'pi', 'opencode', 'gemini']));
    expect(new Set(list.map((s) => path.basename(must(s.cwd))))).toEqual(
      new Set(['webshop', 'blog', 'dotfiles', 'api-server', 'resume-cli']),
    );
  });

  it('show, the pager header and ls agree on the prompts of every session', () => {
    expect(list.length).toBeGreaterThan(0);
    for (const s of list) {
      const key = `${s.harness}:${s.id}`;
      const show = run(home, ['--demo', 'show', key]);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout, key).toMatch(new RegExp(`^prompts: +${s.prompts}$`, 'm'));
      if (s.prompts > 0) expect(show.stdout, key).toContain(`first prompt: ${s.firstPrompt}`);
      const pager = run(home, ['--demo', '__transcript', key], { PAGER: 'cat' });
      expect(pager.code, pager.stderr).toBe(0);
      expect(pager.stdout.split('\n')[1], key).toMatch(new RegExp(` · ${s.prompts} prompts?$`));
    }
  });
});

/** The shell blocks that follow a `<!-- demo-recipe -->` (or `<!-- demo-recipe picker -->`) line in README.md, one command a line. */
function recipes(kind = ''): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const out: string[] = [];
  const re = new RegExp(`<!-- demo-recipe${kind ? ` ${kind}` : ''} -->\\s*\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    for (const line of m[1].split('\n')) if (line.trim() && !line.trim().startsWith('#')) out.push(line);
  }
  return out;
}

describe('the README recipes run on the demo', () => {
  const home = tempHome('resume-recipes-');
  fs.mkdirSync(path.join(home, 'bin'));
  fs.symlinkSync(BIN, path.join(home, 'bin', 'resume'));
  const lines = recipes();

  it('finds the marked recipes', () => {
    expect(lines.length).toBeGreaterThanOrEqual(5);
  });

  it.skipIf(needs('bash', 'jq'))('each one exits 0 and prints what it promises; a failing stage fails the line (pipefail)', () => {
    for (const line of lines) {
      const r = spawnSync('bash', ['--norc', '--noprofile', '-o', 'pipefail', '-c', line], {
        env: envFor(home, { PATH: `${path.join(home, 'bin')}:${process.env.PATH}`, RESUME_DEMO: '1', RESUME_SHELL: 'bash' }),
        cwd: ROOT,
        encoding: 'utf8',
        input: '',
      });
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
      expect(r.stdout.trim(), line).not.toBe('');
      // a line that resumes ends in a stand-in saying what the real client would do
      if (/\bemit\b|--demo (?!ls|show)\w/.test(line))
        expect(r.stdout, line).toMatch(/\(demo stand-in\): would (resume|fork) \S+ in ~\/\.cache\/resume\/demo\/home\/src\//);
    }
  });

  it.skipIf(needs('bash'))('the test would see a failure: a words recipe naming several sessions fails', () => {
    const r = spawnSync(
      'bash',
      ['--norc', '--noprofile', '-o', 'pipefail', '-c', 'cmd=$(resume resolve webshop | resume emit) && eval "$cmd"'],
      {
        env: envFor(home, { PATH: `${path.join(home, 'bin')}:${process.env.PATH}`, RESUME_DEMO: '1' }),
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe('');
  });
});

describe('the README picker recipes run on the demo: a query typed into the real fzf, Enter', { timeout: 120_000 }, () => {
  const skip = needs('fzf', 'tmux', 'bash');
  const minor = skip ? 0 : Number(/^0\.(\d+)/.exec(spawnSync('fzf', ['--version'], { encoding: 'utf8' }).stdout ?? '')?.[1] ?? 0);
  const fork = must(manifest.sessions.find((s) => s.client === 'codex' && s.forkedFrom));
  const lines = recipes('picker');

  it('finds the marked recipes', () => {
    expect(lines.length).toBeGreaterThanOrEqual(3);
  });

  // outside tmux (no TMUX in the shell) fzf-tmux and fzf --tmux run fzf in place; the tmux pane and
  // popup themselves are tested in test/pipeline.test.ts
  for (const line of lines) {
    it.skipIf(skip || (line.includes('--tmux') && minor < 53))(line, async () => {
      const home = tempHome('resume-picker-');
      fs.mkdirSync(path.join(home, 'bin'));
      fs.symlinkSync(BIN, path.join(home, 'bin', 'resume'));
      const t = new TmuxShell(home, 'bash', { PATH: `${path.join(home, 'bin')}:${process.env.PATH}`, RESUME_DEMO: '1' });
      try {
        await t.until(() => t.line() === '$', 'the prompt');
        t.send('-l', line);
        t.send('Enter');
        await t.until((s) => / codex /.test(s) && /\b(\d+)\/\1\b/.test(s), 'fzf with every demo row read');
        // an exact word (fzf's extended syntax): one row
        t.send('-l', "'integer");
        await t.until((s) => /\b1\/\d+/.test(s), 'one row left');
        t.send('Enter');
        const s = await t.until((x) => /would (resume|fork) \S+ in/.test(x), 'the stand-in');
        expect(s).toContain(`codex (demo stand-in): would resume ${fork.id} in ~/.cache/resume/demo/home/src/webshop`);
      } finally {
        t.kill();
      }
    });
  }
});

describe('--demo and the config file', () => {
  it('keeps keys and fzf_opts, drops harness commands and args (the stand-ins run)', () => {
    const home = tempHome('resume-democfg-');
    const plain = run(home, ['--demo', '__fzf-flags', 'picker']).stdout;
    write(
      home,
      '.config/resume/config',
      'keys = "vim"\nfzf_opts = "--height 77%"\n[claude]\ncommand = "vamos"\nargs = ["--model", "opus"]\n',
    );
    const flags = run(home, ['--demo', '__fzf-flags', 'picker']);
    expect(flags.code, flags.stderr).toBe(0);
    expect(flags.stdout).not.toBe(plain);
    expect(flags.stdout).toContain('--height 77%');
    // the same flags as outside the demo with the same config
    expect(flags.stdout.replaceAll('resume --demo ', 'resume ')).toBe(run(home, ['__fzf-flags', 'picker']).stdout);
    const claude = must(demoLs(home).find((s) => s.harness === 'claude' && !s.hidden));
    const dry = run(home, ['--demo', '--dry-run', '--json', `claude:${claude.id}`]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).argv).toEqual(['claude', '--resume', claude.id]);
  });
});
