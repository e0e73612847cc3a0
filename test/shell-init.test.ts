// `resume init`: the printed scripts load quietly in real shells (strict flags, twice), pass
// shellcheck and fish_indent, and the `resume` function launches through the user's shell.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, needs, ROOT, run } from './helpers.js';
import { TAIL } from './launch-helpers.js';
import { calls, claudeHome, initFile, runShell, type Sess, type ShellName, TmuxShell } from './shell-helpers.js';

const SHELLS: ShellName[] = ['zsh', 'bash', 'fish'];
const id = (n: number) => `${String(n).repeat(8)}-4e5f-4061-8071-${TAIL}`;

describe('resume init', () => {
  it('prints the script file after a header naming this binary', () => {
    const home = claudeHome([]);
    for (const sh of SHELLS) {
      const r = run(home, ['init', sh]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const body = fs.readFileSync(path.join(ROOT, 'shell', sh, `resume.${sh}`), 'utf8');
      expect(r.stdout.endsWith(body)).toBe(true);
      expect(r.stdout).toContain(BIN);
    }
  });

  it('refuses an unknown shell with exit 2 and one line on stderr', () => {
    const r = run(claudeHome([]), ['init', 'csh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('csh');
  });
});

describe.each(SHELLS)('render and run in %s', { timeout: 120_000 }, (sh) => {
  it.skipIf(needs(sh))('evaluating the init output twice with strict flags prints nothing and exits 0', () => {
    const home = claudeHome([]);
    const body: Record<ShellName, string> = {
      zsh: `setopt err_exit no_unset pipe_fail warn_create_global warn_nested_var\neval "$(${BIN} init zsh)"\neval "$(${BIN} init zsh)"\n(( $+functions[resume] ))\n`,
      bash: `set -euo pipefail\neval "$(${BIN} init bash)"\neval "$(${BIN} init bash)"\ndeclare -F resume >/dev/null\n`,
      fish: `${BIN} init fish | source; or exit 1\n${BIN} init fish | source; or exit 1\nfunctions -q resume; or exit 1\n`,
    };
    const r = runShell(home, sh, body[sh]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
  });

  it.skipIf(needs(sh))('other subcommands write straight to the terminal and keep their exit codes', () => {
    const home = claudeHome([{ id: id(1), cwd: '/', prompt: 'hello there', at: '2026-01-01T00:00:00Z' }]);
    const init = initFile(home, sh);
    const src = sh === 'fish' ? `source ${init}` : `. ${init}`;
    const status = sh === 'fish' ? '$status' : '$?';
    const r = runShell(home, sh, `${src}\nresume ls\necho "rc=${status}"\nresume init csh\necho "rc=${status}"\n`);
    expect(r.stdout).toMatch(/^11111111\t.*\thello there\nrc=0\nrc=2\n$/);
    expect(r.stderr).toContain("unknown shell 'csh'");
  });
});

describe('static checks', { timeout: 120_000 }, () => {
  it.skipIf(needs('shellcheck'))('shellcheck passes on the bash script as `resume init bash` prints it', () => {
    const r = spawnSync('shellcheck', ['-s', 'bash', '-'], { input: run(claudeHome([]), ['init', 'bash']).stdout, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(needs('fish_indent'))('fish_indent --check passes on the fish script and on what `resume init fish` prints', () => {
    let r = spawnSync('fish_indent', ['--check', path.join(ROOT, 'shell/fish/resume.fish')], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
    r = spawnSync('fish_indent', ['--check'], { input: run(claudeHome([]), ['init', 'fish']).stdout, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(needs('zsh'))('the zsh script parses (zsh -n)', () => {
    const r = spawnSync('zsh', ['-f', '-n', path.join(ROOT, 'shell/zsh/resume.zsh')], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

// Directories a session can start in that a careless quote would break.
const HOSTILE = [
  'with space',
  `quo'te"s`,
  '$HOME and $(echo x)',
  'back`tick`',
  'new\nline',
  'ünïcødé ✓ 日本',
  '-leading-dash',
  'semi;colon & amp|pipe *glob?',
];

describe.each(SHELLS)('launching through the %s function', { timeout: 120_000 }, (sh) => {
  const setup = () => {
    const base = claudeHome([]);
    const dirs = HOSTILE.map((name) => {
      const d = path.join(base, 'w', name);
      fs.mkdirSync(d, { recursive: true });
      return d;
    });
    const sessions: Sess[] = dirs.map((d, i) => ({ id: id(i + 1), cwd: d, prompt: `task ${i + 1}`, at: `2026-01-0${i + 1}T00:00:00Z` }));
    claudeHome(sessions, base);
    return { home: base, dirs, sessions };
  };
  const src = (sh: ShellName, init: string) => (sh === 'fish' ? `source ${init}` : `. ${init}`);
  const status = (sh: ShellName) => (sh === 'fish' ? '$status' : '$?');

  it.skipIf(needs(sh))(
    'starts the harness in the exact directory, for hostile names, and the shell stays where it was',
    { timeout: 90000 },
    () => {
      const { home, dirs, sessions } = setup();
      const init = initFile(home, sh);
      const lines = [src(sh, init)];
      for (const s of sessions) lines.push(`resume ${s.id.slice(0, 8)}`, `echo "rc=${status(sh)} pwd=$PWD"`);
      const r = runShell(home, sh, `${lines.join('\n')}\n`);
      expect(r.stderr).toBe('');
      const want = `${sessions.map(() => `rc=0 pwd=${home}`).join('\n')}\n`;
      expect(r.stdout).toBe(want);
      const got = calls(home);
      expect(got).toEqual(sessions.map((s, i) => ({ cwd: fs.realpathSync(dirs[i]), argv: ['--resume', s.id] })));
    },
  );

  it.skipIf(needs(sh))('a shell function named like the harness wins over the binary', () => {
    const { home, dirs, sessions } = setup();
    const init = initFile(home, sh);
    const log = path.join(home, 'fn.log');
    const fn: Record<ShellName, string> = {
      zsh: `claude() { print -r -- "fn $PWD $*" >> ${log}; return 7 }`,
      bash: `claude() { printf 'fn %s %s\\n' "$PWD" "$*" >> ${log}; return 7; }`,
      fish: `function claude; printf 'fn %s %s\\n' "$PWD" "$argv" >> ${log}; return 7; end`,
    };
    const s = sessions[0];
    const r = runShell(home, sh, `${src(sh, init)}\n${fn[sh]}\nresume ${s.id}\necho "rc=${status(sh)} pwd=$PWD"\n`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`rc=7 pwd=${home}\n`);
    expect(fs.readFileSync(log, 'utf8')).toBe(`fn ${fs.realpathSync(dirs[0])} --resume ${s.id}\n`);
    expect(calls(home)).toEqual([]);
  });

  it.skipIf(needs(sh))("returns the binary's exit code and runs nothing when nothing is chosen", () => {
    const { home } = setup();
    const init = initFile(home, sh);
    const tmp = path.join(home, 'tmp');
    fs.mkdirSync(tmp);
    const r = runShell(home, sh, `${src(sh, init)}\nresume no-such-session-words\necho "rc=${status(sh)}"\n`, { env: { TMPDIR: tmp } });
    expect(r.stdout).toBe('rc=1\n');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(calls(home)).toEqual([]);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

describe.each(['zsh', 'bash'] as const)("%s under the user's own options", { timeout: 120_000 }, (sh) => {
  const setup = () => {
    const home = claudeHome([]);
    const dirs = ['one', 'two words'].map((n) => {
      const d = path.join(home, 'w', n);
      fs.mkdirSync(d, { recursive: true });
      return d;
    });
    const sessions: Sess[] = dirs.map((d, i) => ({ id: id(i + 1), cwd: d, prompt: `task ${i + 1}`, at: `2026-01-0${i + 1}T00:00:00Z` }));
    claudeHome(sessions, home);
    return { home, dirs, sessions };
  };

  it.skipIf(needs(sh))('works under unusual user options and leaves every option as it was', () => {
    const { home, dirs, sessions } = setup();
    const init = initFile(home, sh);
    const s = sessions[1];
    const body: Record<'zsh' | 'bash', string> = {
      zsh: [
        'setopt ksh_arrays sh_word_split no_unset err_return rc_quotes no_glob warn_create_global glob_subst; IFS=:',
        'before=$(setopt; print -r -- "$IFS")',
        `. ${init}`,
        `resume ${s.id}`,
        'after=$(setopt; print -r -- "$IFS")',
        '[[ $before == "$after" ]] && print same',
      ].join('\n'),
      bash: [
        'set -u -o pipefail; shopt -s failglob nullglob extglob; IFS=:',
        'before=$(set -o; shopt; printf %s "$IFS")',
        `. ${init}`,
        `resume ${s.id}`,
        'after=$(set -o; shopt; printf %s "$IFS")',
        '[[ $before == "$after" ]] && echo same',
      ].join('\n'),
    };
    const r = runShell(home, sh, `${body[sh]}\n`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('same\n');
    expect(calls(home)).toEqual([{ cwd: fs.realpathSync(dirs[1]), argv: ['--resume', s.id] }]);
  });
});

describe('fish: the directory comes back', { timeout: 120_000 }, () => {
  it.skipIf(needs('fish', 'tmux'))(
    'after a harness interrupted with Ctrl-C, with cd history as it was',
    async () => {
      const home = claudeHome([]);
      const dir = path.join(home, 'w', 'proj x');
      fs.mkdirSync(dir, { recursive: true });
      const s: Sess = { id: id(5), cwd: dir, prompt: 'long task', at: '2026-01-01T00:00:00Z' };
      claudeHome([s], home);
      const marker = path.join(home, 'started');
      const t = new TmuxShell(home, 'fish');
      try {
        await t.until(() => t.line() === '$', 'the prompt');
        t.send('-l', `cd /; cd ${home}; set -g before "$dirprev|$dirnext"; function claude; touch ${marker}; sleep 1000; end; clear`);
        t.send('Enter');
        await t.until(() => t.line() === '$', 'the prompt');
        t.send('-l', `resume ${s.id}`);
        t.send('Enter');
        const end = Date.now() + 25000;
        while (!fs.existsSync(marker)) {
          if (Date.now() > end) throw new Error(`the harness did not start; screen:\n${t.screen()}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        t.send('C-c');
        await t.until(() => t.line() === '$', 'the prompt after Ctrl-C');
        t.send('-l', 'echo "pwd=$PWD"; test "$dirprev|$dirnext" = "$before"; and echo same-history');
        t.send('Enter');
        const screen = await t.until((x) => /^pwd=/m.test(x), 'the echo');
        expect(screen).toContain(`\npwd=${home}\nsame-history\n`);
      } finally {
        t.kill();
      }
    },
    60000,
  );
});
