// The key binding `resume init` prints (Alt-R by default), in real zsh, bash and fish under tmux:
// the picker opens, Enter puts the line that resumes the session on the command line, a second
// Enter runs it (the stand-in `claude` records where and how it ran). RESUME_KEY picks another key
// or none; RESUME_KEY_RUN=1 runs the line at once.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { needs, tempHome } from './helpers.js';
import { TAIL } from './launch-helpers.js';
import { calls, claudeHome, type ShellName, TmuxShell } from './shell-helpers.js';

const uid = (p: string) => `${p}-4e5f-4061-8071-${TAIL}`;

/** A HOME with two sessions in real directories under it (newest: 22222222 in proj-new). */
function keysHome(): { home: string; newDir: string } {
  const home = tempHome('resume-keys-');
  const oldDir = path.join(home, 'proj-old');
  const newDir = path.join(home, 'proj new');
  fs.mkdirSync(oldDir);
  fs.mkdirSync(newDir);
  claudeHome(
    [
      { id: uid('11111111'), cwd: oldDir, prompt: 'older task', at: '2026-01-01T00:00:00Z' },
      { id: uid('22222222'), cwd: newDir, prompt: 'newer task', at: '2026-01-02T00:00:00Z' },
    ],
    home,
  );
  return { home, newDir };
}

const SHELLS: ShellName[] = ['zsh', 'bash', 'fish'];

describe.each(SHELLS)('key binding in %s (tmux)', { timeout: 120_000 }, (shell) => {
  const skip = needs(shell, 'tmux', 'fzf');

  const withShell = async (env: Record<string, string>, fn: (t: TmuxShell, home: string, dir: string) => Promise<void>) => {
    const { home, newDir } = keysHome();
    const t = new TmuxShell(home, shell, env);
    try {
      await t.until(() => t.line() === '$', 'the prompt');
      await fn(t, home, newDir);
    } finally {
      t.kill();
    }
  };

  it.skipIf(skip)(
    'Alt-R opens the picker newest first; Enter puts the resume line on the command line; Enter runs it',
    { timeout: 120_000 },
    async () => {
      await withShell({}, async (t, home, dir) => {
        t.send('M-r');
        const s = await t.until((x) => /22222222 .*\n(.*\n)*.*11111111 /.test(x), 'the picker, newest first');
        expect(s).toMatch(/newer task/);
        t.send('Enter');
        await t.until(
          () => t.line().startsWith('$ cd ') && t.line().includes(`claude --resume ${uid('22222222')}`),
          'the resume line on the command line',
        );
        expect(t.line()).toContain('proj');
        expect(calls(home)).toEqual([]); // shown, not run
        t.send('Enter');
        await t.until(() => calls(home).length === 1, 'the stand-in run');
        expect(calls(home)[0]).toEqual({ cwd: dir, argv: ['--resume', uid('22222222')] });
      });
    },
  );

  it.skipIf(skip)('Esc in the picker leaves the command line as it was', { timeout: 120_000 }, async () => {
    await withShell({}, async (t) => {
      t.send('-l', 'echo kept');
      t.send('M-r');
      await t.until((x) => /22222222 /.test(x), 'the picker');
      t.send('Escape');
      await t.until(() => t.line() === '$ echo kept', 'the line as typed');
    });
  });

  it.skipIf(skip)('RESUME_KEY_RUN=1 runs the chosen session at once', { timeout: 120_000 }, async () => {
    await withShell({ RESUME_KEY_RUN: '1' }, async (t, home, dir) => {
      t.send('M-r');
      await t.until((x) => /22222222 .*\n(.*\n)*.*11111111 /.test(x), 'the picker');
      t.send('Enter');
      await t.until(() => calls(home).length === 1, 'the stand-in run');
      expect(calls(home)[0]).toEqual({ cwd: dir, argv: ['--resume', uid('22222222')] });
    });
  });

  it.skipIf(skip)('RESUME_KEY chooses another key (Ctrl-X Ctrl-R here); Alt-R is then left alone', { timeout: 120_000 }, async () => {
    await withShell({ RESUME_KEY: '\\C-x\\C-r' }, async (t) => {
      t.send('M-r');
      t.send('-l', 'echo typed');
      await t.until(() => /echo typed$/.test(t.line()), 'typing, no picker');
      expect(t.screen()).not.toMatch(/22222222 /);
      t.send('C-u');
      if (shell === 'fish') t.send('C-a', 'C-k');
      t.send('C-x', 'C-r');
      await t.until((x) => /22222222 /.test(x), 'the picker on the chosen key');
      t.send('Escape');
    });
  });

  it.skipIf(skip)('RESUME_KEY=none binds no key', { timeout: 120_000 }, async () => {
    await withShell({ RESUME_KEY: 'none' }, async (t) => {
      t.send('M-r');
      t.send('C-u'); // an unbound Alt-R types `r` in fish
      t.send('-l', 'echo after');
      t.send('Enter');
      await t.until((x) => /^after$/m.test(x), 'the command ran');
      expect(t.screen()).not.toMatch(/22222222 /);
    });
  });
});
