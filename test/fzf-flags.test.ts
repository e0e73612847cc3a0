// fzf flags per version and keymap (issue 5): generated from the table in fzf/version.ts, never an
// action above the fzf they are generated for, and accepted by the fzf installed here.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alignRows, nextHarness } from '../fzf/feed.js';
import { type FlagOptions, fzfFlags, headerLine, INSERT_PROMPT, NORMAL_PROMPT, normalLetters, splitOpts } from '../fzf/flags.js';
import { cmpVersion, type Feature, fzfVersion, has, MIN, parseVersion, type Version } from '../fzf/version.js';
import { ExitError } from '../lib/errors.js';
import type { Session } from '../lib/types.js';
import { must, needs, run, tempHome, write } from './helpers.js';

const SELF = "'/usr/bin/node' '/opt/resume/bin/resume'";
const v = (s: string): Version => must(parseVersion(s));

function flags(version: string, o: Partial<FlagOptions> = {}) {
  return fzfFlags({ version: v(version), keys: 'default', fzfOpts: null, context: 'picker', self: SELF, ...o });
}

/**
 * How each entry of the minimum-version table (fzf/version.ts MIN) shows in fzf arguments: a
 * Record over its keys, so a feature added to the table without a way to see it here does not
 * compile. `null`: a property of fzf itself, nothing resume emits.
 */
type Seen = (arg: string, bind: string | null) => boolean;
const action =
  (name: string): Seen =>
  (_a, b) =>
    b !== null && new RegExp(`(^|[:+'])${name}($|[+'(])`).test(b.slice(b.indexOf(':', 1)));
const SEEN: Record<Feature, Seen | null> = {
  executeSilent: (_a, b) => !!b?.includes('execute-silent('),
  halfPage: action('half-page-(up|down)'),
  layout: (a) => a.startsWith('--layout'),
  reload: (_a, b) => !!b?.includes('reload('),
  clearQuery: action('clear-query'),
  previewHalfPage: action('preview-half-page-(up|down)'),
  changePrompt: (_a, b) => !!b?.includes('change-prompt('),
  disabled: (a) => a === '--disabled',
  firstLast: action('(first|last)'),
  unbind: (_a, b) => !!b?.includes('unbind('),
  rebind: (_a, b) => !!b?.includes('rebind('),
  previewAlt: (a) => a.startsWith('--preview-window') && /<\d+\(/.test(a),
  startEvent: (_a, b) => !!b?.startsWith('start:'),
  loadEvent: (_a, b) => !!b?.startsWith('load:'),
  transform: (_a, b) => b !== null && /(^|[:+])transform:/.test(b),
  envPrompt: (_a, b) => !!b?.includes('$FZF_PROMPT'),
  withShell: (a) => a.startsWith('--with-shell'),
  print: (_a, b) => !!b?.includes('print('),
  noColorEnv: null,
  multiKeyBind: (_a, b) => !!b?.slice(0, b.indexOf(':', 1)).includes(','),
};
const FEATURES = Object.keys(MIN) as Feature[];

/** Every feature of the table that a list of fzf arguments uses. */
function featuresUsed(args: string[]): Set<Feature> {
  const out = new Set<Feature>();
  for (const a of args) {
    const bind = a.startsWith('--bind=') ? a.slice('--bind='.length) : null;
    for (const f of FEATURES) if (SEEN[f]?.(a, bind)) out.add(f);
  }
  return out;
}

/** The versions on each side of every minimum in the table. */
const EDGES = FEATURES.flatMap((f) => {
  const [maj, min, patch] = must(parseVersion(MIN[f]));
  const below = patch > 0 ? [maj, min, patch - 1] : [maj, min - 1, 99];
  return [MIN[f], below.join('.')];
});

const VERSIONS = [
  '0.35.0',
  '0.38.0',
  '0.44.1',
  '0.45.0',
  '0.46.0',
  '0.50.0',
  '0.51.0',
  '0.53.0',
  '0.56.3',
  '0.59.0',
  '0.60.3',
  '0.66.0',
  '0.70.0',
];

describe('version table', () => {
  it('parses fzf --version output', () => {
    expect(parseVersion('0.38.0 (debian)')).toEqual([0, 38, 0]);
    expect(parseVersion('0.60.3 (brew)')).toEqual([0, 60, 3]);
    expect(parseVersion('0.44 (d7d2ac3)')).toEqual([0, 44, 0]);
    expect(parseVersion('fzf')).toBeNull();
    expect(cmpVersion(v('0.46.0'), v('0.45.9'))).toBeGreaterThan(0);
  });

  it('a feature is there from its minimum in the table on, and not a patch before', () => {
    for (let i = 0; i < EDGES.length; i += 2) {
      const f = FEATURES[i / 2];
      expect(has(v(EDGES[i]), f), `${f} at ${EDGES[i]}`).toBe(true);
      expect(has(v(EDGES[i + 1]), f), `${f} at ${EDGES[i + 1]}`).toBe(false);
    }
  });

  it('probes fzf --version once per binary, keyed by path and mtime', () => {
    const home = tempHome();
    const count = path.join(home, 'count');
    const bin = write(home, 'bin/fzf', `#!/bin/sh\necho x >> ${count}\necho '0.46.1 (test)'\n`);
    fs.chmodSync(bin, 0o755);
    const ctx = { env: { RESUME_CACHE_DIR: path.join(home, 'cache') }, home };
    expect(fzfVersion(ctx, bin)).toEqual([0, 46, 1]);
    expect(fzfVersion(ctx, bin)).toEqual([0, 46, 1]);
    expect(fs.readFileSync(count, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    // A new binary at the same path (another mtime) is probed again.
    fs.writeFileSync(bin, `#!/bin/sh\necho x >> ${count}\necho '0.60.3 (test)'\n`);
    fs.utimesSync(bin, 2000000000, 2000000000);
    expect(fzfVersion(ctx, bin)).toEqual([0, 60, 3]);
    expect(fs.readFileSync(count, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('a missing fzf is exit 2 naming what to install', () => {
    const home = tempHome();
    fs.mkdirSync(path.join(home, 'empty'));
    const r = run(home, ['__fzf-flags', 'picker'], { PATH: path.join(home, 'empty') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/fzf is not on PATH.*apt-get install fzf/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const r2 = run(home, ['__fzf-flags', 'picker'], { RESUME_FZF: '/nonexistent/fzf' });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/RESUME_FZF=\/nonexistent\/fzf is not an executable/);
  });
});

/** The flags generated for fzf `ver` in each keymap and context, with and without colour, named `keys/context`. */
function everyFlags(ver: string): { what: string; args: string[] }[] {
  const out: { what: string; args: string[] }[] = [];
  for (const keys of ['default', 'vim'] as const) {
    for (const context of ['picker', 'tab'] as const) {
      for (const extra of [{}, { noColor: true, ansi: true }]) {
        try {
          out.push({ what: `${keys}/${context}`, args: flags(ver, { keys, context, deepSearch: true, ...extra }).args });
        } catch (e) {
          // too old for this keymap or the picker: refused, never flags it cannot run
          expect(e).toBeInstanceOf(ExitError);
        }
      }
    }
  }
  return out;
}

describe('generated flags', () => {
  it('never use anything above the version they are generated for (every edge of the version table)', () => {
    const used = new Set<Feature>();
    for (const ver of [...VERSIONS, ...EDGES]) {
      for (const { what, args } of everyFlags(ver)) {
        for (const feat of featuresUsed(args)) {
          used.add(feat);
          expect(has(v(ver), feat), `${feat} (${MIN[feat]}) in ${what} flags for fzf ${ver}`).toBe(true);
        }
      }
    }
    // the check sees the table's versioned constructs in what is generated
    for (const f of ['withShell', 'print', 'transform', 'envPrompt', 'startEvent', 'unbind', 'rebind'] as const) expect(used).toContain(f);
  });

  it('0.38: SHELL=sh, the action file, and the bind/unbind table for vim mode', () => {
    const f = flags('0.38.0', { keys: 'vim' });
    expect(f.env).toEqual({ SHELL: 'sh' });
    expect(f.report).toBe('file');
    expect(f.args.join('\n')).not.toMatch(/--with-shell|transform|print\(|FZF_PROMPT/);
    expect(f.args).toContain('--bind=ctrl-y:execute-silent(printf %s print > "$RESUME_PICK_DIR/action")+accept');
    expect(f.args).toContain(`--prompt=${INSERT_PROMPT}`);
    const set = normalLetters('picker').join(',');
    expect(f.args).toContain(`--bind=start:unbind(${set})`);
    expect(f.args).toContain(`--bind=esc:rebind(${set})+change-prompt(${NORMAL_PROMPT})`);
    expect(f.args).toContain(`--bind=i:unbind(${set})+change-prompt(${INSERT_PROMPT})`);
    expect(f.args).toContain(`--bind=A:end-of-line+unbind(${set})+change-prompt(${INSERT_PROMPT})`);
    expect(f.args).toContain('--bind=j:down');
    expect(f.args).toContain('--bind=ctrl-d:half-page-down');
    expect(f.args).toContain('--bind=y:execute-silent(printf %s print > "$RESUME_PICK_DIR/action")+accept');
  });

  it('0.46: mode-dependent keys through transform reading $FZF_PROMPT', () => {
    const f = flags('0.46.0', { keys: 'vim' });
    const esc = must(f.args.find((a) => a.startsWith('--bind=esc:')));
    expect(esc).toMatch(/^--bind=esc:transform:if \[ "\$FZF_PROMPT" = 'N> ' \]; then echo abort; else echo 'rebind\(/);
    const ctrlD = must(f.args.find((a) => a.startsWith('--bind=ctrl-d:')));
    expect(ctrlD).toContain('then echo half-page-down; else echo delete-char; fi');
    expect(f.env).toEqual({ SHELL: 'sh' });
    expect(f.args.join('\n')).not.toMatch(/--with-shell|print\(/);
  });

  it('0.45: transform but no $FZF_PROMPT yet, so the 0.38 table', () => {
    const f = flags('0.45.0', { keys: 'vim' });
    expect(f.args.join('\n')).not.toContain('transform');
    expect(f.args).toContain('--bind=ctrl-u:half-page-up');
  });

  it('0.53 and later: --with-shell and print(...)', () => {
    for (const ver of ['0.53.0', '0.59.0', '0.66.0']) {
      const f = flags(ver, { keys: 'vim' });
      expect(f.env).toEqual({});
      expect(f.report).toBe('print');
      expect(f.args).toContain('--with-shell=sh -c');
      expect(f.args).toContain('--bind=ctrl-y:print(resume:print)+accept');
      expect(f.args).toContain('--bind=ctrl-o:print(resume:fork)+accept');
      expect(f.args).toContain('--bind=y:print(resume:print)+accept');
      expect(f.args.some((a) => a.startsWith('--bind=esc:transform:'))).toBe(true);
    }
  });

  it('the picker: hidden key field, resume matches (fzf reloads on each change), no sideways scroll, top-down, preview by absolute path, keys in the header', () => {
    const f = flags('0.38.0');
    expect(f.args).toEqual(
      expect.arrayContaining([
        '--delimiter=\\t',
        '--with-nth=2..',
        '--no-sort',
        '--disabled',
        '--no-hscroll',
        '--layout=reverse',
        '--header-lines=1',
      ]),
    );
    // the preview is told the typed words (preview --search: the prompt they name, or in deep search their evidence)
    expect(f.args).toContain(`--preview=${SELF} preview {1} --search {q}`);
    expect(flags('0.38.0', { deepSearch: true }).args).toContain(`--preview=${SELF} preview {1} --search {q}`);
    expect(f.args).toContain(`--bind=change:reload(${SELF} __feed --query {q})`);
    expect(f.args).toContain(`--bind=ctrl-t:reload(${SELF} __feed --toggle-hidden --query {q})`);
    expect(f.args).toContain(`--bind=ctrl-r:reload(${SELF} __feed --next-harness --query {q})`);
    // the preview goes below the list where, on the right, it would leave the list too narrow
    expect(f.args).toContain('--preview-window=right,50%,wrap,<70(down,40%,wrap)');
    const header = must(f.args.find((a) => a.startsWith('--header=')));
    expect(header).toContain('ctrl-y print');
    expect(header).toContain('ctrl-t hidden');
    // each line fits an 80-column terminal after fzf's two-column indent, in both keymaps
    for (const keys of ['default', 'vim'] as const) {
      for (const l of headerLine(keys, true).split('\n')) expect(l.length, l).toBeLessThanOrEqual(78);
    }
    expect(f.args.some((a) => a.startsWith('--prompt'))).toBe(false);
  });

  it("with the picker's load binding, each key that reloads the list unbinds load first", () => {
    const f = flags('0.48.0', { loadOnce: true, deepSearch: true });
    expect(f.args).toContain(`--bind=change:unbind(load)+reload(${SELF} __feed --query {q})`);
    expect(f.args).toContain(`--bind=ctrl-t:unbind(load)+reload(${SELF} __feed --toggle-hidden --query {q})`);
    expect(f.args).toContain(`--bind=ctrl-r:unbind(load)+reload(${SELF} __feed --next-harness --query {q})`);
    // (deep search: the state changed first, to its end, then the list reloaded)
    expect(f.args).toContain(
      `--bind=ctrl-s:execute-silent(${SELF} __feed --toggle-deep --state-only)+unbind(load)+reload(${SELF} __feed --query {q})`,
    );
    // without it (the input is the finished list), load is left to the user's own fzf options
    expect(flags('0.48.0', { deepSearch: true }).args.join('\n')).not.toContain('unbind(load)');
  });

  it('fzf-tab context: no --with-shell, `/` left alone, --no-sort kept', () => {
    for (const ver of ['0.38.0', '0.46.0', '0.53.0', '0.60.0']) {
      const f = flags(ver, { keys: 'vim', context: 'tab' });
      expect(f.args[0]).toBe('--no-sort');
      // (the preview's command is fzf-tab's zstyle: only where it goes, and the key that shows it)
      expect(f.args.join('\n')).not.toMatch(/--with-shell|--preview=|reload\(|__feed/);
      expect(f.args.some((a) => a.startsWith('--bind=/:'))).toBe(false);
      expect(f.args.some((a) => /unbind\([^)]*\/[,)]/.test(a))).toBe(false);
    }
    // beside the list where the picker's preview would be, hidden where it would go below (fzf-tab's
    // few lines leave it no room there); alt-p shows it
    expect(flags('0.60.0', { context: 'tab' }).args).toEqual([
      '--no-sort',
      '--preview-window=right,50%,wrap,<70(hidden)',
      '--bind=alt-p:toggle-preview',
    ]);
  });

  it('fzf_opts come last; --prompt is refused in vim mode; shell operators are refused', () => {
    const f = flags('0.38.0', { fzfOpts: "--height 60% --preview-window='up:40%'" });
    expect(f.args.slice(-3)).toEqual(['--height', '60%', '--preview-window=up:40%']);
    expect(() => flags('0.38.0', { keys: 'vim', fzfOpts: '--prompt=x' })).toThrow(/--prompt/);
    expect(() => flags('0.38.0', { keys: 'vim', fzfOpts: '--prompt x' })).toThrow(ExitError);
    expect(flags('0.38.0', { fzfOpts: '--prompt=x' }).args).toContain('--prompt=x');
    expect(() => splitOpts('--height 5; rm -rf /')).toThrow(/shell operators/);
    expect(splitOpts('--bind $X')).toEqual(['--bind', '$X']);
  });

  it('vim mode on an fzf without start/rebind is a clear exit 2', () => {
    try {
      flags('0.29.0', { keys: 'vim' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ExitError);
      expect((err as ExitError).code).toBe(2);
      expect((err as ExitError).message).toMatch(/keys = "vim" needs fzf >= 0\.35\.0, but fzf 0\.29\.0 is installed/);
    }
  });

  it('the picker on an fzf without reload is a clear exit 2', () => {
    expect(() => flags('0.18.0')).toThrow(/the picker needs fzf >= 0\.19\.0, but fzf 0\.18\.0 is installed/);
  });

  it.skipIf(needs('fzf'))("resume __fzf-flags tab prints the current config's flags as one line", () => {
    const home = tempHome();
    write(home, '.config/resume/config', 'keys = "vim"\nfzf_opts = "--height 50%"\n');
    const r = run(home, ['__fzf-flags', 'tab']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(r.stdout).toMatch(
      /^--no-sort '--preview-window=right,50%,wrap,<70\(hidden\)' --bind=alt-p:toggle-preview '--prompt=> ' '--bind=start:unbind\(/,
    );
    expect(r.stdout.trimEnd().endsWith(' --height 50%')).toBe(true);
    write(home, '.config/resume/config', 'keys = "default"\n');
    expect(run(home, ['__fzf-flags', 'tab']).stdout).toBe(
      "--no-sort '--preview-window=right,50%,wrap,<70(hidden)' --bind=alt-p:toggle-preview\n",
    );
    const bad = run(home, ['__fzf-flags', 'menu']);
    expect(bad.code).toBe(2);
  });

  it('NO_COLOR adds --no-color', () => {
    expect(flags('0.38.0', { noColor: true }).args).toContain('--no-color');
    expect(flags('0.38.0').args).not.toContain('--no-color');
  });

  it('the transform commands pick the action by the prompt in a POSIX shell', () => {
    const f = flags('0.46.0', { keys: 'vim' });
    for (const [key, normal, insert] of [
      ['ctrl-d', 'half-page-down', 'delete-char'],
      ['ctrl-u', 'half-page-up', 'unix-line-discard'],
      ['ctrl-f', 'page-down', 'forward-char'],
      ['ctrl-b', 'page-up', 'backward-char'],
      ['esc', 'abort', 'rebind('],
    ]) {
      const cmd = must(f.args.find((a) => a.startsWith(`--bind=${key}:transform:`))).slice(`--bind=${key}:transform:`.length);
      const sh = (prompt: string) =>
        spawnSync('sh', ['-c', cmd], { env: { FZF_PROMPT: prompt, PATH: process.env.PATH }, encoding: 'utf8' }).stdout.trim();
      expect(sh(NORMAL_PROMPT)).toBe(normal);
      expect(sh(INSERT_PROMPT).startsWith(insert)).toBe(true);
    }
  });

  it.skipIf(needs('fzf'))('the installed fzf accepts every generated flag set', () => {
    const out = spawnSync('fzf', ['--version'], { encoding: 'utf8' }).stdout;
    const installed = must(parseVersion(out));
    for (const keys of ['default', 'vim'] as const) {
      for (const context of ['picker', 'tab'] as const) {
        const f = fzfFlags({ version: installed, keys, fzfOpts: '--height 40%', context, self: SELF, deepSearch: true, noColor: true });
        const r = spawnSync('fzf', ['--filter', 'x', ...f.args], {
          input: 'status\tx\nk\tx\n',
          encoding: 'utf8',
          env: { ...process.env, ...f.env },
        });
        expect(r.status, `${keys}/${context}: ${r.stderr}`).toBe(0);
      }
    }
  });
});

describe('picker list', () => {
  it('pads the visible columns so they line up, the key stays the first field', () => {
    const lines = alignRows([
      ['claude:1', 'aaaaaaaa', '3m', 'claude', '~/a', 'main', 'first title'],
      ['codex:2', 'bbbbbbbbbb', '12d', 'codex', '~/longer/dir', '', 'second'],
    ]);
    expect(lines[0]).toBe('claude:1\taaaaaaaa    3m   claude  ~/a           main  first title');
    expect(lines[1]).toBe('codex:2\tbbbbbbbbbb  12d  codex   ~/longer/dir        second');
  });

  it('colours the age and harness only, padding outside the colour (fzf --ansi matches the plain text)', () => {
    const rows = [
      ['claude:1', 'aaaaaaaa', '3m', 'claude', '~/a', 'main', 't'],
      ['codex:2', 'bbbbbbbb', '12d', 'codex', '~/b', 'main', 'u'],
    ];
    const plain = alignRows(rows);
    const coloured = alignRows(rows, true);
    expect(coloured[0]).toContain('\x1b[2m3m\x1b[0m');
    expect(coloured[1]).toMatch(/\x1b\[38;5;\d+mcodex\x1b\[0m {3}~\/b/);
    expect(coloured.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''))).toEqual(plain);
    expect(flags('0.38.0', { ansi: true }).args).toContain('--ansi');
    expect(flags('0.38.0').args).not.toContain('--ansi');
  });

  it('cycles the harness filter through the harnesses present', () => {
    const s = (harness: string) => ({ harness }) as Session;
    const all = [s('pi'), s('claude'), s('pi')];
    expect(nextHarness(null, all)).toEqual(['claude']);
    expect(nextHarness(['claude'], all)).toEqual(['pi']);
    expect(nextHarness(['pi'], all)).toBeNull();
    expect(nextHarness(['claude', 'pi'], all)).toEqual(['claude']);
  });
});
