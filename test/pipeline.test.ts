// The stages chained by hand, as the README's recipes show them: rows | fzf | emit (with fzf
// --filter, and with the real fzf in tmux, also through fzf-tmux), resolve | emit, keys and rows on
// stdin for emit and preview, ls --json | jq | emit; and the demo resuming end to end through its
// stand-in harness commands.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, envFor, must, needs, run, tempHome } from './helpers.js';
import { TAIL } from './launch-helpers.js';
import { calls, claudeHome, claudeOnPath, TmuxShell } from './shell-helpers.js';

const uid = (p: string) => `${p}-4e5f-4061-8071-${TAIL}`;

/** Three sessions in real directories (newest first: gamma, beta, alpha), `resume` on PATH. */
function pipeHome(filler = 0): string {
  const home = tempHome('resume-pipe-');
  const dir = (n: string) => {
    const d = path.join(home, 'src', n);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  claudeHome(
    [
      { id: uid('aaaa1111'), cwd: dir('alpha'), prompt: 'alpha task', at: '2026-01-01T00:00:00Z' },
      { id: uid('bbbb2222'), cwd: dir('beta'), prompt: 'beta task', at: '2026-01-02T00:00:00Z' },
      { id: uid('cccc3333'), cwd: dir('gamma'), prompt: 'gamma task', at: '2026-01-03T00:00:00Z' },
      // older sessions, so many rows that `resume rows` outlives fzf's start (more than a pipe holds)
      ...Array.from({ length: filler }, (_, i) => ({
        id: `${(0xd0000000 + i).toString(16)}-4e5f-4061-8071-${TAIL}`,
        cwd: dir('alpha'),
        prompt: `older task ${i} ${'with a long prompt to fill the row '.repeat(5)}`,
        at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
      })),
    ],
    home,
  );
  claudeOnPath(home);
  fs.symlinkSync(BIN, path.join(home, 'bin', 'resume'));
  return home;
}

/** A bash script with `resume` and the stand-in `claude` first on PATH. */
function sh(home: string, script: string, extra: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['--norc', '--noprofile', '-o', 'pipefail', '-c', script], {
    env: envFor(home, { PATH: `${path.join(home, 'bin')}:${process.env.PATH}`, RESUME_SHELL: 'bash', ...extra }),
    cwd: home,
    encoding: 'utf8',
    input: '',
  });
  return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}

describe('stages on stdin', () => {
  const home = pipeHome();

  it('emit takes a key, or a whole row, from stdin', () => {
    const byKey = sh(home, `resume rows | sed -n 2p | cut -f1 | resume emit`);
    expect(byKey.code).toBe(0);
    expect(byKey.stdout).toBe(`cd ${path.join(home, 'src', 'beta')} && claude --resume ${uid('bbbb2222')}\n`);
    const byRow = sh(home, `resume rows | sed -n 2p | resume emit`);
    expect(byRow.stdout).toBe(byKey.stdout);
  });

  it('emit with nothing on stdin is exit 1; several keys are exit 2; arguments after -- still go to the harness', () => {
    const none = sh(home, `printf '' | resume emit`);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no key on stdin/);
    const many = sh(home, `resume rows | resume emit`);
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/stdin had 3/);
    const tail = sh(home, `resume rows | head -1 | resume emit -- --model opus`);
    expect(tail.stdout).toBe(`cd ${path.join(home, 'src', 'gamma')} && claude --resume ${uid('cccc3333')} --model opus\n`);
  });

  it('resolve WORDS | emit works when WORDS name one session, and fails loudly when they name several', () => {
    const one = sh(home, `resume resolve beta | resume emit`);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(`claude --resume ${uid('bbbb2222')}`);
    const several = sh(home, `resume resolve task | resume emit`);
    expect(several.code).not.toBe(0);
    expect(several.stdout).toBe('');
  });

  it('preview takes keys or rows from stdin; several are separated; an unknown key is exit 1', () => {
    const one = sh(home, `resume rows | head -1 | resume preview`);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^gamma task\n/);
    const two = sh(home, `resume rows | head -2 | cut -f1 | resume preview`);
    expect(two.stdout).toMatch(/gamma task[\s\S]*\n-{40}\n[\s\S]*beta task/);
    const bad = sh(home, `printf 'claude:nope\\n' | resume preview`);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no session 'claude:nope'/);
  });

  it('rows --align --status is the picker list: a status line with an empty key, then padded columns', () => {
    const r = run(home, ['rows', '--align', '--status']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\tall harnesses · 3 sessions$/);
    expect(lines.slice(1).map((l) => l.split('\t')[0])).toEqual(
      [uid('cccc3333'), uid('bbbb2222'), uid('aaaa1111')].map((i) => `claude:${i}`),
    );
    const cols = lines.slice(1).map((l) => l.split('\t')[1].indexOf('claude'));
    expect(new Set(cols).size).toBe(1);
  });
});

describe('README recipes with the real fzf', { timeout: 120_000 }, () => {
  const skip = needs('fzf', 'bash');
  const home = pipeHome();

  it.skipIf(skip)('rows | fzf --filter | emit, evaluated, resumes the session in its directory', () => {
    const r = sh(home, `eval "$(resume rows | fzf --delimiter='\\t' --with-nth=2.. --no-sort --filter=beta | head -1 | resume emit)"`);
    expect(r.code).toBe(0);
    expect(calls(home).at(-1)).toEqual({ cwd: path.join(home, 'src', 'beta'), argv: ['--resume', uid('bbbb2222')] });
  });

  it.skipIf(skip)('the hidden key is not searched (--with-nth=2..): a query for the harness name in the key matches by column only', () => {
    const r = sh(home, `resume rows | fzf --delimiter='\\t' --with-nth=2.. --no-sort --filter=4e5f4061 || true`);
    expect(r.stdout).toBe('');
  });

  it.skipIf(skip || needs('jq'))('ls --json | jq picks by field, and emit resumes it', () => {
    const r = sh(home, `resume ls --json | jq -r '.[] | select(.title == "alpha task") | .id' | resume emit`);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`cd ${path.join(home, 'src', 'alpha')} && claude --resume ${uid('aaaa1111')}\n`);
  });
});

describe('README recipes in tmux', { timeout: 120_000 }, () => {
  const skip = needs('fzf', 'tmux', 'bash');

  const inTmux = async (fn: (t: TmuxShell, home: string) => Promise<void>, filler = 0) => {
    const home = pipeHome(filler);
    const t = new TmuxShell(home, 'bash', { PATH: `${path.join(home, 'bin')}:${process.env.PATH}` });
    try {
      await t.until(() => t.line() === '$', 'the prompt');
      await fn(t, home);
    } finally {
      t.kill();
    }
  };

  it.skipIf(skip)("rows | fzf with resume's preview | emit: newest first, the preview follows the cursor, Enter resumes", async () => {
    await inTmux(async (t, home) => {
      t.send(
        '-l',
        `eval "$(resume rows | fzf --delimiter='\\t' --with-nth=2.. --no-sort --layout=reverse --preview='resume preview {1}' | resume emit)"`,
      );
      t.send('Enter');
      const s = await t.until(
        (x) => /cccc3333 .*\n.*bbbb2222 .*\n.*aaaa1111 /.test(x) && /prompts: +1/.test(x),
        'the list and the preview',
      );
      expect(s).toMatch(/gamma task/);
      t.send('Down');
      await t.until((x) => /id: +bbbb2222/.test(x), 'the preview of the second row');
      t.send('Enter');
      await t.until(() => calls(home).length === 1, 'the stand-in run');
      expect(calls(home)[0]).toEqual({ cwd: path.join(home, 'src', 'beta'), argv: ['--resume', uid('bbbb2222')] });
    });
  });

  // Node restores at exit the terminal modes it saw at start; a `resume rows` that started before fzf
  // made the terminal raw and ends after it would turn echo back on under fzf (keys then print ^[[B).
  it.skipIf(skip)('a rows that ends after fzf took the terminal leaves fzf its raw mode: keys still move the cursor', async () => {
    await inTmux(async (t, home) => {
      // rows starts first (fzf waits half a second) and cannot end before fzf reads: its output is more than a pipe holds
      t.send(
        '-l',
        `eval "$(resume rows | { sleep 0.5; fzf --delimiter='\\t' --with-nth=2.. --no-sort --layout=reverse --preview='resume preview {1}'; } | resume emit)"`,
      );
      t.send('Enter');
      await t.until(
        (x) => /cccc3333 .*\n.*bbbb2222 /.test(x) && /prompts: +1/.test(x) && /\b60[0-9]\/60[0-9]\b/.test(x),
        'the whole list and the preview',
      );
      t.send('Down');
      const s = await t.until((x) => /id: +bbbb2222/.test(x) || /\^\[\[B/.test(x), 'the preview of the second row');
      expect(s).not.toMatch(/\^\[\[B/);
      t.send('Enter');
      await t.until(() => calls(home).length === 1, 'the stand-in run');
      expect(calls(home)[0]).toEqual({ cwd: path.join(home, 'src', 'beta'), argv: ['--resume', uid('bbbb2222')] });
    }, 600);
  });

  // fzf --tmux opens a tmux popup (fzf 0.53 and newer), which tmux draws only on an attached client:
  // an outer tmux server runs `tmux attach` to the shell's server, and the keys go in through it.
  const fzfMinor = skip ? 0 : Number(/^0\.(\d+)/.exec(spawnSync('fzf', ['--version'], { encoding: 'utf8' }).stdout ?? '')?.[1] ?? 0);
  it.skipIf(skip || fzfMinor < 53)('the same in a tmux popup (fzf --tmux center, fzf 0.53+)', async () => {
    await inTmux(async (t, home) => {
      t.send('-l', `export TMUX=${t.tmux('display-message', '-p', '#{socket_path},#{pid},0').trim()}; clear`);
      t.send('Enter');
      await t.until(() => t.line() === '$', 'the prompt');
      const inner = t.tmux('display-message', '-p', '#{socket_path}').trim();
      const outer = path.join(home, 'outer.sock');
      const o = (...a: string[]) => spawnSync('tmux', ['-S', outer, ...a], { encoding: 'utf8' });
      try {
        expect(
          o('-f', '/dev/null', 'new-session', '-d', '-x', '200', '-y', '40', 'env', `TERM=xterm-256color`, 'tmux', '-S', inner, 'attach')
            .status,
        ).toBe(0);
        // the outer screen once it matches; null as soon as `over` says waiting is moot
        const shown = async (re: RegExp, what: string, over: () => boolean = () => false) => {
          for (let i = 0; i < 250; i++) {
            const txt = o('capture-pane', '-p', '-t', '0').stdout;
            if (re.test(txt)) return txt;
            if (over()) return null;
            await new Promise((r) => setTimeout(r, 100));
          }
          throw new Error(`timed out waiting for ${what}; outer screen:\n${o('capture-pane', '-p', '-t', '0').stdout}`);
        };
        await shown(/\$/, 'the attached client');
        // Keys reach the popup through two tmux clients. Now and then under CI the popup's fzf ended
        // without a pick, as if aborted (likely an escape sequence between the clients, a terminal
        // reply or focus report, whose ESC arrived alone: fzf takes that for Esc). The recipe is run
        // again when that happens (the shell says nothing was picked, and no run was made), up to
        // three times; a wrong pick, or no popup, still fails at once.
        for (let attempt = 1; ; attempt++) {
          t.send('-l', 'clear');
          t.send('Enter');
          await t.until(() => t.line() === '$', 'the prompt');
          t.send(
            '-l',
            `eval "$(resume rows | fzf --tmux center --delimiter='\\t' --with-nth=2.. --no-sort --layout=reverse | resume emit)"`,
          );
          t.send('Enter');
          // the popup is drawn over the pane: a border around the rows, and fzf's count once it has read them
          await shown(/[│|].*cccc3333 [\s\S]*bbbb2222 /, 'the popup with the rows');
          await shown(/\b3\/3\b/, "the popup's count");
          // ctrl-n (fzf's down too) is one byte: Down is an escape sequence, and through two tmux
          // clients on a loaded machine its ESC can arrive alone, which fzf takes for abort
          o('send-keys', '-t', '0', 'C-n');
          const moved = await shown(/[▌>] *bbbb2222 /, 'the cursor on the second row', () => /no key on stdin/.test(t.screen()));
          if (moved !== null) {
            o('send-keys', '-t', '0', 'Enter');
            await t.until((x) => calls(home).length === 1 || /no key on stdin/.test(x), 'the stand-in run');
          }
          if (calls(home).length === 1) break;
          if (attempt === 3) throw new Error(`fzf in the popup ended without a pick ${attempt} times; screen:\n${t.screen()}`);
        }
        expect(calls(home)[0]).toEqual({ cwd: path.join(home, 'src', 'beta'), argv: ['--resume', uid('bbbb2222')] });
      } finally {
        o('kill-server');
      }
    });
  });

  it.skipIf(skip || needs('fzf-tmux'))('the same through fzf-tmux (a tmux pane)', async () => {
    await inTmux(async (t, home) => {
      // the shell was started with a clean environment: tell fzf-tmux which tmux it runs in
      t.send('-l', `export TMUX=${t.tmux('display-message', '-p', '#{socket_path},#{pid},0').trim()}; clear`);
      t.send('Enter');
      await t.until(() => t.line() === '$', 'the prompt');
      t.send('-l', `eval "$(resume rows | fzf-tmux -d 60% -- --delimiter='\\t' --with-nth=2.. --no-sort | resume emit)"`);
      t.send('Enter');
      // fzf runs in a new pane below; wait until it shows the rows, then accept the newest
      const pane = async () => {
        for (let i = 0; i < 250; i++) {
          const panes = t.tmux('list-panes', '-t', '0', '-F', '#{pane_id}').trim().split('\n');
          if (panes.length > 1) {
            const p = panes[panes.length - 1];
            const txt = t.tmux('capture-pane', '-p', '-t', p);
            if (/cccc3333 /.test(txt)) return p;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error('no fzf-tmux pane with the rows');
      };
      const p = await pane();
      t.tmux('send-keys', '-t', p, 'Enter');
      await t.until(() => calls(home).length === 1, 'the stand-in run');
      expect(calls(home)[0]).toEqual({ cwd: path.join(home, 'src', 'gamma'), argv: ['--resume', uid('cccc3333')] });
    });
  });
});

describe('the demo resumes', () => {
  const home = tempHome('resume-demo-');
  // the demo's sessions as recorded (test/real/demo.mjs writes the manifest with demo/home)
  const manifest = JSON.parse(fs.readFileSync(path.join(path.dirname(BIN), '..', 'demo', 'manifest.json'), 'utf8')) as {
    sessions: { client: string; id: string; cwd: string; title: string | null; forkedFrom?: string; prompts: string[] }[];
  };
  const claude = must(manifest.sessions.find((s) => s.client === 'claude' && s.title === 'Webhook retry with backoff' && !s.forkedFrom));
  const codexFork = must(manifest.sessions.find((s) => s.client === 'codex' && s.forkedFrom));
  const dotfiles = must(manifest.sessions.find((s) => s.client === 'claude' && s.cwd.endsWith('/dotfiles')));

  it('creates its directories under its cache dir and launches the stand-in, which says what the real client would do', () => {
    const r = run(home, ['--demo', claude.id.slice(0, 8)]);
    expect(r.code).toBe(0);
    const dir = path.join(home, '.cache', 'resume', 'demo', 'home', 'src', 'webshop');
    expect(fs.statSync(dir).isDirectory()).toBe(true);
    expect(r.stdout).toBe(`claude (demo stand-in): would resume ${claude.id} in ~/.cache/resume/demo/home/src/webshop\n`);
    const fork = run(home, ['--demo', '--fork', codexFork.id]);
    expect(fork.stdout).toBe(`codex (demo stand-in): would fork ${codexFork.id} in ~/.cache/resume/demo/home/src/webshop\n`);
  });

  it('the stand-ins are on PATH only for the launch; the sessions are listed in the directories the demo made', () => {
    const list = JSON.parse(run(home, ['--demo', 'ls', '--json', '-a']).stdout) as {
      key?: string;
      harness: string;
      id: string;
      updated: string;
      cwd: string | null;
    }[];
    expect(list.length).toBeGreaterThanOrEqual(manifest.sessions.length);
    expect(list.filter((s) => s.cwd).every((s) => must(s.cwd).startsWith(path.join(home, '.cache', 'resume', 'demo', 'home')))).toBe(true);
    const doctor = run(home, ['--demo', 'doctor', '--json']);
    expect(
      JSON.parse(doctor.stdout).harnesses.every((h: { binary: { path: string | null } | null }) => !h.binary?.path?.includes('demo')),
    ).toBe(true);
  });

  it.skipIf(needs('bash'))('through the bash function: resume --demo ID runs the stand-in in the demo directory', () => {
    const init = run(home, ['init', 'bash']).stdout;
    fs.writeFileSync(path.join(home, 'init.bash'), init);
    const r = spawnSync(
      'bash',
      ['--norc', '--noprofile', '-c', `source ${path.join(home, 'init.bash')}; resume --demo ${dotfiles.id.slice(0, 8)}; pwd`],
      {
        env: envFor(home),
        cwd: home,
        encoding: 'utf8',
      },
    );
    expect(r.stdout).toBe(`claude (demo stand-in): would resume ${dotfiles.id} in ~/.cache/resume/demo/home/src/dotfiles\n${home}\n`);
  });
});
