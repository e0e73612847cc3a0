// Launching (issue 4): quoting evaluated in real zsh, bash and fish with a stand-in harness on PATH,
// the emit file, the exec fallback (exit codes, signals), dry-run, print, fork, the config file,
// missing directories and the live-session guard, through the built CLI on temp HOMEs.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellLine } from '../lib/launch/emit.js';
import { findLive } from '../lib/launch/live.js';
import type { Harness, Session } from '../lib/types.js';
import { quoteFish, quotePosix, type ShellName } from '../lib/util/quote.js';
import { BIN, envFor, must, needs, notLinux, run, tempHome, write } from './helpers.js';
import { claudeSession, codexSession, piSession, records, standIn, uuid, waitRecords } from './launch-helpers.js';

const HOSTILE = [
  'with space',
  "single'quote",
  'double"quote',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…} the launch must pass on unexpanded
  '$HOME and ${PATH}',
  '`id` and $(id)',
  'semi;colon',
  'amp&ersand && true',
  'glob*?[ab]{c,d}',
  '-leading-dash',
  '--',
  'new\nline',
  'carriage\rreturn\ttab',
  'ünïcödé 日本語 ✓',
  'bidi\u202eoverride',
  'both \' and " and !',
  'bang!history !! !$',
  "it's! $x",
  '~tilde',
  '#hash',
  'back\\slash\\',
  '%percent ^caret =equals',
  '\\x41 \\n not escapes',
  'esc\u001b[31mred',
  "'",
];

function scriptFor(shell: ShellName, files: string[]): string {
  // What the shell integration does with the emitted line: evaluate it (in a subshell for zsh/bash).
  if (shell === 'fish') return files.map((f) => `eval (string collect < ${quoteFish(f)})\n`).join('');
  return files.map((f) => `(eval "$(<${quotePosix(f)})")\n`).join('');
}

function shellRun(shell: ShellName, script: string, env: NodeJS.ProcessEnv, home: string) {
  const file = path.join(home, `script.${shell}`);
  fs.writeFileSync(file, script);
  const argv =
    shell === 'zsh' ? ['zsh', '-f', file] : shell === 'bash' ? ['bash', '--norc', '--noprofile', file] : ['fish', '--no-config', file];
  return spawnSync(argv[0], argv.slice(1), { env, cwd: home, encoding: 'utf8' });
}

describe('quoting round-trips every hostile directory name in real shells', { timeout: 120_000 }, () => {
  for (const shell of ['zsh', 'bash', 'fish'] as const) {
    it.skipIf(needs(shell))(`${shell}: cd DIR && ARGV lands in DIR with the exact argv`, () => {
      const home = tempHome();
      const si = standIn(home);
      const files: string[] = [];
      const expected: { cwd: string; argv: string[] }[] = [];
      HOSTILE.forEach((name, i) => {
        const cwd = path.join(home, 'work', String(i), name);
        fs.mkdirSync(cwd, { recursive: true });
        // The hostile name also travels as an argument (as `-- ARGS` would carry it).
        const argv = ['claude', '--resume', uuid(i), name, '--'];
        const line = shellLine({ harness: 'claude', id: uuid(i), cwd, argv, env: {} }, shell);
        expect(line.split('\n')).toHaveLength(1);
        // eslint-disable-next-line no-control-regex
        expect(line).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
        files.push(write(home, `lines/${i}`, `${line}\n`));
        expected.push({ cwd, argv: argv.slice(1) });
      });
      const r = shellRun(shell, scriptFor(shell, files), envFor(home, { PATH: si.PATH }), home);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(records(si.log).map((x) => ({ cwd: x.cwd, argv: x.argv }))).toEqual(expected);
    });

    it.skipIf(needs(shell))(`${shell}: an environment prefix reaches the harness`, () => {
      const home = tempHome();
      const si = standIn(home);
      const f = write(
        home,
        'line',
        `${shellLine({ harness: 'claude', id: 'x', cwd: home, argv: ['claude'], env: { WEIRD: "a b'$c\nd" } }, shell)}\n`,
      );
      // This `claude` records the variable instead of its argv.
      fs.writeFileSync(
        path.join(si.bin, 'claude'),
        `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(path.join(home, 'env.json'))}, JSON.stringify(process.env.WEIRD));\n`,
        { mode: 0o755 },
      );
      const r = shellRun(shell, scriptFor(shell, [f]), envFor(home, { PATH: si.PATH }), home);
      expect(r.status).toBe(0);
      expect(JSON.parse(fs.readFileSync(path.join(home, 'env.json'), 'utf8'))).toBe("a b'$c\nd");
    });
  }
});

let sessionNo = 0;

/** A HOME with one Claude session (an id of its own) in a chosen directory and the stand-in on PATH. */
function oneSession(dirName = 'my project') {
  const home = tempHome();
  const si = standIn(home);
  const cwd = path.join(home, dirName);
  fs.mkdirSync(cwd, { recursive: true });
  const id = uuid(++sessionNo, `1a2b3c4d-${process.pid.toString(16).padStart(4, '0').slice(-4)}-4000-8000`);
  const file = claudeSession(home, { id, cwd, prompt: 'fix the flaky login test' });
  // TMUX_TMPDIR: a live session is looked for in the tmux servers there, never the developer's own
  return { home, si, cwd, id, file, env: { PATH: si.PATH, TMUX_TMPDIR: home } as Record<string, string> };
}

describe('resume QUERY through the shell integration (RESUME_EMIT_FILE)', { timeout: 120_000 }, () => {
  for (const shell of ['zsh', 'bash', 'fish'] as const) {
    it.skipIf(needs(shell))(`${shell}: writes exactly one line, exits 0, starts nothing; the line resumes in the directory`, () => {
      const { home, si, cwd, id, env } = oneSession('it\'s "odd" $dir\nline ünï');
      const emitFile = write(home, 'emit', '');
      const r = run(home, ['flaky', 'login', '--', '--model', 'opus'], { ...env, RESUME_EMIT_FILE: emitFile, RESUME_SHELL: shell });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(records(si.log)).toEqual([]);
      const text = fs.readFileSync(emitFile, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      expect(text.slice(0, -1)).not.toContain('\n');
      expect(text.startsWith('cd ')).toBe(true);
      const sh = shellRun(shell, scriptFor(shell, [emitFile]), envFor(home, env), home);
      expect(sh.status).toBe(0);
      expect(records(si.log).map((x) => ({ name: x.name, cwd: x.cwd, argv: x.argv }))).toEqual([
        { name: 'claude', cwd, argv: ['--resume', id, '--model', 'opus'] },
      ]);
    });

    it.skipIf(needs(shell))(`${shell}: a shell function or alias named like the harness wins over the binary`, () => {
      const { home, si, cwd, id, env } = oneSession('dir with space');
      const r = run(home, ['emit', `claude:${id}`, '--shell', shell], env);
      expect(r.code).toBe(0);
      const f = write(home, 'line', r.stdout);
      const out = path.join(home, 'fn.txt');
      const defs =
        shell === 'fish'
          ? `function claude; pwd > ${quoteFish(out)}; printf '%s\\n' $argv >> ${quoteFish(out)}; end\n`
          : `claude() { pwd > ${quotePosix(out)}; printf '%s\\n' "$@" >> ${quotePosix(out)}; }\n`;
      const sh = shellRun(shell, defs + scriptFor(shell, [f]), envFor(home, env), home);
      expect(sh.status).toBe(0);
      expect(fs.readFileSync(out, 'utf8')).toBe(`${cwd}\n--resume\n${id}\n`);
      expect(records(si.log)).toEqual([]);
      if (shell !== 'fish') {
        // An alias too: the command word is left bare so aliases expand.
        const aliasOut = path.join(home, 'alias.txt');
        const setup = `${shell === 'bash' ? 'shopt -s expand_aliases\n' : ''}alias claude='echo alias >> ${aliasOut}; true'\n`;
        const sh2 = shellRun(shell, setup + scriptFor(shell, [f]), envFor(home, env), home);
        expect(sh2.status).toBe(0);
        expect(fs.readFileSync(aliasOut, 'utf8')).toBe('alias\n');
        expect(records(si.log)).toEqual([]);
      }
    });
  }

  it('emit prints the line for each shell; a bad --shell or RESUME_SHELL is a usage error', () => {
    const { home, id, cwd, env } = oneSession('a b');
    const bash = run(home, ['emit', id, '--shell', 'bash'], env);
    expect(bash).toMatchObject({ code: 0, stdout: `cd '${cwd}' && claude --resume ${id}\n` });
    const fish = run(home, ['emit', `claude:${id}`, '--shell', 'fish', '--', "it's"], env);
    expect(fish).toMatchObject({ code: 0, stdout: `cd '${cwd}' && claude --resume ${id} 'it\\'s'\n` });
    const fork = run(home, ['emit', id, '--fork', '--shell', 'zsh'], env);
    expect(fork.stdout).toBe(`cd '${cwd}' && claude --resume ${id} --fork-session\n`);
    expect(run(home, ['emit', id, '--shell', 'tcsh'], env)).toMatchObject({ code: 2, stdout: '' });
    expect(run(home, ['emit', id], { ...env, RESUME_SHELL: 'tcsh' }).code).toBe(2);
    expect(run(home, ['emit', id, 'extra'], env).code).toBe(2);
    // RESUME_SHELL and $SHELL choose the quoting when --shell is absent.
    expect(run(home, ['emit', id], { ...env, RESUME_SHELL: 'fish' }).stdout).toBe(fish.stdout.replace(` 'it\\'s'`, ''));
    expect(run(home, ['--print', id], { ...env, SHELL: '/usr/bin/fish' }).stdout).toBe(fish.stdout.replace(` 'it\\'s'`, ''));
  });
});

describe('exec fallback (no shell integration)', { timeout: 120_000 }, () => {
  it('starts the harness in the directory with the terminal streams and exits with its code', () => {
    const { home, si, cwd, id, env } = oneSession('exec dir');
    const r = run(home, ['flaky'], env, { cwd: '/' });
    expect(r.code).toBe(0);
    expect(records(si.log).map((x) => ({ cwd: x.cwd, argv: x.argv }))).toEqual([{ cwd, argv: ['--resume', id] }]);
    expect(run(home, [id.slice(0, 8)], { ...env, STANDIN_EXIT: '7' }).code).toBe(7);
    expect(run(home, [id.slice(0, 8)], { ...env, STANDIN_EXIT: '0' }).code).toBe(0);
  });

  it('a harness killed by a signal gives 128 + the signal number', () => {
    const { home, env, id } = oneSession();
    expect(run(home, [id], { ...env, STANDIN_SELFKILL: 'SIGTERM' }).code).toBe(143);
    expect(run(home, [id], { ...env, STANDIN_SELFKILL: 'SIGKILL' }).code).toBe(137);
  });

  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    it(`passes ${sig} on to the harness and ends with its exit code`, async () => {
      const { home, si, id, env } = oneSession();
      // stdin is a pipe here, not a terminal: nothing else would deliver SIGINT to the harness.
      const child = spawn(process.execPath, [BIN, id], {
        env: envFor(home, { ...env, STANDIN_WAIT: '1', STANDIN_TRAP: '42' }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
      const [rec] = await waitRecords(si.log, 1);
      try {
        child.kill(sig);
        expect(await exited).toBe(42);
      } finally {
        try {
          process.kill(must(rec.pid), 'SIGKILL');
        } catch {
          /* gone, as it should be */
        }
      }
      expect(
        records(si.log)
          .map((x) => x.signal)
          .filter(Boolean),
      ).toEqual([sig]);
    });
  }

  it('a command that is not on PATH is exit 2, with a hint when it is the configured command', () => {
    const { home, id, env } = oneSession();
    write(home, '.config/resume/config', '[claude]\ncommand = "vamos-not-installed"\n');
    const r = run(home, [id], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/vamos-not-installed.*not found on PATH.*shell integration/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('--dry-run, --print, --fork', () => {
  it('--dry-run prints cwd and argv (JSON: {harness,id,cwd,argv,env}) and runs nothing', () => {
    const { home, si, cwd, id, env } = oneSession('dry $run');
    const j = run(home, [id, '--dry-run', '--json', '--', '--model', 'opus'], env);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ harness: 'claude', id, cwd, argv: ['claude', '--resume', id, '--model', 'opus'], env: {} });
    const t = run(home, [id, '--dry-run'], env);
    expect(t).toMatchObject({ code: 0, stdout: `cwd   '${cwd}'\nargv  claude --resume ${id}\n` });
    expect(records(si.log)).toEqual([]);
    expect(run(home, [id, '--json'], env).code).toBe(2);
  });

  it('--print prints the shell line and runs nothing', () => {
    const { home, si, cwd, id, env } = oneSession('print me');
    const r = run(home, [id, '--print', '--shell', 'bash'], env);
    expect(r).toMatchObject({ code: 0, stdout: `cd '${cwd}' && claude --resume ${id}\n` });
    expect(records(si.log)).toEqual([]);
  });

  it('--fork uses each harness native fork', () => {
    const home = tempHome();
    const cwd = path.join(home, 'proj');
    fs.mkdirSync(cwd);
    const cid = uuid(1, 'c1c1c1c1-0000-4000-8000');
    const pid = uuid(2, '019e19b4-eb48-746a-aa6b');
    const xid = uuid(3, 'dddddddd-0000-4000-8000');
    claudeSession(home, { id: cid, cwd });
    const pfile = piSession(home, { id: pid, cwd });
    codexSession(home, { id: xid, cwd });
    const argv = (q: string, fork: boolean) => {
      const r = run(home, [q, '--dry-run', '--json', ...(fork ? ['--fork'] : [])]);
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout).argv;
    };
    expect(argv(cid, true)).toEqual(['claude', '--resume', cid, '--fork-session']);
    expect(argv(cid, false)).toEqual(['claude', '--resume', cid]);
    expect(argv(pid, true)).toEqual(['pi', '--fork', pfile]);
    expect(argv(pid, false)).toEqual(['pi', '--session', pfile]);
    expect(argv(xid, true)).toEqual(['codex', 'fork', xid]);
    expect(argv(xid, false)).toEqual(['codex', 'resume', xid]);
  });

  it('--fork on a harness without a fork is exit 2 saying so (the demo Gemini sessions)', () => {
    const home = tempHome();
    const list = JSON.parse(run(home, ['--demo', 'ls', '--json', '-a', '--harness', 'gemini']).stdout) as { id: string; harness: string }[];
    expect(list.length).toBeGreaterThan(0);
    for (const s of list) {
      const r = run(home, ['--demo', `${s.harness}:${s.id}`, '--fork', '--dry-run']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/cannot fork .*(no fork|cannot fork)/);
    }
  });
});

describe('the config file', () => {
  it('command and args change what runs, ls --json and show; XDG_CONFIG_HOME wins over ~/.config', () => {
    const { home, si, cwd, id, env } = oneSession();
    write(
      home,
      '.config/resume/config',
      'keys = "vim"\nfzf_opts = "--height 40%"\n[claude]\ncommand = "vamos"\nargs = ["--dangerously-skip-permissions", "a b"]\n',
    );
    fs.copyFileSync(path.join(si.bin, 'claude'), path.join(si.bin, 'vamos'));
    const d = run(home, [id, '--dry-run', '--json', '--', '-x'], env);
    // piped: the permission-bypass flag from config is withheld from what is shown, and named
    expect(JSON.parse(d.stdout).argv).toEqual(['vamos', 'a b', '--resume', id, '-x']);
    expect(JSON.parse(d.stdout).withheld).toEqual(['--dangerously-skip-permissions']);
    expect(d.stderr).toMatch(
      /left out of the line shown \(stdout is not a terminal\): --dangerously-skip-permissions from the config's \[claude\] args/,
    );
    const ls = JSON.parse(run(home, ['ls', '--json'], env).stdout);
    expect(ls[0].resume).toEqual({ cwd, argv: ['vamos', '--dangerously-skip-permissions', 'a b', '--resume', id] });
    expect(run(home, ['show', id], env).stdout).toContain(`vamos --dangerously-skip-permissions a b --resume ${id}`);
    // run with stdout a pipe: the bypass flag is withheld from the launch too
    expect(run(home, [id], env).code).toBe(0);
    expect(records(si.log).map((x) => [x.name, x.argv])).toEqual([['vamos', ['a b', '--resume', id]]]);
    // $XDG_CONFIG_HOME/resume/config is read instead.
    const xdg = path.join(home, 'xdg');
    write(home, 'xdg/resume/config', '[claude]\nargs = ["--from-xdg"]\n');
    expect(JSON.parse(run(home, [id, '--dry-run', '--json'], { ...env, XDG_CONFIG_HOME: xdg }).stdout).argv).toEqual([
      'claude',
      '--from-xdg',
      '--resume',
      id,
    ]);
  });

  it('a piped --dry-run, --print or emit withholds permission-bypass flags from config; the emit file keeps them', () => {
    const { home, si, cwd, id, env } = oneSession();
    void si;
    write(
      home,
      '.config/resume/config',
      '[claude]\nargs = ["--model", "opus", "--dangerously-skip-permissions", "--allow-dangerously-skip-permissions"]\n',
    );
    const dry = run(home, [id, '--dry-run'], env);
    expect(dry.stdout).toContain(`argv  claude --model opus --resume ${id}`);
    expect(dry.stdout).not.toContain('dangerously');
    expect(dry.stderr).toContain('--dangerously-skip-permissions --allow-dangerously-skip-permissions');
    for (const args of [
      [id, '--print'],
      [id, '-p'],
      ['emit', id],
    ]) {
      const r = run(home, [...args, '--shell', 'bash', '--', '--dangerously-skip-permissions'], env);
      expect(r.code, args.join(' ')).toBe(0);
      // the flag typed after -- is the user's own, shown; the config's are not
      expect(r.stdout).toBe(`cd ${quotePosix(cwd)} && claude --model opus --resume ${id} --dangerously-skip-permissions\n`);
      expect(r.stderr).toMatch(/left out of the line shown/);
    }
    // the line the shell integration runs is not shown: it keeps every flag
    const emitFile = path.join(home, 'emit.sh');
    const e = run(home, [id], { ...env, RESUME_EMIT_FILE: emitFile, RESUME_SHELL: 'bash' });
    expect(e.code).toBe(0);
    expect(fs.readFileSync(emitFile, 'utf8')).toBe(
      `cd ${quotePosix(cwd)} && claude --model opus --dangerously-skip-permissions --allow-dangerously-skip-permissions --resume ${id}\n`,
    );
    expect(e.stderr).toBe('');
    // Codex and Gemini spellings
    write(home, '.config/resume/config', '[claude]\nargs = ["--yolo", "--dangerously-bypass-approvals-and-sandbox", "--keep"]\n');
    expect(JSON.parse(run(home, [id, '--dry-run', '--json'], env).stdout).argv).toEqual(['claude', '--keep', '--resume', id]);
  });

  it('a launch run with stdout a pipe withholds the permission-bypass flags from config and keeps the rest (issue 48)', () => {
    const { home, si, id, env } = oneSession();
    write(home, '.config/resume/config', '[claude]\nargs = ["--model", "opus", "--allow-dangerously-skip-permissions"]\n');
    // `resume ID </dev/null | cat`: no emit file, so resume starts claude itself; stdout is a pipe
    const r = run(home, [id, '--', '--verbose'], env);
    expect(r.code).toBe(0);
    expect(records(si.log).map((x) => x.argv)).toEqual([['--model', 'opus', '--resume', id, '--verbose']]);
    expect(r.stderr).toMatch(
      /left out of the launch \(stdout is not a terminal\): --allow-dangerously-skip-permissions from the config's \[claude\] args/,
    );
    // a flag typed after -- is the user's own and reaches claude
    const u = run(home, [id, '--', '--allow-dangerously-skip-permissions'], env);
    expect(u.code).toBe(0);
    expect(must(records(si.log).at(-1)).argv).toEqual(['--model', 'opus', '--resume', id, '--allow-dangerously-skip-permissions']);
  });

  const BAD: [string, RegExp][] = [
    ['colour = "red"\n', /unknown key 'colour'/],
    ['keys = "emacs"\n', /'keys' must be "default" or "vim", not "emacs"/],
    ['fzf_opts = 3\n', /'fzf_opts' must be a string/],
    ['[claude]\ncomand = "x"\n', /unknown key 'claude.comand'/],
    ['[claude]\ncommand = ""\n', /'claude.command' must not be empty/],
    ['[claude]\ncommand = "--resume"\n', /'claude.command' must be a command/],
    ['[claude]\nargs = "--x"\n', /'claude.args' must be an array of strings/],
    ['[claude]\nargs = ["ok", 3]\n', /'claude.args\[1\]' must be a string/],
    ['[vscode]\ncommand = "x"\n', /unknown key 'vscode'/],
    ['claude = "vamos"\n', /'claude' must be a table/],
    ['keys = \n', /line 1, column \d+/],
  ];
  for (const [text, msg] of BAD) {
    it(`refuses ${JSON.stringify(text)} with exit 2 before anything runs, under --dry-run too`, () => {
      const { home, si, id, env } = oneSession();
      write(home, '.config/resume/config', text);
      for (const args of [[id], [id, '--dry-run'], ['emit', id], ['ls', '--json']]) {
        const r = run(home, args, env);
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(msg);
        expect(r.stderr).toContain(path.join(home, '.config/resume/config'));
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(records(si.log)).toEqual([]);
    });
  }
});

describe('a config file that cannot be read', () => {
  it('is one warning naming it, and every command runs with the defaults', () => {
    const { home, si, cwd, id, env } = oneSession();
    const file = path.join(home, '.config/resume/config');
    // a directory in the file's place: EISDIR (as root, a file without permissions is still read)
    fs.mkdirSync(file, { recursive: true });
    const warning = `resume: config ${file}: cannot read it (EISDIR); using the defaults\n`;
    const d = run(home, [id, '--dry-run', '--json'], env);
    expect(d.code).toBe(0);
    expect(JSON.parse(d.stdout).argv).toEqual(['claude', '--resume', id]);
    expect(d.stderr).toBe(warning);
    const ls = run(home, ['ls', '--json'], env);
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout)[0].resume).toEqual({ cwd, argv: ['claude', '--resume', id] });
    expect(ls.stderr).toBe(warning);
    const e = run(home, ['emit', id, '--shell', 'bash'], env);
    expect([e.code, e.stdout, e.stderr]).toEqual([0, `cd ${quotePosix(cwd)} && claude --resume ${id}\n`, warning]);
    expect(run(home, [id], env).code).toBe(0);
    expect(records(si.log).map((x) => [x.name, x.argv])).toEqual([['claude', ['--resume', id]]]);
  });
});

describe('the directory must exist', () => {
  it('a missing directory is exit 2 naming it and the nearest existing directory; nothing runs', () => {
    const home = tempHome();
    const si = standIn(home);
    const cwd = path.join(home, 'gone', 'deeper');
    const id = uuid(9);
    claudeSession(home, { id, cwd });
    for (const args of [[id], [id, '--dry-run'], [id, '--print'], ['emit', id]]) {
      const r = run(home, args, { PATH: si.PATH });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(cwd);
      expect(r.stderr).toContain(`nearest existing directory is ${home}`);
    }
    expect(records(si.log)).toEqual([]);
  });

  it('names the git repository the directory belonged to', () => {
    const home = tempHome();
    const repo = path.join(home, 'repo');
    fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
    fs.mkdirSync(path.join(repo, 'worktrees'));
    const id = uuid(10);
    claudeSession(home, { id, cwd: path.join(repo, 'worktrees', 'feature-x') });
    const r = run(home, [id, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`nearest existing directory is ${path.join(repo, 'worktrees')}, inside the git repository ${repo}`);
  });

  it('a file where the directory was is refused too; a hostile name is shown quoted', () => {
    const home = tempHome();
    const cwd = path.join(home, 'evil\u001b[2Jname');
    fs.writeFileSync(cwd, '');
    const id = uuid(11);
    claudeSession(home, { id, cwd });
    const r = run(home, [id, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not a directory');
    expect(r.stderr).not.toContain('\u001b');
  });
});

describe('live sessions', { timeout: 120_000 }, () => {
  async function holder(home: string, si: ReturnType<typeof standIn>, name: string, args: string[], extra: Record<string, string> = {}) {
    const n = records(si.log).length;
    const child = spawn(path.join(si.bin, name), args, { env: envFor(home, { ...extra, STANDIN_WAIT: '1' }), stdio: 'ignore' });
    await waitRecords(si.log, n + 1);
    return child;
  }

  it.skipIf(notLinux)(
    'a harness process naming the session id is detected: exit 2 with its pid and --fork; --fork still works',
    async () => {
      const { home, si, id, env } = oneSession();
      const p = await holder(home, si, 'claude', ['--resume', id]);
      try {
        for (const args of [[id], [id, '--dry-run'], ['emit', id]]) {
          const r = run(home, args, env);
          expect(r.code).toBe(2);
          expect(r.stderr).toContain(`pid ${p.pid}`);
          expect(r.stderr).toContain('--fork');
        }
        const f = run(home, [id, '--fork', '--dry-run', '--json'], env);
        expect(f.code).toBe(0);
        expect(JSON.parse(f.stdout).argv).toEqual(['claude', '--resume', id, '--fork-session']);
        const ls = JSON.parse(run(home, ['ls', '--json'], env).stdout);
        expect(ls[0]).toMatchObject({ id, live: true, pid: p.pid });
        expect(run(home, ['show', id], env).stdout).toContain(`yes (pid ${p.pid})`);
      } finally {
        p.kill('SIGKILL');
      }
      await new Promise((r) => p.on('exit', r));
      expect(run(home, [id, '--dry-run'], env).code).toBe(0);
      expect(JSON.parse(run(home, ['ls', '--json'], env).stdout)[0]).toMatchObject({ live: false, pid: null });
    },
  );

  it.skipIf(notLinux)('a harness process holding the transcript open is detected; other programs are not', async () => {
    const { home, si, id, file, env } = oneSession();
    const viewer = await holder(home, si, 'viewer', [id], { STANDIN_OPEN: file });
    try {
      expect(run(home, [id, '--dry-run'], env).code).toBe(0);
    } finally {
      viewer.kill('SIGKILL');
    }
    const p = await holder(home, si, 'claude', [], { STANDIN_OPEN: file });
    try {
      const r = run(home, [id, '--dry-run'], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`pid ${p.pid}`);
    } finally {
      p.kill('SIGKILL');
    }
  });

  it.skipIf(notLinux)("Claude Code's sessions/<pid>.json registry counts only while that process runs", async () => {
    const { home, si, id, env } = oneSession();
    const p = await holder(home, si, 'claude', []);
    try {
      const stat = fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8');
      const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      write(home, `.claude/sessions/${p.pid}.json`, JSON.stringify({ pid: p.pid, sessionId: id, cwd: home, procStart: start }));
      const r = run(home, [id, '--dry-run'], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`pid ${p.pid}`);
      // A reused pid (different start time) is not the session.
      write(home, `.claude/sessions/${p.pid}.json`, JSON.stringify({ pid: p.pid, sessionId: id, cwd: home, procStart: '1' }));
      expect(run(home, [id, '--dry-run'], env).code).toBe(0);
    } finally {
      p.kill('SIGKILL');
    }
  });
});

describe('live detection in both process-table readers (Linux /proc; the macOS ps/lsof path, run here)', () => {
  const names = new Map<Harness, string[]>([
    ['claude', ['claude']],
    ['pi', ['pi']],
  ]);
  const session = (id: string, file: string): Session =>
    ({
      harness: 'claude',
      id,
      key: `claude:${id}`,
      cwd: '/',
      title: null,
      firstPrompt: null,
      lastPrompt: null,
      lastReply: null,
      prompts: 1,
      branch: null,
      model: null,
      started: null,
      updated: null,
      file,
      hidden: false,
      hiddenReason: null,
      parent: null,
      forkedFrom: null,
    }) as Session;

  it.skipIf(notLinux || needs('ps', 'lsof'))(
    'names the id; holds the file open (lsof only when thorough); a fork of it does not count',
    async () => {
      const home = tempHome();
      const si = standIn(home);
      const [a, b, c] = [uuid(101), uuid(102), uuid(103)];
      const fa = write(home, 'a.jsonl', '{}\n');
      const fb = write(home, 'b.jsonl', '{}\n');
      const fc = write(home, 'c.jsonl', '{}\n');
      const start = async (args: string[], extra: Record<string, string> = {}) => {
        const n = records(si.log).length;
        const child = spawn(path.join(si.bin, 'claude'), args, { env: envFor(home, { ...extra, STANDIN_WAIT: '1' }), stdio: 'ignore' });
        await waitRecords(si.log, n + 1);
        return child;
      };
      const pa = await start(['--resume', a]);
      const pb = await start([], { STANDIN_OPEN: fb });
      const pc = await start(['--resume', c, '--fork-session']);
      try {
        const ss = [session(a, fa), session(b, fb), session(c, fc)];
        for (const platform of ['linux', 'darwin'] as const) {
          const quick = findLive(ss, { names, platform });
          expect(quick.get(`claude:${a}`)).toEqual({ pid: pa.pid, via: 'argv' });
          expect(quick.has(`claude:${c}`)).toBe(false);
          const full = findLive(ss, { names, platform, thorough: true });
          expect(full.get(`claude:${b}`)).toEqual({ pid: pb.pid, via: 'open' });
          if (platform === 'darwin') expect(quick.has(`claude:${b}`)).toBe(false);
          // Another harness's names do not count for claude sessions.
          expect(findLive(ss, { names: new Map([['pi', ['claude']]]), platform, thorough: true }).size).toBe(0);
        }
        expect(findLive(ss, { names, platform: 'win32' }).size).toBe(0);
      } finally {
        for (const p of [pa, pb, pc]) p.kill('SIGKILL');
      }
    },
  );
});

describe('exit codes', () => {
  it('0 resumed, 1 nothing or several with nobody to choose, 2 usage', () => {
    const { home, env, id } = oneSession();
    claudeSession(home, { id: id.slice(0, -1) + (id.endsWith('f') ? 'e' : 'f'), cwd: home, prompt: 'fix the flaky signup test' });
    expect(run(home, [id, '--dry-run'], env).code).toBe(0);
    const ambiguous = run(home, [id.slice(0, 10), '--dry-run'], env);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/is the start of 2 session ids; type more characters/);
    expect(ambiguous.stdout.trim().split('\n')).toHaveLength(2);
    const none = run(home, ['no-such-thing-anywhere'], env);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toMatch(/^resume: no session matches 'no-such-thing-anywhere'\n$/);
    const several = run(home, ['flaky', '--dry-run'], env);
    expect(several.code).toBe(1);
    expect(several.stdout.trim().split('\n')).toHaveLength(2);
    expect(run(home, ['--no-such-option'], env).code).toBe(2);
    expect(run(home, ['lsit'], env).code).toBe(2);
  });
});
