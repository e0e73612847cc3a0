// --copy (issue 11): the resume line onto the clipboard, with stand-in clipboard programs on PATH;
// over ssh an OSC 52 write to the terminal (a real pty from script(1)); no clipboard: exit 2.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quotePosix } from '../lib/util/quote.js';
import { BIN, envFor, needs, run, tempHome } from './helpers.js';
import { claudeSession } from './launch-helpers.js';

function setup() {
  const home = tempHome();
  const cwd = path.join(home, 'src', 'shop');
  fs.mkdirSync(cwd, { recursive: true });
  const id = 'c0b1c0b1-0000-4000-8000-000000000001';
  claudeSession(home, { id, cwd, prompt: 'fix the ocelot parser' });
  // stand-in clipboard programs: each writes what it was given, and its arguments, to a file
  const bin = path.join(home, 'bin');
  fs.mkdirSync(bin);
  for (const name of ['pbcopy', 'wl-copy', 'xclip', 'xsel', 'tmux']) {
    fs.writeFileSync(
      path.join(bin, name),
      `#!/bin/sh\nprintf '%s\\n' "$*" > ${quotePosix(path.join(home, `${name}.args`))}\n/bin/cat > ${quotePosix(path.join(home, `${name}.got`))}\n`,
      { mode: 0o755 },
    );
  }
  // PATH with only the stand-ins chosen (the CLI runs as process.execPath BIN: it needs nothing else)
  const only = (names: string[]) => {
    const d = path.join(home, `only-${names.join('-') || 'none'}`);
    fs.mkdirSync(d, { recursive: true });
    for (const n of names) fs.copyFileSync(path.join(bin, n), path.join(d, n));
    for (const n of names) fs.chmodSync(path.join(d, n), 0o755);
    return d;
  };
  const line = `cd ${quotePosix(cwd)} && claude --resume ${id}`;
  const got = (name: string) => fs.readFileSync(path.join(home, `${name}.got`), 'utf8');
  return { home, id, only, line, got };
}

describe('resume --copy', () => {
  const { home, id, only, line, got } = setup();
  const clean = {
    TMUX: undefined,
    SSH_TTY: undefined,
    SSH_CONNECTION: undefined,
    DISPLAY: undefined,
    WAYLAND_DISPLAY: undefined,
    RESUME_SHELL: 'bash',
  };

  it('xclip under X11: the line on the clipboard, nothing on stdout, where it went on stderr', () => {
    const r = run(home, ['ocelot', '--copy'], { ...clean, PATH: only(['xclip']), DISPLAY: ':0' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(got('xclip')).toBe(line);
    expect(fs.readFileSync(path.join(home, 'xclip.args'), 'utf8')).toBe('-selection clipboard\n');
    expect(r.stderr).toBe(`resume: copied the line that resumes ${id} to the clipboard (xclip)\n`);
  });

  it('wl-copy under Wayland, xsel when it is the one there, pbcopy anywhere', () => {
    expect(run(home, [id, '--copy'], { ...clean, PATH: only(['wl-copy', 'xclip']), WAYLAND_DISPLAY: 'wayland-0' }).stderr).toContain(
      '(wl-copy)',
    );
    expect(got('wl-copy')).toBe(line);
    expect(run(home, [id, '--copy'], { ...clean, PATH: only(['xsel']), DISPLAY: ':0' }).stderr).toContain('(xsel)');
    expect(got('xsel')).toBe(line);
    expect(run(home, [id, '--copy'], { ...clean, PATH: only(['pbcopy']) }).stderr).toContain('(pbcopy)');
    expect(got('pbcopy')).toBe(line);
  });

  it('inside tmux: the tmux buffer (load-buffer -w)', () => {
    const r = run(home, [id, '--copy'], { ...clean, PATH: only(['tmux', 'xclip']), TMUX: '/tmp/tmux-1/default,1,0', DISPLAY: ':0' });
    expect(r.stderr).toContain('to the tmux buffer');
    expect(got('tmux')).toBe(line);
    expect(fs.readFileSync(path.join(home, 'tmux.args'), 'utf8')).toBe('load-buffer -w -\n');
  });

  it('no clipboard at all: exit 2 with a clear message', () => {
    const r = run(home, [id, '--copy'], { ...clean, PATH: only([]) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^resume: no clipboard to copy to \(pbcopy, wl-copy .*--print prints the line instead\n$/);
    // an X11 program without a display is no clipboard either
    expect(run(home, [id, '--copy'], { ...clean, PATH: only(['xclip']) }).code).toBe(2);
  });

  it('--copy with --print or --dry-run is a usage error', () => {
    expect(run(home, [id, '--copy', '--print'], clean).code).toBe(2);
    expect(run(home, [id, '--copy', '--dry-run'], clean).code).toBe(2);
  });

  it('search --copy copies the best result and still prints the results', () => {
    const r = run(home, ['search', 'ocelot', '--copy'], { ...clean, PATH: only(['xclip']), DISPLAY: ':0' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('«ocelot»');
    expect(got('xclip')).toBe(line);
    expect(r.stderr).toContain(`copied the line that resumes ${id} (the best result) to the clipboard (xclip)`);
  });

  it('search --copy on a tie copies nothing, says so and exits 1 (no best: line) (issue 48)', () => {
    const t = setup();
    // two sessions alike in every way the ranking sees
    for (const n of [2, 3])
      claudeSession(t.home, {
        id: `c0b1c0b1-0000-4000-8000-00000000000${n}`,
        cwd: path.join(t.home, 'src', 'shop'),
        prompt: 'twin session wombat',
      });
    const r = run(t.home, ['search', 'wombat', '--copy'], { ...clean, PATH: t.only(['xclip']), DISPLAY: ':0' });
    expect(r.stdout).toContain('«wombat»');
    expect(r.stdout).not.toContain('best:');
    expect(fs.existsSync(path.join(t.home, 'xclip.got'))).toBe(false);
    expect(r.stderr).toContain('copied nothing: no one result is clearly best (2 results); resume one by its id');
    expect(r.code).toBe(1);
  });

  it.skipIf(needs('script'))('over ssh: an OSC 52 write to the terminal', () => {
    const env = envFor(home, {
      ...clean,
      PATH: `${only([])}:/usr/bin:/bin`,
      SSH_TTY: '/dev/pts/9',
      SSH_CONNECTION: '10.0.0.1 5 10.0.0.2 22',
    });
    const p = spawnSync('script', ['-qec', `${process.execPath} ${BIN} ${id} --copy`, '/dev/null'], { env, encoding: 'utf8', cwd: home });
    expect(p.status).toBe(0);
    expect(p.stdout).toContain(`\u001b]52;c;${Buffer.from(line).toString('base64')}\u0007`);
    expect(p.stdout).toContain("to the terminal's clipboard (OSC 52)");
  });
});
