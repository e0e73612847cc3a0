// `resume <TAB>` with fzf-tab loaded, in real zsh under tmux, on the installed fzf (and, through
// .ci/run, on every fzf version): candidates newest first, the picker's preview beside them (hidden in 80 columns), vim
// keys when the config says keys = "vim", and the chosen id inserted. fzf-tab (MIT) is vendored in
// test/fixtures/fzf-tab (plugin files only, from upstream commit e394092).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, needs, write } from './helpers.js';
import { TAIL } from './launch-helpers.js';
import { claudeHome, type Sess, TmuxShell } from './shell-helpers.js';

const uid = (p: string) => `${p}-4e5f-4061-8071-${TAIL}`;
const SESSIONS: Sess[] = [
  { id: uid('11111111'), cwd: '/w/src/dotfiles', prompt: 'fix the zshrc', at: '2026-01-01T00:00:00Z' },
  { id: uid('22222222'), cwd: '/w/src/dotfiles', prompt: 'add fish config', at: '2026-01-02T00:00:00Z' },
  { id: uid('33333333'), cwd: '/w/srv/web', prompt: 'deploy the site', at: '2026-01-03T00:00:00Z' },
];

/** fzf-tab's screen with the two dotfiles sessions, newest first, the third not, and fzf's query empty */
const dotfilesUnqueried = (x: string): boolean =>
  /22222222 .*\n(.*\n)*.*11111111 /.test(x) && !/33333333 /.test(x) && /^>\s*(?:[╭│]|$)/m.test(x);

describe('zsh with fzf-tab (tmux)', { timeout: 120_000 }, () => {
  const skip = needs('zsh', 'tmux', 'fzf');

  const withTab = async (
    config: string | null,
    fn: (t: TmuxShell) => Promise<void>,
    size?: { cols: number; rows: number },
    line = 'resume ',
  ) => {
    const home = claudeHome(SESSIONS);
    if (config) write(home, '.config/resume/config', config);
    const t = new TmuxShell(home, 'zsh', {}, size);
    try {
      await t.until(() => t.line() === '$', 'the prompt');
      t.send(
        '-l',
        `autoload -Uz compinit && compinit -u -d ${path.join(home, '.zcompdump')}; source ${path.join(FIXTURES, 'fzf-tab', 'fzf-tab.plugin.zsh')}; clear`,
      );
      t.send('Enter');
      await t.until(() => t.line() === '$', 'the prompt after loading fzf-tab');
      t.send('-l', line);
      t.send('Tab');
      await fn(t);
    } finally {
      t.kill();
    }
  };

  it.skipIf(skip)('resume <TAB>: newest first, with the preview; Enter inserts the chosen id', async () => {
    await withTab(null, async (t) => {
      const s = await t.until(
        (x) => /33333333 .*\n(.*\n)*.*22222222 .*\n(.*\n)*.*11111111 /.test(x) && /│ harness: +claude/.test(x),
        'fzf-tab with the preview',
      );
      expect(s).toMatch(/│ deploy the site /); // the preview of the newest
      t.send('Enter');
      await t.until(() => /^\$ resume 33333333/.test(t.line()), 'the id inserted');
    });
  });

  it.skipIf(skip)('in 80 columns the preview is hidden, so the titles show; alt-p shows it', async () => {
    await withTab(
      null,
      async (t) => {
        await t.until((x) => /33333333 .*deploy the site/.test(x) && /11111111 .*fix the zshrc/.test(x), 'the titles in the list');
        expect(t.screen()).not.toMatch(/│ harness:/);
        // the candidates' columns line up: each title starts where the others do
        const lines = t.screen().split('\n');
        const col = (title: string) => lines.find((l) => l.includes(title))?.indexOf(title);
        expect(new Set(['deploy the site', 'add fish config', 'fix the zshrc'].map(col)).size).toBe(1);
        t.send('M-p');
        await t.until((x) => /│ harness: +claude/.test(x), 'the preview');
        t.send('Enter');
        await t.until(() => /^\$ resume 33333333/.test(t.line()), 'the id inserted');
      },
      { cols: 80, rows: 24 },
    );
  });

  it.skipIf(skip)('a query narrows the list, newest first kept; Enter inserts that id', async () => {
    await withTab(null, async (t) => {
      await t.until((x) => /11111111 /.test(x), 'fzf-tab');
      t.send('-l', 'dotfiles');
      await t.until((x) => /22222222 .*\n(.*\n)*.*11111111 /.test(x) && !/33333333 /.test(x), 'two rows, newest first');
      t.send('Enter');
      await t.until(() => /^\$ resume 22222222/.test(t.line()), 'the id inserted');
    });
  });

  it.skipIf(skip)(
    "a directory's path offers its sessions (fzf's query left empty); a path with none completes as a directory",
    async () => {
      await withTab(
        null,
        async (t) => {
          // (fzf-tab's own query, the typed path, is in none of the lines: it hid them all)
          await t.until(dotfilesUnqueried, 'the two there, the query empty');
          t.send('Enter');
          await t.until(() => /^\$ resume 22222222/.test(t.line()), 'the id inserted');
          t.send('C-u');
          const dir = path.join(os.tmpdir(), `resume-tab-${process.pid}`);
          fs.mkdirSync(path.join(dir, 'projA'), { recursive: true });
          try {
            t.send('-l', `resume ${dir}/pro`);
            t.send('Tab');
            await t.until(() => t.line() === `$ resume ${dir}/projA/`, 'the directory');
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        },
        undefined,
        'resume /w/src/dotfiles',
      );
    },
  );

  it.skipIf(skip)("words that name sessions by text open fzf on them with an empty query (not the ids' common start)", async () => {
    await withTab(
      null,
      async (t) => {
        await t.until(dotfilesUnqueried, 'the two the words name, the query empty');
        t.send('Down');
        t.send('Enter');
        await t.until(() => /^\$ resume dotfiles 11111111/.test(t.line()), 'the id in place of the last word');
      },
      undefined,
      'resume dotfiles i',
    );
  });

  it.skipIf(skip)('keys = "vim": i types j and k; Esc to normal mode, j moves down, Enter inserts the second-newest', async () => {
    await withTab('keys = "vim"\n', async (t) => {
      await t.until((x) => /11111111 /.test(x), 'fzf-tab');
      t.send('-l', 'jk');
      await t.until((x) => /^> jk/m.test(x), 'j and k typed into the query in insert mode');
      t.send('BSpace', 'BSpace', 'Escape');
      await t.until((x) => /^N> /m.test(x) && /11111111 /.test(x), 'normal mode, empty query');
      t.send('j');
      await t.until((x) => /^(>|▌) 22222222 /m.test(x), 'the cursor on the second row'); // fzf 0.65 draws ▌
      t.send('Enter');
      await t.until(() => /^\$ resume 22222222/.test(t.line()), 'the second-newest inserted');
    });
  });
});
