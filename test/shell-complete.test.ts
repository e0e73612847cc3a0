// Completion in recency order: `resume __complete`, zsh under zpty (also with zsh-autosuggestions),
// the zstyles fzf-tab reads, and the rows fed to the real fzf with the `__fzf-flags tab` flags.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { width } from '../lib/util/text.js';
import { envFor, needs, needsFile, run, sleep } from './helpers.js';
import { TAIL } from './launch-helpers.js';
import { claudeHome, initFile, runShell, type Sess, TmuxShell } from './shell-helpers.js';

const uid = (p: string) => `${p}-4e5f-4061-8071-${TAIL}`;
// oldest first here; every listing must show them newest first
const SESSIONS: Sess[] = [
  { id: uid('11111111'), cwd: '/w/src/dotfiles', prompt: 'fix the zshrc', at: '2026-01-01T00:00:00Z' },
  { id: uid('22222222'), cwd: '/w/src/dotfiles', prompt: 'add fish config', at: '2026-01-02T00:00:00Z' },
  { id: uid('33333333'), cwd: '/w/srv/web', prompt: 'deploy the site', at: '2026-01-03T00:00:00Z' },
  { id: uid('abcd1111'), cwd: '/w/a', prompt: 'alpha', at: '2026-01-04T00:00:00Z' },
  { id: uid('abcd2222'), cwd: '/w/b', prompt: 'beta', at: '2026-01-05T00:00:00Z' },
];
const NEWEST_FIRST = ['abcd2222', 'abcd1111', '33333333', '22222222', '11111111'];
const AUTOSUGGEST = '/usr/share/zsh-autosuggestions/zsh-autosuggestions.zsh';

const values = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]);

describe('resume __complete', () => {
  const home = claudeHome(SESSIONS);
  const comp = (...words: string[]) => run(home, ['__complete', '--', ...words]);

  it('an empty word offers every session, newest first, as <id>\\t<display>', () => {
    const r = comp('');
    expect(r.code).toBe(0);
    expect(values(r.stdout)).toEqual(NEWEST_FIRST);
    expect(r.stdout.split('\n')[0]).toMatch(/^abcd2222\t\S+ +claude {2}\/w\/b +beta \(main\)$/);
    // the descriptions' columns line up: each label starts where the others do
    const starts = new Set(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const d = l.split('\t')[1];
          return d.length - d.replace(/^\S+ +\S+ +\S+ +/, '').length;
        }),
    );
    expect(starts.size).toBe(1);
  });

  it('a long directory is cut from the left, so the title shows in an 80-column menu', () => {
    const long = claudeHome([
      ...SESSIONS,
      { id: uid('dddd0000'), cwd: '/w/clients/acme-corporation/services/webshop', prompt: 'gamma', at: '2025-12-01T00:00:00Z' },
    ]);
    const at = (...words: string[]) => run(long, ['__complete', '--', ...words]);
    // (the same from the rows' bytes for an empty word, twice: then from its saved candidates, and from a text query)
    for (const r of [at(''), at(''), at('gamma')]) {
      const line = r.stdout.split('\n').find((l) => l.startsWith('dddd0000'));
      expect(line).toMatch(/^dddd0000\t\S+ +claude {2}…\/services\/webshop {2}gamma \(main\)$/);
    }
  });

  it('an id prefix narrows by id; a longer prefix than the short id gets the whole id', () => {
    expect(values(comp('abcd').stdout)).toEqual(['abcd2222', 'abcd1111']);
    expect(values(comp('ABCD1').stdout)).toEqual(['abcd1111']);
    expect(values(comp('33333333-4e').stdout)).toEqual([uid('33333333')]);
  });

  it('any other word narrows by text (directory, prompt, ...), newest first', () => {
    expect(values(comp('dotfiles').stdout)).toEqual(['22222222', '11111111']);
    expect(values(comp('DEPLOY').stdout)).toEqual(['33333333']);
    expect(comp('nothing-like-this').stdout).toBe("\tno session matches 'nothing-like-this'\n");
  });

  it('a word after others offers the sessions every word names; the chosen id then stands for the word under the cursor', () => {
    expect(values(comp('dotfiles', 'fish').stdout)).toEqual(['22222222']);
    expect(values(comp('dotfiles', 'zs').stdout)).toEqual(['11111111']);
    expect(values(comp('show', 'dotfiles', 'ZSH').stdout)).toEqual(['11111111']);
    expect(values(comp('-a', 'resolve', 'fix', 'dotf').stdout)).toEqual(['11111111']);
    expect(values(comp('--harness', 'claude', 'dotfiles', 'f').stdout)).toEqual(['22222222', '11111111']);
    // the line TAB leaves names that session
    const r = run(home, ['resolve', 'dotfiles', '22222222']);
    expect(r.stdout.trim()).toBe(`claude:${uid('22222222')}`);
  });

  it('offers nothing after a word and a space, or after --', () => {
    for (const words of [
      ['abcd1111', ''],
      ['dotfiles', ''],
      ['init', 'zsh', 'b'],
      ['--', ''],
      ['abcd1111', '--', '-'],
    ]) {
      const r = comp(...words);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
    }
  });

  it('words no session holds together: a message line (no value) says so, with what they probably meant', () => {
    expect(comp('dotfiles', 'ab').stdout).toBe("\tno session matches 'dotfiles ab'\n");
    expect(comp('deploy', 'zshrc').stdout).toBe("\tno session matches 'deploy zshrc'\n");
    expect(comp('dotfils').stdout).toBe("\tno session matches 'dotfils'; did you mean 'dotfiles'?\n");
    // a path with no session there is the shells' to complete as a directory: no message
    expect(comp('/w/nowhere').stdout).toBe('');
  });

  it('completes options, option values, init shells and the session of show', () => {
    expect(values(comp('--har').stdout)).toEqual(['--harness']);
    expect(values(comp('--harness', 'c').stdout)).toEqual(['claude', 'codex', 'cursor', 'copilot']);
    expect(values(comp('--harness', '=', 'o').stdout)).toEqual(['opencode']);
    expect(values(comp('--harness=claude,p').stdout)).toEqual(['--harness=claude,pi']);
    expect(values(comp('init', '').stdout)).toEqual(['zsh', 'bash', 'fish']);
    expect(values(comp('show', 'dotf').stdout)).toEqual(['22222222', '11111111']);
    expect(values(comp('--harness', 'claude', 'dep').stdout)).toEqual(['33333333']);
    // the program's options once each (--demo among them), and a subcommand's after global options
    expect(values(comp('--de').stdout)).toEqual(['--demo']);
    expect(values(comp('-a', 'ls', '--j').stdout)).toEqual(['--json']);
    expect(values(comp('--harness', 'claude', 'show', 'dep').stdout)).toEqual(['33333333']);
  });

  it('--dir and --harness already on the line narrow the sessions offered', () => {
    expect(values(comp('--dir', '/w/src', '').stdout)).toEqual(['22222222', '11111111']);
    expect(values(comp('--dir=/w/srv', '').stdout)).toEqual(['33333333']);
    expect(comp('--harness', 'pi', '').stdout).toBe('');
    expect(values(comp('-a', '--harness=claude', 'abcd').stdout)).toEqual(['abcd2222', 'abcd1111']);
  });
});

// ---- zsh under zpty -------------------------------------------------------------------------

/**
 * Type KEYS into an interactive `zsh -f` (compinit, the integration, optionally
 * zsh-autosuggestions) under zpty, then a key bound to a widget that records $BUFFER and the
 * suggestion zsh-autosuggestions would show. Enter is never sent on the typed line.
 */
function zshType(
  home: string,
  keys: string,
  opts: { autosuggest?: boolean; initFirst?: boolean } = {},
): { buffer: string; suggestion: string; screen: string } {
  const init = initFile(home, 'zsh');
  const out = path.join(home, 'zpty.out');
  const screen = path.join(home, 'zpty.screen');
  fs.rmSync(out, { force: true });
  const as = opts.autosuggest ? `; source ${AUTOSUGGEST}; ZSH_AUTOSUGGEST_STRATEGY=(completion); unset ZSH_AUTOSUGGEST_USE_ASYNC` : '';
  // The widget asks zsh-autosuggestions for the suggestion of the current buffer the way it does
  // after each key (its fetch keeps only suggestions that extend the buffer).
  const cap = `__cap() { local suggestion=; (( $+functions[_zsh_autosuggest_fetch_suggestion] )) && _zsh_autosuggest_fetch_suggestion "$BUFFER"; print -r -- "$BUFFER"$'\\0'"\${suggestion#$BUFFER}" > ${out}; }; zle -N __cap; bindkey '^X^B' __cap`;
  const driver = [
    'zmodload zsh/zpty',
    `zpty z 'zsh -f -i'`,
    opts.initFirst
      ? `zpty -w z ${shq(`PS1='> '; source ${init}; autoload -Uz compinit; compinit -u -D${as}`)}`
      : `zpty -w z ${shq(`PS1='> '; autoload -Uz compinit; compinit -u -D; source ${init}${as}`)}`,
    `zpty -w z ${shq(cap)}`,
    `zpty -w -n z ${shq(keys)}$'\\C-x\\C-b'`,
    // generous: the poll ends as soon as the widget has written the file
    `for i in {1..1200}; do [[ -s ${out} ]] && break; sleep 0.05; done`,
    'all=; while zpty -r -t z chunk; do all+=$chunk; done',
    `print -rn -- "$all" > ${screen}`,
    'zpty -d z',
  ].join('\n');
  const r = runShell(home, 'zsh', `${driver}\n`, { env: { TERM: 'xterm', COLUMNS: '200' } });
  if (!fs.existsSync(out)) throw new Error(`zsh did not answer: ${r.stderr}`);
  const [buffer, suggestion] = fs.readFileSync(out, 'utf8').replace(/\n$/, '').split('\0');
  return { buffer: buffer, suggestion: suggestion ?? '', screen: fs.readFileSync(screen, 'utf8') };
}

function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Short ids in the order a completion listing shows them. */
function listed(screen: string): string[] {
  const seen: string[] = [];
  for (const m of screen.matchAll(/(?<![0-9a-z])(abcd2222|abcd1111|33333333|22222222|11111111) {2}\S+ {2}claude/g))
    if (!seen.includes(m[1])) seen.push(m[1]);
  return seen;
}

describe.each([false, true])('zsh completion (zsh-autosuggestions loaded: %s)', { timeout: 120_000 }, (autosuggest) => {
  const skip = needs('zsh') || (autosuggest && needsFile(AUTOSUGGEST, 'zsh-autosuggestions'));
  const home = claudeHome(SESSIONS);

  it.skipIf(skip)('lists every session newest first', () => {
    const z = zshType(home, 'resume \t', { autosuggest });
    expect(listed(z.screen)).toEqual(NEWEST_FIRST);
    expect(z.buffer).toBe('resume ');
  });

  it.skipIf(skip)('a text query inserts the newest matching id by menu, not a common prefix', () => {
    const z = zshType(home, 'resume dotfiles\t', { autosuggest });
    expect(z.buffer).toBe('resume 22222222');
    expect(listed(z.screen)).toEqual(['22222222', '11111111']);
    // the next TAB moves on to the older one
    expect(zshType(home, 'resume dotfiles\t\t', { autosuggest }).buffer).toBe('resume 11111111');
  });

  it.skipIf(skip)('loaded before compinit, it registers itself before the first prompt', () => {
    expect(zshType(home, 'resume deploy\t', { autosuggest, initFirst: true }).buffer).toBe('resume 33333333 ');
  });

  it.skipIf(skip)('one text match is inserted whole', () => {
    expect(zshType(home, 'resume deploy\t', { autosuggest }).buffer).toBe('resume 33333333 ');
  });

  it.skipIf(skip)('an id prefix completes as usual (common prefix, then the one id)', () => {
    expect(zshType(home, 'resume ab\t', { autosuggest }).buffer).toBe('resume abcd');
    expect(zshType(home, 'resume abcd1\t', { autosuggest }).buffer).toBe('resume abcd1111 ');
  });

  it.skipIf(skip)('nothing is offered after a word and a space; a second word narrows by both', () => {
    const z = zshType(home, 'resume abcd1111 \t', { autosuggest });
    expect(z.buffer).toBe('resume abcd1111 ');
    expect(listed(z.screen)).toEqual([]);
    expect(zshType(home, 'resume dotfiles fis\t', { autosuggest }).buffer).toBe('resume dotfiles 22222222 ');
    expect(zshType(home, 'resume dotfiles i\t\t', { autosuggest }).buffer).toBe('resume dotfiles 11111111');
  });

  it.skipIf(skip)('--dir and --cd complete directories (the options the command table says take one)', () => {
    fs.mkdirSync(path.join(home, 'projA'), { recursive: true });
    expect(zshType(home, 'resume --dir proj\t', { autosuggest }).buffer).toBe('resume --dir projA/');
    expect(zshType(home, 'resume --cd proj\t', { autosuggest }).buffer).toBe('resume --cd projA/');
  });

  it.skipIf(skip)('a word no session holds: the line stays, and the message says what it probably meant', () => {
    const z = zshType(home, 'resume dotfils\t', { autosuggest });
    expect(z.buffer).toBe('resume dotfils');
    expect(z.screen).toContain("no session matches 'dotfils'; did you mean 'dotfiles'?");
  });

  it.skipIf(skip)('options and init shells complete', () => {
    expect(zshType(home, 'resume --harn\t', { autosuggest }).buffer).toBe('resume --harness ');
    expect(zshType(home, 'resume init fi\t', { autosuggest }).buffer).toBe('resume init fish ');
  });
});

describe('zsh-autosuggestions (completion strategy)', { timeout: 120_000 }, () => {
  const skip = needs('zsh') || needsFile(AUTOSUGGEST, 'zsh-autosuggestions');
  const home = claudeHome(SESSIONS);
  const autosuggest = true;

  it.skipIf(skip)(
    'zsh-autosuggestions suggests the newest id for the first word and nothing after a word and a space',
    { timeout: 90000 },
    () => {
      expect(zshType(home, 'resume ', { autosuggest }).suggestion).toBe('abcd2222');
      expect(zshType(home, 'resume abcd1111 ', { autosuggest }).suggestion).toBe('');
      // a second word offers what both words name (here the same session again), as TAB does
      expect(zshType(home, 'resume abcd1111 a', { autosuggest }).suggestion).toBe('bcd1111');
    },
  );
});

// ---- fzf-tab ---------------------------------------------------------------------------------

describe('zsh and fzf-tab', { timeout: 120_000 }, () => {
  const home = claudeHome(SESSIONS);

  it.skipIf(needs('zsh'))('sets the zstyles fzf-tab reads: no sorting, flags from __fzf-flags tab, the picker preview', () => {
    const init = initFile(home, 'zsh');
    const r = runShell(
      home,
      'zsh',
      `${[
        `source ${init}`,
        `zstyle -s ':completion:complete:resume:argument-1:' sort s && print -r -- "sort=$s"`,
        `zstyle -a ':fzf-tab:complete:resume:argument-1' fzf-flags f && print -rl -- "flags=\${(j:|:)f}"`,
        `zstyle -s ':fzf-tab:complete:resume:argument-1' fzf-preview p && print -r -- "preview=$p"`,
        // fzf-tab has fzf run the preview in a new zsh with $word set to the candidate
        `zsh -f -c 'word=abcd1111; eval "$1"' preview "$p"`,
      ].join('\n')}\n`,
    );
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('sort=false');
    const flags = run(home, ['__fzf-flags', 'tab']);
    expect(flags.code).toBe(0);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's parameter expansion, run by zsh
    const want = spawnSync('zsh', ['-f', '-c', 'print -r -- ${(j:|:)${(Q)${(z)1}}}', 'x', flags.stdout.trim()], {
      encoding: 'utf8',
    }).stdout.trim();
    expect(lines[1]).toBe(`flags=${want}`);
    expect(lines[2]).toMatch(/^preview=.*preview/);
    const preview = run(home, ['preview', 'abcd1111']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).not.toBe('');
    expect(r.stdout.endsWith(`\n${preview.stdout}`)).toBe(true);
  });

  it.skipIf(needs('zsh', 'fzf'))('the real fzf keeps the candidates in recency order with the tab flags', () => {
    // fzf-tab feeds fzf one line per candidate (its display string) and prints the chosen line.
    const rows = run(home, ['__complete', '--', 'dotfiles']).stdout;
    const lines = rows
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace('\t', '  '));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's parameter expansion, run by zsh
    const flags = spawnSync('zsh', ['-f', '-c', 'print -rl -- ${(Q)${(z)1}}', 'x', run(home, ['__fzf-flags', 'tab']).stdout.trim()], {
      encoding: 'utf8',
    })
      .stdout.split('\n')
      .filter(Boolean);
    for (const q of ['', 'claude', 'dotfiles']) {
      const f = spawnSync('fzf', [...flags, '--filter', q], { input: `${lines.join('\n')}\n`, encoding: 'utf8', env: envFor(home) });
      expect(f.stderr).toBe('');
      expect(f.status).toBe(0);
      expect(
        f.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('  ')[0]),
      ).toEqual(['22222222', '11111111']);
    }
  });
});

// ---- zsh in tmux at 80 columns ----------------------------------------------------------------

describe('zsh completion menu at 80 columns (tmux)', { timeout: 120_000 }, () => {
  it.skipIf(needs('zsh', 'tmux'))('each line is cut to the width, never wrapped, wide characters counted as two', async () => {
    const home = claudeHome([
      { id: uid('eeee1111'), cwd: '/w/src/shop', prompt: `gamma ${'words of a long title '.repeat(4)}TAILEND`, at: '2026-01-06T00:00:00Z' },
      { id: uid('eeee2222'), cwd: '/w/src/shop', prompt: `gamma ${'長い題名の文字'.repeat(8)}末尾`, at: '2026-01-07T00:00:00Z' },
    ]);
    const t = new TmuxShell(home, 'zsh', { LANG: 'C.UTF-8' }, { cols: 80, rows: 24 });
    try {
      await t.until(() => t.line() === '$', 'the prompt');
      t.send('-l', 'autoload -Uz compinit; compinit -u -D; clear');
      t.send('Enter');
      await t.until(() => t.line() === '$', 'the prompt again');
      t.send('-l', 'resume gamma');
      t.send('Tab');
      const s = await t.until((x) => x.includes('eeee1111') && x.includes('eeee2222'), 'the menu');
      const rows = s.split('\n').filter((l) => /^(> )?eeee(1111|2222) /.test(l.replace(/^\S*\s*(?=eeee)/, '')));
      expect(rows).toHaveLength(2);
      for (const r of rows) {
        expect(r.trimEnd().endsWith('…')).toBe(true);
        expect(width(r.trimEnd())).toBeLessThanOrEqual(79);
      }
      // nothing wrapped onto a line of its own
      expect(s).not.toContain('TAILEND');
      expect(s).not.toContain('末尾');
    } finally {
      t.kill();
    }
  });
});

// ---- bash in tmux ----------------------------------------------------------------------------

describe('bash completion (tmux)', { timeout: 120_000 }, () => {
  const skip = needs('bash', 'tmux', 'fzf');
  const home = claudeHome(SESSIONS);

  const withBash = async (fn: (t: TmuxShell) => Promise<void>) => {
    const t = new TmuxShell(home, 'bash');
    try {
      await t.until(() => t.line() === '$', 'the prompt');
      await fn(t);
    } finally {
      t.kill();
    }
  };

  it.skipIf(skip)('one match is inserted', async () => {
    await withBash(async (t) => {
      t.send('-l', 'resume deploy');
      t.send('Tab');
      await t.until(() => t.line() === '$ resume 33333333', 'the id on the line');
    });
  });

  it.skipIf(skip)("a word no session holds: nothing is inserted (zsh's message line is no value)", async () => {
    await withBash(async (t) => {
      t.send('-l', 'resume dotfils');
      t.send('Tab');
      await sleep(1500);
      expect(t.line()).toBe('$ resume dotfils');
      t.send('-l', 'X');
      await t.until(() => t.line() === '$ resume dotfilsX', 'the line as typed');
    });
  });

  it.skipIf(skip)(
    'several matches open the picker newest first with the word as query; its choice is inserted and the line redrawn',
    async () => {
      await withBash(async (t) => {
        t.send('-l', 'resume dotfiles');
        t.send('Tab');
        const s = await t.until((x) => /22222222 .*\n(.*\n)*.*11111111 /.test(x), 'the picker');
        expect(s).not.toMatch(/33333333 /);
        t.send('Enter'); // accepts in fzf (the newest); the shell line itself is never submitted
        await t.until(() => t.line() === `$ resume ${uid('22222222')}`, 'the chosen id on the line');
      });
    },
  );

  it.skipIf(skip)(
    'an id prefix that several sessions share opens the picker filtered to them; the id inserted starts with it',
    async () => {
      await withBash(async (t) => {
        t.send('-l', 'resume abcd');
        t.send('Tab');
        const s = await t.until(
          (x) => /abcd2222 .*\n(.*\n)*.*abcd1111 /.test(x) && /2 of 5 sessions match/.test(x),
          'the picker over the two',
        );
        expect(s).not.toMatch(/(11111111|22222222|33333333) /);
        t.send('Down');
        t.send('Enter');
        await t.until(() => t.line() === `$ resume ${uid('abcd1111')}`, 'the chosen id, which starts with what was typed');
      });
    },
  );

  it.skipIf(skip)('a second word narrows by both: one match is inserted in place of the word under the cursor', async () => {
    await withBash(async (t) => {
      t.send('-l', 'resume dotfiles fis');
      t.send('Tab');
      await t.until(() => t.line() === '$ resume dotfiles 22222222', 'the id on the line, the first word kept');
      // words as typed with quotes or a backslash are the words bash will pass ('fix the', z\sh)
      t.send('C-u');
      t.send('-l', "resume 'fix the' z\\s");
      t.send('Tab');
      await t.until(() => t.line() === "$ resume 'fix the' 11111111", 'the quoted words kept, the id on the line');
    });
  });

  it.skipIf(skip)('several sessions that both words name open the picker with both as its query', async () => {
    await withBash(async (t) => {
      t.send('-l', 'resume dotfiles i');
      t.send('Tab');
      const s = await t.until(
        (x) => /22222222 .*\n(.*\n)*.*11111111 /.test(x) && /2 of 5 sessions match/.test(x),
        'the picker over the two',
      );
      expect(s).toMatch(/> dotfiles i/);
      t.send('Down');
      t.send('Enter');
      await t.until(() => t.line() === `$ resume dotfiles ${uid('11111111')}`, 'the chosen id in place of the word');
    });
  });

  it.skipIf(skip)("the options before the word choose the picker's sessions too: --demo opens the demo", async () => {
    await withBash(async (t) => {
      t.send('-l', 'resume --demo webh');
      t.send('Tab');
      const s = await t.until(
        (x) => /Webhook retry with backoff/.test(x) && /2 of 8 sessions match/.test(x),
        'the demo picker over the two',
      );
      expect(s).not.toMatch(/(11111111|22222222|33333333) /);
      t.send('Escape');
      await t.until(() => t.line() === '$ resume --demo webh', 'the line back, unchanged');
    });
  });

  it.skipIf(skip)('an empty word opens the picker over every session, newest first', async () => {
    await withBash(async (t) => {
      t.send('-l', 'resume ');
      t.send('Tab');
      const s = await t.until((x) => /11111111 /.test(x), 'the picker');
      const order = NEWEST_FIRST.map((id) => s.indexOf(`${id} `));
      expect(order.every((v, i) => v >= 0 && (i === 0 || v > order[i - 1]))).toBe(true);
      t.send('Escape');
      await t.until(() => t.line() === '$ resume', 'the line back, unchanged');
    });
  });

  it.skipIf(skip)('cancelling the picker leaves the word as typed', async () => {
    await withBash(async (t) => {
      t.send('-l', 'resume dotfiles');
      t.send('Tab');
      await t.until((x) => /11111111 /.test(x), 'the picker');
      t.send('Escape');
      await t.until(() => t.line() === '$ resume dotfiles', 'the word as typed');
    });
  });

  it.skipIf(skip)(
    "values are listed in the binary's order (nosort), nothing is offered after a word and a space, --dir takes directories",
    async () => {
      await withBash(async (t) => {
        t.send('-l', 'resume init ');
        t.send('Tab');
        t.send('Tab');
        await t.until((s) => /^zsh +bash +fish *$/m.test(s), 'zsh bash fish in that order');
        t.send('C-u');
        t.send('-l', 'resume abcd1111 ');
        t.send('Tab');
        t.send('Tab');
        t.send('-l', 'x');
        await t.until(() => t.line() === '$ resume abcd1111 x', 'the typed x');
        expect(t.screen()).not.toMatch(/abcd2222|33333333/);
        fs.mkdirSync(path.join(home, 'projA'), { recursive: true });
        t.send('C-u');
        t.send('-l', 'resume --dir proj');
        t.send('Tab');
        await t.until(() => t.line() === '$ resume --dir projA/', 'the directory');
        t.send('C-u');
        t.send('-l', 'resume abcd1111 --cd proj');
        t.send('Tab');
        await t.until(() => t.line() === '$ resume abcd1111 --cd projA/', 'the directory for --cd');
        t.send('C-u');
        t.send('-l', 'resume ls proj');
        t.send('Tab');
        await t.until(() => t.line() === '$ resume ls projA/', "ls's directory");
        t.send('C-u');
        t.send('-l', 'resume ls --js');
        t.send('Tab');
        await t.until(() => t.line() === '$ resume ls --json', "ls's options still");
        // a word that is a path with no session there completes as a directory
        t.send('C-u');
        t.send('-l', `resume ${home}/pro`);
        t.send('Tab');
        await t.until(() => t.line() === `$ resume ${home}/projA/`, 'the path completed as a directory');
      });
    },
  );
});

// ---- fish: complete -C -----------------------------------------------------------------------

describe('fish completion', { timeout: 120_000 }, () => {
  const home = claudeHome(SESSIONS);
  const complete = (line: string) => {
    const init = initFile(home, 'fish');
    const r = runShell(home, 'fish', `source ${init}\ncomplete -C ${shq(line)}\n`);
    expect(r.stderr).toBe('');
    return r.stdout;
  };

  it.skipIf(needs('fish'))('a word no session holds offers nothing (the message line is for zsh)', () => {
    expect(complete('resume dotfils')).toBe('');
  });

  it.skipIf(needs('fish'))('offers ids with descriptions, newest first', () => {
    const out = complete('resume ');
    expect(values(out)).toEqual(NEWEST_FIRST);
    expect(out.split('\n')[0]).toMatch(/^abcd2222\t.*claude {2}\/w\/b +beta \(main\)$/);
  });

  it.skipIf(needs('fish'))('a text query offers the matching sessions (newest first), an id prefix the matching ids', () => {
    expect(values(complete('resume dotfiles'))).toEqual(['22222222', '11111111']);
    expect(values(complete('resume abcd'))).toEqual(['abcd2222', 'abcd1111']);
  });

  it.skipIf(needs('fish'))('nothing after a word and a space; a second word narrows by both; options and values complete', () => {
    expect(complete('resume abcd1111 ')).toBe('');
    expect(values(complete('resume dotfiles fis'))).toEqual(['22222222']);
    expect(values(complete('resume dotfiles i'))).toEqual(['22222222', '11111111']);
    expect(values(complete('resume --harn'))).toEqual(['--harness']);
    expect(values(complete('resume init '))).toEqual(['zsh', 'bash', 'fish']);
    fs.mkdirSync(path.join(home, 'projA'), { recursive: true });
    expect(values(complete('resume --dir proj'))).toEqual(['projA/']);
    expect(values(complete('resume --cd proj'))).toEqual(['projA/']);
    expect(values(complete('resume ls proj'))).toEqual(['projA/']);
    expect(values(complete('resume ls --js'))).toEqual(['--json']);
    // a word that is a path with no session there completes as a directory; one with sessions, them
    expect(values(complete(`resume ${home}/pro`))).toEqual([`${home}/projA/`]);
    expect(values(complete('resume /w/src/dotfiles'))).toEqual(['22222222', '11111111']);
    // (fish shows only candidates whose value or description holds the word: the description starts with it)
    expect(complete('resume /w/src').split('\n')[0]).toMatch(/^22222222\tin \/w\/src · .*add fish config \(main\)$/);
  });
});
